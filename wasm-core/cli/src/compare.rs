//! `slabscope compare FILE`: one scenario under SLUB and under SLAB, side by side (slabs and
//! pages, waste, objects cached per CPU, node list_lock acquisitions per node and per kind of
//! operation, steps by path), then both /proc/slabinfo files. With `--profiles A,B`, under
//! two kernel profiles instead (each with the scenario's allocator).

use clap::Args;
use slabscope_run::compare::{compare, compare_variants, render, render_sides, side_label};
use slabscope_scenario::parse;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct CompareArgs {
    /// The scenario file (its `allocator` line is ignored: both run).
    file: PathBuf,
    /// Print the comparison as JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Two kernel profiles to compare instead of the two allocators, e.g.
    /// `linux-6.6,linux-7.2` (the scenario's own allocator runs under both).
    #[arg(long, value_delimiter = ',', num_args = 1)]
    profiles: Vec<String>,
}

pub fn run(args: CompareArgs) -> Result<(), String> {
    let shown = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{shown}: {e}"))?;
    let scenario = parse(&text).map_err(|e| crate::run::located(&shown, &e))?;
    let out = if args.profiles.is_empty() {
        let c = compare(&scenario).map_err(|e| format!("{shown}: {e}"))?;
        if args.json {
            serde_json::to_string_pretty(&c).map_err(|e| e.to_string())? + "\n"
        } else {
            render(&c)
        }
    } else {
        profiles(&scenario, &args.profiles, args.json, &shown)?
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(out.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// The comparison of `--profiles A,B`.
fn profiles(
    scenario: &slabscope_scenario::Scenario,
    ids: &[String],
    json: bool,
    shown: &str,
) -> Result<String, String> {
    if ids.len() != 2 {
        return Err(format!(
            "--profiles takes two kernel profiles, e.g. --profiles linux-6.6,linux-7.2 (known: {})",
            slabscope_scenario::PROFILES.join(", ")
        ));
    }
    let allocator = slabscope_run::translate::allocator(scenario.allocator);
    let (a, b) = compare_variants(scenario, (&ids[0], allocator), (&ids[1], allocator))
        .map_err(|e| format!("{shown}: {e}"))?;
    let (a, b) = (&a, &b);
    if json {
        let value = serde_json::json!({ "sides": [a, b] });
        return Ok(serde_json::to_string_pretty(&value).map_err(|e| e.to_string())? + "\n");
    }
    Ok(render_sides((&side_label(a, b), a), (&side_label(b, a), b)))
}
