//! Applying RCU events to the machine (the recorder's only way to change RCU state).

use super::event::RcuEvent;
use super::state::{BulkData, RcuCallback, RcuFunc};
use crate::machine::{FrameState, Machine, Owner};

impl Machine {
    pub(crate) fn apply_rcu(&mut self, event: &RcuEvent) {
        match *event {
            RcuEvent::CallbackQueued { cpu, gp, func } => {
                if let RcuFunc::FreeSlab { cache, pfn, order } = func {
                    self.frames[pfn].state = FrameState::Allocated {
                        order,
                        owner: Owner::SlabRcu { cache },
                    };
                }
                self.rcu.cblist[cpu].push(RcuCallback { gp, func });
            }
            RcuEvent::GracePeriodElapsed { completed } => self.rcu.completed = completed,
            RcuEvent::CallbackInvoked { cpu, func } => {
                let list = &mut self.rcu.cblist[cpu];
                debug_assert_eq!(list.first().map(|c| c.func), Some(func));
                list.remove(0);
                if let RcuFunc::FreeSlab { pfn, order, .. } = func {
                    self.frames[pfn].state = FrameState::Allocated {
                        order,
                        owner: Owner::Pages,
                    };
                }
            }
            RcuEvent::KrcPageAttached { cpu, pfn, cached } => {
                let krc = &mut self.rcu.krc[cpu];
                if cached {
                    debug_assert_eq!(krc.bkvcache.last(), Some(&pfn));
                    krc.bkvcache.pop();
                }
                let gp = self.rcu.completed + 1;
                krc.queued.bulk.insert(
                    0,
                    BulkData {
                        pfn,
                        gp,
                        records: Vec::new(),
                    },
                );
            }
            RcuEvent::KrcPointerRecorded { cpu, addr, gp } => {
                let page = &mut self.rcu.krc[cpu].queued.bulk[0];
                page.records.push(addr);
                page.gp = gp;
            }
            RcuEvent::KrcObjectChained { cpu, addr, gp } => {
                let queued = &mut self.rcu.krc[cpu].queued;
                queued.head.insert(0, addr);
                queued.head_gp = gp;
            }
            RcuEvent::KrcMonitorSet { cpu, pending } => self.rcu.krc[cpu].monitor_pending = pending,
            RcuEvent::KrcBatchDetached { cpu, batch } => {
                let krc = &mut self.rcu.krc[cpu];
                krc.krw_arr[batch as usize] = std::mem::take(&mut krc.queued);
            }
            RcuEvent::KrcBatchTaken { cpu, batch } => {
                let krc = &mut self.rcu.krc[cpu];
                krc.work = std::mem::take(&mut krc.krw_arr[batch as usize]);
            }
            RcuEvent::KrcReadyTaken { cpu, pages, head } => {
                let krc = &mut self.rcu.krc[cpu];
                let keep = krc.queued.bulk.len() - pages as usize;
                krc.work.bulk = krc.queued.bulk.split_off(keep);
                if head {
                    krc.work.head = std::mem::take(&mut krc.queued.head);
                    krc.work.head_gp = krc.queued.head_gp;
                }
            }
            RcuEvent::KrcPageReleased { cpu, pfn, cached } => {
                let krc = &mut self.rcu.krc[cpu];
                if let Some(i) = krc.work.bulk.iter().position(|b| b.pfn == pfn) {
                    krc.work.bulk.remove(i);
                }
                if cached {
                    krc.bkvcache.push(pfn);
                }
            }
            RcuEvent::KrcObjectUnchained { cpu, addr } => {
                let work = &mut self.rcu.krc[cpu].work;
                debug_assert_eq!(work.head.first(), Some(&addr));
                work.head.remove(0);
            }
            RcuEvent::KrcPageCached { cpu, pfn } => self.rcu.krc[cpu].bkvcache.push(pfn),
        }
    }
}
