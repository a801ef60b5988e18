//! The interleaving explorer: every schedule of a scenario's first `concurrent` block within
//! bounds, grouped by outcome (`slabscope explore FILE`).
//!
//! Rules:
//! - A bounded search, as CHESS and loom do it: a schedule may switch away from a CPU that
//!   could go on (a context switch the schedule forces: running another CPU, a preemption, an
//!   interrupt) at most `preemptions` times; within that, every decision the kernel allows is
//!   tried, depth first, by running the block again from its start for each schedule (the
//!   scenario up to the block runs once; the block's start state is copied).
//! - Schedules are grouped by outcome: the damage the run did, whether an invariant failed at
//!   the end, and what each name of the block holds. Each group keeps its first schedule, to
//!   open as an ordinary run (`concurrent explicit` with that `schedule`).
//! - The search stops at `max_schedules`, saying so.
//! - The findings are the checker's `Problem`s, each with its key and values, so that the web
//!   app words them in the reader's language (`explore_report.rs`).

use crate::concurrent::{run_block, schedule_text, BlockRun, RunState};
use crate::run::{run_inner, Caches, RunError, Value};
use serde::Serialize;
use slabscope_scenario::{Block, Scenario};
use slabscope_sim::ids::CpuId;
use slabscope_sim::machine::check::{machine_problems, Problem};
use slabscope_sim::smp::exec::{CpuNow, ExecError};
use slabscope_sim::smp::schedule::Choice;
use slabscope_sim::trace::Recorder;
use std::collections::BTreeMap;

/// How far the search goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Forced context switches a schedule may make.
    pub preemptions: u32,
    /// Schedules to run at most.
    pub max_schedules: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            preemptions: 2,
            max_schedules: 10_000,
        }
    }
}

/// Schedules that end the same way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OutcomeGroup {
    pub schedules: usize,
    /// The first schedule found, as a `schedule` line writes it.
    pub example: Vec<Choice>,
    /// Known damage the run did (as the checker finds it).
    pub damage: Vec<Problem>,
    /// Invariant violations at the end, besides the damage.
    pub violations: Vec<Problem>,
    /// What each name the block produces holds: `a = 0xffff…`.
    pub names: Vec<(String, String)>,
    /// Retries the kernel made in the first schedule.
    pub retries: u64,
}

/// What the search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exploration {
    /// The block's `concurrent` line.
    pub line: u32,
    pub bounds_preemptions: u32,
    pub schedules: usize,
    /// Outcomes, the most frequent first.
    pub groups: Vec<OutcomeGroup>,
    /// The search stopped at `max_schedules` before trying every schedule.
    pub cut_short: bool,
}

/// Explores the first `concurrent` block of `scenario`.
pub fn explore(scenario: &Scenario, bounds: Bounds) -> Result<Exploration, RunError> {
    explore_with_progress(scenario, bounds, &mut |_| {})
}

/// `explore`, telling `progress` the number of schedules run after each one.
pub fn explore_with_progress(
    scenario: &Scenario,
    bounds: Bounds,
    progress: &mut dyn FnMut(usize),
) -> Result<Exploration, RunError> {
    let Some(first) = scenario.blocks.first() else {
        return Err(RunError::NoBlock);
    };
    let mut found = None;
    let mut hook = |rec: &mut Recorder, block: &Block, caches: &Caches, state: &mut RunState| {
        found = Some(search(
            rec, scenario, block, caches, state, bounds, progress,
        )?);
        Ok(None::<BlockRun>)
    };
    run_inner(scenario, false, None, &mut |_| {}, &mut hook)?;
    found.ok_or(RunError::NoBlock).map(|mut e| {
        e.line = first.line;
        e
    })
}

/// A decision point past a schedule's prefix: its index, and the decisions not taken there.
type Branch = (usize, Vec<Choice>);

