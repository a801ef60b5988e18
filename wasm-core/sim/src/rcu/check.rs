//! RCU invariants, checked after every step with the rest of the machine (`check_machine`):
//! every page RCU holds is accounted for exactly once (a slab waiting for its callback, a
//! `kfree_rcu()` pointer page), callbacks wait in grace-period order, each `kfree_rcu()` batch
//! has its callback, and what is queued has a monitor to hand it on.

use super::state::{kvfree_bulk_max_entr, RcuFunc, RCU_MIN_CACHED_OBJS};
use crate::machine::{FrameState, Machine, Owner, Pfn};
use crate::scenario::Allocator;
use std::collections::{BTreeMap, BTreeSet};

/// Every violation found, worded for a person; empty when the state is consistent.
pub fn check_rcu(m: &Machine) -> Vec<String> {
    let mut bad = Vec::new();
    let rcu = &m.rcu;
    let cpus = m.config.cpus as usize;
    if rcu.cblist.len() != cpus || rcu.krc.len() != cpus {
        bad.push(format!(
            "RCU keeps {} callback lists and {} krc for {cpus} CPUs",
            rcu.cblist.len(),
            rcu.krc.len()
        ));
        return bad;
    }
    let next = rcu.next_gp();
    // Pages RCU holds, by first pfn, with what holds them.
    let mut held: BTreeMap<Pfn, (u8, Owner)> = BTreeMap::new();
    let mut hold = |bad: &mut Vec<String>, pfn: Pfn, order: u8, owner: Owner| {
        if held.insert(pfn, (order, owner)).is_some() {
            bad.push(format!("pfn {pfn:#x} is held twice by RCU"));
        }
    };
    for (cpu, list) in rcu.cblist.iter().enumerate() {
        let mut last = 0;
        for cb in list {
            if cb.gp < last || cb.gp > next {
                bad.push(format!(
                    "cpu{cpu}: a callback waits for grace period {} after one for {last} \
                     ({} have ended)",
                    cb.gp, rcu.completed
                ));
            }
            last = cb.gp;
            match cb.func {
                RcuFunc::FreeSlab { cache, pfn, order } => {
                    hold(&mut bad, pfn, order, Owner::SlabRcu { cache });
                    let still_slab = match m.allocator {
                        Allocator::Slub => m.slabs.contains_key(&pfn),
                        Allocator::Slab => m.slab.slabs.contains_key(&pfn),
                    };
                    if still_slab {
                        bad.push(format!(
                            "slab {pfn:#x} waits for RCU but is still a slab of its cache"
                        ));
                    }
                }
                RcuFunc::KfreeRcuWork { batch } => {
                    if rcu.krc[cpu].krw_arr[batch as usize].is_empty() {
                        bad.push(format!(
                            "cpu{cpu}: the callback of kfree_rcu batch {batch} has no batch"
                        ));
                    }
                }
            }
        }
    }
    let max = kvfree_bulk_max_entr(m.page.page_size) as usize;
    let mut waiting = BTreeSet::new();
    for (cpu, krc) in rcu.krc.iter().enumerate() {
        let owner = Owner::KfreeRcu { cpu: cpu as u16 };
        for pfn in krc.pages() {
            hold(&mut bad, pfn, 0, owner);
        }
        if krc.bkvcache.len() > RCU_MIN_CACHED_OBJS {
            bad.push(format!(
                "cpu{cpu}: {} pages in the kfree_rcu page cache, over {RCU_MIN_CACHED_OBJS}",
                krc.bkvcache.len()
            ));
        }
        for (batch, lists) in krc.krw_arr.iter().enumerate() {
            let callbacks = rcu.cblist[cpu]
                .iter()
                .filter(|c| c.func == RcuFunc::KfreeRcuWork { batch: batch as u8 })
                .count();
            if callbacks != usize::from(!lists.is_empty()) {
                bad.push(format!(
                    "cpu{cpu}: kfree_rcu batch {batch} holds {} pointers and has {callbacks} \
                     callbacks",
                    lists.objects()
                ));
            }
        }
        for lists in std::iter::once(&krc.queued).chain(krc.krw_arr.iter()) {
            for page in &lists.bulk {
                if page.records.is_empty() || page.records.len() > max || page.gp > next {
                    bad.push(format!(
                        "cpu{cpu}: kfree_rcu page {:#x} holds {} pointers (1 to {max}) for \
                         grace period {}",
                        page.pfn,
                        page.records.len(),
                        page.gp
                    ));
                }
            }
            if lists.head_gp > next {
                bad.push(format!(
                    "cpu{cpu}: chained kfree_rcu objects wait for grace period {}",
                    lists.head_gp
                ));
            }
            for addr in lists.iter_objects() {
                if !waiting.insert(addr) {
                    bad.push(format!("{addr:#x} is queued by kfree_rcu() twice"));
                }
            }
        }
        if !krc.queued.is_empty() && !krc.monitor_pending {
            bad.push(format!(
                "cpu{cpu}: kfree_rcu() pointers are queued but no monitor work is pending"
            ));
        }
    }
    // Conservation: the pages RCU holds are exactly the blocks whose owner says so.
    for (pfn, frame) in m.frames.iter().enumerate() {
        let pfn = pfn as Pfn;
        if let FrameState::Allocated {
            order,
            owner: owner @ (Owner::SlabRcu { .. } | Owner::KfreeRcu { .. }),
        } = frame.state
        {
            if held.remove(&pfn) != Some((order, owner)) {
                bad.push(format!(
                    "pfn {pfn:#x} is {owner:?} of order {order}, but RCU does not hold it so"
                ));
            }
        }
    }
    for (pfn, (order, owner)) in held {
        bad.push(format!(
            "RCU holds pfn {pfn:#x} as {owner:?} of order {order}, but the page is {:?}",
            m.frame(pfn).map(|f| f.state)
        ));
    }
    bad
}

/// Between operations no `kfree_rcu()` work is half done: the work lists are empty.
pub fn check_rcu_settled(m: &Machine) -> Vec<String> {
    m.rcu
        .krc
        .iter()
        .enumerate()
        .filter(|(_, k)| !k.work.is_empty())
        .map(|(cpu, k)| {
            format!(
                "cpu{cpu}: kfree_rcu work still holds {} pointers between operations",
                k.work.objects()
            )
        })
        .collect()
}
