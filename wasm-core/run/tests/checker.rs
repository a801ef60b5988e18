//! The checkers on whole scenarios: every step of the checker's own scenarios and of a run
//! long enough for keyframes checks clean, step by step and keyframe by keyframe; the damage a
//! bad operation leaves is reported from the step that does it. (Corruptions made by hand on
//! the machine are tested inside the simulator, machine/check/tests.rs.)

use slabscope_run::run;
use slabscope_scenario::parse;
use slabscope_sim::machine::check::{check_trace, FullChecks, TraceCheck};
use slabscope_sim::trace::{Event, Recorder};

/// SLUB over the page allocator: slabs filled on cpu0, freed from cpu1 (`__slab_free()`, cpu
/// partial stacks, node partial lists, discards), and page blocks through pcp and buddy lists.
const SLUB: &str = "slabscope-scenario 1
machine cpus=2 nodes=1 memory=1M
pcp batch=7 high=28
repeat 48 a[] = kmalloc(512) on cpu0
for x in a: kfree(x) on cpu1
repeat 12 b[] = kmalloc(512) on cpu0
flush_cpu_slab(kmalloc-512) on cpu1
p = alloc_pages(2) on cpu0
free_pages(p) on cpu0
repeat 20 q[] = alloc_pages(0) on cpu1
for x in q: free_pages(x) on cpu1
drain_pages() on cpu1
";

/// SLAB: array refills and flushes, slabs moving between the node lists.
const SLAB: &str = "slabscope-scenario 1
allocator slab
machine cpus=2 nodes=1 memory=2M
repeat 200 a[] = kmalloc(100) on cpu0
for x in a: kfree(x) on cpu1
repeat 50 b[] = kmalloc(100) on cpu0
";

fn recorded(text: &str) -> Recorder {
    run(&parse(text).expect("parses"), true).expect("runs")
}

/// Every step (index) with an event `pick` accepts, and what it returned.
fn steps_with<T>(rec: &Recorder, pick: impl Fn(&Event) -> Option<T>) -> Vec<(usize, T)> {
    (0..rec.step_count())
        .filter_map(|i| rec.step_events(i).iter().find_map(&pick).map(|t| (i, t)))
        .collect()
}

const RCU: &str = include_str!("golden/rcu.slab");

#[test]
fn known_damage_is_reported_first_from_the_step_that_does_it() {
    for name in ["wrong-cache", "slab-wrong-cache"] {
        let text = std::fs::read_to_string(format!(
            "{}/tests/golden/{name}.slab",
            env!("CARGO_MANIFEST_DIR")
        ))
        .expect("readable scenario");
        let rec = recorded(&text);
        let first = steps_with(&rec, |e| {
            matches!(e, Event::DamageRecorded(_)).then_some(())
        })
        .first()
        .expect("a step records damage")
        .0;
        // Keyframes only: the local check of that step is what reports it.
        let v = check_trace(&rec, FullChecks::Keyframes).expect_err("damage");
        assert_eq!(v.step, first + 1, "{name}: {v}");
        assert!(v.problems[0].starts_with("known damage: "), "{name}: {v}");
        // Every later step's check, local and full, reports it first.
        let mut check = TraceCheck::new(&rec, FullChecks::EVERY_STEP).expect("boots clean");
        while let Some(found) = check.check_step(&rec) {
            let damaged = found.step > first;
            for bad in std::iter::once(&found.local).chain(found.full.as_ref()) {
                assert_eq!(
                    bad.first().is_some_and(|l| l.starts_with("known damage: ")),
                    damaged,
                    "{name}: step {}: {bad:?}",
                    found.step
                );
            }
        }
    }
}

#[test]
fn the_scenarios_check_clean_step_by_step_and_keyframe_by_keyframe() {
    // Long enough for the recorder to take keyframes.
    let long = "slabscope-scenario 1
machine cpus=1 nodes=1 memory=256K
repeat 3000 a[] = kmalloc(64) on cpu0
for x in a: kfree(x) on cpu0
";
    let mut keyframes_seen = 0;
    for text in [SLUB, SLAB, RCU, long] {
        let rec = recorded(text);
        let every = check_trace(&rec, FullChecks::EVERY_STEP).expect("clean");
        assert_eq!(every.steps, rec.step_count());
        assert_eq!(every.full_checks, rec.step_count() + 1);
        let sparse = check_trace(&rec, FullChecks::Keyframes).expect("clean");
        // The start, every keyframe inside the run, and the end.
        let keyframes = (1..rec.step_count())
            .filter(|&c| rec.is_keyframe(c))
            .count();
        assert_eq!(sparse.full_checks, keyframes + 2);
        keyframes_seen += keyframes;
    }
    assert!(
        keyframes_seen > 0,
        "a scenario long enough to take a keyframe"
    );
}
