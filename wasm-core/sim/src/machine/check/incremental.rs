//! `Checker`: the invariants of what one step touched, checked after the step, with the
//! running `Totals` that the sums are compared with; and the full check, which also sets the
//! totals afresh.
//!
//! A step goes `begin`, then `before_event` for each event just before it is applied (the
//! recorder's `replay_step_inspecting`), then `end`, which checks. What `end` checks is the
//! touched set of `touched.rs` grown by what the machine holds around it after the step: the
//! cpu slab of a touched `kmem_cache_cpu`, the CPUs holding a touched slab, the entries of
//! a touched list next to the ones named. Every check is a function of `pages.rs`,
//! `slub::check`, `slab::check`, `rcu::check` or `machine::damage`, the same ones
//! `check_machine` applies to everything; like it, the local check reports the known damage
//! first.

use super::pages::{self, ListId};
use super::problem::Problem;
use super::totals::{check_live, Totals};
use super::touched::{rcu_owned, slab_home, touches, Naming, Touched};
use crate::ids::{CacheId, CpuId};
use crate::machine::{damage, Machine};
use crate::rcu::check::{self as rcu_check, RcuHolders};
use crate::slab::check::{self as slab_check, SlabPlaces};
use crate::slab::state::AcRef;
use crate::slub::check::{self as slub_check, SlubPlaces};
use crate::trace::Event;
use std::collections::BTreeSet;

/// Checks steps one at a time (see the module).
#[derive(Clone, Debug)]
pub struct Checker {
    /// The sums, as of the last step checked (or, mid-step, with the named items' shares out).
    totals: Totals,
    /// The step being collected.
    touched: Touched,
}

impl Checker {
    /// A checker starting at `m`, and the violations of its full check.
    pub fn new(m: &Machine) -> (Checker, Vec<String>) {
        let mut checker = Checker {
            totals: Totals::zero(m),
            touched: Touched::default(),
        };
        let bad = checker.full(m);
        (checker, bad)
    }

    /// Every invariant of `m` (`check_machine`); the running totals start again from it.
    pub fn full(&mut self, m: &Machine) -> Vec<String> {
        self.totals = Totals::of(m);
        super::messages(super::check_with(m, &self.totals))
    }

    /// Starts a step on `m`, the machine before it.
    pub fn begin(&mut self, m: &Machine) {
        self.touched.begin(m);
    }

    /// Notes what `event` touches, `m` being the machine just before it is applied.
    pub fn before_event(&mut self, m: &Machine, event: &Event) {
        touches(
            event,
            &mut Naming {
                m,
                t: &mut self.touched,
                totals: &mut self.totals,
            },
        );
    }

    /// Ends the step on `m`, the machine after it: the violations among what it touched.
    pub fn end(&mut self, m: &Machine) -> Vec<String> {
        let t = &mut self.touched;
        // The new shares of what the step named.
        for &pfn in &t.frames {
            self.totals.frame(m, pfn, 1);
            if let Some(id) = ListId::of_frame(m, pfn) {
                t.lists.push(id);
                t.entries.push(pfn);
            }
            if rcu_owned(m, pfn) {
                t.rcu_frames.push(pfn);
            }
        }
        for &(pfn, _) in &t.slabs {
            self.totals.slab(m, pfn, 1);
            t.nodes.extend(slab_home(m, pfn));
        }
        let mut bad = Vec::new();
        damage::check_records(m, &mut bad);
        check_pages(m, t, &self.totals, &mut bad);
        crate::allocator::ops(m).check_touched(m, t, &self.totals, &mut bad);
        check_rcu(m, t, &mut bad);
        check_live(m, &self.totals, &mut bad);
        super::messages(bad)
    }
}

/// Sorts and removes repeats.
fn dedup<T: Ord>(v: &mut Vec<T>) {
    v.sort_unstable();
    v.dedup();
}

/// Gathers every slab to check into `held`, once each, with the cache it is of after the
/// step (a slab that is gone keeps each cache it was named with: a pfn can be a slab of one
/// cache, discarded, and a slab of another within one step).
fn settle_caches(m: &Machine, t: &mut Touched) {
    t.held.append(&mut t.slabs);
    for (pfn, cache) in &mut t.held {
        if let Some((now, _)) = slab_home(m, *pfn) {
            *cache = now;
        }
    }
    dedup(&mut t.held);
}

fn check_pages(m: &Machine, t: &mut Touched, totals: &Totals, bad: &mut Vec<Problem>) {
    // Walk each run of overlapping touched ranges once (a block never crosses a node).
    t.ranges.sort_unstable();
    let mut next = 0;
    while let Some(&(from, mut to)) = t.ranges.get(next) {
        next += 1;
        while let Some(&(_, b)) = t.ranges.get(next).filter(|r| r.0 < to) {
            to = to.max(b);
            next += 1;
        }
        if let Some(zone) = m.zones.get(m.node_of(from)) {
            pages::check_blocks(m, zone, from, to, bad);
        }
    }
    dedup(&mut t.entries);
    for &pfn in &t.entries {
        if let Some(id) = ListId::of_frame(m, pfn) {
            pages::check_entry(m, id, pfn, bad);
            t.lists.push(id);
        }
    }
    dedup(&mut t.lists);
    for &id in &t.lists {
        pages::check_list(m, id, totals, bad);
    }
    dedup(&mut t.zones);
    for &node in &t.zones {
        pages::check_zone(m, node, bad);
    }
    dedup(&mut t.pcps);
    for &(cpu, node) in &t.pcps {
        if m.config.has_cpu(cpu) && m.config.has_node(node) {
            pages::check_pcp(m, cpu, node, bad);
        }
    }
}

