//! The whole run at a glance: what each step did, as a few bits, for the overview strip under
//! the timeline and for the breakpoints ("run until the next `list_lock`", "… the next
//! `get_partial_node`").
//!
//! Rules:
//! - A step's kinds come from what the trace kept of it: its function and path (as the kernel
//!   names them) and its events. Nothing is run again.
//! - The kinds of a step are independent bits; a step may have none (boot, a cache created, a
//!   `kfree(NULL)`).
//! - Step `i` is what cursor `i + 1` shows.

use serde::Serialize;
use slabscope_sim::slab::event::SlabEvent;
use slabscope_sim::trace::{Event, Recorder};
use std::collections::HashMap;
use std::fmt::Write;

/// An allocator fast path: SLUB's lockless `c->freelist` cmpxchg (`slab_alloc_node()`,
/// `do_slab_free()`), SLAB's per-CPU array (`____cache_alloc()` hit, `___cache_free()` push).
pub const FAST: u8 = 1;
/// Any other step of an operation that worked on the allocator's structures: a slow path.
pub const SLOW: u8 = 2;
/// `spin_lock(&n->list_lock)`.
pub const LIST_LOCK: u8 = 4;
/// A new slab: `allocate_slab()` (SLUB), `cache_grow_begin()` (SLAB).
pub const NEW_SLAB: u8 = 8;
/// A slab given back to the page allocator: `discard_slab()` (SLUB), `slab_destroy()` (SLAB).
pub const DISCARD: u8 = 16;
/// A bad operation the simulator reports as the kernel would (double free, foreign pointer,
/// destroyed cache, out of memory, a request too large).
pub const DIAGNOSTIC: u8 = 32;
/// A slab changed list: onto or off a node's lists, the cpu slab or the cpu partial stack.
pub const LIST_MOVE: u8 = 64;
/// The page allocator worked: buddy blocks or per-CPU page lists.
pub const PAGES: u8 = 128;

/// Paths of the fast paths, as the steps name them.
const FAST_PATHS: &[&str] = &["fast path", "array hit", "to the per-CPU array"];

/// Paths of the diagnostic steps (slab_common::diagnostic and the checks before and after it).
const DIAGNOSTIC_PATHS: &[&str] = &[
    "pointer inside an object",
    "not an allocated object",
    "wrong cache",
    "out of memory",
    "destroyed cache",
    "too large",
    "no memory for the index array",
];

/// The run's steps at a glance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Overview {
    /// Two hex digits a step: its kind bits (`FAST` … `PAGES`).
    pub kinds: String,
    /// The distinct kernel functions and paths of the run's steps, in the order they first
    /// come.
    pub paths: Vec<StepPath>,
    /// Two hex digits a step: its entry in `paths` (`ff` for a run of more than 255 of them:
    /// the steps after the 255th new one).
    pub path_of: String,
}

/// A kernel function and the path taken in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct StepPath {
    pub function: String,
    pub path: String,
}

/// The kind bits of one step.
pub fn step_kinds(path: &str, op: Option<u32>, events: &[Event]) -> u8 {
    let mut kinds = 0;
    let mut slab_work = false;
    for e in events {
        match e {
            Event::ListLockTaken { .. } => kinds |= LIST_LOCK,
            Event::SlabCreated { .. } | Event::Slab(SlabEvent::SlabCreated(_)) => kinds |= NEW_SLAB,
            Event::SlabDiscarded { .. } | Event::Slab(SlabEvent::SlabDestroyed { .. }) => {
                kinds |= DISCARD
            }
            Event::NodePartialAdded { .. }
            | Event::NodePartialRemoved { .. }
            | Event::NodeFullAdded { .. }
            | Event::NodeFullRemoved { .. }
            | Event::CpuSlabSet { .. }
            | Event::CpuPartialSet { .. }
            | Event::Slab(SlabEvent::SlabListed { .. })
            | Event::Slab(SlabEvent::SlabUnlisted { .. }) => kinds |= LIST_MOVE,
            Event::DamageRecorded(_) => kinds |= DIAGNOSTIC,
            _ => {}
        }
        match e {
            Event::FreeBlockRemoved { .. }
            | Event::FreeBlockAdded { .. }
            | Event::BuddiesMerged { .. }
            | Event::BlockSplit { .. }
            | Event::PcpBlockAdded { .. }
            | Event::PcpBlockRemoved { .. }
            | Event::PcpFreeFactorSet { .. } => kinds |= PAGES,
            Event::PagesAllocated { .. }
            | Event::PagesReleased { .. }
            | Event::RandomDrawn { .. } => {}
            _ => slab_work = true,
        }
    }
    if path.starts_with("double free") || DIAGNOSTIC_PATHS.contains(&path) {
        kinds |= DIAGNOSTIC;
    }
    if FAST_PATHS.contains(&path) {
        kinds |= FAST;
    } else if op.is_some() && slab_work && kinds & DIAGNOSTIC == 0 {
        kinds |= SLOW;
    }
    kinds
}