/// The names the block's lines produce, in line order (repeats included).
pub(crate) fn block_targets(scenario: &Scenario, block: &Block) -> Vec<String> {
    scenario.ops[block.first_op..block.end_op]
        .iter()
        .filter_map(|l| l.target.as_ref())
        .map(|t| match t {
            slabscope_scenario::Target::Name(n) | slabscope_scenario::Target::Append(n) => {
                n.clone()
            }
        })
        .collect()
}

fn search(
    rec: &mut Recorder,
    scenario: &Scenario,
    block: &Block,
    caches: &Caches,
    state: &mut RunState,
    bounds: Bounds,
    progress: &mut dyn FnMut(usize),
) -> Result<Exploration, RunError> {
    let start = rec.machine().clone();
    let targets = block_targets(scenario, block);
    let mut groups: Vec<OutcomeGroup> = Vec::new();
    let mut stack: Vec<Vec<Choice>> = vec![Vec::new()];
    let mut schedules = 0;
    let mut cut_short = false;
    while let Some(prefix) = stack.pop() {
        if schedules >= bounds.max_schedules {
            cut_short = true;
            break;
        }
        let mut branches: Vec<Branch> = Vec::new();
        let mut switches = 0u32;
        let mut last: Option<Choice> = None;
        let mut choose = |index: usize, choices: &[Choice], now: &dyn Fn(CpuId) -> CpuNow| {
            let cost = |c: &Choice| u32::from(forced_switch(last, *c, choices, now));
            if let Some(&c) = prefix.get(index) {
                if !choices.contains(&c) {
                    return Err(ExecError::NotAllowed { index, choice: c });
                }
                switches += cost(&c);
                last = Some(c);
                return Ok(c);
            }
            let allowed: Vec<Choice> = choices
                .iter()
                .copied()
                .filter(|c| switches + cost(c) <= bounds.preemptions)
                .collect();
            // The one that goes on with the CPU that ran last, when it can: no switch. (Some
            // decision always costs none, see `forced_switch`; `choices` is never empty.)
            // A CPU that only spins is left for one that can go on (free: see `forced_switch`).
            let spins = |c: &Choice| matches!(*c, Choice::Run { cpu } if now(cpu).spinning);
            let first = allowed
                .iter()
                .copied()
                .find(|c| cost(c) == 0 && !spins(c))
                .or_else(|| allowed.iter().copied().find(|c| cost(c) == 0))
                .or_else(|| allowed.first().copied())
                .unwrap_or(choices[0]);
            let others: Vec<Choice> = allowed.into_iter().filter(|&c| c != first).collect();
            if !others.is_empty() {
                branches.push((index, others));
            }
            switches += cost(&first);
            last = Some(first);
            Ok(first)
        };
        let mut run_rec = Recorder::new(start.clone(), false);
        let (names, lists, summary, budget) = state;
        let (mut names, mut lists, mut summary, mut budget) = (
            (*names).clone(),
            (*lists).clone(),
            (*summary).clone(),
            **budget,
        );
        let mut run_state = (&mut names, &mut lists, &mut summary, &mut budget);
        let run = run_block(
            &mut run_rec,
            scenario,
            block,
            caches,
            &mut run_state,
            Some(&mut choose),
        )?;
        schedules += 1;
        progress(schedules);
        let group = outcome(&run_rec, &run, &names, &lists, &targets);
        match groups.iter_mut().find(|g| same(g, &group)) {
            Some(g) => g.schedules += 1,
            None => groups.push(group),
        }
        for (index, others) in branches.into_iter().rev() {
            for c in others.into_iter().rev() {
                let mut next = run.taken[..index].to_vec();
                next.push(c);
                stack.push(next);
            }
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.schedules));
    Ok(Exploration {
        line: block.line,
        bounds_preemptions: bounds.preemptions,
        schedules,
        groups,
        cut_short,
    })
}

