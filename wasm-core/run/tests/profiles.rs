//! The later kernel profiles against linux-6.6, scenario by scenario: every SLUB preset of the
//! gallery and every sequential golden scenario runs under each profile with the machine's
//! invariants checked after every step (the slab state table of the profile's own version
//! included), and where the spec says the versions behave alike, the runs must agree.
//!
//! linux-6.12 (spec after 6.6, 2.11 and 6.6): delayed freezing changes which slabs are frozen
//! and which locks are taken, never which object an allocation returns or how many slabs a
//! cache has. So each allocation returns the same object (named by its cache, the order its
//! slab first appeared in and its index there: the boot of 6.12 makes a slab for its bucket
//! tables, so page frame numbers shift), and the final `/proc/slabinfo` lines of the caches
//! both kernels have are equal. Not compared: scenarios whose caches draw random numbers
//! (6.12 creates 27 more caches at boot, each taking its draws), concurrent blocks (their
//! schedules name micro-steps, which differ), scenarios that ask for objects of a given node
//! (6.10 changed how such a request falls back) and debug caches (a kmalloc cache that records
//! the requested size keeps its free pointer inside the object unless it also has red zones,
//! since 6.7: a different slot size).

use slabscope_run::run;
use slabscope_scenario::{parse, Allocator, Scenario, ScheduleDecl};
use slabscope_sim::ids::{CacheId, Pfn};
use slabscope_sim::machine::check::{check_trace, FullChecks};
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::trace::{Event, Recorder};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const LATER: &[&str] = &["linux-6.12", "linux-6.18", "linux-7.2"];
/// Full checks of a long run, every so many steps.
const SPARSE_CHECK: usize = 2_000;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every SLUB scenario of the gallery and of the golden tests, by file name.
fn scenarios() -> Vec<(String, Scenario)> {
    let mut out = Vec::new();
    for dir in [
        root().join("../docs/scenarios"),
        root().join("run/tests/golden"),
    ] {
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "slab"))
            .collect();
        files.sort();
        for path in files {
            let text = fs::read_to_string(&path).unwrap();
            let scenario = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if scenario.allocator == Allocator::Slub {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                out.push((name, scenario));
            }
        }
    }
    assert!(out.len() >= 20, "found only {} SLUB scenarios", out.len());
    out
}

fn under(scenario: &Scenario, profile: &str) -> Scenario {
    Scenario {
        profile: profile.to_string(),
        ..scenario.clone()
    }
}

/// Runs `scenario` recorded, with what each step touched checked after it, and everything
/// after every step of a short run or every `SPARSE_CHECK` steps of a long one (as the preset
/// tests do).
fn run_checked(name: &str, scenario: &Scenario) -> Recorder {
    let rec = run(scenario, true).unwrap_or_else(|e| panic!("{name}: {e}"));
    let full = if rec.step_count() > 5_000 {
        FullChecks::Every(SPARSE_CHECK)
    } else {
        FullChecks::EVERY_STEP
    };
    if let Err(v) = check_trace(&rec, full) {
        let function = rec.step(v.step.max(1) - 1).map_or("", |s| s.function);
        panic!("{name} under {}: {v} ({function})", scenario.profile);
    }
    rec
}

