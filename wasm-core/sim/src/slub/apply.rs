//! Applying SLUB events to the machine (the recorder's only way to change SLUB state).

use super::state::{KmemCache, KmemCacheCpu, KmemCacheNode, ReciprocalValue, Slab};
use crate::machine::{Machine, Pfn, DIRECT_MAP_BASE};
use crate::trace::{End, Event, NewCache};

impl Machine {
    fn set_allocated(&mut self, pfn: Pfn, index: u32, allocated: bool) {
        let slot = &mut self.slabs.get_mut(&pfn).expect("slab exists").allocated[index as usize];
        debug_assert_ne!(*slot, allocated);
        *slot = allocated;
        if allocated {
            self.live_objects += 1;
        } else {
            self.live_objects -= 1;
        }
    }

    /// Whether `addr` is the start of an object a caller holds.
    pub fn is_live(&self, addr: u64) -> bool {
        crate::slub::place_of(self, addr)
            .is_some_and(|p| p.offset == 0 && self.slabs[&p.pfn].allocated[p.index as usize])
    }

    /// Every object callers hold, with its cache, in address order.
    pub fn live(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.slabs.iter().flat_map(move |(pfn, s)| {
            let size = self.caches[s.cache as usize].geometry.size;
            s.allocated
                .iter()
                .enumerate()
                .filter(|(_, &a)| a)
                .map(move |(i, _)| (self.object_addr(pfn, size, i as u32), s.cache))
        })
    }

    /// `list_del()` of the slab at `pfn` from node `node`'s partial list (or `n->full`), as
    /// `remove_partial()`/`remove_full()` of `cache` do it: the slab leaves the list it is on.
    /// That is `cache`'s own list, except after a free to the wrong cache that was not
    /// checked, when the slab can sit on that list of another cache (the kernel then
    /// miscounts `cache`'s `nr_partial`: see `machine::damage`).
    fn list_del(&mut self, cache: u32, node: u32, pfn: Pfn, full: bool) {
        let order = std::iter::once(cache as usize).chain(0..self.caches.len());
        for id in order {
            let n = &mut self.caches[id].node[node as usize];
            let list = if full { &mut n.full } else { &mut n.partial };
            // A slab is on a list at most once (check_slub), so the first match is the only
            // one; the scan stops there (usually at the head of the cache's own list).
            if let Some(i) = list.iter().position(|p| *p == pfn) {
                list.remove(i);
                return;
            }
        }
    }

