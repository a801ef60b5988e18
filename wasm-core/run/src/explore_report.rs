//! The interleaving explorer as the web app shows it (its explorer page): the outcome groups of
//! `explore.rs`, each with the scenario text that replays its first schedule as an ordinary
//! run, and the bounds a page may ask for.
//!
//! Rules:
//! - The replay is the person's own text with two changes only: the explored block's
//!   `concurrent` line becomes `concurrent explicit`, and its `schedule` lines give way to the
//!   group's schedule, written just before the block's `end`. Everything else (comments,
//!   blank lines, the other blocks) stays byte for byte, so the editor shows what they wrote.
//! - Findings cross as `Problem`s (a key and its values, and the English wording): the page
//!   words them in the reader's language.
//! - Bounds past `MAX_PREEMPTIONS` or `MAX_SCHEDULES` are refused (the page checks them first
//!   and says so in the reader's language; this is the simulator's own guard).

use crate::concurrent::schedule_text;
use crate::explore::{explore_with_progress, Bounds};
use crate::session::SessionError;
use crate::wire::SimError;
use serde::Serialize;
use slabscope_scenario::{parse, Block};
use slabscope_sim::machine::check::Problem;
use slabscope_sim::smp::schedule::Choice;

/// Forced switches a page may ask a schedule to make at most.
pub const MAX_PREEMPTIONS: u32 = 5;
/// Schedules a page may ask the search to run at most.
pub const MAX_SCHEDULES: u32 = 20_000;

/// Decisions written on one `schedule` line of a replay.
const WORDS_PER_LINE: usize = 16;

/// What the explorer found, for the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct ExploreReport {
    /// The explored block's `concurrent` line.
    pub line: u32,
    /// The bounds it was explored with.
    pub preemptions: u32,
    pub max_schedules: u32,
    /// Schedules run.
    pub schedules: u32,
    /// The search stopped at `max_schedules` before it had tried every schedule.
    pub cut_short: bool,
    /// Outcomes, the most frequent first.
    pub groups: Vec<ExploreGroup>,
}

/// Schedules that end the same way, and the first of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct ExploreGroup {
    pub schedules: u32,
    /// The first schedule found, as a `schedule` line writes it (`cpu0:4 preempt(cpu0) …`).
    pub schedule: String,
    /// Known damage the run did.
    pub damage: Vec<Problem>,
    /// Invariant violations at the block's end, besides the damage.
    pub violations: Vec<Problem>,
    /// What each name the block produces holds, in line order: `("a", "0xffff…")`.
    pub names: Vec<(String, String)>,
    /// Retries the kernel made in the first schedule.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub retries: u64,
    /// The scenario that replays the first schedule (see the module).
    pub replay: String,
}

/// Why a page's request cannot be explored: bounds out of range, a scenario that does not
/// parse, or one whose run is refused (no block, a run too long, ...).
pub fn explore_report(
    source: &str,
    preemptions: u32,
    max_schedules: u32,
    progress: &mut dyn FnMut(usize),
) -> Result<ExploreReport, SimError> {
    if preemptions > MAX_PREEMPTIONS {
        return Err(SimError::invalid(format!(
            "at most {MAX_PREEMPTIONS} forced switches, not {preemptions}"
        )));
    }
    if max_schedules == 0 || max_schedules > MAX_SCHEDULES {
        return Err(SimError::invalid(format!(
            "from 1 to {MAX_SCHEDULES} schedules, not {max_schedules}"
        )));
    }
    let scenario = parse(source).map_err(|e| SimError::from(SessionError::Parse(e)))?;
    let bounds = Bounds {
        preemptions,
        max_schedules: max_schedules as usize,
    };
    let e = explore_with_progress(&scenario, bounds, progress)
        .map_err(|e| SimError::from(SessionError::Run(e)))?;
    let block = &scenario.blocks[0];
    Ok(ExploreReport {
        line: e.line,
        preemptions,
        max_schedules,
        schedules: e.schedules as u32,
        cut_short: e.cut_short,
        groups: e
            .groups
            .into_iter()
            .map(|g| ExploreGroup {
                schedules: g.schedules as u32,
                schedule: schedule_text(&g.example),
                replay: replay_text(source, block, &g.example),
                damage: g.damage,
                violations: g.violations,
                names: g.names,
                retries: g.retries,
            })
            .collect(),
    })
}