/// Each object an allocation handed out, as (cache name, the rank of its slab among the slabs
/// that cache created, index). A slab made again on pages a discarded one had is a new rank.
fn handed_out(rec: &Recorder) -> Vec<(String, usize, u32)> {
    let m = rec.machine();
    let mut made: BTreeMap<CacheId, usize> = BTreeMap::new();
    let mut rank: BTreeMap<Pfn, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for step in rec.steps() {
        for e in step.events {
            match e {
                Event::SlabCreated { cache, pfn, .. } => {
                    let n = made.entry(*cache).or_default();
                    rank.insert(*pfn, *n);
                    *n += 1;
                }
                Event::ObjectAllocated {
                    cache, pfn, index, ..
                } => {
                    let name = m.slub().caches[*cache].name.clone();
                    if name != "kmalloc_buckets" {
                        out.push((name, rank[pfn], *index));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The final slabinfo lines, by cache name.
fn slabinfo_lines(rec: &Recorder) -> BTreeMap<String, String> {
    slabinfo(rec.machine())
        .lines()
        .skip(2)
        .map(|l| {
            (
                l.split_whitespace().next().unwrap().to_string(),
                l.to_string(),
            )
        })
        .collect()
}

fn comparable(scenario: &Scenario) -> bool {
    let s = &scenario.switches;
    let text = format!("{:?}", scenario.ops);
    !s.freelist_random
        && !s.freelist_hardened
        && !s.random_kmalloc_caches
        && scenario.blocks.is_empty()
        && scenario.switches.slub_debug == Default::default()
        && !text.contains("node: Some")
}

#[test]
fn every_slub_scenario_runs_checked_under_every_later_profile() {
    for (name, scenario) in scenarios() {
        // An explicit schedule names the micro-steps of 6.6's paths.
        if scenario
            .blocks
            .iter()
            .any(|b| matches!(b.schedule, ScheduleDecl::Explicit { .. }))
        {
            continue;
        }
        // Scenarios that damage the allocator on purpose (bad frees, the teaching switch
        // without the tid) fail the checks under 6.6 already.
        let base = run(&under(&scenario, "linux-6.6"), true).unwrap();
        if check_trace(&base, FullChecks::EVERY_STEP).is_err() {
            continue;
        }
        for profile in LATER {
            run_checked(&name, &under(&scenario, profile));
        }
    }
}

#[test]
fn linux_6_12_and_6_18_hand_out_what_6_6_does() {
    let mut compared = 0;
    for (name, scenario) in scenarios() {
        if !comparable(&scenario) {
            continue;
        }
        let old = run(&under(&scenario, "linux-6.6"), true).unwrap();
        // 6.18 gives sheaves only to a cache that asks: none here, so it runs 6.12's SLUB.
        for profile in ["linux-6.12", "linux-6.18"] {
            let new = run(&under(&scenario, profile), true).unwrap();
            let (a, b) = (handed_out(&old), handed_out(&new));
            if let Some(i) = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i)) {
                panic!(
                    "{name}: allocation {i} of {}: 6.6 {:?}, {profile} {:?}",
                    a.len(),
                    a.get(i),
                    b.get(i)
                );
            }
            let (old_lines, new_lines) = (slabinfo_lines(&old), slabinfo_lines(&new));
            for (cache, line) in &old_lines {
                assert_eq!(
                    Some(line),
                    new_lines.get(cache),
                    "{name} {profile}: {cache}"
                );
            }
        }
        compared += 1;
    }
    assert!(compared >= 10, "compared only {compared} scenarios");
}

#[test]
fn linux_6_12_freezes_only_cpu_slabs() {
    // The cpu-partial preset leaves slabs on per-CPU partial stacks: 6.6 has them frozen,
    // 6.12 not, and both have every cpu slab frozen.
    let text =
        fs::read_to_string(root().join("../docs/scenarios/slub-cpu-partial-flush.slab")).unwrap();
    let scenario = parse(&text).unwrap();
    let mut seen_partial = false;
    for (profile, partial_frozen) in [("linux-6.6", true), ("linux-6.12", false)] {
        let rec = run(&under(&scenario, profile), false).unwrap();
        let st = rec.machine().slub();
        for s in &st.caches {
            for c in &s.cpu {
                if let Some(pfn) = c.slab {
                    assert!(st.slabs[&pfn].frozen, "{profile}: cpu slab {pfn:?}");
                }
                let mut at = c.partial;
                while let Some(pfn) = at {
                    seen_partial = true;
                    assert_eq!(st.slabs[&pfn].frozen, partial_frozen, "{profile}: {pfn:?}");
                    at = st.slabs[&pfn].next;
                }
            }
        }
    }
    assert!(seen_partial, "the preset should end with cpu partial slabs");
}
