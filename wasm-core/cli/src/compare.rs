//! `slabscope compare FILE`: one scenario under SLUB and under SLAB, side by side (slabs and
//! pages, waste, objects cached per CPU, node list_lock acquisitions per node and per kind of
//! operation, steps by path), then both /proc/slabinfo files.

use clap::Args;
use slabscope_run::compare::{compare, render};
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
}

pub fn run(args: CompareArgs) -> Result<(), String> {
    let shown = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{shown}: {e}"))?;
    let scenario = parse(&text).map_err(|e| crate::run::located(&shown, &e))?;
    let c = compare(&scenario).map_err(|e| format!("{shown}: {e}"))?;
    let out = if args.json {
        serde_json::to_string_pretty(&c).map_err(|e| e.to_string())? + "\n"
    } else {
        render(&c)
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
