//! Applying SLUB events to the machine (the recorder's only way to change SLUB state).

use super::state::{KmemCache, KmemCacheCpu, KmemCacheNode, Slab, DIRECT_MAP_BASE};
use crate::machine::{Machine, Pfn};
use crate::trace::{End, Event};

impl Machine {
    /// The address of object `index` of the slab at `pfn`.
    pub fn object_addr(&self, pfn: Pfn, size: u32, index: u32) -> u64 {
        DIRECT_MAP_BASE
            + u64::from(pfn) * u64::from(self.page.page_size)
            + u64::from(index) * u64::from(size)
    }

    /// The first page's pfn of the page holding `addr`, if `addr` is in simulated memory.
    pub fn addr_pfn(&self, addr: u64) -> Option<Pfn> {
        let offset = addr.checked_sub(DIRECT_MAP_BASE)?;
        let pfn = offset / u64::from(self.page.page_size);
        (pfn < self.frames.len() as u64).then_some(pfn as Pfn)
    }

    pub(crate) fn apply_slub(&mut self, event: &Event) {
        match event {
            Event::CacheCreated {
                id,
                name,
                geometry,
                flags,
                ctor,
            } => {
                debug_assert_eq!(*id as usize, self.caches.len());
                self.caches.push(KmemCache {
                    id: *id,
                    name: name.clone(),
                    geometry: (**geometry).clone(),
                    flags: *flags,
                    ctor: *ctor,
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
                node,
                objects,
                freelist,
            } => {
                let size = self.caches[*cache as usize].geometry.size;
                let mut words = vec![0; *objects as usize];
                for pair in freelist.windows(2) {
                    words[pair[0] as usize] = self.object_addr(*pfn, size, pair[1]);
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
                        inuse: 0,
                        frozen: false,
                        freelist: head,
                        next: None,
                        slabs: 0,
                        words,
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
                self.slabs.get_mut(pfn).expect("slab exists").words[*index as usize] = *value;
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
            Event::NodePartialRemoved { cache, node, pfn } => {
                self.caches[*cache as usize].node[*node as usize]
                    .partial
                    .retain(|p| p != pfn);
            }
            Event::SlabDiscarded { pfn, .. } => {
                if let Some(slab) = self.slabs.remove(pfn) {
                    self.frames[*pfn as usize].state = crate::machine::FrameState::Allocated {
                        order: slab.order,
                        owner: crate::machine::Owner::Pages,
                    };
                }
            }
            Event::DetachedFreelistBuilt { .. } => {
                // A transient structure for the narration; its links are FreePointerSet events.
            }
            Event::ObjectAllocated { cache, addr, .. } => {
                self.live.insert(*addr, *cache);
            }
            Event::ObjectFreed { addr, .. } => {
                self.live.remove(addr);
            }
            _ => unreachable!("page allocator events are applied in machine/apply.rs"),
        }
    }
}
