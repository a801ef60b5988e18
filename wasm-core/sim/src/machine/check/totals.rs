//! `Totals`: the sums over the machine that its counters must equal. A full check adds up
//! every frame's and every slab's share (`Totals::of`); the incremental checker keeps them by
//! taking out the share of each item a step names before the step changes it and putting its
//! new share back after the step. The share of an item is one function either way.

use super::pages::ListId;
use crate::machine::{Machine, Pfn};
use crate::scenario::Allocator;

/// Sums over frames and slabs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Per buddy or pcp list (`ListId::index`): blocks whose head frame is in that list's
    /// state. Compared with the list's length.
    pub on_list: Vec<i64>,
    /// Per `(cache, node)`, at `cache * nodes + node`: under SLUB the slabs and their objects
    /// (compared with `nr_slabs` and `total_objects`); under SLAB the slabs on one of the
    /// node's lists and their free objects (compared with `total_slabs` and `free_objects`).
    pub per_node: Vec<[i64; 2]>,
    /// Objects callers hold: marked `allocated` in their slab. Compared with `live_objects`.
    pub live: i64,
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
        for pfn in 0..m.frames.len() as Pfn {
            t.frame(m, pfn, 1);
        }
        match m.allocator() {
            Allocator::Slub => {
                for (pfn, _) in m.slub().slabs.iter() {
                    t.slab(m, pfn, 1);
                }
            }
            Allocator::Slab => {
                for &pfn in m.slab().slabs.keys() {
                    t.slab(m, pfn, 1);
                }
            }
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
        let share = match m.allocator() {
            Allocator::Slub => m.slub().slabs.get(&pfn).map(|s| {
                let held = s.allocated.iter().filter(|&&a| a).count() as i64;
                (s.cache, s.node, [1, i64::from(s.objects)], held)
            }),
            Allocator::Slab => m.slab().slabs.get(&pfn).map(|s| {
                let held = s.allocated.iter().filter(|&&a| a).count() as i64;
                let num = i64::from(
                    m.slab()
                        .caches
                        .get(s.cache as usize)
                        .map_or(0, |c| c.geometry.num),
                );
                let listed = if s.list.is_some() {
                    [1, num - i64::from(s.active)]
                } else {
                    [0, 0]
                };
                (s.cache, s.node, listed, held)
            }),
        };
        let Some((cache, node, counts, held)) = share else {
            return;
        };
        self.live += sign * held;
        let i = cache as usize * m.config.nodes as usize + node as usize;
        if self.per_node.len() <= i {
            self.per_node.resize(i + 1, [0, 0]);
        }
        self.per_node[i][0] += sign * counts[0];
        self.per_node[i][1] += sign * counts[1];
    }

    /// The sums of `(cache, node)`.
    pub(crate) fn node(&self, m: &Machine, cache: u32, node: u32) -> [i64; 2] {
        let i = cache as usize * m.config.nodes as usize + node as usize;
        self.per_node.get(i).copied().unwrap_or([0, 0])
    }
}

/// Objects callers hold add up to `live_objects`.
pub(crate) fn check_live(m: &Machine, totals: &Totals, bad: &mut Vec<String>) {
    if totals.live != m.live_objects as i64 {
        bad.push(format!(
            "{} objects marked allocated, but live_objects is {}",
            totals.live, m.live_objects
        ));
    }
}
