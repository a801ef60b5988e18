//! `slabscope workload`: times the standard workload (`slabscope_sim::workload`, documented in
//! docs/bench.md) natively, for `npm run bench`. Prints one JSON object.

use clap::Args;
use slabscope_sim::workload::{run_concurrent_ops, run_standard_ops, standard_recorder_under};

#[derive(Args)]
pub struct WorkloadArgs {
    /// Operations to run (each one kmalloc or one kfree).
    #[arg(long, default_value_t = 1_000_000)]
    ops: u64,
    /// Record the trace (steps, events, keyframes) as the app does.
    #[arg(long)]
    trace: bool,
    /// Seed of the workload's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The concurrent workload: the same mix on the 4 CPUs at once, interleaved at SLUB's
    /// micro-steps by a random schedule seeded with the seed.
    #[arg(long)]
    concurrent: bool,
    /// The kernel profile to run (default linux-6.6).
    #[arg(long, default_value = "linux-6.6")]
    profile: String,
}

/// The standard machine, booted under `--profile`.
fn recorder(args: &WorkloadArgs) -> Result<slabscope_sim::trace::Recorder, String> {
    let profile = slabscope_sim::profile::by_id(&args.profile)
        .ok_or_else(|| format!("unknown kernel profile '{}'", args.profile))?;
    Ok(standard_recorder_under(profile, args.trace))
}

// A benchmark measures wall time; the simulator itself never sees the clock.
#[allow(clippy::disallowed_methods)]
pub fn run(args: &WorkloadArgs) -> Result<(), String> {
    if args.concurrent {
        return run_concurrent(args);
    }
    let mut rec = recorder(args)?;
    let start = std::time::Instant::now();
    let report = run_standard_ops(&mut rec, args.ops, args.seed);
    let seconds = start.elapsed().as_secs_f64();
    let trace_bytes = rec.trace_bytes();
    let out = serde_json::json!({
        "ops": report.ops,
        "seconds": seconds,
        "ops_per_sec": report.ops as f64 / seconds,
        "steps": report.steps,
        "events": report.events,
        "trace_bytes": trace_bytes,
        "live_at_end": report.live_at_end,
        "slabs_at_end": report.slabs_at_end,
    });
    println!("{out}");
    Ok(())
}

/// `--concurrent`.
#[allow(clippy::disallowed_methods)]
fn run_concurrent(args: &WorkloadArgs) -> Result<(), String> {
    let mut rec = recorder(args)?;
    let start = std::time::Instant::now();
    let report = run_concurrent_ops(&mut rec, args.ops, args.seed);
    let seconds = start.elapsed().as_secs_f64();
    let out = serde_json::json!({
        "ops": report.ops,
        "seconds": seconds,
        "ops_per_sec": report.ops as f64 / seconds,
        "micro_steps": report.micro_steps,
        "micro_steps_per_sec": report.micro_steps as f64 / seconds,
        "steps": report.steps,
        "events": report.events,
        "retries": report.retries,
        "lock_spins": report.lock_spins,
        "trace_bytes": rec.trace_bytes(),
        "live_at_end": report.live_at_end,
    });
    println!("{out}");
    Ok(())
}
