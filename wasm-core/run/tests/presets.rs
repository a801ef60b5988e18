//! The presets of the visualizer's gallery (`docs/scenarios/*.slab`): each one is there to
//! show one path of the allocators, and its title and summary say which. Every preset runs
//! here from boot with the machine's invariants checked, and must still reach the kernel
//! functions and paths listed for it in `PRESETS`, so a change that quietly moves a preset
//! off its topic (say, the node-partial preset no longer reaching `get_partial_node`) fails
//! here. Every `.slab` file of the directory needs an entry, and every entry a file.

use slabscope_run::run;
use slabscope_scenario::{parse, Allocator, Scenario};
use slabscope_sim::ids::{CacheId, CpuId, Pfn};
use slabscope_sim::machine::check::{check_trace, FullChecks};
use slabscope_sim::trace::{Event, Recorder, Shown, Step};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One thing a preset's run must show.
enum Need {
    /// A step of `function` that took `path` (as the trace prints them: `function [path]`).
    Took(&'static str, &'static str),
    /// A step of `function` on `path` for which `test` holds; the text says what it checks.
    StepWith(
        &'static str,
        &'static str,
        &'static str,
        fn(&Step<'_>) -> bool,
    ),
    /// No step of `function` on `path`.
    Never(&'static str, &'static str),
    /// A property of the run as a whole.
    Run(&'static str, fn(&[Step<'_>]) -> bool),
    /// Run under `allocator slab` instead (as `slabscope compare` does): a step of
    /// `function` on `path`.
    UnderSlab(&'static str, &'static str),
}

use Need::{Never, Run, StepWith, Took, UnderSlab};

