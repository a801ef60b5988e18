//! RCU invariants, one item at a time, like every invariant of `machine::check`: a callback
//! (it waits in grace-period order after the one before it; a slab's pages waiting are no
//! slab any more; a `kfree_rcu()` batch's callback has its batch), a CPU's `krc` (its page
//! cache, its pages of pointers, a monitor for what is queued), a `krc` batch (it has its
//! callback exactly when it holds anything), a pointer queued by `kfree_rcu()` (queued once),
//! and a page frame (the pages RCU holds are exactly the blocks whose owner says so, each held
//! once). `check_all` applies them to every item; the incremental checker
//! (`machine::check::incremental`) to the items a step touched (`touched.rs`).
//!
//! Who holds a page is found, as for slabs, from an index built in one pass for a full check
//! or from a scan of RCU's lists for a local one (`RcuHolders`).

use super::state::{kvfree_bulk_max_entr, RcuFunc, KFREE_N_BATCHES, RCU_MIN_CACHED_OBJS};
use crate::ids::CpuId;
use crate::machine::check::{hex, messages, problem, Problem};
use crate::machine::{FrameState, Machine, Owner, Pfn};
use std::collections::{BTreeMap, BTreeSet};

/// How a check finds what in RCU holds a page: every holder indexed by pfn in one pass (a full
/// check), or a scan of every callback list and `krc` (a local one).
pub(crate) enum RcuHolders {
    Index(BTreeMap<Pfn, Vec<(u8, Owner)>>),
    Scan,
}

impl RcuHolders {
    /// Every page every callback and every `krc` holds.
    pub(crate) fn index(m: &Machine) -> RcuHolders {
        let mut index: BTreeMap<Pfn, Vec<(u8, Owner)>> = BTreeMap::new();
        each_holder(m, |pfn, held| index.entry(pfn).or_default().push(held));
        RcuHolders::Index(index)
    }

    /// What holds the page at `pfn`, as `(order, owner)` (more than one: held twice).
    pub(crate) fn get(&self, m: &Machine, pfn: Pfn) -> Vec<(u8, Owner)> {
        match self {
            RcuHolders::Index(index) => index.get(&pfn).cloned().unwrap_or_default(),
            RcuHolders::Scan => {
                let mut found = Vec::new();
                each_holder(m, |at, held| {
                    if at == pfn {
                        found.push(held)
                    }
                });
                found
            }
        }
    }
}

/// Calls `f` with each page RCU holds and how: a slab's pages waiting for their callback, and
/// each CPU's pages of `kfree_rcu()` pointers, wherever they are.
fn each_holder(m: &Machine, mut f: impl FnMut(Pfn, (u8, Owner))) {
    for list in &m.rcu.cblist {
        for cb in list {
            if let RcuFunc::FreeSlab { cache, pfn, order } = cb.func {
                f(pfn, (order, Owner::SlabRcu { cache }));
            }
        }
    }
    for (cpu, krc) in m.rcu.krc.iter_enumerated() {
        for pfn in krc.pages() {
            f(pfn, (0, Owner::KfreeRcu { cpu }));
        }
    }
}

/// Every RCU invariant of the machine.
pub(crate) fn check_all(m: &Machine, bad: &mut Vec<Problem>) {
    if !check_shape(m, bad) {
        return;
    }
    let rcu = &m.rcu;
    for (cpu, list) in rcu.cblist.iter_enumerated() {
        for i in 0..list.len() {
            check_callback(m, cpu, i, bad);
        }
    }
    let mut queued = BTreeSet::new();
    for (cpu, krc) in rcu.krc.iter_enumerated() {
        check_krc(m, cpu, bad);
        for batch in 0..KFREE_N_BATCHES as u8 {
            check_batch(m, cpu, batch, bad);
        }
        for addr in krc.waiting_objects() {
            if !queued.insert(addr) {
                bad.push(queued_twice(addr));
            }
        }
    }
    // Both sides of the account: the blocks whose owner says RCU, and the pages RCU holds.
    let holders = RcuHolders::index(m);
    for (pfn, frame) in m.frames.iter_enumerated() {
        if rcu_owned(frame.state).is_some() {
            check_frame(m, pfn, &holders, bad);
        }
    }
    if let RcuHolders::Index(index) = &holders {
        for &pfn in index.keys() {
            if m.frame(pfn).and_then(|f| rcu_owned(f.state)).is_none() {
                check_frame(m, pfn, &holders, bad);
            }
        }
    }
}