/// Whether taking `c` after `last` switches away from a CPU that could have gone on. A
/// preemption or an interrupt does, unless no CPU can run (only interrupts are left to come):
/// so some decision is always free, and a search with its switches spent still ends. A CPU
/// spinning on a `list_lock` another holds cannot go on (running it again only spins), so
/// leaving it is free: otherwise a search with its switches spent would spin forever.
fn forced_switch(
    last: Option<Choice>,
    c: Choice,
    choices: &[Choice],
    now: &dyn Fn(CpuId) -> CpuNow,
) -> bool {
    let can_go_on = |cpu: CpuId| choices.contains(&Choice::Run { cpu }) && !now(cpu).spinning;
    match (last, c) {
        (_, Choice::Preempt { .. } | Choice::Irq { .. }) => choices
            .iter()
            .any(|c| matches!(*c, Choice::Run { cpu } if can_go_on(cpu))),
        (Some(Choice::Run { cpu: was }), Choice::Run { cpu }) => cpu != was && can_go_on(was),
        _ => false,
    }
}

/// Whether two schedules ended the same way (their counts, examples and retries aside).
pub(crate) fn same(a: &OutcomeGroup, b: &OutcomeGroup) -> bool {
    a.damage == b.damage && a.violations == b.violations && a.names == b.names
}

/// The outcome of one schedule: `rec`'s machine at the block's end, and what the names hold.
pub(crate) fn outcome(
    rec: &Recorder,
    run: &BlockRun,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
    targets: &[String],
) -> OutcomeGroup {
    let (damage, violations): (Vec<Problem>, Vec<Problem>) = machine_problems(rec.machine())
        .into_iter()
        .partition(Problem::is_damage);
    let show = |v: &Value| match v {
        Value::Object { addr } => format!("{addr:#x}"),
        Value::Pages { pfn } => format!("pages {pfn:#x}"),
        Value::Null => "NULL".to_string(),
    };
    let mut shown: Vec<(String, String)> = Vec::new();
    for t in targets {
        if shown.iter().any(|(n, _)| n == t) {
            continue;
        }
        let value = match (names.get(t), lists.get(t)) {
            (Some(v), _) => show(v),
            (None, Some(l)) => l.iter().map(show).collect::<Vec<_>>().join(" "),
            (None, None) => "-".to_string(),
        };
        shown.push((t.clone(), value));
    }
    OutcomeGroup {
        schedules: 1,
        example: run.taken.clone(),
        damage,
        violations,
        names: shown,
        retries: run.stats.total_retries(),
    }
}

