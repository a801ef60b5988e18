//! `slabscope run FILE`: parses a scenario, runs it, and prints the trace and the kernel files
//! (`/proc/buddyinfo`, `/proc/slabinfo`, a cache's `/sys/kernel/slab/<cache>/` attributes) at
//! the end or at one or more steps, with the files the scenario's own `print` lines ask for at
//! their points of the same run. `--check` replays the run checking what each step touched
//! after it, and everything at every keyframe and at the end (`machine::check::check_trace`).
//!
//! Output order: the points of the run (every `--at`, every `print` line) in cursor order, a
//! `print` before the `--at` files of the same cursor; with `--trace text` each point's files
//! come right after the steps that lead to it. A point's files are headed `--- …` whenever
//! there is more than one point, so one `--at` (or none) prints exactly as it always did.

use clap::{Args, ValueEnum};
use slabscope_run::concurrent::block_text;
use slabscope_run::{print_heading, print_text, run_with_summary, sysfs_text, PrintMark};
use slabscope_scenario::parse;
use slabscope_sim::buddyinfo::buddyinfo;
use slabscope_sim::machine::check::{check_trace, FullChecks};
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::sysfs::{sysfs_slab_dir, sysfs_slab_dir_text};
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
    /// Show the state after this many steps instead of at the end; repeat it for several
    /// points of the same run (`--at 5 --at 20`).
    #[arg(long, value_name = "STEP")]
    at: Vec<usize>,
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
    /// also be the name of a cache merged into another, or a unique id such as :0000256).
    /// Without CACHE, list /sys/kernel/slab/ itself: `path/` for a directory, `path -> target`
    /// for a symlink.
    #[arg(long, value_name = "CACHE", num_args = 0..=1, default_missing_value = "")]
    sysfs: Option<String>,
    /// Leave out what the scenario's `print` lines show.
    #[arg(long)]
    no_print: bool,
    /// Check the invariants: what each step touched after it, everything at every keyframe and
    /// at the end; exit 1 at the first violation (known damage included), naming the step
    /// after which it was found.
    #[arg(long)]
    check: bool,
}

/// A parse error as `FILE:LINE:COLUMN: message`, with its hint on the next line.
pub fn located(shown: &str, e: &slabscope_scenario::ParseError) -> String {
    let mut s = format!("{shown}:{}:{}: {}", e.line, e.column, e.message);
    if let Some(hint) = &e.hint {
        s.push_str(&format!("\n  hint: {hint}"));
    }
    s
}

/// One place the output shows files: a `print` line, or an `--at` point.
enum Point<'a> {
    Print(&'a PrintMark),
    /// The files the flags ask for, with `--sysfs`'s text read beforehand.
    At {
        cursor: usize,
        sysfs: Option<String>,
    },
}

impl Point<'_> {
    fn cursor(&self) -> usize {
        match self {
            Point::Print(mark) => mark.cursor,
            Point::At { cursor, .. } => *cursor,
        }
    }
}