/// Every RCU invariant, worded for a person; empty when the state is consistent.
pub fn check_rcu(m: &Machine) -> Vec<String> {
    let mut bad = Vec::new();
    check_all(m, &mut bad);
    messages(bad)
}

/// RCU keeps one callback list and one `krc` per CPU; the other checks index by CPU and run
/// only if so.
pub(crate) fn check_shape(m: &Machine, bad: &mut Vec<Problem>) -> bool {
    let rcu = &m.rcu;
    let cpus = m.config.cpus as usize;
    if rcu.cblist.len() != cpus || rcu.krc.len() != cpus {
        bad.push(problem!(
            "check.rcu_shape",
            "RCU keeps {lists} callback lists and {krcs} krc for {cpus} CPUs",
            lists = rcu.cblist.len(),
            krcs = rcu.krc.len(),
            cpus = cpus
        ));
        return false;
    }
    true
}

/// The `(order, owner)` of a block whose owner says RCU holds it.
pub(crate) fn rcu_owned(state: FrameState) -> Option<(u8, Owner)> {
    match state {
        FrameState::Allocated {
            order,
            owner: owner @ (Owner::SlabRcu { .. } | Owner::KfreeRcu { .. }),
        } => Some((order, owner)),
        _ => None,
    }
}

/// Callback `i` of `cpu`'s list waits for a grace period no earlier than the one before it
/// and no later than the next; a slab whose pages it frees is no slab of its cache any more;
/// a `kfree_rcu()` batch's callback has a batch to free.
pub(crate) fn check_callback(m: &Machine, cpu: CpuId, i: usize, bad: &mut Vec<Problem>) {
    let rcu = &m.rcu;
    let Some(list) = rcu.cblist.get(cpu) else {
        return;
    };
    let Some(cb) = list.get(i) else {
        return;
    };
    let last = i.checked_sub(1).map_or(0, |p| list[p].gp);
    if cb.gp < last || cb.gp > rcu.next_gp() {
        bad.push(problem!(
            "check.rcu_callback_order",
            "cpu{cpu}: a callback waits for grace period {gp} after one for {last} \
             ({completed} have ended)",
            cpu = cpu,
            gp = cb.gp,
            last = last,
            completed = rcu.completed
        ));
    }
    match cb.func {
        RcuFunc::FreeSlab { pfn, .. } => {
            let still_slab = crate::allocator::ops(m).slab_of(m, pfn).is_some();
            if still_slab {
                bad.push(problem!(
                    "check.rcu_slab_still_slab",
                    "slab {pfn} waits for RCU but is still a slab of its cache",
                    pfn = hex(pfn)
                ));
            }
        }
        RcuFunc::RcuFreeSheaf { sheaf, .. } => {
            if m.slub().sheaves.get(&sheaf).is_none() {
                bad.push(problem!(
                    "check.rcu_sheaf_gone",
                    "cpu{cpu}: an rcu_free_sheaf() callback waits for sheaf {sheaf}, which no longer exists",
                    cpu = cpu,
                    sheaf = sheaf.0
                ));
            }
        }
        RcuFunc::KfreeRcuWork { batch } => {
            let krc = &rcu.krc[cpu];
            if krc.krw_arr.get(batch as usize).is_none_or(|b| b.is_empty()) {
                bad.push(problem!(
                    "check.rcu_callback_no_batch",
                    "cpu{cpu}: the callback of kfree_rcu batch {batch} has no batch",
                    cpu = cpu,
                    batch = batch
                ));
            }
        }
    }
}

