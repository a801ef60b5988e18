//! The one place a `Machine` changes: applying an event. Called only by `trace::Recorder`.

use super::{FrameState, Machine, Pfn};
use crate::trace::{End, Event};

impl Machine {
    #[inline(always)]
    pub(crate) fn apply(&mut self, event: &Event) {
        match *event {
            Event::FreeBlockRemoved { node, pfn, order } => {
                let zone = &mut self.zones[node];
                zone.free_area[order as usize].remove(&mut self.frames, pfn);
                zone.free_pages -= 1 << order;
                self.frames[pfn].state = FrameState::Detached { order };
            }
            Event::FreeBlockAdded {
                node,
                pfn,
                order,
                end,
            } => {
                self.set_block(pfn, order, FrameState::Buddy { order });
                let zone = &mut self.zones[node];
                let list = &mut zone.free_area[order as usize];
                match end {
                    End::Head => list.push_head(&mut self.frames, pfn),
                    End::Tail => list.push_tail(&mut self.frames, pfn),
                }
                zone.free_pages += 1 << order;
            }
            Event::BuddiesMerged { .. } => {
                // A fact for the narration: the merge itself is the removal of the buddy and
                // the later addition of the combined block.
            }
            Event::BlockSplit {
                pfn, upper, order, ..
            } => {
                // Both halves are detached blocks of `order` until they are placed.
                self.set_block(pfn, order, FrameState::Detached { order });
                self.set_block(upper, order, FrameState::Detached { order });
            }
            Event::PcpBlockAdded {
                cpu,
                node,
                pfn,
                order,
                end,
            } => {
                self.set_block(pfn, order, FrameState::Pcp { cpu, order });
                let index = self.pcp_index(cpu, node);
                let pcp = &mut self.pcp[index];
                let list = &mut pcp.lists[order as usize];
                match end {
                    End::Head => list.push_head(&mut self.frames, pfn),
                    End::Tail => list.push_tail(&mut self.frames, pfn),
                }
                pcp.count += 1 << order;
            }
            Event::PcpBlockRemoved {
                cpu,
                node,
                pfn,
                order,
            } => {
                let index = self.pcp_index(cpu, node);
                let pcp = &mut self.pcp[index];
                pcp.lists[order as usize].remove(&mut self.frames, pfn);
                pcp.count -= 1 << order;
                self.frames[pfn].state = FrameState::Detached { order };
            }
            Event::PcpFreeFactorSet {
                cpu,
                node,
                free_factor,
            } => {
                let index = self.pcp_index(cpu, node);
                self.pcp[index].free_factor = free_factor;
            }
            Event::PcpTuned {
                cpu,
                node,
                high,
                alloc_factor,
                free_count,
                prev_free_high_order,
            } => {
                let index = self.pcp_index(cpu, node);
                let pcp = &mut self.pcp[index];
                pcp.high = high;
                pcp.alloc_factor = alloc_factor;
                pcp.free_count = free_count;
                pcp.prev_free_high_order = prev_free_high_order;
            }
            Event::PagesAllocated { pfn, order, owner } => {
                self.set_block(pfn, order, FrameState::Allocated { order, owner });
            }
            Event::PagesReleased { pfn, order } => {
                self.set_block(pfn, order, FrameState::Detached { order });
            }
            Event::RandomDrawn { draws } => {
                for _ in 0..draws {
                    rand_core::Rng::next_u32(&mut self.rng);
                }
            }
            Event::RandomKmallocSeedSet { seed } => self.random_kmalloc_seed = Some(seed),
            Event::ListLockTaken { node, .. } => self.list_lock_taken[node] += 1,
            Event::DamageRecorded(ref d) => self.damage.push((**d).clone()),
            Event::Slab(ref e) => self.apply_slab(e),
            Event::Rcu(ref e) => self.apply_rcu(e),
            ref slub_event => self.apply_slub(slub_event),
        }
    }

    /// Gives a block's first frame `head` and makes every other frame its tail.
    fn set_block(&mut self, pfn: Pfn, order: u8, head: FrameState) {
        self.frames[pfn].state = head;
        for tail in pfn.pages(1 << order).skip(1) {
            self.frames[tail].state = FrameState::Tail { head: pfn };
        }
    }
}