pub fn run(args: RunArgs) -> Result<(), String> {
    let shown = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{shown}: {e}"))?;
    let scenario = parse(&text).map_err(|e| located(&shown, &e))?;
    let (rec, summary) = run_with_summary(&scenario, true).map_err(|e| format!("{shown}: {e}"))?;
    let end = rec.cursor();
    let mut at = args.at.clone();
    at.sort_unstable();
    at.dedup();
    if let Some(&past) = at.iter().find(|&&a| a > end) {
        return Err(format!("--at {past}: the run has {end} steps"));
    }
    let last = at.last().copied().unwrap_or(end);
    if at.is_empty() {
        at.push(end);
    }
    // Read before anything is printed, so that an unknown cache leaves stdout empty.
    let mut points = Vec::new();
    for &cursor in &at {
        let sysfs = match &args.sysfs {
            Some(_) if scenario.allocator == slabscope_scenario::Allocator::Slab => {
                // Refused before printing anything, as any sysfs error is.
                return Err(format!(
                    "--sysfs: {}",
                    slabscope_sim::sysfs::SysfsError::NotSlub
                ));
            }
            Some(cache) if cache.is_empty() => {
                // No cache named: the listing of /sys/kernel/slab/ itself.
                let machine = rec.snapshot_at(cursor).ok_or("no snapshot")?;
                let entries = sysfs_slab_dir(&machine).map_err(|e| e.to_string())?;
                let listing: String = sysfs_slab_dir_text(&entries)
                    .lines()
                    .map(|line| format!("/sys/kernel/slab/{line}\n"))
                    .collect();
                Some(listing)
            }
            Some(cache) => {
                let machine = rec.snapshot_at(cursor).ok_or("no snapshot")?;
                Some(sysfs_text(&machine, cache).map_err(|e| e.to_string())?)
            }
            None => None,
        };
        points.push(Point::At { cursor, sysfs });
    }
    if !args.no_print {
        points.extend(
            summary
                .prints
                .iter()
                .filter(|p| p.cursor <= last)
                .map(Point::Print),
        );
    }
    // A print comes before the --at files of its cursor (stable: prints keep their order).
    points.sort_by_key(|p| (p.cursor(), matches!(p, Point::At { .. })));
    if args.check {
        eprintln!("{}", check(&rec)?);
    }
    // Everything goes through one buffered writer; a reader that stops early (`| head`) ends
    // the output quietly instead of a panic on the broken pipe.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let blocks = |out: &mut dyn Write| -> std::io::Result<()> {
        // What each concurrent block did (not in the JSON trace, which stays one document).
        if !matches!(args.trace, Some(TraceFormat::Json)) {
            for b in &summary.blocks {
                out.write_all(block_text(&rec, b).as_bytes())?;
            }
        }
        Ok(())
    };
    let written = write_output(&mut out, &args, &rec, &points, last, end)
        .and_then(|()| blocks(&mut out))
        .and_then(|()| out.flush());
    match written {
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

fn write_output(
    out: &mut impl Write,
    args: &RunArgs,
    rec: &Recorder,
    points: &[Point],
    last: usize,
    end: usize,
) -> std::io::Result<()> {
    let snapshot = |cursor: usize| {
        rec.snapshot_at(cursor)
            .ok_or_else(|| std::io::Error::other("no snapshot at this step"))
    };
    let files = args.buddyinfo || args.slabinfo || args.sysfs.is_some();
    // Headings only when there is more than one block to tell apart.
    let blocks = points
        .iter()
        .filter(|p| files || matches!(p, Point::Print(_)))
        .count();
    let headed = blocks > 1;
    let mut traced = 0;
    let mut trace_to = |out: &mut dyn Write, to: usize| -> std::io::Result<()> {
        if let Some(TraceFormat::Text) = args.trace {
            for i in traced..to {
                if let Some(step) = rec.step(i) {
                    out.write_all(format_step(i + 1, &step).as_bytes())?;
                }
            }
            traced = traced.max(to);
        }
        Ok(())
    };
    if let Some(TraceFormat::Json) = args.trace {
        let steps: Vec<Step> = (0..last).filter_map(|i| rec.step(i)).collect();
        serde_json::to_writer_pretty(&mut *out, &steps).map_err(std::io::Error::other)?;
        writeln!(out)?;
    }
    for point in points {
        trace_to(out, point.cursor())?;
        match point {
            Point::Print(mark) => {
                writeln!(out, "--- {}", print_heading(mark))?;
                match print_text(&snapshot(mark.cursor)?, &mark.file) {
                    Ok(text) => out.write_all(text.as_bytes())?,
                    Err(e) => writeln!(out, "{e}")?,
                }
            }
            Point::At { cursor, sysfs } => {
                if !files {
                    continue;
                }
                if headed {
                    writeln!(out, "--- after step {cursor}")?;
                }
                if args.buddyinfo {
                    out.write_all(buddyinfo(&snapshot(*cursor)?).as_bytes())?;
                }
                if args.slabinfo {
                    out.write_all(slabinfo(&snapshot(*cursor)?).as_bytes())?;
                }
                if let Some(text) = sysfs {
                    out.write_all(text.as_bytes())?;
                }
            }
        }
    }
    trace_to(out, last)?;
    if args.trace.is_none() && !files {
        writeln!(out, "{end} steps")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;
    use slabscope_run::run;
    use slabscope_scenario::parse;
    use slabscope_sim::machine::{FrameState, Owner};
    use slabscope_sim::trace::Event;

    /// A run whose last step breaks the page allocator: `--check` names that step.
    #[test]
    fn check_names_the_step_after_which_an_invariant_broke() {
        let text = "slabscope-scenario 1\nmachine cpus=1 nodes=1 memory=64K\n\
                    p = alloc_pages(0) on cpu0\nfree_pages(p) on cpu0\n";
        let mut rec = run(&parse(text).unwrap(), true).unwrap();
        assert!(check(&rec).unwrap().contains("every invariant held"));
        // A block handed out while it is still on its free list.
        let (pfn, order) = (rec.machine().frames.iter_enumerated())
            .find_map(|(pfn, frame)| match frame.state {
                FrameState::Buddy { order } => Some((pfn, order)),
                _ => None,
            })
            .expect("a free block");
        rec.call("test", "", "step.internal", |rec| {
            rec.emit(Event::PagesAllocated {
                pfn,
                order,
                owner: Owner::Pages,
            });
        });
        let err = check(&rec).unwrap_err();
        let step = rec.cursor();
        assert!(
            err.starts_with(&format!("invariant violated after step {step}:\n  ")),
            "{err}"
        );
    }
}