/// Each preset id (its file name) and what its run must show, in the gallery's order.
const PRESETS: &[(&str, &[Need])] = &[
    (
        "slub-fast-path",
        &[
            Took("slab_alloc_node", "fast path"),
            Took("do_slab_free", "fast path"),
            Run("no fast-path step takes a list_lock", |steps| {
                steps
                    .iter()
                    .filter(|s| s.path == "fast path")
                    .all(|s| !s.events.iter().any(is_list_lock))
            }),
            Run(
                "after a fast free, the same CPU's next allocation returns that object",
                fast_path_is_lifo,
            ),
        ],
    ),
    (
        "slub-refill-remote",
        &[
            Took("__slab_free", "frozen slab"),
            StepWith(
                "get_freelist",
                "remote frees",
                "takes the slab's freelist and keeps the slab frozen, without list_lock",
                |s| {
                    !s.events.iter().any(is_list_lock)
                        && s.events.iter().any(|e| {
                            matches!(
                                e,
                                Event::SlabStateSet {
                                    freelist: 0,
                                    frozen: true,
                                    ..
                                }
                            )
                        })
                },
            ),
            Took("get_freelist", "cpu slab exhausted"),
        ],
    ),
    (
        "slub-cpu-partial-pop",
        &[
            Took("__slab_free", "full slab to cpu partial"),
            Took("___slab_alloc", "cpu partial pop"),
            Never("get_partial_node", "node partial"),
        ],
    ),
    (
        "slub-node-partial",
        &[
            Took("unfreeze_partials_cpu", "cpu partial to node"),
            StepWith(
                "get_partial_node",
                "node partial",
                "takes list_lock and moves more slabs to the cpu partial stack",
                |s| {
                    s.events.iter().any(is_list_lock)
                        && s.events
                            .iter()
                            .any(|e| matches!(e, Event::CpuPartialSet { top: Some(_), .. }))
                },
            ),
            Took("___slab_alloc", "cpu partial pop"),
        ],
    ),
    (
        "slub-new-slab-fallback",
        &[
            StepWith(
                "allocate_slab",
                "preferred order",
                "a new slab of the cache's preferred order 1",
                |s| has_slab_of_order(s, 1),
            ),
            Took("__alloc_pages", "out of memory"),
            StepWith(
                "allocate_slab",
                "order fallback",
                "a new slab of the minimum order 0",
                |s| has_slab_of_order(s, 0),
            ),
        ],
    ),
    (
        "slub-remote-free",
        &[
            Took("__slab_free", "full slab to cpu partial"),
            Took("__slab_free", "frozen slab"),
            Took("unfreeze_partials_cpu", "cpu partial to node"),
        ],
    ),
    (
        "slub-cpu-partial-flush",
        &[StepWith(
            "__slab_free",
            "full slab to cpu partial",
            "put_cpu_partial drains a full stack: two slabs to the node under list_lock",
            |s| {
                arg(s, "drained").is_some()
                    && s.events.iter().any(is_list_lock)
                    && s.events
                        .iter()
                        .filter(|e| matches!(e, Event::NodePartialAdded { .. }))
                        .count()
                        >= 2
            },
        )],
    ),
    (
        "slub-min-partial",
        &[
            StepWith(
                "__slab_free",
                "empty slab",
                "an empty slab discarded (the node keeps min_partial)",
                |s| s.events.iter().any(is_discard),
            ),
            StepWith(
                "__slab_free",
                "empty slab",
                "an empty slab kept on the node partial list",
                |s| !s.events.iter().any(is_discard),
            ),
            StepWith(
                "__kmem_cache_do_shrink",
                "sort and free",
                "kmem_cache_shrink frees the kept empty slabs",
                |s| s.events.iter().any(is_discard),
            ),
        ],
    ),
    (
        "bulk-free",
        &[
            Took("kmem_cache_alloc_bulk", "bulk"),
            Run(
                "one bulk free gathers objects of several slabs of one cache",
                |steps| detached_pairs(steps).any(|((c1, s1), (c2, s2))| c1 == c2 && s1 != s2),
            ),
            Run("kfree_bulk frees objects of two caches", |steps| {
                detached_pairs(steps).any(|((c1, _), (c2, _))| c1 != c2)
            }),
        ],
    ),
    (
        "bulk-free-interleaved",
        &[Run(
            "the array A0, B0, A1, B1, ... of two slabs takes four detached freelists, of 3, 5, 5 \
                 and 3 objects (the lookahead gives up after three objects of the other slab), and \
                 the same count grouped by slab takes two",
            |steps| detached_counts(steps) == [vec![3, 5, 5, 3], vec![8, 8]],
        )],
    ),
    (
        "buddy-split-merge",
        &[
            StepWith(
                "rmqueue_bulk",
                "pcp refill",
                "the refill splits a larger block",
                |s| {
                    s.events
                        .iter()
                        .any(|e| matches!(e, Event::BlockSplit { .. }))
                },
            ),
            Took("__rmqueue_pcplist", "pcp hit"),
            StepWith(
                "free_pcppages_bulk",
                "drain_pages_zone",
                "buddies merge as the lists drain",
                has_merge,
            ),
        ],
    ),
    (
        "pcp-refill-drain",
        &[
            Took("rmqueue_bulk", "pcp refill"),
            Took("__rmqueue_pcplist", "pcp refilled"),
            Took("__rmqueue_pcplist", "pcp hit"),
            Took("free_unref_page_commit", "to pcp"),
            StepWith(
                "free_pcppages_bulk",
                "free_unref_page_commit",
                "a list past high gives pages back and they merge",
                has_merge,
            ),
            Took("free_pcppages_bulk", "drain_pages_zone"),
        ],
    ),
    (
        "slab-paths",
        &[
            Took("cache_grow_begin", "new slab"),
            Took(
                "alloc_block",
                "fill the array from the new slab without list_lock",
            ),
            Took("____cache_alloc", "array hit"),
            Took("cache_alloc_refill", "from the node's slab lists"),
            Took(
                "cache_flusharray",
                "array full: oldest batch to the shared array",
            ),
            Took(
                "cache_flusharray",
                "array full: oldest batch back to the slabs",
            ),
            Took("drain_array", "recently used: clear touched"),
            Took("drain_array", "unused: free the oldest"),
            Took("drain_freelist", "free slab"),
        ],
    ),
    (
        "slab-vs-slub",
        &[
            Took("get_any_partial", "remote node partial"),
            Took("__slab_free", "full slab to cpu partial"),
            Took("build_detached_freelist", "detached freelist"),
            UnderSlab("cache_free_alien", "to the alien cache"),
            UnderSlab(
                "cache_free_alien",
                "alien cache full: drain it to its node first",
            ),
            UnderSlab("____cache_alloc", "array hit"),
        ],
    ),
    (
        "slub-hardened-random",
        &[
            StepWith(
                "kmem_cache_create",
                "new cache",
                "a hardened cache with a secret s->random and a random sequence",
                |s| {
                    s.events.iter().any(|e| {
                        matches!(e, Event::CacheCreated(c)
                            if c.hardened && c.random != 0 && c.random_seq.is_some())
                    })
                },
            ),
            StepWith(
                "allocate_slab",
                "preferred order",
                "a new slab whose freelist is not in address order",
                |s| {
                    s.events.iter().any(|e| {
                        matches!(e, Event::SlabCreated { freelist, .. }
                            if freelist.windows(2).any(|w| w[0] > w[1]))
                    })
                },
            ),
            Took("kfree", "double free caught by BUG_ON(object == fp)"),
        ],
    ),
    (
        "large",
        &[
            Run("about 100,000 steps", |steps| steps.len() >= 100_000),
            Took("get_any_partial", "remote node partial"),
            Took("__slab_free", "frozen slab"),
        ],
    ),
];