/// A CPU's `krc`: its page cache keeps at most `rcu_min_cached_objs` pages; each page of
/// pointers queued or in a batch holds 1 to `KVFREE_BULK_MAX_ENTR` of them and waits for no
/// grace period past the next, as do its chained objects; what is queued has a monitor.
pub(crate) fn check_krc(m: &Machine, cpu: CpuId, bad: &mut Vec<Problem>) {
    let Some(krc) = m.rcu.krc.get(cpu) else {
        return;
    };
    let next = m.rcu.next_gp();
    let max = kvfree_bulk_max_entr(m.page.page_size) as usize;
    if krc.bkvcache.len() > RCU_MIN_CACHED_OBJS {
        bad.push(problem!(
            "check.rcu_page_cache",
            "cpu{cpu}: {pages} pages in the kfree_rcu page cache, over {max}",
            cpu = cpu,
            pages = krc.bkvcache.len(),
            max = RCU_MIN_CACHED_OBJS
        ));
    }
    for lists in std::iter::once(&krc.queued).chain(krc.krw_arr.iter()) {
        for page in &lists.bulk {
            if page.records.is_empty() || page.records.len() > max || page.gp > next {
                bad.push(problem!(
                    "check.rcu_page_records",
                    "cpu{cpu}: kfree_rcu page {pfn} holds {pointers} pointers (1 to {max}) for \
                     grace period {gp}",
                    cpu = cpu,
                    pfn = hex(page.pfn),
                    pointers = page.records.len(),
                    max = max,
                    gp = page.gp
                ));
            }
        }
        if lists.head_gp > next {
            bad.push(problem!(
                "check.rcu_chained_gp",
                "cpu{cpu}: chained kfree_rcu objects wait for grace period {gp}",
                cpu = cpu,
                gp = lists.head_gp
            ));
        }
    }
    if !krc.queued.is_empty() && !krc.monitor_pending {
        bad.push(problem!(
            "check.rcu_no_monitor",
            "cpu{cpu}: kfree_rcu() pointers are queued but no monitor work is pending",
            cpu = cpu
        ));
    }
}

/// `krw_arr[batch]` of a CPU has its one callback on that CPU's list exactly when it holds
/// anything.
pub(crate) fn check_batch(m: &Machine, cpu: CpuId, batch: u8, bad: &mut Vec<Problem>) {
    let (Some(krc), Some(list)) = (m.rcu.krc.get(cpu), m.rcu.cblist.get(cpu)) else {
        return;
    };
    let Some(lists) = krc.krw_arr.get(batch as usize) else {
        return;
    };
    let callbacks = list
        .iter()
        .filter(|c| c.func == RcuFunc::KfreeRcuWork { batch })
        .count();
    if callbacks != usize::from(!lists.is_empty()) {
        bad.push(problem!(
            "check.rcu_batch_callbacks",
            "cpu{cpu}: kfree_rcu batch {batch} holds {pointers} pointers and has {callbacks} \
             callbacks",
            cpu = cpu,
            batch = batch,
            pointers = lists.objects(),
            callbacks = callbacks
        ));
    }
}

fn queued_twice(addr: u64) -> Problem {
    problem!(
        "check.rcu_queued_twice",
        "{addr} is queued by kfree_rcu() twice",
        addr = hex(addr)
    )
}

/// A pointer `kfree_rcu()` queued waits in one place only (a scan of every `krc`, as
/// `kvfree_call_rcu()`'s own refusal of a pointer queued twice makes).
pub(crate) fn check_queued(m: &Machine, addr: u64, bad: &mut Vec<Problem>) {
    let times: usize = m
        .rcu
        .krc
        .iter()
        .map(|k| k.waiting_objects().filter(|&a| a == addr).count())
        .sum();
    if times > 1 {
        bad.push(queued_twice(addr));
    }
}

/// The page at `pfn` is held by RCU exactly when its block's owner says so, once, with the
/// block's order and owner.
pub(crate) fn check_frame(m: &Machine, pfn: Pfn, holders: &RcuHolders, bad: &mut Vec<Problem>) {
    let state = m.frame(pfn).map(|f| f.state);
    let held = holders.get(m, pfn);
    match state.and_then(rcu_owned) {
        Some(own) if held == [own] => {}
        Some(_) if held.len() > 1 => bad.push(problem!(
            "check.rcu_held_twice",
            "pfn {pfn} is held twice by RCU",
            pfn = hex(pfn)
        )),
        Some((order, owner)) => bad.push(problem!(
            "check.rcu_not_held",
            "pfn {pfn} is {owner} of order {order}, but RCU does not hold it so",
            pfn = hex(pfn),
            owner = format!("{owner:?}"),
            order = order
        )),
        None => {
            for (order, owner) in held {
                bad.push(problem!(
                    "check.rcu_holds_other",
                    "RCU holds pfn {pfn} as {owner} of order {order}, but the page is {state}",
                    pfn = hex(pfn),
                    owner = format!("{owner:?}"),
                    order = order,
                    state = format!("{state:?}")
                ));
            }
        }
    }
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
