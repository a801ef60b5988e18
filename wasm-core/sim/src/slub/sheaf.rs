//! Per-CPU sheaves and the per-node barn (mm/slub.c, 6.18+; spec after 6.6, sections 3 and
//! 4): their structures, the events that change them, and how those events apply.
//!
//! Rules:
//! - A sheaf is an array of object pointers with a capacity; `objects[size - 1]` is its top.
//!   Every sheaf of a run is in `SlubState::sheaves` by id; a CPU's `main`, `spare` and
//!   `rcu_free` slots and a barn's lists hold ids, so a sheaf moving between them keeps its
//!   name (and a view can follow it).
//! - An object in a sheaf is free from its caller's side (not `allocated`) and in use from its
//!   slab's (counted in `inuse`, on no freelist): that is how the kernel's counters see it.
//! - A sheaf is itself a kmalloc object in the kernel (of the kmalloc cache its size rounds to);
//!   as with `struct kmem_cache`, the simulator does not take it from a kmalloc cache.

use crate::ids::{CacheId, CpuId, NodeId, SheafId};
use serde::Serialize;

/// `struct slab_sheaf`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Sheaf {
    /// `sheaf->cache`.
    pub cache: CacheId,
    /// The cache's `sheaf_capacity` when it was made.
    pub capacity: u32,
    /// `objects[0 .. size]`, bottom first.
    pub objects: Vec<u64>,
}

/// Every sheaf of a run by id (`SlubState::sheaves`): a slot per id, and the ids of freed
/// sheaves, which the next sheaves take again (lowest first), so the table stays as large as
/// the most sheaves alive at once and a lookup is an index. Record and replay free and
/// allocate in the same order, so they name sheaves alike.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SheafTable {
    slots: Vec<Option<Sheaf>>,
    /// Free ids below `slots.len()`, highest first (the last is the next one taken).
    free: Vec<u32>,
    live: usize,
}

impl SheafTable {
    /// The id the next sheaf gets.
    pub fn next_id(&self) -> SheafId {
        SheafId(self.free.last().copied().unwrap_or(self.slots.len() as u32))
    }

    pub(crate) fn insert(&mut self, id: SheafId, sheaf: Sheaf) {
        debug_assert_eq!(id, self.next_id(), "sheaves are made in id order");
        let i = id.0 as usize;
        if i == self.slots.len() {
            self.slots.push(Some(sheaf));
        } else {
            self.free.pop();
            self.slots[i] = Some(sheaf);
        }
        self.live += 1;
    }

    pub(crate) fn remove(&mut self, id: SheafId) {
        if self
            .slots
            .get_mut(id.0 as usize)
            .and_then(Option::take)
            .is_none()
        {
            return;
        }
        self.live -= 1;
        // Kept highest first, so the lowest free id is taken next.
        let at = self.free.partition_point(|&f| f > id.0);
        self.free.insert(at, id.0);
    }

    pub fn get(&self, id: &SheafId) -> Option<&Sheaf> {
        self.slots.get(id.0 as usize)?.as_ref()
    }

    pub(crate) fn get_mut(&mut self, id: &SheafId) -> Option<&mut Sheaf> {
        self.slots.get_mut(id.0 as usize)?.as_mut()
    }

    /// The live sheaves, lowest id first.
    pub fn iter(&self) -> impl Iterator<Item = (SheafId, &Sheaf)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((SheafId(i as u32), s.as_ref()?)))
    }

    pub fn values(&self) -> impl Iterator<Item = &Sheaf> {
        self.slots.iter().flatten()
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }
}

impl std::ops::Index<&SheafId> for SheafTable {
    type Output = Sheaf;
    fn index(&self, id: &SheafId) -> &Sheaf {
        self.get(id).expect("sheaf exists")
    }
}

/// `struct slub_percpu_sheaves` of one CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PercpuSheaves {
    /// Allocations and frees work on it; never NULL while the lock is not held.
    pub main: Option<SheafId>,
    /// NULL, or an empty or a full sheaf.
    pub spare: Option<SheafId>,
    /// Collects `kfree_rcu()` objects, or NULL.
    pub rcu_free: Option<SheafId>,
}

/// Which of a CPU's sheaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum PcsSlot {
    Main,
    Spare,
    RcuFree,
}

/// `struct node_barn`: full and empty sheaves a node's CPUs share, each list head first (a
/// sheaf is put and taken at the head).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NodeBarn {
    pub full: Vec<SheafId>,
    pub empty: Vec<SheafId>,
}

/// Whose objects a free to the slabs gives back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeFrom {
    /// A caller's (`kfree()`, `kmem_cache_free()`, a bulk free).
    Caller,
    /// A sheaf's (`sheaf_flush_unused()`): they leave it as they reach their slab.
    Sheaf(SheafId),
    /// A batch an operation took off a main sheaf into an array of its own
    /// (`sheaf_flush_main()`), or a refill's leftovers.
    Stacked,
}

/// `MAX_FULL_SHEAVES` and `MAX_EMPTY_SHEAVES`: what a barn keeps of each kind.
pub const MAX_FULL_SHEAVES: usize = 10;
pub const MAX_EMPTY_SHEAVES: usize = 10;