/// Every run is checked after every step for what the step touched; runs up to this long
/// are also checked whole after every step, longer ones every `SPARSE_CHECK` steps, at the
/// recorder's keyframes and at the end.
const CHECK_EVERY_STEP_UP_TO: usize = 5_000;
const SPARSE_CHECK: usize = 2_000;

fn is_list_lock(e: &Event) -> bool {
    matches!(e, Event::ListLockTaken { .. })
}

fn is_discard(e: &Event) -> bool {
    matches!(e, Event::SlabDiscarded { .. })
}

fn has_merge(s: &Step<'_>) -> bool {
    s.events
        .iter()
        .any(|e| matches!(e, Event::BuddiesMerged { .. }))
}

fn has_slab_of_order(s: &Step<'_>, order: u8) -> bool {
    s.events
        .iter()
        .any(|e| matches!(e, Event::SlabCreated { order: o, .. } if *o == order))
}

/// The caption argument `name` of a step.
fn arg<'a>(s: &'a Step<'_>, name: &str) -> Option<&'a Shown> {
    s.caption
        .args
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
}

/// (cache, slab) of each pair of consecutive `build_detached_freelist` steps.
fn detached_pairs(steps: &[Step<'_>]) -> impl Iterator<Item = ((CacheId, Pfn), (CacheId, Pfn))> {
    let built = |s: &Step<'_>| {
        s.events.iter().find_map(|e| match e {
            Event::DetachedFreelistBuilt(d) => Some((d.cache, d.slab)),
            _ => None,
        })
    };
    // A detached freelist is a build step, a slab_free_freelist_hook() step for two or more
    // objects, then its free step; the next list of the same call follows that, or a large
    // kmalloc of kfree_bulk() does. Anything else ends the call.
    let mut pairs = Vec::new();
    let (mut last, mut freed) = (None, false);
    for s in steps {
        if let Some(d) = built(s) {
            if let Some(prev) = last.filter(|_| freed) {
                pairs.push((prev, d));
            }
            (last, freed) = (Some(d), false);
        } else if s.function == "slab_free_freelist_hook" && !freed {
            continue; // the list, reversed, still to be freed
        } else if last.is_some() && !freed {
            freed = true; // do_slab_free(), __slab_free() or free_to_partial_list()
        } else if !(freed && s.function == "kfree_bulk") {
            last = None;
        }
    }
    pairs.into_iter()
}

