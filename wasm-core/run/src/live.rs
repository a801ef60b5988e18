//! A recorded live run as a scenario: what the machine's threads did, replayable in the app like
//! any run (steppable, scrubbable, shareable). Each CPU's operations, in the order it ran them,
//! in one `concurrent explicit` block whose `schedule` is the order the run's log gives
//! (`live::record::merge`): running the scenario is the replay.

use slabscope_sim::live::record::merge;
use slabscope_sim::live::run::{live_machine, Frees, LiveOp, LiveRun};
use slabscope_sim::smp::schedule::Choice;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Most operations a live run may have to be written as a scenario (each is a line, and its
/// micro-steps are steps of the run the app opens).
pub const MAX_SCENARIO_OPS: usize = 5_000;

/// Why a live run cannot be written as a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveScenarioError {
    TooManyOps {
        ops: usize,
        max: usize,
    },
    /// The run was not recorded.
    NotRecorded,
    /// The log's micro-steps admit no single order (see `merge`).
    Unordered,
}

impl std::fmt::Display for LiveScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiveScenarioError::TooManyOps { ops, max } => write!(
                f,
                "the run has {ops} operations; a scenario of a live run holds at most {max}"
            ),
            LiveScenarioError::NotRecorded => write!(f, "the run was not recorded"),
            LiveScenarioError::Unordered => {
                write!(f, "the run's micro-steps cannot be put in one order")
            }
        }
    }
}

/// The scenario of `run` (started with `seed` and `frees`): its machine, its operations per CPU
/// and the schedule of its log.
pub fn live_scenario(run: &LiveRun, seed: u64, frees: Frees) -> Result<String, LiveScenarioError> {
    if run.total().ops > 0 && run.logs.iter().all(|l| l.is_empty()) {
        return Err(LiveScenarioError::NotRecorded);
    }
    let ops: usize = run.ops.iter().map(Vec::len).sum();
    let ops = if run.epochs > 1 {
        run.total().ops as usize
    } else {
        ops
    };
    if ops > MAX_SCENARIO_OPS {
        return Err(LiveScenarioError::TooManyOps {
            ops,
            max: MAX_SCENARIO_OPS,
        });
    }
    let choices = merge(&run.logs).map_err(|_| LiveScenarioError::Unordered)?;
    let (names, order) = object_names(run, &choices);
    let threads = run.ops.len() as u32;
    let m = live_machine(threads);
    let mut out = String::new();
    let frees_word = match frees {
        Frees::Local => "each CPU frees its own objects",
        Frees::Remote => "each allocation is freed by a CPU picked at random",
    };
    let _ = writeln!(out, "slabscope-scenario 3");
    let _ = writeln!(
        out,
        "# What the machine's threads did: a live run of {ops} operations of the standard mix on \
         {threads} threads, one per CPU (seed {seed}; {frees_word}). The schedule is the order \
         the run's shared accesses took, from its log; running it replays the run."
    );
    let _ = writeln!(out, "profile linux-6.6");
    let cpu_node: Vec<String> = m.cpu_node.iter().map(u32::to_string).collect();
    let _ = writeln!(
        out,
        "machine cpus={} nodes={} page_size={} pages_per_node={} cpu_node={}",
        m.cpus,
        m.nodes,
        m.page_size,
        m.pages_per_node,
        cpu_node.join(",")
    );
    let _ = writeln!(out, "\nconcurrent explicit");
    // In the order the operations began: each CPU's in its own order, and a free's object named
    // on an earlier line (the allocation that gave it began before).
    for (c, i) in order {
        let _ = match run.ops[c][i] {
            LiveOp::Kmalloc { size, .. } => {
                writeln!(out, "  {} = kmalloc({size}) on cpu{c}", names[&(c, i)])
            }
            LiveOp::Free { .. } => writeln!(out, "  kfree({}) on cpu{c}", names[&(c, i)]),
        };
    }
    write_schedule(&mut out, &choices);
    let _ = writeln!(out, "end");
    Ok(out)
}

/// The name of each operation's object, by (CPU, index): an allocation names what it returns
/// (`x1`, `x2`, ... in the order allocations end); a free names the allocation that returned
/// its object last before the free began (an object is freed after the allocation that gave it
/// ends, and handed out again only after that free). With the operations in the order they
/// began.
type Names = BTreeMap<(usize, usize), String>;