    #[inline(always)]
    pub(crate) fn apply_slub(&mut self, event: &Event) {
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
                debug_assert_eq!(*id as usize, self.caches.len());
                if let Some(slot) = kmalloc {
                    self.kmalloc_caches.set(*slot, *id);
                }
                self.caches.push(KmemCache {
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
                    cpu: (0..self.config.cpus)
                        .map(|c| KmemCacheCpu {
                            tid: u64::from(c),
                            ..KmemCacheCpu::default()
                        })
                        .collect(),
                    node: vec![KmemCacheNode::default(); self.config.nodes as usize],
                });
            }
            Event::CacheAliased { id, alias } => {
                self.caches[*id as usize].aliases.push(alias.clone())
            }
            Event::CacheUnaliased { id, alias } => {
                let aliases = &mut self.caches[*id as usize].aliases;
                if let Some(i) = aliases.iter().position(|a| a == alias) {
                    aliases.remove(i);
                }
            }
            Event::CacheDestroyed { id } => self.caches[*id as usize].destroyed = true,
            Event::SlabCreated {
                cache,
                pfn,
                order,
                freelist,
            } => {
                let s = &self.caches[*cache as usize];
                let size = s.geometry.size;
                let objects = &(freelist.len() as u32);
                let node = &self.node_of(*pfn);
                // Every free object links to the next; the last holds NULL (encoded when
                // hardened, so even a NULL is a non-zero word then).
                let mut words = vec![0; *objects as usize];
                for (k, &i) in freelist.iter().enumerate() {
                    let obj = self.object_addr(*pfn, size, i);
                    let next = freelist
                        .get(k + 1)
                        .map_or(0, |&j| self.object_addr(*pfn, size, j));
                    words[i as usize] = s.freelist_ptr_encode(next, s.freeptr_addr(obj));
                }
                let head = freelist
                    .first()
                    .map_or(0, |&i| self.object_addr(*pfn, size, i));
                self.slabs.insert(
                    *pfn,
                    Slab {
                        cache: *cache,
                        order: *order,
                        node: *node,
                        objects: *objects,
                        size,
                        reciprocal_size: self.caches[*cache as usize].reciprocal_size,
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
                let n = &mut self.caches[*cache as usize].node[*node as usize];
                n.nr_slabs += 1;
                n.total_objects += u64::from(*objects);
            }
            Event::SlabUncounted {
                cache,
                node,
                objects,
            } => {
                let n = &mut self.caches[*cache as usize].node[*node as usize];
                n.nr_slabs -= 1;
                n.total_objects -= u64::from(*objects);
            }
            Event::SlabStateSet {
                pfn,
                freelist,
                inuse,
                frozen,
            } => {
                let slab = self.slabs.get_mut(pfn).expect("slab exists");
                slab.freelist = *freelist;
                slab.inuse = *inuse;
                slab.frozen = *frozen;
            }
            Event::FreePointerSet { pfn, index, value } => {
                let slab = self.slabs.get_mut(pfn).expect("slab exists");
                let s = &self.caches[slab.cache as usize];
                let obj = DIRECT_MAP_BASE
                    + (u64::from(*pfn) << self.page.page_shift)
                    + u64::from(*index) * u64::from(slab.size);
                slab.words[*index as usize] = s.freelist_ptr_encode(*value, s.freeptr_addr(obj));
            }
            Event::CpuFreelistSet {
                cache,
                cpu,
                freelist,
                tid,
            } => {
                let c = &mut self.caches[*cache as usize].cpu[*cpu as usize];
                c.freelist = *freelist;
                c.tid = *tid;
            }
            Event::CpuSlabSet { cache, cpu, slab } => {
                self.caches[*cache as usize].cpu[*cpu as usize].slab = *slab
            }
            Event::CpuPartialSet { cache, cpu, top } => {
                self.caches[*cache as usize].cpu[*cpu as usize].partial = *top
            }
            Event::SlabPartialLinked { pfn, next, slabs } => {
                let slab = self.slabs.get_mut(pfn).expect("slab exists");
                slab.next = *next;
                slab.slabs = *slabs;
            }
            Event::NodePartialAdded {
                cache,
                node,
                pfn,
                end,
            } => {
                let list = &mut self.caches[*cache as usize].node[*node as usize].partial;
                match end {
                    End::Head => list.insert(0, *pfn),
                    End::Tail => list.push(*pfn),
                }
            }
            Event::NodeFullAdded { cache, node, pfn } => {
                self.caches[*cache as usize].node[*node as usize]
                    .full
                    .push(*pfn);
            }
            Event::NodeFullRemoved { cache, node, pfn } => {
                self.list_del(*cache, *node, *pfn, true);
            }
            Event::NodePartialRemoved { cache, node, pfn } => {
                self.list_del(*cache, *node, *pfn, false);
            }
            Event::SlabDiscarded { pfn, .. } => {
                if let Some(slab) = self.slabs.remove(pfn) {
                    self.frames[*pfn as usize].state = crate::machine::FrameState::Allocated {
                        order: slab.order,
                        owner: crate::machine::Owner::Pages,
                    };
                }
            }
            Event::DetachedFreelistBuilt(_) | Event::DetachedFreelistReversed(_) => {
                // A transient structure for the narration; its links are FreePointerSet events.
            }
            Event::ObjectAllocated { pfn, index, .. } => self.set_allocated(*pfn, *index, true),
            Event::ObjectFreed { pfn, index, .. } => self.set_allocated(*pfn, *index, false),
            _ => unreachable!("page allocator events are applied in machine/apply.rs"),
        }
    }
}
