//! `slabscope live`: a scenario's `concurrent` blocks (`slabscope live FILE`) or the standard
//! workload (`--workload`), with every simulated CPU on its own thread over one shared memory
//! (docs/live.md). A recorded run (always, for a scenario) is replayed on the interleaving
//! engine and the states compared; a mismatch is an error (exit 1). Prints one JSON object:
//! ops/s per thread and in total, retries per million operations by site, `list_lock`
//! acquisitions and waits, tid mismatches, and the replay's verdict (for a scenario, per block,
//! with the scenario that replays the run).

use clap::{Args, ValueEnum};
use slabscope_run::live_file::{block_cpus, run_file};
use slabscope_sim::live::report::LiveReport;
use slabscope_sim::live::run::{run_threads, Frees, LiveJob};

#[derive(Clone, Copy, ValueEnum)]
enum FreesArg {
    /// Each thread frees only what it allocated.
    Local,
    /// Any thread frees any thread's objects (the standard workload's mix).
    Remote,
}

#[derive(Args)]
pub struct LiveArgs {
    /// A scenario whose `concurrent` blocks run live, one thread per CPU of each block.
    #[arg(required_unless_present = "workload", conflicts_with = "workload")]
    file: Option<std::path::PathBuf>,
    /// Run the standard workload (docs/bench.md) live.
    #[arg(long)]
    workload: bool,
    /// Threads, one per simulated CPU: for the workload, the machine's CPUs (2 if not given);
    /// for a scenario, checked against the CPUs each block runs on.
    #[arg(long)]
    threads: Option<u32>,
    /// (A scenario) write the scenario that replays the run here.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Operations over all threads.
    #[arg(long, default_value_t = 1_000_000)]
    ops: u64,
    /// Seed of the workload's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Whose objects a thread frees.
    #[arg(long, value_enum, default_value = "remote")]
    frees: FreesArg,
    /// Do not record (and so do not replay): the run's own speed.
    #[arg(long)]
    no_record: bool,
}

// Threads' work is timed with the wall clock; the simulator itself never sees it.
#[allow(clippy::disallowed_methods)]
fn timed(work: &dyn Fn()) -> f64 {
    let start = std::time::Instant::now();
    work();
    start.elapsed().as_secs_f64()
}

pub fn run(args: &LiveArgs) -> Result<(), String> {
    if let Some(file) = &args.file {
        return run_scenario(args, file);
    }
    let frees = match args.frees {
        FreesArg::Local => Frees::Local,
        FreesArg::Remote => Frees::Remote,
    };
    let record = !args.no_record;
    let job = LiveJob::new(
        args.threads.unwrap_or(2),
        args.ops,
        args.seed,
        frees,
        record,
    )
    .map_err(|refusal| format!("cannot run live: {refusal}"))?;
    let run = run_threads(job, timed);
    let report = LiveReport::of(&run, frees);
    println!(
        "{}",
        serde_json::to_string(&report).expect("a report serialises")
    );
    match report.replay.and_then(|r| r.mismatch) {
        Some(m) => Err(format!("the replay differs from the live run: {m}")),
        None => Ok(()),
    }
}

/// `slabscope live FILE`.
fn run_scenario(args: &LiveArgs, file: &std::path::Path) -> Result<(), String> {
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|e| format!("{shown}: {e}"))?;
    if let Some(threads) = args.threads {
        let scenario =
            slabscope_scenario::parse(&text).map_err(|e| crate::run::located(&shown, &e))?;
        for (line, cpus) in block_cpus(&scenario) {
            if cpus.len() != threads as usize {
                let list: Vec<String> = cpus.iter().map(|c| format!("cpu{c}")).collect();
                return Err(format!(
                    "{shown}: line {line}: the block runs on {} CPUs ({}), one thread each; --threads {threads} asks for {threads}",
                    cpus.len(),
                    list.join(", ")
                ));
            }
        }
    }
    match run_file(&text, timed) {
        Ok(report) => {
            if let Some(out) = &args.out {
                std::fs::write(out, &report.replay)
                    .map_err(|e| format!("{}: {e}", out.display()))?;
            }
            println!(
                "{}",
                serde_json::to_string(&report).expect("a report serialises")
            );
            Ok(())
        }
        Err((e, blocks)) => {
            if !blocks.is_empty() {
                println!(
                    "{}",
                    serde_json::to_string(&blocks).expect("a report serialises")
                );
            }
            Err(format!("{shown}: {e}"))
        }
    }
}
