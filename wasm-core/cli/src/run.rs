//! `slabscope run FILE`: parses a scenario, runs it, and prints the trace and the kernel files
//! (`/proc/buddyinfo`, `/proc/slabinfo`, a cache's `/sys/kernel/slab/<cache>/` attributes) at
//! the end or at a step. `--check` replays the run checking what each step touched after it,
//! and everything at every keyframe and at the end (`machine::check::check_trace`).

use clap::{Args, ValueEnum};
use slabscope_sim::buddyinfo::buddyinfo;
use slabscope_sim::machine::check::{check_trace, FullChecks};
use slabscope_sim::scenario::{parse, run as run_scenario};
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::sysfs::sysfs_dir;
use slabscope_sim::trace::text::format_step;
use slabscope_sim::trace::{Recorder, Step};
use std::io::Write;
use std::path::PathBuf;

#[derive(Clone, Copy, ValueEnum)]
pub enum TraceFormat {
    Text,
    Json,
}

#[derive(Args)]
pub struct RunArgs {
    /// The scenario file (format: docs/scenario-format.md).
    file: PathBuf,
    /// Show the state after this many steps instead of at the end.
    #[arg(long, value_name = "STEP")]
    at: Option<usize>,
    /// Print the trace of steps and their events.
    #[arg(long, value_name = "FORMAT")]
    trace: Option<TraceFormat>,
    /// Print /proc/buddyinfo.
    #[arg(long)]
    buddyinfo: bool,
    /// Print /proc/slabinfo.
    #[arg(long)]
    slabinfo: bool,
    /// Print every attribute of /sys/kernel/slab/CACHE/, one `path: value` line each (CACHE may
    /// also be the name of a cache merged into another).
    #[arg(long, value_name = "CACHE")]
    sysfs: Option<String>,
    /// Check the invariants: what each step touched after it, everything at every keyframe and
    /// at the end; exit 1 at the first violation, naming the step after which it was found.
    #[arg(long)]
    check: bool,
}

/// A parse error as `FILE:LINE:COLUMN: message`, with its hint on the next line.
pub fn located(shown: &str, e: &slabscope_sim::scenario::ParseError) -> String {
    let mut s = format!("{shown}:{}:{}: {}", e.line, e.column, e.message);
    if let Some(hint) = &e.hint {
        s.push_str(&format!("\n  hint: {hint}"));
    }
    s
}

pub fn run(args: RunArgs) -> Result<(), String> {
    let shown = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{shown}: {e}"))?;
    let scenario = parse(&text).map_err(|e| located(&shown, &e))?;
    let rec = run_scenario(&scenario, true).map_err(|e| format!("{shown}: {e}"))?;
    let end = rec.cursor();
    let at = args.at.unwrap_or(end);
    if at > end {
        return Err(format!("--at {at}: the run has {end} steps"));
    }
    // Read before anything is printed, so that an unknown cache leaves stdout empty.
    let sysfs = match &args.sysfs {
        Some(_) if scenario.allocator == slabscope_sim::scenario::Allocator::Slab => {
            // Refused before printing anything, as any sysfs error is.
            return Err(format!(
                "--sysfs: {}",
                slabscope_sim::sysfs::SysfsError::NotSlub
            ));
        }
        Some(cache) => {
            let machine = rec.snapshot_at(at).ok_or("no snapshot")?;
            let dir = sysfs_dir(&machine, cache).map_err(|e| e.to_string())?;
            Some((cache.clone(), dir))
        }
        None => None,
    };
    if args.check {
        eprintln!("{}", check(&rec)?);
    }
    // Everything goes through one buffered writer; a reader that stops early (`| head`) ends
    // the output quietly instead of a panic on the broken pipe.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match write_output(&mut out, &args, &rec, at, end, sysfs.as_ref()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e.to_string()),
        Ok(()) => Ok(()),
    }
}

/// `--check`: the line to print when every invariant held, or the first violation with the
/// step after which it was found.
fn check(rec: &Recorder) -> Result<String, String> {
    let summary = check_trace(rec, FullChecks::Keyframes).map_err(|v| v.to_string())?;
    Ok(format!(
        "check: {} steps, every invariant held after each (what each step touched, after it; \
         everything {} times: at the start, every keyframe and the end)",
        summary.steps, summary.full_checks
    ))
}

type SysfsDir = (String, Vec<(&'static str, String)>);

fn write_output(
    out: &mut impl Write,
    args: &RunArgs,
    rec: &Recorder,
    at: usize,
    end: usize,
    sysfs: Option<&SysfsDir>,
) -> std::io::Result<()> {
    let snapshot = || {
        rec.snapshot_at(at)
            .ok_or_else(|| std::io::Error::other("no snapshot at this step"))
    };
    match args.trace {
        Some(TraceFormat::Text) => {
            for i in 0..at {
                if let Some(step) = rec.step(i) {
                    out.write_all(format_step(i + 1, &step).as_bytes())?;
                }
            }
        }
        Some(TraceFormat::Json) => {
            let steps: Vec<Step> = (0..at).filter_map(|i| rec.step(i)).collect();
            serde_json::to_writer_pretty(&mut *out, &steps).map_err(std::io::Error::other)?;
            writeln!(out)?;
        }
        None => {}
    }
    if args.buddyinfo {
        out.write_all(buddyinfo(&snapshot()?).as_bytes())?;
    }
    if args.slabinfo {
        out.write_all(slabinfo(&snapshot()?).as_bytes())?;
    }
    if let Some((cache, dir)) = sysfs {
        for (attr, value) in dir {
            // The kernel's show functions end every value with a newline; one line each here.
            let value = value.strip_suffix('\n').unwrap_or(value);
            writeln!(out, "/sys/kernel/slab/{cache}/{attr}: {value}")?;
        }
    }
    if args.trace.is_none() && !args.buddyinfo && !args.slabinfo && sysfs.is_none() {
        writeln!(out, "{end} steps")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;
    use slabscope_sim::machine::{FrameState, Owner};
    use slabscope_sim::scenario::{parse, run};
    use slabscope_sim::trace::Event;

    /// A run whose last step breaks the page allocator: `--check` names that step.
    #[test]
    fn check_names_the_step_after_which_an_invariant_broke() {
        let text = "slabscope-scenario 1\nmachine cpus=1 nodes=1 memory=64K\n\
                    p = alloc_pages(0) on cpu0\nfree_pages(p) on cpu0\n";
        let mut rec = run(&parse(text).unwrap(), true).unwrap();
        assert!(check(&rec).unwrap().contains("every invariant held"));
        // A block handed out while it is still on its free list.
        let (pfn, order) = (0..rec.machine().frames.len() as u32)
            .find_map(|pfn| match rec.machine().frames[pfn as usize].state {
                FrameState::Buddy { order } => Some((pfn, order)),
                _ => None,
            })
            .expect("a free block");
        rec.begin("test", "", "step.internal");
        rec.emit(Event::PagesAllocated {
            pfn,
            order,
            owner: Owner::Pages,
        });
        rec.end();
        let err = check(&rec).unwrap_err();
        let step = rec.cursor();
        assert!(
            err.starts_with(&format!("invariant violated after step {step}:\n  ")),
            "{err}"
        );
    }
}