/// `n` and `noun`, plural unless `n` is 1 ("1 schedule", "2 forced switches").
fn count(n: u64, noun: &str) -> String {
    match (n, noun.ends_with("ch")) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

/// The exploration as text (`slabscope explore`).
pub fn exploration_text(e: &Exploration) -> String {
    let mut out = format!(
        "concurrent block at line {}: {} with at most {}{}\n",
        e.line,
        count(e.schedules as u64, "schedule"),
        count(u64::from(e.bounds_preemptions), "forced switch"),
        if e.cut_short {
            " (cut short: the schedule bound was hit; raise --max-schedules to see them all)"
        } else {
            ""
        }
    );
    for (i, g) in e.groups.iter().enumerate() {
        out.push_str(&format!(
            "\noutcome {}: {}{}\n",
            i + 1,
            count(g.schedules as u64, "schedule"),
            if g.damage.is_empty() && g.violations.is_empty() {
                ", no damage, every invariant holds"
            } else {
                ""
            }
        ));
        for d in &g.damage {
            out.push_str(&format!("  {d}\n"));
        }
        for v in &g.violations {
            out.push_str(&format!("  violated: {v}\n"));
        }
        let names: Vec<String> = g.names.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        if !names.is_empty() {
            out.push_str(&format!("  {}\n", names.join(", ")));
        }
        out.push_str(&format!(
            "  first schedule: schedule {}\n",
            schedule_text(&g.example)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use slabscope_scenario::parse;

    fn golden(name: &str) -> Scenario {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name);
        parse(&std::fs::read_to_string(path).expect("readable")).expect("parses")
    }

    /// The ABA scenario's block, explored: without the tid some schedules damage the per-CPU
    /// freelist (and each such group's schedule, replayed, does it again); with the tid, the
    /// same schedules all end well, and as many are tried.
    #[test]
    fn without_the_tid_some_schedules_corrupt_and_with_it_none_do() {
        let bounds = Bounds::default();
        let without = explore(&golden("smp-aba-no-tid.slab"), bounds).expect("explores");
        let with = explore(&golden("smp-aba-tid.slab"), bounds).expect("explores");
        assert!(!without.cut_short && !with.cut_short);
        assert_eq!(without.schedules, with.schedules);
        let damaged: usize = without
            .groups
            .iter()
            .filter(|g| !g.damage.is_empty())
            .map(|g| g.schedules)
            .sum();
        assert!(damaged > 0 && damaged < without.schedules, "{damaged}");
        assert!(with
            .groups
            .iter()
            .all(|g| g.damage.is_empty() && g.violations.is_empty()));
        assert_eq!(
            without.groups.iter().map(|g| g.schedules).sum::<usize>(),
            without.schedules
        );
        // The text counts in English: one outcome here is a single schedule.
        let text = exploration_text(&without);
        assert!(
            text.contains("schedules with at most 2 forced switches"),
            "{text}"
        );
        assert!(without.groups.iter().any(|g| g.schedules == 1));
        assert!(
            text.contains(": 1 schedule\n") || text.contains(": 1 schedule,"),
            "{text}"
        );
        assert!(!text.contains(" 1 schedules"), "{text}");
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1, "schedule"), "1 schedule");
        assert_eq!(count(0, "schedule"), "0 schedules");
        assert_eq!(count(1, "forced switch"), "1 forced switch");
        assert_eq!(count(3, "forced switch"), "3 forced switches");
    }

    /// The search stops at its bound and says so.
    #[test]
    fn a_schedule_bound_cuts_the_search_short() {
        let bounds = Bounds {
            preemptions: 2,
            max_schedules: 5,
        };
        let e = explore(&golden("smp-aba-no-tid.slab"), bounds).expect("explores");
        assert!(e.cut_short);
        assert_eq!(e.schedules, 5);
        assert!(exploration_text(&e).contains("cut short"));
    }

    /// With its switches spent, a search still ends a block whose interrupt handlers are all
    /// that is left to run: an interrupt when no CPU can run is no switch.
    #[test]
    fn interrupts_left_alone_cost_no_switch() {
        let s = parse(
            "slabscope-scenario 3\nmachine cpus=1 nodes=1 memory=1M\ncache t size=64\n\
             concurrent\n  a = kmem_cache_alloc(t) on cpu0\n  b = kmem_cache_alloc(t) on cpu0 irq\n\
             end\n",
        )
        .expect("parses");
        let bounds = Bounds {
            preemptions: 0,
            max_schedules: 100,
        };
        let e = explore(&s, bounds).expect("explores");
        assert!(!e.cut_short);
        assert!(e.schedules >= 1);
        let races = explore(
            &golden("smp-races-seed8.slab"),
            Bounds {
                preemptions: 2,
                max_schedules: 200,
            },
        )
        .expect("explores");
        assert!(races.cut_short);
    }

    /// A CPU spinning on a `list_lock` another holds cannot go on, so leaving it costs no
    /// switch: a search whose switches are spent runs the holder rather than spinning until
    /// the block's micro-step limit.
    #[test]
    fn a_spinning_cpu_is_left_for_free() {
        let bounds = Bounds {
            preemptions: 1,
            max_schedules: 40,
        };
        let e = explore(&golden("smp-unfreeze-race.slab"), bounds).expect("explores");
        assert_eq!(e.schedules, 40);
        assert!(e
            .groups
            .iter()
            .all(|g| g.damage.is_empty() && g.violations.is_empty()));
    }

    /// A scenario without a block is refused, with a message.
    #[test]
    fn a_scenario_without_a_block_has_nothing_to_explore() {
        let s = parse("slabscope-scenario 3\nmachine cpus=1 nodes=1 memory=1M\n").expect("parses");
        assert_eq!(explore(&s, Bounds::default()), Err(RunError::NoBlock));
    }
}
