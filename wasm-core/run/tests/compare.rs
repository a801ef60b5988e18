//! `slabscope compare` on concurrent scenarios: the races' figures of each side.

use slabscope_run::compare::{compare, render};
use slabscope_scenario::parse;
use std::path::Path;

fn golden_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    std::fs::read_to_string(path).expect("readable")
}

fn golden(name: &str) -> slabscope_scenario::Scenario {
    parse(&golden_text(name)).expect("parses")
}

/// The three-CPU race of `smp-races-seed43.slab` under seed 8, without its `flush_cpu_slab`
/// lines (SLAB has no such operation).
fn races_for_both() -> slabscope_scenario::Scenario {
    let text: String = golden_text("smp-races-seed43.slab")
        .lines()
        .filter(|l| !l.contains("flush_cpu_slab"))
        .map(|l| l.replace("seed=43", "seed=8") + "\n")
        .collect();
    parse(&text).expect("parses")
}

/// SLUB's side counts the retries its blocks made, site by site, as the run's own block
/// summaries do; SLAB runs each operation of a block whole and retries nothing.
#[test]
fn compare_counts_each_retry_site_of_the_blocks() {
    let c = compare(&races_for_both()).expect("runs");
    let mut by_block = std::collections::BTreeMap::new();
    for b in &c.slub.summary.blocks {
        for (k, n) in &b.stats.retries {
            *by_block.entry(*k).or_insert(0) += n;
        }
    }
    assert_eq!(c.slub.races.retries, by_block);
    assert_eq!(c.slub.races.total_retries(), 3, "{:?}", c.slub.races);
    assert_eq!(c.slub.races.total_lock_waits(), 0);
    assert_eq!(c.slab.races.total_retries(), 0);
    let text = render(&c);
    assert!(
        text.contains("cmpxchg retries in concurrent blocks"),
        "{text}"
    );
    let row = text
        .lines()
        .find(|l| l.contains("retries in get_freelist (slab changed)"))
        .expect("a row for get_freelist");
    let figures: Vec<&str> = row.split_whitespace().rev().take(2).collect();
    assert_eq!(figures, ["0", "1"], "{row}");
    assert!(text.contains("list_lock spins while held"), "{text}");
}

/// A scenario without a block prints no race rows.
#[test]
fn compare_of_a_sequential_scenario_has_no_race_rows() {
    let c = compare(&golden("smp-aba-tid.slab")).expect("runs");
    assert!(render(&c).contains("cmpxchg retries"));
    let seq = parse("slabscope-scenario 3\nmachine cpus=1 nodes=1 memory=1M\ncache t size=64\na = kmem_cache_alloc(t) on cpu0\n").expect("parses");
    let plain = render(&compare(&seq).expect("runs"));
    assert!(!plain.contains("cmpxchg retries"));
    // Under 6.6 the boot allocates nothing, and the table says nothing of it.
    assert!(!plain.contains("the boot allocated from"), "{plain}");
}
