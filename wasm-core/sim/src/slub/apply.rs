//! Applying SLUB events to the machine (the recorder's only way to change SLUB state).

use super::sheaf::PercpuSheaves;
use super::state::{
    HeldSlab, KmemCache, KmemCacheCpu, KmemCacheNode, ReciprocalValue, Slab, SlubState,
};
use crate::ids::{CacheId, NodeId, TiVec};
use crate::machine::{FrameState, Machine, Owner, Pfn, DIRECT_MAP_BASE};
use crate::trace::{End, Event, NewCache};

impl SlubState {
    /// Marks object `index` of the slab at `pfn` allocated or free.
    fn set_allocated(&mut self, pfn: Pfn, index: u32, allocated: bool) {
        let slot = &mut self.slabs.get_mut(&pfn).expect("slab exists").allocated[index as usize];
        debug_assert_ne!(*slot, allocated);
        *slot = allocated;
    }

    /// `list_del()` of the slab at `pfn` from node `node`'s partial list (or `n->full`), as
    /// `remove_partial()`/`remove_full()` of `cache` do it: the slab leaves the list it is on.
    /// That is `cache`'s own list, except after a free to the wrong cache that was not
    /// checked, when the slab can sit on that list of another cache (the kernel then
    /// miscounts `cache`'s `nr_partial`: see `machine::damage`).
    fn list_del(&mut self, cache: CacheId, node: NodeId, pfn: Pfn, full: bool) {
        let order = std::iter::once(cache).chain(self.caches.keys());
        for id in order {
            let n = &mut self.caches[id].node[node];
            let list = if full { &mut n.full } else { &mut n.partial };
            // A slab is on a list at most once (check_slub), so the first match is the only
            // one; the scan stops there (usually at the head of the cache's own list).
            if let Some(i) = list.iter().position(|p| *p == pfn) {
                list.remove(i);
                return;
            }
        }
    }
}

impl Machine {
    /// Whether `addr` is the start of an object a caller holds.
    pub fn is_live(&self, addr: u64) -> bool {
        crate::slub::place_of(self, addr)
            .is_some_and(|p| p.offset == 0 && self.slub().slabs[&p.pfn].allocated[p.index as usize])
    }

