//! Applying SLAB events to the machine (the recorder's only way to change SLAB state).

use super::event::{SlabEvent, SlabNew, SlabNewCache};
use super::state::{ArrayCache, KmemCache, KmemCacheNode, Slab};
use crate::geometry::slab::free_limit;
use crate::ids::NodeId;
use crate::machine::{FrameState, Machine, Owner};
use crate::trace::End;

impl Machine {
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per SLAB event, each the state change that event records"
    )]
    pub(crate) fn apply_slab(&mut self, event: &SlabEvent) {
        let sl = self.alloc.slab_mut();
        match event {
            SlabEvent::CacheCreated(new) => {
                let SlabNewCache {
                    id,
                    name,
                    geometry: g,
                    flags,
                    ctor,
                    kmalloc,
                    usersize,
                    useroffset,
                    hardened,
                    random_seq,
                    freelist_cache,
                    next_reap,
                } = &**new;
                debug_assert_eq!(id.index(), sl.caches.len());
                if let Some(slot) = kmalloc {
                    sl.kmalloc_caches.set(*slot, *id);
                }
                let nodes = self.config.nodes;
                let node = NodeId::all(nodes)
                    .map(|n| {
                        let cpus_on_node = self.cpu_node.iter().filter(|&&c| c == n).count() as u32;
                        KmemCacheNode {
                            free_limit: free_limit(g, cpus_on_node),
                            shared: (g.shared > 0)
                                .then(|| ArrayCache::new(g.shared_capacity(), 0xbaad_f00d)),
                            // alloc_alien_cache(): one per other node, only on NUMA machines.
                            alien: NodeId::all(nodes)
                                .map(|r| {
                                    (nodes > 1 && r != n)
                                        .then(|| ArrayCache::new(g.alien_limit, 0xbaad_f00d))
                                })
                                .collect(),
                            next_reap: *next_reap,
                            ..KmemCacheNode::default()
                        }
                    })
                    .collect();
                sl.caches.push(KmemCache {
                    id: *id,
                    name: name.clone(),
                    geometry: g.clone(),
                    object_size: g.object_size,
                    flags: *flags,
                    ctor: *ctor,
                    kmalloc: *kmalloc,
                    usersize: *usersize,
                    useroffset: *useroffset,
                    hardened: *hardened,
                    random_seq: random_seq.clone(),
                    freelist_cache: *freelist_cache,
                    aliases: Vec::new(),
                    destroyed: false,
                    cpu: (0..self.config.cpus)
                        .map(|_| ArrayCache::new(g.limit, g.batchcount))
                        .collect(),
                    node,
                });
            }
            SlabEvent::CacheAliased(alias) => {
                let (id, name, object_size) = &**alias;
                let s = &mut sl.caches[*id];
                s.aliases.push(name.clone());
                s.object_size = *object_size;
            }
            SlabEvent::CacheUnaliased(alias) => {
                let (id, name) = &**alias;
                let aliases = &mut sl.caches[*id].aliases;
                if let Some(i) = aliases.iter().position(|a| a == name) {
                    aliases.remove(i);
                }
            }
            SlabEvent::CacheDestroyed { id } => {
                let s = &mut sl.caches[*id];
                s.destroyed = true;
                if let Some(slot) = s.kmalloc {
                    sl.kmalloc_caches.clear(slot);
                }
            }
            SlabEvent::SlabCreated(new) => {
                let SlabNew {
                    cache,
                    pfn,
                    order,
                    colour_off,
                    freelist,
                    freelist_addr,
                } = &**new;
                let num = freelist.len();
                sl.slabs.insert(
                    *pfn,
                    Slab {
                        cache: *cache,
                        order: *order,
                        node: NodeId::new(pfn.0 / self.span),
                        colour_off: *colour_off,
                        active: 0,
                        freelist: freelist.clone(),
                        freelist_addr: *freelist_addr,
                        list: None,
                        allocated: vec![false; num],
                    },
                );
            }
            SlabEvent::ColourNext {
                cache,
                node,
                colour,
            } => sl.caches[*cache].node[*node].colour_next = *colour,
            SlabEvent::ObjGot { pfn } => {
                sl.slabs.get_mut(pfn).expect("slab exists").active += 1;
            }
            SlabEvent::ObjPut { pfn, index } => {
                let size = sl.caches[sl.slabs[pfn].cache].geometry.size;
                let s_mem = self.object_addr(*pfn, 1, 0);
                let slab = self
                    .alloc
                    .slab_mut()
                    .slabs
                    .get_mut(pfn)
                    .expect("slab exists");
                slab.active -= 1;
                if slab.freelist_addr == 0 {
                    slab.freelist_addr =
                        s_mem + u64::from(slab.colour_off) + u64::from(*index) * u64::from(size);
                }
                slab.freelist[slab.active as usize] = *index;
            }
            SlabEvent::FreelistAt { pfn, addr } => {
                sl.slabs.get_mut(pfn).expect("slab exists").freelist_addr = *addr;
            }
            SlabEvent::SlabListed {
                cache,
                pfn,
                list,
                end,
            } => {
                let slab = sl.slabs.get_mut(pfn).expect("slab exists");
                debug_assert!(slab.list.is_none());
                slab.list = Some(*list);
                let l = sl.caches[*cache].node[slab.node].list_mut(*list);
                match end {
                    End::Head => l.push_front(*pfn),
                    End::Tail => l.push_back(*pfn),
                }
            }
            SlabEvent::SlabUnlisted { cache, pfn } => {
                let slab = sl.slabs.get_mut(pfn).expect("slab exists");
                let list = slab.list.take().expect("the slab is on a list");
                let l = sl.caches[*cache].node[slab.node].list_mut(list);
                let at = l.iter().position(|p| p == pfn).expect("on its list");
                l.remove(at);
            }
            SlabEvent::NodeCounts {
                cache,
                node,
                total_slabs,
                free_slabs,
                free_objects,
            } => {
                let n = &mut sl.caches[*cache].node[*node];
                n.total_slabs = n.total_slabs.wrapping_add_signed(i64::from(*total_slabs));
                n.free_slabs = n.free_slabs.wrapping_add_signed(i64::from(*free_slabs));
                n.free_objects = n.free_objects.wrapping_add_signed(i64::from(*free_objects));
            }
            SlabEvent::FreeTouched {
                cache,
                node,
                touched,
            } => sl.caches[*cache].node[*node].free_touched = *touched,
            SlabEvent::NextReap { cache, node, at } => {
                sl.caches[*cache].node[*node].next_reap = *at
            }
            SlabEvent::AcPushed { cache, ac, addr } => {
                sl.caches[*cache].ac_mut(*ac).entry.push(*addr)
            }
            SlabEvent::AcPopped { cache, ac } => {
                sl.caches[*cache].ac_mut(*ac).entry.pop();
            }
            SlabEvent::AcMoved {
                cache,
                from,
                to,
                count,
                oldest,
            } => {
                let s = &mut sl.caches[*cache];
                let src = &mut s.ac_mut(*from).entry;
                let n = *count as usize;
                let moved: Vec<u64> = if *oldest {
                    src.drain(..n).collect()
                } else {
                    src.split_off(src.len() - n)
                };
                s.ac_mut(*to).entry.extend(moved);
            }
            SlabEvent::AcDropped { cache, ac, count } => {
                sl.caches[*cache].ac_mut(*ac).entry.drain(..*count as usize);
            }
            SlabEvent::AcTouched { cache, ac, touched } => {
                sl.caches[*cache].ac_mut(*ac).touched = *touched
            }
            SlabEvent::ObjectAllocated { pfn, index, .. } => {
                let slot =
                    &mut sl.slabs.get_mut(pfn).expect("slab exists").allocated[*index as usize];
                debug_assert!(!*slot);
                *slot = true;
                self.live_objects += 1;
            }
            SlabEvent::ObjectFreed { pfn, index, .. } => {
                let slot =
                    &mut sl.slabs.get_mut(pfn).expect("slab exists").allocated[*index as usize];
                debug_assert!(*slot);
                *slot = false;
                self.live_objects -= 1;
            }
            SlabEvent::SlabDestroyed { pfn, .. } => {
                // __slab_clear_pfmemalloc()/__folio_clear_slab(): ordinary pages again, freed next.
                sl.slabs.remove(pfn);
                if let FrameState::Allocated { order, .. } = self.frames[*pfn].state {
                    self.frames[*pfn].state = FrameState::Allocated {
                        order,
                        owner: Owner::Pages,
                    };
                }
            }
            SlabEvent::AlienLockTaken { .. } => {}
            SlabEvent::Jiffies { now } => sl.jiffies = *now,
            SlabEvent::ReapNode { cpu, node } => {
                if sl.reap_node.len() <= cpu.index() {
                    sl.reap_node.resize(cpu.index() + 1, NodeId(0));
                }
                sl.reap_node[*cpu] = *node;
            }
        }
    }
}