/// The overview of every step `rec` recorded.
pub fn overview(rec: &Recorder) -> Overview {
    let n = rec.step_count();
    let mut kinds = String::with_capacity(2 * n);
    let mut path_of = String::with_capacity(2 * n);
    let mut paths: Vec<StepPath> = Vec::new();
    let mut index: HashMap<(&'static str, &'static str), usize> = HashMap::new();
    for i in 0..n {
        let Some(step) = rec.step(i) else { break };
        let k = step_kinds(step.path, step.op, step.events);
        let _ = write!(kinds, "{k:02x}");
        let next = paths.len();
        let p = *index.entry((step.function, step.path)).or_insert(next);
        if p == next {
            paths.push(StepPath {
                function: step.function.to_string(),
                path: step.path.to_string(),
            });
        }
        let _ = write!(path_of, "{:02x}", p.min(255));
    }
    // A path first seen after the 255th shares `ff`: keep the list to what the digits can name.
    paths.truncate(255);
    Overview {
        kinds,
        paths,
        path_of,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;
    use slabscope_sim::snapshot::SnapshotQuery;

    fn open(text: &str) -> Session {
        Session::open(text).expect("the scenario runs")
    }

    /// The kind bits of every step, decoded.
    fn kinds(o: &Overview) -> Vec<u8> {
        (0..o.kinds.len() / 2)
            .map(|i| u8::from_str_radix(&o.kinds[2 * i..2 * i + 2], 16).unwrap())
            .collect()
    }

    /// The scenario lines of the steps with all of `bits`.
    fn lines_with(s: &Session, bits: u8) -> Vec<u32> {
        let k = kinds(&s.overview());
        let mut lines: Vec<u32> = (0..k.len())
            .filter(|&i| k[i] & bits == bits)
            .filter_map(|i| s.recorder().step(i).and_then(|st| st.line))
            .collect();
        lines.dedup();
        lines
    }

    /// Slabs of every cache after `cursor` steps.
    fn slabs_at(s: &Session, cursor: usize) -> u32 {
        let snap = s
            .snapshot(
                cursor,
                &SnapshotQuery {
                    cache: None,
                    slab: None,
                },
            )
            .unwrap();
        snap.caches.iter().map(|c| c.slabs).sum()
    }

    #[test]
    fn one_kind_and_path_a_step_each_named_once() {
        let s = open(include_str!(
            "../../../docs/scenarios/slub-remote-free.slab"
        ));
        let o = s.overview();
        let n = s.recorder().step_count();
        assert_eq!(o.kinds.len(), 2 * n);
        assert_eq!(o.path_of.len(), 2 * n);
        let mut seen = std::collections::BTreeSet::new();
        for p in &o.paths {
            assert!(
                seen.insert((p.function.clone(), p.path.clone())),
                "{p:?} listed twice"
            );
        }
        for i in 0..n {
            let p = usize::from_str_radix(&o.path_of[2 * i..2 * i + 2], 16).unwrap();
            let step = s.recorder().step(i).unwrap();
            assert_eq!(
                (o.paths[p].function.as_str(), o.paths[p].path.as_str()),
                (step.function, step.path),
                "step {i}"
            );
        }
    }

    #[test]
    fn fast_paths_are_fast_and_nothing_else_of_the_slab_allocator() {
        for text in [
            include_str!("../../../docs/scenarios/slub-fast-path.slab"),
            include_str!("../../../docs/scenarios/slab-paths.slab"),
        ] {
            let s = open(text);
            let k = kinds(&s.overview());
            let mut fast = 0;
            for (i, &bits) in k.iter().enumerate() {
                let step = s.recorder().step(i).unwrap();
                let is_fast =
                    ["fast path", "array hit", "to the per-CPU array"].contains(&step.path);
                assert_eq!(
                    bits & FAST != 0,
                    is_fast,
                    "step {i}: {} · {}",
                    step.function,
                    step.path
                );
                if is_fast {
                    fast += 1;
                    // A fast path takes no lock, makes no slab and moves none between lists.
                    assert_eq!(
                        bits & (SLOW | LIST_LOCK | NEW_SLAB | DISCARD | LIST_MOVE | DIAGNOSTIC),
                        0,
                        "step {i}"
                    );
                }
            }
            assert!(fast > 5, "{fast} fast steps");
        }
    }

    #[test]
    fn a_step_makes_a_slab_or_discards_one_exactly_when_the_slab_count_says_so() {
        for text in [
            include_str!("../../../docs/scenarios/slub-min-partial.slab"),
            include_str!("../../../docs/scenarios/slab-paths.slab"),
            include_str!("../../../docs/scenarios/slub-cpu-partial-flush.slab"),
        ] {
            let s = open(text);
            let k = kinds(&s.overview());
            let mut before = slabs_at(&s, 0);
            for (i, &bits) in k.iter().enumerate() {
                let after = slabs_at(&s, i + 1);
                // No step both makes and discards a slab in these runs.
                assert_eq!(bits & NEW_SLAB != 0, after > before, "step {i}");
                assert_eq!(bits & DISCARD != 0, after < before, "step {i}");
                before = after;
            }
            assert!(k.iter().any(|&b| b & NEW_SLAB != 0));
        }
        // The min_partial preset discards: empty slabs beyond min_partial go back to the buddy.
        let s = open(include_str!(
            "../../../docs/scenarios/slub-min-partial.slab"
        ));
        assert!(kinds(&s.overview())
            .iter()
            .any(|&b| b & DISCARD != 0 && b & PAGES != 0));
    }

    #[test]
    fn a_flush_takes_list_lock_and_moves_slabs() {
        let s = open(include_str!(
            "../../../docs/scenarios/slub-cpu-partial-flush.slab"
        ));
        let k = kinds(&s.overview());
        for (i, &bits) in k.iter().enumerate() {
            let took = s
                .recorder()
                .step(i)
                .unwrap()
                .events
                .iter()
                .any(|e| matches!(e, Event::ListLockTaken { .. }));
            assert_eq!(bits & LIST_LOCK != 0, took, "step {i}");
        }
        // put_cpu_partial() draining the stack to the node list: under list_lock, slabs moved.
        assert!(k
            .iter()
            .any(|&b| b & (LIST_LOCK | LIST_MOVE | SLOW) == LIST_LOCK | LIST_MOVE | SLOW));
    }

    #[test]
    fn bad_operations_are_diagnostics_and_good_ones_are_not() {
        let s = open(include_str!("../tests/golden/bad-operations.slab"));
        let diag = lines_with(&s, DIAGNOSTIC);
        // Line 16 frees `a` a second time in a row (hardening catches it), 20 frees a `bar`
        // object to `foo`, 24 allocates from the destroyed `bar`, 25 runs out of memory.
        for line in [16, 20, 24, 25] {
            assert!(diag.contains(&line), "line {line} in {diag:?}");
        }
        for line in [13, 14, 15, 17, 19, 21, 22] {
            assert!(!diag.contains(&line), "line {line} in {diag:?}");
        }
    }
}