    /// Every object callers hold, with its cache, in address order.
    pub fn live(&self) -> impl Iterator<Item = (u64, CacheId)> + '_ {
        let st = self.slub();
        st.slabs.iter().flat_map(move |(pfn, s)| {
            let size = st.caches[s.cache].geometry.size;
            s.allocated
                .iter()
                .enumerate()
                .filter(|(_, &a)| a)
                .map(move |(i, _)| (self.object_addr(pfn, size, i as u32), s.cache))
        })
    }

    #[inline(always)]
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per SLUB event, each the state change that event records"
    )]
    pub(crate) fn apply_slub(&mut self, event: &Event) {
        let page_shift = self.page.page_shift;
        let object_addr = move |pfn: Pfn, size: u32, index: u32| {
            DIRECT_MAP_BASE + (u64::from(pfn) << page_shift) + u64::from(index) * u64::from(size)
        };
        let (cpus, nodes, span) = (self.config.cpus, self.config.nodes, self.span);
        let st = self.alloc.slub_mut();
        match event {
            Event::CacheCreated(new) => {
                let NewCache {
                    id,
                    name,
                    geometry,
                    flags,
                    ctor,
                    kmalloc,
                    usersize,
                    useroffset,
                    hardened,
                    random,
                    random_seq,
                } = &**new;
                debug_assert_eq!(id.index(), st.caches.len());
                if let Some(slot) = kmalloc {
                    self.kmalloc_caches.set(*slot, *id);
                }
                st.caches.push(KmemCache {
                    id: *id,
                    name: name.clone(),
                    reciprocal_size: ReciprocalValue::new(geometry.size),
                    geometry: geometry.clone(),
                    flags: *flags,
                    ctor: *ctor,
                    kmalloc: *kmalloc,
                    usersize: *usersize,
                    useroffset: *useroffset,
                    hardened: *hardened,
                    // kmem_cache_open(), v6.6.
                    remote_node_defrag_ratio: 1000,
                    random: *random,
                    random_seq: random_seq.clone(),
                    aliases: Vec::new(),
                    destroyed: false,
                    cpu: (0..cpus)
                        .map(|c| KmemCacheCpu {
                            tid: u64::from(c),
                            ..KmemCacheCpu::default()
                        })
                        .collect(),
                    // init_kmem_cache_nodes(): a barn per node for a cache with sheaves.
                    node: vec![
                        KmemCacheNode {
                            barn: (geometry.sheaf_capacity.unwrap_or(0) > 0).then(Default::default),
                            ..KmemCacheNode::default()
                        };
                        nodes as usize
                    ]
                    .into(),
                    // Filled by init_percpu_sheaves() (SheafEvent::PcsSet).
                    pcs: if geometry.sheaf_capacity.unwrap_or(0) > 0 {
                        vec![PercpuSheaves::default(); cpus as usize].into()
                    } else {
                        TiVec::new()
                    },
                });
            }
            Event::Sheaf(e) => st.apply_sheaf(e),
            Event::CacheAliased { id, alias } => st.caches[*id].aliases.push(alias.clone()),
            Event::CacheUnaliased { id, alias } => {
                let aliases = &mut st.caches[*id].aliases;
                if let Some(i) = aliases.iter().position(|a| a == alias) {
                    aliases.remove(i);
                }
            }
            Event::CacheDestroyed { id } => st.caches[*id].destroyed = true,
            Event::SlabCreated {
                cache,
                pfn,
                order,
                freelist,
            } => {
                let s = &st.caches[*cache];
                let size = s.geometry.size;
                let objects = &(freelist.len() as u32);
                let node = &NodeId::new(pfn.0 / span);
                // Every free object links to the next; the last holds NULL (encoded when
                // hardened, so even a NULL is a non-zero word then).
                let mut words = vec![0; *objects as usize];
                for (k, &i) in freelist.iter().enumerate() {
                    let obj = object_addr(*pfn, size, i);
                    let next = freelist
                        .get(k + 1)
                        .map_or(0, |&j| object_addr(*pfn, size, j));
                    words[i as usize] = s.freelist_ptr_encode(next, s.freeptr_addr(obj));
                }
                let head = freelist.first().map_or(0, |&i| object_addr(*pfn, size, i));
                st.slabs.insert(
                    *pfn,
                    Slab {
                        cache: *cache,
                        order: *order,
                        node: *node,
                        objects: *objects,
                        size,
                        reciprocal_size: st.caches[*cache].reciprocal_size,
                        inuse: 0,
                        frozen: false,
                        freelist: head,
                        next: None,
                        slabs: 0,
                        words,
                        allocated: vec![false; *objects as usize],
                    },
                );
            }
            Event::SlabCounted {
                cache,
                node,
                objects,
            } => {
                let n = &mut st.caches[*cache].node[*node];
                n.nr_slabs += 1;
                n.total_objects += u64::from(*objects);
            }
            Event::SlabUncounted {
                cache,
                node,
                objects,
            } => {
                let n = &mut st.caches[*cache].node[*node];
                n.nr_slabs -= 1;
                n.total_objects -= u64::from(*objects);
            }
            Event::SlabStateSet {
                pfn,
                freelist,
                inuse,
                frozen,
            } => {
                let slab = st.slabs.get_mut(pfn).expect("slab exists");
                slab.freelist = *freelist;
                slab.inuse = *inuse;
                slab.frozen = *frozen;
            }
            Event::FreePointerSet { pfn, index, value } => {
                let slab = st.slabs.get_mut(pfn).expect("slab exists");
                let s = &st.caches[slab.cache];
                let obj = object_addr(*pfn, slab.size, *index);
                slab.words[*index as usize] = s.freelist_ptr_encode(*value, s.freeptr_addr(obj));
            }
            Event::CpuFreelistSet {
                cache,
                cpu,
                freelist,
                tid,
            } => {
                let c = &mut st.caches[*cache].cpu[*cpu];
                c.freelist = *freelist;
                c.tid = *tid;
            }
            Event::CpuSlabSet { cache, cpu, slab } => st.caches[*cache].cpu[*cpu].slab = *slab,
            Event::CpuPartialSet { cache, cpu, top } => st.caches[*cache].cpu[*cpu].partial = *top,
            Event::SlabHeld {
                pfn,
                cpu,
                freelist,
                count,
            } => {
                st.held.retain(|h| h.pfn != *pfn);
                if let Some(cpu) = cpu {
                    st.held.push(HeldSlab {
                        pfn: *pfn,
                        cpu: *cpu,
                        freelist: *freelist,
                        count: *count,
                    });
                }
            }
            Event::SlabPartialLinked { pfn, next, slabs } => {
                let slab = st.slabs.get_mut(pfn).expect("slab exists");
                slab.next = *next;
                slab.slabs = *slabs;
            }
            Event::NodePartialAdded {
                cache,
                node,
                pfn,
                end,
            } => {
                let list = &mut st.caches[*cache].node[*node].partial;
                match end {
                    End::Head => list.insert(0, *pfn),
                    End::Tail => list.push(*pfn),
                }
            }
            Event::NodeFullAdded { cache, node, pfn } => {
                st.caches[*cache].node[*node].full.push(*pfn);
            }
            Event::NodeFullRemoved { cache, node, pfn } => {
                st.list_del(*cache, *node, *pfn, true);
            }
            Event::NodePartialRemoved { cache, node, pfn } => {
                st.list_del(*cache, *node, *pfn, false);
            }
            Event::SlabDiscarded { pfn, .. } => {
                if let Some(slab) = st.slabs.remove(pfn) {
                    self.frames[*pfn].state = FrameState::Allocated {
                        order: slab.order,
                        owner: Owner::Pages,
                    };
                }
            }
            Event::DetachedFreelistBuilt(_) | Event::DetachedFreelistReversed(_) => {
                // A transient structure for the narration; its links are FreePointerSet events.
            }
            Event::ObjectAllocated { pfn, index, .. } => {
                st.set_allocated(*pfn, *index, true);
                self.live_objects += 1;
            }
            Event::ObjectFreed { pfn, index, .. } => {
                st.set_allocated(*pfn, *index, false);
                self.live_objects -= 1;
            }
            _ => unreachable!("page allocator events are applied in machine/apply.rs"),
        }
    }
}