/// One recorded fact about sheaves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "sheaf_event")]
pub enum SheafEvent {
    /// `__alloc_empty_sheaf()`: a new, empty sheaf of `capacity` pointers for `cache`.
    Allocated {
        cache: CacheId,
        sheaf: SheafId,
        capacity: u32,
    },
    /// `free_empty_sheaf()`.
    Freed { sheaf: SheafId },
    /// `pcs->main`, `pcs->spare` or `pcs->rcu_free` of `cpu` is now `sheaf`.
    PcsSet {
        cache: CacheId,
        cpu: CpuId,
        slot: PcsSlot,
        sheaf: Option<SheafId>,
    },
    /// `objects` were put on top of the sheaf, in order (the last one is the new top).
    Pushed { sheaf: SheafId, objects: Box<[u64]> },
    /// The top `count` objects left the sheaf.
    Taken { sheaf: SheafId, count: u32 },
    /// These objects left the sheaf, wherever they were in it (a flush frees a sheaf one
    /// slab's objects at a time).
    Removed { sheaf: SheafId, objects: Box<[u64]> },
    /// Objects an operation holds in an array of its own on its way to the slabs (`held`), or
    /// that reached them.
    Stacked { objects: Box<[u64]>, held: bool },
    /// A refill took the slab off its node's partial list (`isolated`), or let it go
    /// (7.x `get_partial_node_bulk()`). Two operations can hold the same slab so: a free puts
    /// a slab whose whole freelist one refill took back on the list, and another isolates it.
    Isolated {
        pfn: crate::ids::Pfn,
        isolated: bool,
    },
    /// A sheaf joined the head of a barn's full or empty list.
    BarnAdded {
        cache: CacheId,
        node: NodeId,
        sheaf: SheafId,
        full: bool,
    },
    /// An operation holds the sheaf outside every CPU and barn (filling or flushing it with
    /// the lock dropped), or no longer.
    Held { sheaf: SheafId, held: bool },
    /// A sheaf left a barn's list.
    BarnRemoved {
        cache: CacheId,
        node: NodeId,
        sheaf: SheafId,
        full: bool,
    },
}

impl crate::slub::state::SlubState {
    /// Applies a sheaf event.
    pub(crate) fn apply_sheaf(&mut self, event: &SheafEvent) {
        match event {
            SheafEvent::Allocated {
                cache,
                sheaf,
                capacity,
            } => {
                self.sheaves.insert(
                    *sheaf,
                    Sheaf {
                        cache: *cache,
                        capacity: *capacity,
                        objects: Vec::with_capacity(*capacity as usize),
                    },
                );
            }
            SheafEvent::Freed { sheaf } => {
                self.sheaves.remove(*sheaf);
                self.held_sheaves.retain(|s| s != sheaf);
            }
            SheafEvent::Held { sheaf, held } => {
                self.held_sheaves.retain(|s| s != sheaf);
                if *held {
                    self.held_sheaves.push(*sheaf);
                }
            }
            SheafEvent::PcsSet {
                cache,
                cpu,
                slot,
                sheaf,
            } => {
                let pcs = &mut self.caches[*cache].pcs[*cpu];
                *match slot {
                    PcsSlot::Main => &mut pcs.main,
                    PcsSlot::Spare => &mut pcs.spare,
                    PcsSlot::RcuFree => &mut pcs.rcu_free,
                } = *sheaf;
            }
            SheafEvent::Pushed { sheaf, objects } => {
                let s = self.sheaves.get_mut(sheaf).expect("sheaf exists");
                s.objects.extend_from_slice(objects);
            }
            SheafEvent::Taken { sheaf, count } => {
                let s = self.sheaves.get_mut(sheaf).expect("sheaf exists");
                let keep = s.objects.len() - *count as usize;
                s.objects.truncate(keep);
            }
            SheafEvent::Removed { sheaf, objects } => {
                let s = self.sheaves.get_mut(sheaf).expect("sheaf exists");
                s.objects.retain(|o| !objects.contains(o));
            }
            SheafEvent::Stacked { objects, held } => {
                if *held {
                    self.stacked.extend_from_slice(objects);
                } else {
                    self.stacked.retain(|o| !objects.contains(o));
                }
            }
            SheafEvent::Isolated { pfn, isolated } => {
                if *isolated {
                    self.isolated.push(*pfn);
                } else if let Some(i) = self.isolated.iter().position(|p| p == pfn) {
                    self.isolated.swap_remove(i);
                }
            }
            SheafEvent::BarnAdded {
                cache,
                node,
                sheaf,
                full,
            } => {
                let barn = self.caches[*cache].node[*node]
                    .barn
                    .get_or_insert_with(NodeBarn::default);
                let list = if *full {
                    &mut barn.full
                } else {
                    &mut barn.empty
                };
                list.insert(0, *sheaf);
            }
            SheafEvent::BarnRemoved {
                cache,
                node,
                sheaf,
                full,
            } => {
                if let Some(barn) = self.caches[*cache].node[*node].barn.as_mut() {
                    let list = if *full {
                        &mut barn.full
                    } else {
                        &mut barn.empty
                    };
                    list.retain(|s| s != sheaf);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheaf() -> Sheaf {
        Sheaf {
            cache: CacheId(0),
            capacity: 4,
            objects: Vec::new(),
        }
    }

    #[test]
    fn freed_sheaf_ids_are_taken_again_lowest_first() {
        let mut t = SheafTable::default();
        for i in 0..4 {
            assert_eq!(t.next_id(), SheafId(i));
            t.insert(SheafId(i), sheaf());
        }
        t.remove(SheafId(2));
        t.remove(SheafId(0));
        t.remove(SheafId(0)); // twice: nothing
        assert_eq!(t.len(), 2);
        assert_eq!(t.next_id(), SheafId(0));
        t.insert(SheafId(0), sheaf());
        assert_eq!(t.next_id(), SheafId(2));
        t.insert(SheafId(2), sheaf());
        assert_eq!(t.next_id(), SheafId(4));
        let ids: Vec<_> = t.iter().map(|(id, _)| id.0).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert!(t.get(&SheafId(9)).is_none());
    }
}