/// The object counts of the detached freelists each bulk free built, one list per operation
/// (read from the operation index every step records).
fn detached_counts(steps: &[Step<'_>]) -> Vec<Vec<usize>> {
    let mut out: Vec<(Option<u32>, Vec<usize>)> = Vec::new();
    for s in steps {
        for e in s.events {
            let Event::DetachedFreelistBuilt(d) = e else {
                continue;
            };
            match out.last_mut() {
                Some((op, counts)) if *op == s.op => counts.push(d.objects.len()),
                _ => out.push((s.op, vec![d.objects.len()])),
            }
        }
    }
    out.into_iter().map(|(_, counts)| counts).collect()
}

/// Whether every fast-path allocation that follows a fast-path free on the same CPU and
/// cache returns the object freed, and at least one does.
fn fast_path_is_lifo(steps: &[Step<'_>]) -> bool {
    let mut last_freed: BTreeMap<(CacheId, CpuId), u64> = BTreeMap::new();
    let mut reused = 0;
    for s in steps {
        for e in s.events {
            match (s.function, e) {
                (
                    "do_slab_free",
                    Event::ObjectFreed {
                        cache, cpu, addr, ..
                    },
                ) => {
                    last_freed.insert((*cache, *cpu), *addr);
                }
                (
                    "slab_alloc_node",
                    Event::ObjectAllocated {
                        cache, cpu, addr, ..
                    },
                ) => {
                    if let Some(freed) = last_freed.remove(&(*cache, *cpu)) {
                        if freed != *addr {
                            return false;
                        }
                        reused += 1;
                    }
                }
                _ => {}
            }
        }
    }
    reused > 0
}

fn scenario_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios")
}

fn preset_files() -> BTreeSet<String> {
    fs::read_dir(scenario_dir())
        .expect("docs/scenarios exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "slab"))
        .map(|p| {
            p.file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

fn load(id: &str) -> Scenario {
    let path = scenario_dir().join(format!("{id}.slab"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// Runs `scenario` recorded and checks the invariants after its steps.
fn run_checked(id: &str, scenario: &Scenario) -> Recorder {
    let rec = run(scenario, true).unwrap_or_else(|e| panic!("{id}: {e}"));
    let full = if rec.step_count() > CHECK_EVERY_STEP_UP_TO {
        FullChecks::Every(SPARSE_CHECK)
    } else {
        FullChecks::EVERY_STEP
    };
    if let Err(v) = check_trace(&rec, full) {
        let function = rec.step(v.step.max(1) - 1).map_or("", |s| s.function);
        panic!("{id}: {v} ({function})");
    }
    rec
}

fn took(steps: &[Step<'_>], function: &str, path: &str) -> bool {
    steps
        .iter()
        .any(|s| s.function == function && s.path == path)
}

/// What `id`'s run misses of `needs`, one line each.
fn missing(id: &str, needs: &[Need]) -> Vec<String> {
    let scenario = load(id);
    let rec = run_checked(id, &scenario);
    let steps = rec.steps();
    let mut slab_run = None;
    let mut out = Vec::new();
    for need in needs {
        let (ok, what) = match need {
            Took(f, p) => (took(&steps, f, p), format!("no step {f} [{p}]")),
            StepWith(f, p, what, test) => (
                steps
                    .iter()
                    .any(|s| s.function == *f && s.path == *p && test(s)),
                format!("no step {f} [{p}] where {what}"),
            ),
            Never(f, p) => (!took(&steps, f, p), format!("a step {f} [{p}]")),
            Run(what, test) => (test(&steps), format!("not true: {what}")),
            UnderSlab(f, p) => {
                let rec = slab_run.get_or_insert_with(|| {
                    let mut s = scenario.clone();
                    s.allocator = Allocator::Slab;
                    run_checked(id, &s)
                });
                (
                    took(&rec.steps(), f, p),
                    format!("under SLAB, no step {f} [{p}]"),
                )
            }
        };
        if !ok {
            out.push(format!("{id}: {what}"));
        }
    }
    out
}

#[test]
fn every_preset_file_has_an_entry_and_every_entry_a_file() {
    let files = preset_files();
    let listed: BTreeSet<String> = PRESETS.iter().map(|(id, _)| id.to_string()).collect();
    assert_eq!(PRESETS.len(), listed.len(), "a preset is listed twice");
    let unlisted: Vec<_> = files.difference(&listed).collect();
    let absent: Vec<_> = listed.difference(&files).collect();
    assert!(
        unlisted.is_empty(),
        "docs/scenarios has presets with no entry in PRESETS: {unlisted:?}"
    );
    assert!(
        absent.is_empty(),
        "PRESETS lists presets with no file in docs/scenarios: {absent:?}"
    );
    assert!(
        files.len() >= 12,
        "the gallery holds {} presets",
        files.len()
    );
}

#[test]
fn the_visualizer_lists_every_preset() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/scenario/presetIds.ts");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let unlisted: Vec<_> = PRESETS
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !text.contains(&format!("'{id}'")))
        .collect();
    assert!(
        unlisted.is_empty(),
        "web/scenario/presetIds.ts PRESET_IDS lacks {unlisted:?}"
    );
}

#[test]
fn every_preset_keeps_its_invariants_and_reaches_its_paths() {
    let failures: Vec<String> = PRESETS
        .iter()
        .filter(|(id, _)| preset_files().contains(*id))
        .flat_map(|(id, needs)| missing(id, needs))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A preset says format 2 only when it needs it: as format 1 it is refused for a format 2 line.
#[test]
fn presets_use_format_2_only_for_format_2_lines() {
    for id in preset_files() {
        let text = fs::read_to_string(scenario_dir().join(format!("{id}.slab"))).expect("readable");
        if let Some(rest) = text.strip_prefix("slabscope-scenario 2\n") {
            let e = parse(&format!("slabscope-scenario 1\n{rest}"))
                .expect_err(&format!("{id} parses as format 1"));
            assert_eq!(e.key, "scenario.needs_version", "{id}: {e}");
        } else {
            assert!(text.starts_with("slabscope-scenario 1\n"), "{id}");
        }
    }
}

/// The preset runs stay short enough to step through by hand (`large`, the benchmark, aside).
#[test]
fn presets_are_small() {
    for (id, _) in PRESETS.iter().filter(|(id, _)| *id != "large") {
        if !preset_files().contains(*id) {
            continue;
        }
        let rec = run(&load(id), true).unwrap_or_else(|e| panic!("{id}: {e}"));
        // slab-paths (SLAB's whole tour) is the longest by design.
        let limit = if *id == "slab-paths" { 2_000 } else { 500 };
        assert!(
            rec.step_count() <= limit,
            "{id}: {} steps",
            rec.step_count()
        );
    }
}

#[test]
fn the_visualizer_offers_every_kernel_profile_in_order() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/scenario/profile.ts");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let line = text
        .lines()
        .find(|l| l.starts_with("export const PROFILE_IDS"))
        .expect("profile.ts has PROFILE_IDS");
    let listed: Vec<&str> = line.split('\'').skip(1).step_by(2).collect();
    let ids: Vec<&str> = slabscope_sim::profile::PROFILES
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(listed, ids, "web/scenario/profile.ts PROFILE_IDS");
}
