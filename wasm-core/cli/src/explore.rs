//! `slabscope explore FILE`: every schedule of the scenario's first `concurrent` block within
//! bounds, grouped by outcome (run/src/explore.rs).

use clap::Args;
use slabscope_run::explore::{exploration_text, explore, Bounds};
use slabscope_scenario::parse;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct ExploreArgs {
    /// The scenario file: its first `concurrent` block is explored.
    file: PathBuf,
    /// Forced context switches a schedule may make (running another CPU while the last one
    /// could go on, a preemption, an interrupt).
    #[arg(long, default_value_t = Bounds::default().preemptions)]
    preemptions: u32,
    /// Schedules to run at most.
    #[arg(long, default_value_t = Bounds::default().max_schedules)]
    max_schedules: usize,
    /// Print the exploration as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ExploreArgs) -> Result<(), String> {
    let shown = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{shown}: {e}"))?;
    let scenario = parse(&text).map_err(|e| crate::run::located(&shown, &e))?;
    let bounds = Bounds {
        preemptions: args.preemptions,
        max_schedules: args.max_schedules,
    };
    let e = explore(&scenario, bounds).map_err(|e| format!("{shown}: {e}"))?;
    let out = if args.json {
        serde_json::to_string_pretty(&e).map_err(|e| e.to_string())? + "\n"
    } else {
        exploration_text(&e)
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
