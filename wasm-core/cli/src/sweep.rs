//! `slabscope sweep`: the geometry explorer's grid from the terminal, on N threads, with the
//! time it took. The timing is the CLI's own business; the simulator has no clock.

use crate::{BootArgs, FlagArgs};
use clap::Args;
use slabscope_sim::sweep::{SweepGrid, SweepJob, SWEEP_COLUMNS};

#[derive(Args)]
pub struct SweepArgs {
    /// Smallest object size.
    #[arg(long, default_value_t = 8)]
    size_from: u32,
    /// Largest object size.
    #[arg(long, default_value_t = 8192)]
    size_to: u32,
    /// Size step.
    #[arg(long, default_value_t = 1)]
    size_step: u32,
    /// CPU counts: numbers and ranges, e.g. "1,2,4-8".
    #[arg(long, default_value = "1-64", value_parser = parse_cpu_list)]
    cpus: CpuList,
    /// Page sizes, comma-separated.
    #[arg(long, default_value = "4096,16384,65536", value_delimiter = ',')]
    page_sizes: Vec<u32>,
    /// The align argument of kmem_cache_create().
    #[arg(long, default_value_t = 0)]
    align: u32,
    #[command(flatten)]
    flags: FlagArgs,
    #[command(flatten)]
    boot: BootArgs,
    /// Threads that share the sweep.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    threads: u32,
    /// Print the table as CSV on stdout (the summary goes to stderr).
    #[arg(long)]
    csv: bool,
    /// The kernel whose kmem_cache_create() lays the caches out: linux-6.6 (default),
    /// linux-6.12, linux-6.18 or linux-7.2.
    #[arg(long, default_value = "linux-6.6")]
    profile: String,
}

/// A parsed `--cpus` value.
#[derive(Clone)]
struct CpuList(Vec<u32>);

/// "1,2,4-8" → [1, 2, 4, 5, 6, 7, 8].
fn parse_cpu_list(text: &str) -> Result<CpuList, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let lo: u32 = lo
            .parse()
            .map_err(|_| format!("'{part}' is not a number or range"))?;
        let hi: u32 = hi
            .parse()
            .map_err(|_| format!("'{part}' is not a number or range"))?;
        if lo == 0 || hi > 64 || lo > hi {
            return Err(format!("'{part}' is outside 1-64"));
        }
        out.extend(lo..=hi);
    }
    out.sort_unstable();
    out.dedup();
    if out.is_empty() {
        return Err("no CPU count given".into());
    }
    Ok(CpuList(out))
}

pub fn run(args: SweepArgs) -> Result<(), String> {
    let grid = SweepGrid {
        size_from: args.size_from,
        size_to: args.size_to,
        size_step: args.size_step,
        cpus: args.cpus.0,
        page_sizes: args.page_sizes,
        align: args.align,
        flags: args.flags.slab_flags(),
        ctor: args.flags.ctor,
        slub_min_objects: args.boot.slub_min_objects,
        slub_max_order: args.boot.slub_max_order,
        slub_min_order: args.boot.slub_min_order,
        profile: args.profile,
    };
    let job = SweepJob::new(grid).map_err(|e| e.to_string())?;
    #[allow(clippy::disallowed_methods)] // measuring the CLI's own run, not simulated time
    let start = std::time::Instant::now();
    std::thread::scope(|s| {
        for _ in 0..args.threads {
            s.spawn(|| job.work());
        }
    });
    let seconds = start.elapsed().as_secs_f64();
    if !job.is_complete() {
        return Err("sweep ended with points left uncomputed".into());
    }
    let summary = serde_json::json!({
        "points": job.len(),
        "threads": args.threads,
        "ms": seconds * 1e3,
        "points_per_second": job.len() as f64 / seconds,
    });
    if args.csv {
        println!("{}", SWEEP_COLUMNS.join(","));
        let rows = job.rows();
        for row in rows.chunks(SWEEP_COLUMNS.len()) {
            let cells: Vec<String> = row.iter().map(u32::to_string).collect();
            println!("{}", cells.join(","));
        }
        eprintln!("{summary}");
    } else {
        println!("{summary}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::parse_cpu_list;

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("4-6, 1,5").unwrap().0, [1, 4, 5, 6]);
        assert!(parse_cpu_list("0").is_err());
        assert!(parse_cpu_list("2-1").is_err());
        assert!(parse_cpu_list("x").is_err());
        assert!(parse_cpu_list(" ").is_err());
    }
}