/// `source` with `block` made to replay `schedule` (see the module).
pub fn replay_text(source: &str, block: &Block, schedule: &[Choice]) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let number = |i: usize| i as u32 + 1;
    let inside = |i: usize| number(i) > block.line && number(i) < block.end_line;
    let indent = lines
        .iter()
        .enumerate()
        .find(|&(i, l)| inside(i) && !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map_or("  ", |(_, l)| &l[..l.len() - l.trim_start().len()]);
    let text = schedule_text(schedule);
    let words: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
    let mut out = String::with_capacity(source.len() + words.len() * 8);
    for (i, line) in lines.iter().enumerate() {
        if number(i) == block.line {
            let lead = &line[..line.len() - line.trim_start().len()];
            out.push_str(lead);
            out.push_str("concurrent explicit\n");
            continue;
        }
        if inside(i) && is_schedule_line(line) {
            continue;
        }
        if number(i) == block.end_line {
            for chunk in words.chunks(WORDS_PER_LINE) {
                out.push_str(indent);
                out.push_str("schedule ");
                out.push_str(&chunk.join(" "));
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    if !source.ends_with('\n') {
        out.pop();
    }
    out
}

/// A `schedule` line, as the parser tells one from an operation that names a result
/// `schedule` (`schedule = kmalloc(8) on cpu0`, `schedule[] = …`).
pub(crate) fn is_schedule_line(line: &str) -> bool {
    line.trim_start()
        .strip_prefix("schedule")
        .is_some_and(|rest| {
            (rest.is_empty() || rest.starts_with(char::is_whitespace))
                && !rest.trim_start().starts_with(['=', '['])
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::concurrent::{run_block, schedule, BlockRun, RunState};
    use crate::explore::{block_targets, explore, outcome, same, OutcomeGroup};
    use crate::run::{run_inner, Caches};
    use slabscope_scenario::{Scenario, ScheduleDecl};
    use slabscope_sim::smp::schedule::Schedule;
    use slabscope_sim::trace::Recorder;

    fn golden(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name);
        std::fs::read_to_string(path).expect("readable")
    }

    /// Runs `scenario` up to the end of its first block, the block under its own schedule,
    /// and gives the outcome there, as the explorer records one.
    fn first_block_outcome(scenario: &Scenario) -> (OutcomeGroup, BlockRun) {
        let mut found = None;
        let mut hook =
            |rec: &mut Recorder, block: &Block, caches: &Caches, state: &mut RunState| {
                let run = run_block(rec, scenario, block, caches, state, None)?;
                let (names, lists, _, _) = state;
                let targets = block_targets(scenario, block);
                found = Some((outcome(rec, &run, names, lists, &targets), run));
                Ok(None::<BlockRun>)
            };
        run_inner(scenario, false, None, &mut |_| {}, &mut hook).expect("runs");
        found.expect("the scenario has a block")
    }

    /// Every group of the ABA race without the tid: its replay parses, its block now runs
    /// exactly the group's first schedule, and the run ends that block in the group's outcome
    /// (the same damage, violations and names). Damaged and clean groups both replay.
    #[test]
    fn each_groups_replay_parses_and_ends_its_block_in_that_groups_outcome() {
        let source = golden("smp-aba-no-tid.slab");
        let report = explore_report(&source, 2, 10_000, &mut |_| {}).expect("explores");
        let scenario = parse(&source).expect("parses");
        let e = explore(&scenario, Bounds::default()).expect("explores");
        assert_eq!(report.groups.len(), e.groups.len());
        assert!(report.groups.iter().any(|g| !g.damage.is_empty()));
        assert!(report.groups.iter().any(|g| g.damage.is_empty()));
        for (g, want) in report.groups.iter().zip(&e.groups) {
            let replay = parse(&g.replay).unwrap_or_else(|err| panic!("{err}\n{}", g.replay));
            let block = &replay.blocks[0];
            assert!(matches!(block.schedule, ScheduleDecl::Explicit { .. }));
            let Schedule::Explicit { choices } = schedule(&block.schedule) else {
                panic!("explicit");
            };
            assert_eq!(choices, want.example);
            let (got, run) = first_block_outcome(&replay);
            assert_eq!(run.taken, want.example);
            assert!(same(&got, want), "{got:?}\n{want:?}");
            assert_eq!(got.retries, g.retries);
        }
    }

    /// The replay changes the block's header and its schedule lines, nothing else: the old
    /// schedule lines (and only they) go, the new ones stand before `end`.
    #[test]
    fn a_replay_keeps_every_other_line_as_written() {
        let source = golden("smp-aba-no-tid.slab");
        let scenario = parse(&source).expect("parses");
        let block = &scenario.blocks[0];
        let replay = replay_text(&source, block, &[Choice::Run { cpu: 0.into() }; 3]);
        let kept: Vec<&str> = source
            .lines()
            .filter(|l| !l.trim_start().starts_with("schedule") && !l.starts_with("concurrent"))
            .collect();
        let replayed: Vec<&str> = replay
            .lines()
            .filter(|l| !l.trim_start().starts_with("schedule") && !l.starts_with("concurrent"))
            .collect();
        assert_eq!(kept, replayed);
        let lines: Vec<&str> = replay.lines().collect();
        let end = lines.iter().position(|l| *l == "end").expect("an end");
        assert_eq!(lines[end - 1], "  schedule cpu0:3");
        assert_eq!(lines[block.line as usize - 1], "concurrent explicit");
        assert_eq!(
            replay.lines().filter(|l| l.contains("schedule ")).count(),
            1
        );
        assert!(replay.ends_with("end\nb = kmem_cache_alloc(t) on cpu0\n"));
    }

    /// A long schedule is written over several lines; a name `schedule` is not a schedule
    /// line; a text without a final newline keeps none, one with CRLF lines is read by line.
    #[test]
    fn long_schedules_wrap_and_lines_named_schedule_stay() {
        let source = "slabscope-scenario 3\r\nmachine cpus=2 nodes=1 memory=1M\r\ncache t size=64\r\n\
                      concurrent random seed=3 # racing\r\n    schedule = kmem_cache_alloc(t) on cpu0\r\n\
                      \x20   b = kmem_cache_alloc(t) on cpu1\r\nend";
        let scenario = parse(source).expect("parses");
        let choices: Vec<Choice> = (0..40)
            .map(|i| Choice::Run {
                cpu: (i % 2).into(),
            })
            .collect();
        let replay = replay_text(source, &scenario.blocks[0], &choices);
        assert!(!replay.ends_with('\n'));
        assert!(replay.contains("\n    schedule = kmem_cache_alloc(t) on cpu0\n"));
        let schedule_lines: Vec<&str> = replay
            .lines()
            .filter(|l| l.starts_with("    schedule cpu"))
            .collect();
        assert_eq!(schedule_lines.len(), 3);
        let parsed = parse(&replay).expect("the replay parses");
        let Schedule::Explicit { choices: got } = schedule(&parsed.blocks[0].schedule) else {
            panic!("explicit");
        };
        assert_eq!(got, choices);
    }

    /// Bounds past the page's limits are refused with a message; so is a scenario without a
    /// block (a run error, worded by its key) and one that does not parse.
    #[test]
    fn bounds_out_of_range_and_scenarios_without_a_block_are_refused() {
        let source = golden("smp-aba-tid.slab");
        let refused = |p, n| explore_report(&source, p, n, &mut |_| {}).unwrap_err();
        assert!(matches!(
            refused(MAX_PREEMPTIONS + 1, 10),
            SimError::Invalid { .. }
        ));
        assert!(matches!(refused(1, 0), SimError::Invalid { .. }));
        assert!(matches!(
            refused(1, MAX_SCHEDULES + 1),
            SimError::Invalid { .. }
        ));
        let plain = "slabscope-scenario 3\nmachine cpus=1 nodes=1 memory=1M\n";
        match explore_report(plain, 1, 10, &mut |_| {}) {
            Err(SimError::Run(r)) => assert_eq!(r.key, "run.no_block"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            explore_report("slabscope-scenario 3\nmachin", 1, 10, &mut |_| {}),
            Err(SimError::Parse(_))
        ));
    }

    /// Progress is told after each schedule; a search cut short says so.
    #[test]
    fn progress_counts_the_schedules_and_a_bound_cuts_short() {
        let source = golden("smp-aba-no-tid.slab");
        let mut heard = Vec::new();
        let report = explore_report(&source, 2, 5, &mut |n| heard.push(n)).expect("explores");
        assert!(report.cut_short);
        assert_eq!(report.schedules, 5);
        assert_eq!(heard, vec![1, 2, 3, 4, 5]);
    }

    /// The findings cross with their keys: the ABA damage is `damage.stale_cpu_freelist`,
    /// naming the CPU, the cache and the object.
    #[test]
    fn damage_crosses_with_its_key_and_values() {
        let source = golden("smp-aba-no-tid.slab");
        let report = explore_report(&source, 2, 10_000, &mut |_| {}).expect("explores");
        let damage = report
            .groups
            .iter()
            .flat_map(|g| &g.damage)
            .next()
            .expect("some damage");
        assert_eq!(damage.key, "damage.stale_cpu_freelist");
        let names: Vec<&str> = damage.args.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["cpu", "cache", "object"]);
        assert!(damage
            .message
            .starts_with("known damage: cpu0's c->freelist of t"));
    }
}
