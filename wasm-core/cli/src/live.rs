//! `slabscope live`: the standard workload with every simulated CPU on its own thread over one
//! shared memory (docs/live.md). A recorded run (the default) is replayed on the interleaving
//! engine and the two final states compared; a mismatch is an error (exit 1). Prints one JSON
//! object: ops/s per thread and in total, retries per million operations by site, `list_lock`
//! acquisitions and waits, tid mismatches, and the replay's verdict.

use clap::{Args, ValueEnum};
use slabscope_sim::live::report::LiveReport;
use slabscope_sim::live::run::{run_threads, Frees, LiveJob};
use slabscope_sim::live::LiveRefusal;

#[derive(Clone, Copy, ValueEnum)]
enum FreesArg {
    /// Each thread frees only what it allocated.
    Local,
    /// Any thread frees any thread's objects (the standard workload's mix).
    Remote,
}

#[derive(Args)]
pub struct LiveArgs {
    /// Run the standard workload (docs/bench.md) live.
    #[arg(long, required = true)]
    workload: bool,
    /// Threads, one per simulated CPU (the machine has as many CPUs).
    #[arg(long, default_value_t = 2)]
    threads: u32,
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
pub fn run(args: &LiveArgs) -> Result<(), String> {
    let frees = match args.frees {
        FreesArg::Local => Frees::Local,
        FreesArg::Remote => Frees::Remote,
    };
    let record = !args.no_record;
    let job = LiveJob::new(args.threads, args.ops, args.seed, frees, record)
        .map_err(|LiveRefusal::Unsupported(why)| format!("cannot run live: {why}"))?;
    let run = run_threads(job, |work| {
        let start = std::time::Instant::now();
        work();
        start.elapsed().as_secs_f64()
    });
    let report = LiveReport::of(&run, frees, record);
    println!(
        "{}",
        serde_json::to_string(&report).expect("a report serialises")
    );
    match report.replay.and_then(|r| r.mismatch) {
        Some(m) => Err(format!("the replay differs from the live run: {m}")),
        None => Ok(()),
    }
}