/// SLUB's invariants of what a step touched.
pub(crate) fn check_touched_slub(
    m: &Machine,
    t: &mut Touched,
    totals: &Totals,
    bad: &mut Vec<Problem>,
) {
    for &cache in &t.caches {
        if let Some(s) = m.slub().caches.get(cache) {
            t.cpus.extend(s.cpu.keys().map(|cpu| (cache, cpu)));
            t.nodes.extend(s.node.keys().map(|node| (cache, node)));
        }
    }
    // A touched CPU's cpu slab: its freelist walk covers `c->freelist`.
    for &(cache, cpu) in &t.cpus {
        if let Some(c) = m.slub().caches.get(cache).and_then(|s| s.cpu.get(cpu)) {
            t.held.extend(c.slab.map(|pfn| (pfn, cache)));
        }
    }
    settle_caches(m, t);
    for &(pfn, cache) in &t.held {
        let place = SlubPlaces::Scan.get(m, cache, pfn);
        slub_check::check_slab(m, pfn, place, bad);
        // The CPUs holding it: their partial stacks run through it.
        for cpu in CpuId::in_mask(place.cpu_slab | place.cpu_partial_of) {
            t.cpus.push((cache, cpu));
        }
    }
    dedup(&mut t.cpus);
    for &(cache, cpu) in &t.cpus {
        if m.slub()
            .caches
            .get(cache)
            .is_some_and(|s| s.cpu.get(cpu).is_some())
        {
            slub_check::check_cpu(m, cache, cpu, bad);
        }
    }
    dedup(&mut t.node_entries);
    for &(cache, node, pfn) in &t.node_entries {
        slub_check::check_node_entries_of(m, cache, node, pfn, bad);
    }
    dedup(&mut t.nodes);
    for &(cache, node) in &t.nodes {
        slub_check::check_node_counters(m, cache, node, totals, bad);
    }
    dedup(&mut t.sheaf_caches);
    for &cache in &t.sheaf_caches {
        slub_check::check_sheaves(m, cache, bad);
    }
}

/// SLAB's invariants of what a step touched.
pub(crate) fn check_touched_slab(
    m: &Machine,
    t: &mut Touched,
    totals: &Totals,
    bad: &mut Vec<Problem>,
) {
    for &cache in &t.caches {
        if let Some(s) = m.slab().caches.get(cache) {
            t.arrays
                .extend(slab_check::arrays(s).into_iter().map(|r| (cache, r)));
            t.nodes.extend(s.node.keys().map(|node| (cache, node)));
        }
    }
    let key = |&(cache, r): &(CacheId, AcRef)| match r {
        AcRef::Cpu { cpu } => (cache, 0, u32::from(cpu), 0),
        AcRef::Shared { node } => (cache, 1, u32::from(node), 0),
        AcRef::Alien { node, remote } => (cache, 2, u32::from(node), u32::from(remote)),
    };
    t.arrays.sort_unstable_by_key(key);
    t.arrays.dedup();
    // One set of pointers per cache, across its touched arrays (sorted by cache): a pointer
    // copied from one array to another (`AcMoved` names both) is caught at this step, as the
    // full check catches it across all arrays.
    let mut seen = BTreeSet::new();
    let mut seen_cache = None;
    for &(cache, r) in &t.arrays {
        if seen_cache != Some(cache) {
            seen.clear();
            seen_cache = Some(cache);
        }
        slab_check::check_array(m, cache, r, &mut seen, bad);
    }
    settle_caches(m, t);
    for &(pfn, cache) in &t.held {
        slab_check::check_one_slab(m, pfn, SlabPlaces::Scan.get(m, cache, pfn), bad);
    }
    dedup(&mut t.node_entries);
    for &(cache, node, pfn) in &t.node_entries {
        slab_check::check_list_entries_of(m, cache, node, pfn, bad);
    }
    dedup(&mut t.nodes);
    for &(cache, node) in &t.nodes {
        slab_check::check_node_counters(m, cache, node, totals, bad);
    }
}

fn check_rcu(m: &Machine, t: &mut Touched, bad: &mut Vec<Problem>) {
    if !rcu_check::check_shape(m, bad) {
        return;
    }
    // The oldest callback of a CPU that invoked one, and the callbacks queued, newest last,
    // each against the one before it (the only pairs a step makes).
    dedup(&mut t.cb_heads);
    for &cpu in &t.cb_heads {
        rcu_check::check_callback(m, cpu, 0, bad);
    }
    t.cb_tails.sort_unstable();
    for run in t.cb_tails.chunk_by(|a, b| a == b) {
        let cpu = run[0];
        let len = m.rcu.cblist.get(cpu).map_or(0, Vec::len);
        for i in len.saturating_sub(run.len())..len {
            rcu_check::check_callback(m, cpu, i, bad);
        }
    }
    dedup(&mut t.krcs);
    for &cpu in &t.krcs {
        rcu_check::check_krc(m, cpu, bad);
    }
    dedup(&mut t.batches);
    for &(cpu, batch) in &t.batches {
        rcu_check::check_batch(m, cpu, batch, bad);
    }
    dedup(&mut t.queued);
    for &addr in &t.queued {
        rcu_check::check_queued(m, addr, bad);
    }
    dedup(&mut t.rcu_frames);
    for &pfn in &t.rcu_frames {
        rcu_check::check_frame(m, pfn, &RcuHolders::Scan, bad);
    }
}
