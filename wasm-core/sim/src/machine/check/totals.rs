//! `Totals`: the sums over the machine that its counters must equal. A full check adds up
//! every frame's and every slab's share (`Totals::of`); the incremental checker keeps them by
//! taking out the share of each item a step names before the step changes it and putting its
//! new share back after the step. The share of an item is one function either way.

use super::pages::ListId;
use super::problem::{problem, Problem};
use crate::ids::{CacheId, NodeId};
use crate::machine::{Machine, Pfn};

/// Sums over frames and slabs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Per buddy or pcp list (`ListId::index`): blocks whose head frame is in that list's
    /// state. Compared with the list's length.
    pub(crate) on_list: Vec<i64>,
    /// Per `(cache, node)`, at `cache * nodes + node`: under SLUB the slabs and their objects
    /// (compared with `nr_slabs` and `total_objects`); under SLAB the slabs on one of the
    /// node's lists and their free objects (compared with `total_slabs` and `free_objects`).
    pub(crate) per_node: Vec<[i64; 2]>,
    /// Objects callers hold: marked `allocated` in their slab. Compared with `live_objects`.
    pub(crate) live: i64,
}

impl Totals {
    /// All zero, sized for `m`.
    pub(crate) fn zero(m: &Machine) -> Totals {
        Totals {
            on_list: vec![0; ListId::count(m)],
            per_node: Vec::new(),
            live: 0,
        }
    }

    /// Every share added up: what the counters must equal.
    pub(crate) fn of(m: &Machine) -> Totals {
        let mut t = Totals::zero(m);
        for pfn in m.frames.keys() {
            t.frame(m, pfn, 1);
        }
        for pfn in crate::allocator::ops(m).slab_pfns(m) {
            t.slab(m, pfn, 1);
        }
        t
    }

    /// Adds `sign` times the share of the frame at `pfn`: one block on its list if it heads
    /// a free or pcp block.
    #[inline]
    pub(crate) fn frame(&mut self, m: &Machine, pfn: Pfn, sign: i64) {
        if let Some(i) = ListId::of_frame(m, pfn).and_then(|id| id.index(m)) {
            self.on_list[i] += sign;
        }
    }

    /// Adds `sign` times the share of the slab at `pfn`, if there is one: its objects held,
    /// and its place in its cache's node counters.
    pub(crate) fn slab(&mut self, m: &Machine, pfn: Pfn, sign: i64) {
        let share = crate::allocator::ops(m).slab_share(m, pfn);
        let Some(SlabShare {
            cache,
            node,
            counted: counts,
            held,
        }) = share
        else {
            return;
        };
        self.live += sign * held;
        let i = cache.index() * m.config.nodes as usize + node.index();
        if self.per_node.len() <= i {
            self.per_node.resize(i + 1, [0, 0]);
        }
        self.per_node[i][0] += sign * counts[0];
        self.per_node[i][1] += sign * counts[1];
    }

    /// The sums of `(cache, node)`.
    pub(crate) fn node(&self, m: &Machine, cache: CacheId, node: NodeId) -> [i64; 2] {
        let i = cache.index() * m.config.nodes as usize + node.index();
        self.per_node.get(i).copied().unwrap_or([0, 0])
    }
}

/// Objects callers hold add up to `live_objects`.
pub(crate) fn check_live(m: &Machine, totals: &Totals, bad: &mut Vec<Problem>) {
    if totals.live != m.live_objects as i64 {
        bad.push(problem!(
            "check.live_objects",
            "{marked} objects marked allocated, but live_objects is {live}",
            marked = totals.live,
            live = m.live_objects
        ));
    }
}

/// A slab's share of the sums the counters must equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlabShare {
    pub cache: CacheId,
    pub node: NodeId,
    /// What it adds to its node's counters of `cache`: slabs, and objects (SLUB: every
    /// object of a counted slab; SLAB: the free objects of a listed slab).
    pub counted: [i64; 2],
    /// Objects callers hold.
    pub held: i64,
}