fn object_names(run: &LiveRun, choices: &[Choice]) -> (Names, Vec<(usize, usize)>) {
    // Each operation's first and last micro-step (of its CPU's), and in the schedule's order,
    // where each operation begins and ends.
    let bounds: Vec<Vec<(u32, u32)>> = run
        .logs
        .iter()
        .map(|l| {
            let starts = l.op_starts();
            (0..starts.len())
                .map(|i| {
                    let end = starts.get(i + 1).map_or(l.len() as u32, |&s| s) - 1;
                    (starts[i], end)
                })
                .collect()
        })
        .collect();
    let mut taken = vec![0u32; run.ops.len()];
    let mut current = vec![0usize; run.ops.len()];
    let mut events: Vec<(usize, usize, bool)> = Vec::new(); // (cpu, op, is_end)
    for choice in choices {
        let Choice::Run { cpu } = *choice else {
            continue;
        };
        let c = usize::from(cpu);
        let step = taken[c];
        taken[c] += 1;
        let i = current[c];
        let Some(&(start, end)) = bounds[c].get(i) else {
            continue;
        };
        if step == start {
            events.push((c, i, false));
        }
        if step == end {
            events.push((c, i, true));
            current[c] += 1;
        }
    }
    let mut names = BTreeMap::new();
    let mut holder: BTreeMap<u64, String> = BTreeMap::new();
    let mut count = 0u32;
    let order = events
        .iter()
        .filter(|e| !e.2)
        .map(|&(c, i, _)| (c, i))
        .collect();
    for (c, i, end) in events {
        match (run.ops[c][i], end) {
            (LiveOp::Kmalloc { addr, .. }, true) => {
                count += 1;
                let name = format!("x{count}");
                holder.insert(addr, name.clone());
                names.insert((c, i), name);
            }
            (LiveOp::Free { addr }, false) => {
                let name = holder
                    .get(&addr)
                    .cloned()
                    .unwrap_or_else(|| format!("{addr:#x}"));
                names.insert((c, i), name);
            }
            _ => {}
        }
    }
    (names, order)
}

/// `schedule` lines: runs of one CPU as `cpuN:K`, sixteen decisions a line.
fn write_schedule(out: &mut String, choices: &[Choice]) {
    let mut runs: Vec<(u16, u32)> = Vec::new();
    for choice in choices {
        if let Choice::Run { cpu } = *choice {
            match runs.last_mut() {
                Some((c, n)) if *c == cpu.0 => *n += 1,
                _ => runs.push((cpu.0, 1)),
            }
        }
    }
    for line in runs.chunks(16) {
        let words: Vec<String> = line
            .iter()
            .map(|&(c, n)| {
                if n == 1 {
                    format!("cpu{c}")
                } else {
                    format!("cpu{c}:{n}")
                }
            })
            .collect();
        let _ = writeln!(out, "  schedule {}", words.join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slabscope_sim::live::run::run_workload;
    use slabscope_sim::live::with_short_tids;

    /// The scenario of a live run, run like any scenario, ends in the live run's state: the app
    /// opening it shows what the threads did.
    #[test]
    fn a_live_runs_scenario_replays_it() {
        for (threads, frees, seed) in [
            (2, Frees::Remote, 3),
            (3, Frees::Local, 4),
            (2, Frees::Remote, 7),
            (4, Frees::Remote, 8),
        ] {
            let live = run_workload(threads, 3_000, seed, frees, true).expect("runs live");
            let text = live_scenario(&live, seed, frees).expect("a scenario");
            let scenario = slabscope_scenario::parse(&text).expect("the scenario parses");
            let rec = crate::run(&scenario, false).expect("the scenario runs");
            let got = with_short_tids(rec.machine().clone());
            let want = live.mem.to_machine(&live.base);
            assert!(
                got == want,
                "{threads} threads, seed {seed}: the replay's state differs"
            );
        }
    }

    #[test]
    fn a_run_too_long_or_unrecorded_is_refused_with_a_reason() {
        let live = run_workload(2, 10_000, 1, Frees::Remote, true).expect("runs live");
        let e = live_scenario(&live, 1, Frees::Remote).expect_err("too long");
        assert!(e.to_string().contains("at most 5000"), "{e}");
        let live = run_workload(2, 100, 1, Frees::Remote, false).expect("runs live");
        let e = live_scenario(&live, 1, Frees::Remote).expect_err("not recorded");
        assert_eq!(e, LiveScenarioError::NotRecorded);
    }
}
