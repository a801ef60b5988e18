//! What a step touched, derived from its events: the page frames, buddy and pcp lists, zones,
//! pcps, slabs, per-CPU structures, node list entries, node counters, array caches, caches and
//! RCU's callbacks, `krc`s, batches and queued pointers each event names, and what the machine
//! held there just before the event (the old `c->slab`, the neighbours a list entry is taken
//! from, the object an array pop takes, the list that really holds a slab being unlinked).
//!
//! Rules:
//! - `touches` and `slab_touches` match every event kind with no catch-all: a new kind does
//!   not compile until it says what it touches. One that changes nothing an invariant reads
//!   says so, with the reason.
//! - An event names every frame and slab whose share of `Totals` it changes. Before the first
//!   event of a step that names one, the item is as it was before the step (no earlier event
//!   changed it without naming it), so its old share is taken out of the running totals
//!   there; the checker puts its new share back after the step.

use super::pages::ListId;
use super::totals::Totals;
use crate::ids::SheafId;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::{Machine, Pfn, NIL};
use crate::rcu::event::RcuEvent;
use crate::rcu::state::RcuFunc;
use crate::slab::event::SlabEvent;
use crate::slab::state::AcRef;
use crate::slub::sheaf::SheafEvent;
use crate::trace::Event;

/// The items one step touched. Kept between steps for its buffers.
#[derive(Clone, Debug, Default)]
pub struct Touched {
    /// The step being collected; items stamped with it are already named.
    stamp: u32,
    /// Per pfn: the step that last named the frame.
    frame_stamp: Vec<u32>,
    /// Per pfn: the step that last named a slab starting there.
    slab_stamp: Vec<u32>,
    /// Frames named (their shares of the totals are out until the step ends).
    pub(crate) frames: Vec<Pfn>,
    /// Pfn ranges `[from, to)` whose blocks are walked.
    pub(crate) ranges: Vec<(Pfn, Pfn)>,
    /// List entries whose links may have changed: named frames that were entries and their
    /// neighbours at the time.
    pub(crate) entries: Vec<Pfn>,
    /// Buddy free lists and pcp lists.
    pub(crate) lists: Vec<ListId>,
    /// Zones (by node) whose `NR_FREE_PAGES` may have changed.
    pub(crate) zones: Vec<NodeId>,
    /// `(cpu, node)` pcps whose `count` may have changed.
    pub(crate) pcps: Vec<(CpuId, NodeId)>,
    /// Slabs named, with their cache (their shares are out until the step ends).
    pub(crate) slabs: Vec<(Pfn, CacheId)>,
    /// Slabs to check whose shares did not change: what a touched structure held.
    pub(crate) held: Vec<(Pfn, CacheId)>,
    /// SLUB `kmem_cache_cpu`s, `(cache, cpu)`.
    pub(crate) cpus: Vec<(CacheId, CpuId)>,
    /// Node list entries, `(cache, node, pfn)`, checked wherever the pfn is on those lists.
    pub(crate) node_entries: Vec<(CacheId, NodeId, Pfn)>,
    /// Node counters, `(cache, node)`.
    pub(crate) nodes: Vec<(CacheId, NodeId)>,
    /// SLAB array caches.
    pub(crate) arrays: Vec<(CacheId, AcRef)>,
    /// Caches created: all their per-CPU and node structures are new.
    pub(crate) caches: Vec<CacheId>,
    /// RCU: CPUs whose oldest callback was invoked (the new oldest is checked).
    pub(crate) cb_heads: Vec<CpuId>,
    /// RCU: one entry per callback queued, naming its CPU (the newest ones are checked, each
    /// against the one before it).
    pub(crate) cb_tails: Vec<CpuId>,
    /// RCU: CPUs whose `krc` changed.
    pub(crate) krcs: Vec<CpuId>,
    /// RCU: `krw_arr[batch]` of a CPU, or its callback, changed.
    pub(crate) batches: Vec<(CpuId, u8)>,
    /// RCU: pointers `kfree_rcu()` queued.
    pub(crate) queued: Vec<u64>,
    /// Pages RCU took or let go of, and frames named whose block RCU owned before an event
    /// (with those it owns after the step, checked against what RCU holds).
    pub(crate) rcu_frames: Vec<Pfn>,
    /// SLUB caches whose per-CPU sheaves or barns changed.
    pub(crate) sheaf_caches: Vec<CacheId>,
}

impl Touched {
    /// Empties the set for the next step.
    pub(crate) fn begin(&mut self, m: &Machine) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 || self.frame_stamp.len() != m.frames.len() {
            self.stamp = 1;
            self.frame_stamp = vec![0; m.frames.len()];
            self.slab_stamp = vec![0; m.frames.len()];
        }
        self.frames.clear();
        self.ranges.clear();
        self.entries.clear();
        self.lists.clear();
        self.zones.clear();
        self.pcps.clear();
        self.slabs.clear();
        self.held.clear();
        self.cpus.clear();
        self.node_entries.clear();
        self.nodes.clear();
        self.arrays.clear();
        self.caches.clear();
        self.cb_heads.clear();
        self.cb_tails.clear();
        self.krcs.clear();
        self.batches.clear();
        self.queued.clear();
        self.rcu_frames.clear();
        self.sheaf_caches.clear();
    }
}

/// Names items into a `Touched` set, with the machine as it is before the event.
pub(crate) struct Naming<'a> {
    pub m: &'a Machine,
    pub t: &'a mut Touched,
    pub totals: &'a mut Totals,
}

impl Naming<'_> {
    /// The block of `2^order` frames from `pfn` (clamped to the machine).
    fn frames(&mut self, pfn: Pfn, order: u8) {
        let m = self.m;
        let end = Pfn((u64::from(pfn) + (1u64 << order)).min(m.frames.len() as u64) as u32);
        if pfn >= end {
            return;
        }
        self.t.ranges.push((pfn, end));
        for at in Pfn::range(pfn, end) {
            // Each time: a block added earlier in the step may be taken off its list now,
            // relinking the entries around it.
            if let Some(id) = ListId::of_frame(m, at) {
                self.t.lists.push(id);
                self.t.entries.push(at);
                let f = &m.frames[at];
                for near in [f.prev, f.next] {
                    if near != NIL {
                        self.t.entries.push(near);
                    }
                }
            }
            if self.t.frame_stamp[at.index()] != self.t.stamp {
                self.t.frame_stamp[at.index()] = self.t.stamp;
                self.totals.frame(m, at, -1);
                self.t.frames.push(at);
                if rcu_owned(m, at) {
                    self.t.rcu_frames.push(at);
                }
            }
        }
    }

    /// The slab at `pfn`; `cache` names its cache if it does not exist yet.
    fn slab(&mut self, pfn: Pfn, cache: Option<CacheId>) {
        let m = self.m;
        let Some(stamp) = self.t.slab_stamp.get_mut(pfn.index()) else {
            return;
        };
        if *stamp == self.t.stamp {
            return;
        }
        *stamp = self.t.stamp;
        let found = slab_home(m, pfn);
        if let Some((cache, node)) = found {
            self.totals.slab(m, pfn, -1);
            self.t.nodes.push((cache, node));
        }
        if let Some(cache) = found.map(|f| f.0).or(cache) {
            self.t.slabs.push((pfn, cache));
        }
    }

    /// A slab held by a touched structure: checked, its share unchanged.
    fn held(&mut self, pfn: Option<Pfn>, cache: CacheId) {
        if let Some(pfn) = pfn {
            self.t.held.push((pfn, cache));
        }
    }

    /// A SLUB CPU's `kmem_cache_cpu`, and the slabs it holds now.
    fn cpu(&mut self, cache: CacheId, cpu: CpuId) {
        let m = self.m;
        self.t.cpus.push((cache, cpu));
        if let Some(c) = m.slub().caches.get(cache).and_then(|s| s.cpu.get(cpu)) {
            self.held(c.slab, cache);
            for pfn in crate::slub::check::cpu_partial(m, c) {
                self.t.held.push((pfn, cache));
            }
        }
    }

    /// The slab a SLAB object lies in.
    fn object(&mut self, cache: CacheId, addr: u64) {
        if let Some(p) = crate::slab::place_of(self.m, addr) {
            self.slab(p.pfn, Some(cache));
        }
    }

    /// A node list entry and the node's counters.
    fn node_entry(&mut self, cache: CacheId, node: NodeId, pfn: Pfn) {
        self.t.node_entries.push((cache, node, pfn));
        self.t.nodes.push((cache, node));
    }

    /// The node of the slab at `pfn` (a slab lies on the node of its pages).
    fn node_of(&self, pfn: Pfn) -> NodeId {
        self.m.node_of(pfn)
    }
}

/// Whether the frame at `pfn` heads a block whose owner says RCU holds it.
pub(crate) fn rcu_owned(m: &Machine, pfn: Pfn) -> bool {
    m.frames
        .get(pfn)
        .and_then(|f| crate::rcu::check::rcu_owned(f.state))
        .is_some()
}

/// The cache and node of the slab at `pfn`, under the machine's allocator.
pub(crate) fn slab_home(m: &Machine, pfn: Pfn) -> Option<(CacheId, NodeId)> {
    crate::allocator::ops(m).slab_of(m, pfn)
}

/// Names what `event` touches. Exhaustive: see the module's rules.
#[allow(
    clippy::too_many_lines,
    reason = "one arm per event kind, so a new kind does not compile until it says what it touches"
)]
pub(crate) fn touches(event: &Event, n: &mut Naming) {
    match *event {
        Event::FreeBlockRemoved { node, pfn, order }
        | Event::FreeBlockAdded {
            node, pfn, order, ..
        } => {
            n.frames(pfn, order);
            n.t.lists.push(ListId::Free { node, order });
            n.t.zones.push(node);
        }
        // A fact for the narration: the removal and the addition around it change the state.
        Event::BuddiesMerged { .. } => {}
        Event::BlockSplit {
            pfn, upper, order, ..
        } => {
            n.frames(pfn, order);
            n.frames(upper, order);
        }
        Event::PcpBlockAdded {
            cpu,
            node,
            pfn,
            order,
            ..
        }
        | Event::PcpBlockRemoved {
            cpu,
            node,
            pfn,
            order,
        } => {
            n.frames(pfn, order);
            n.t.lists.push(ListId::Pcp { cpu, node, order });
            n.t.pcps.push((cpu, node));
        }
        // `free_factor` has no invariant: it only tunes how many pages a free sends back.
        Event::PcpFreeFactorSet { .. } | Event::PcpTuned { .. } => {}
        Event::PagesAllocated { pfn, order, .. } | Event::PagesReleased { pfn, order } => {
            n.frames(pfn, order)
        }
        Event::CacheCreated(ref new) => n.t.caches.push(new.id),
        // Names and the destroyed mark: nothing an invariant reads.
        Event::CacheAliased { .. }
        | Event::CacheUnaliased { .. }
        | Event::CacheDestroyed { .. } => {}
        Event::SlabCreated { cache, pfn, .. } => {
            n.slab(pfn, Some(cache));
            let node = n.node_of(pfn);
            n.t.nodes.push((cache, node));
        }
        Event::SlabCounted { cache, node, .. } | Event::SlabUncounted { cache, node, .. } => {
            n.t.nodes.push((cache, node))
        }
        // The generator's state has no invariant; the draws are replayed, not checked.
        Event::RandomDrawn { .. } => {}
        Event::SlabStateSet { pfn, .. }
        | Event::SlabHeld { pfn, .. }
        | Event::FreePointerSet { pfn, .. }
        | Event::ObjectAllocated { pfn, .. }
        | Event::ObjectFreed { pfn, .. } => n.slab(pfn, None),
        Event::CpuFreelistSet { cache, cpu, .. } => n.cpu(cache, cpu),
        Event::CpuSlabSet { cache, cpu, slab } => {
            n.cpu(cache, cpu);
            n.held(slab, cache);
        }
        Event::CpuPartialSet { cache, cpu, top } => {
            n.cpu(cache, cpu);
            n.held(top, cache);
        }
        Event::SlabPartialLinked { pfn, next, .. } => {
            n.slab(pfn, None);
            if let Some(s) = n.m.slub().slabs.get(&pfn) {
                let (old, cache) = (s.next, s.cache);
                n.held(old, cache);
                n.held(next, cache);
            }
        }
        Event::NodePartialAdded {
            cache, node, pfn, ..
        }
        | Event::NodeFullAdded { cache, node, pfn } => {
            n.slab(pfn, Some(cache));
            n.node_entry(cache, node, pfn);
        }
        // The slab leaves the list that holds it: `cache`'s, or after an unchecked free to the
        // wrong cache another cache's (`list_del()` in slub/apply.rs), found as it finds it.
        Event::NodePartialRemoved { cache, node, pfn }
        | Event::NodeFullRemoved { cache, node, pfn } => {
            let full = matches!(event, Event::NodeFullRemoved { .. });
            n.slab(pfn, Some(cache));
            n.node_entry(cache, node, pfn);
            if let Some(holder) = slub_list_holder(n.m, cache, node, pfn, full) {
                n.node_entry(holder, node, pfn);
            }
        }
        Event::SlabDiscarded { cache, pfn } => {
            let node =
                n.m.slub()
                    .slabs
                    .get(&pfn)
                    .map_or(n.node_of(pfn), |s| s.node);
            n.slab(pfn, Some(cache));
            n.frames(pfn, 0);
            n.node_entry(cache, node, pfn);
            // Whatever per-CPU structure held it must let go of it in the same step.
            if let Some(s) = n.m.slub().caches.get(cache) {
                for cpu in s.cpu.keys() {
                    n.cpu(cache, cpu);
                }
            }
        }
        // Transient structures for the narration; their links are `FreePointerSet` events
        // (the reversal of `slab_free_freelist_hook()` included).
        Event::DetachedFreelistBuilt(_) | Event::DetachedFreelistReversed(_) => {}
        // The seed only picks a `kmalloc-rnd-*` cache; no invariant reads it.
        Event::RandomKmallocSeedSet { .. } => {}
        // A lock count for the summary; no invariant reads it.
        Event::ListLockTaken { .. } => {}
        // The record itself: every check reports every record (`damage::check_records`); what
        // the bad free changed is named by the events that change it.
        Event::DamageRecorded(_) => {}
        Event::Slab(ref e) => slab_touches(e, n),
        Event::Rcu(ref e) => rcu_touches(e, n),
        Event::Sheaf(ref e) => sheaf_touches(e, n),
    }
}

/// The cache whose node `node` partial (or full) list holds `pfn`, looked for as the removal
/// looks: `cache`'s own list first, then every cache's.
fn slub_list_holder(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    pfn: Pfn,
    full: bool,
) -> Option<CacheId> {
    let on = |id: CacheId| {
        m.slub()
            .caches
            .get(id)
            .and_then(|s| s.node.get(node))
            .is_some_and(|n| {
                if full {
                    n.full.contains(&pfn)
                } else {
                    n.partial.contains(&pfn)
                }
            })
    };
    std::iter::once(cache)
        .chain(m.slub().caches.keys())
        .find(|&id| on(id))
}

/// Names what a sheaf event touches: the cache's sheaves and barns, and the slabs of the
/// objects that join or leave a sheaf (their `inuse` is shared with the sheaves). Exhaustive.
pub(crate) fn sheaf_touches(event: &SheafEvent, n: &mut Naming) {
    let cache_of = |n: &Naming, sheaf: SheafId| n.m.slub().sheaves.get(&sheaf).map(|s| s.cache);
    match *event {
        SheafEvent::Allocated { cache, .. }
        | SheafEvent::PcsSet { cache, .. }
        | SheafEvent::BarnAdded { cache, .. }
        | SheafEvent::BarnRemoved { cache, .. } => n.t.sheaf_caches.push(cache),
        SheafEvent::Freed { sheaf } | SheafEvent::Held { sheaf, .. } => {
            if let Some(cache) = cache_of(n, sheaf) {
                n.t.sheaf_caches.push(cache);
            }
        }
        SheafEvent::Isolated { pfn, .. } => {
            let cache = n.m.slub().slabs.get(&pfn).map(|s| s.cache);
            n.slab(pfn, cache);
        }
        SheafEvent::Stacked { ref objects, .. } => {
            for &o in objects.iter() {
                if let Some(p) = crate::slub::place_of(n.m, o) {
                    let cache = n.m.slub().slabs.get(&p.pfn).map(|s| s.cache);
                    n.slab(p.pfn, cache);
                }
            }
        }
        SheafEvent::Pushed { sheaf, ref objects } | SheafEvent::Removed { sheaf, ref objects } => {
            let Some(cache) = cache_of(n, sheaf) else {
                return;
            };
            n.t.sheaf_caches.push(cache);
            for &o in objects.iter() {
                if let Some(p) = crate::slub::place_of(n.m, o) {
                    n.slab(p.pfn, Some(cache));
                }
            }
        }
        SheafEvent::Taken { sheaf, count } => {
            let m = n.m;
            let Some(s) = m.slub().sheaves.get(&sheaf) else {
                return;
            };
            n.t.sheaf_caches.push(s.cache);
            let from = s.objects.len().saturating_sub(count as usize);
            for &o in &s.objects[from..] {
                if let Some(p) = crate::slub::place_of(m, o) {
                    n.slab(p.pfn, Some(s.cache));
                }
            }
        }
    }
}

/// Names what an RCU event touches. Exhaustive: see the module's rules.
pub(crate) fn rcu_touches(event: &RcuEvent, n: &mut Naming) {
    let func = |n: &mut Naming, cpu: CpuId, func: RcuFunc| match func {
        // The slab's pages change owner (the frame states), and what holds them.
        RcuFunc::FreeSlab { pfn, order, .. } => {
            n.frames(pfn, order);
            n.t.rcu_frames.push(pfn);
        }
        RcuFunc::KfreeRcuWork { batch } => n.t.batches.push((cpu, batch)),
        // The sheaf's place: it waits here, off every CPU and barn.
        RcuFunc::RcuFreeSheaf { cache, .. } => n.t.sheaf_caches.push(cache),
    };
    match *event {
        RcuEvent::CallbackQueued { cpu, func: f, .. } => {
            n.t.cb_tails.push(cpu);
            func(n, cpu, f);
        }
        RcuEvent::CallbackInvoked { cpu, func: f } => {
            n.t.cb_heads.push(cpu);
            func(n, cpu, f);
        }
        // A later grace period only loosens what waits for one: no invariant can break.
        RcuEvent::GracePeriodElapsed { .. } => {}
        RcuEvent::KrcPageAttached { cpu, pfn, .. }
        | RcuEvent::KrcPageReleased { cpu, pfn, .. }
        | RcuEvent::KrcPageCached { cpu, pfn } => {
            n.t.krcs.push(cpu);
            n.t.rcu_frames.push(pfn);
        }
        RcuEvent::KrcPointerRecorded { cpu, addr, .. }
        | RcuEvent::KrcObjectChained { cpu, addr, .. } => {
            n.t.krcs.push(cpu);
            n.t.queued.push(addr);
        }
        // Pointers move between a krc's own lists: none joins or leaves the queued ones twice.
        RcuEvent::KrcBatchDetached { cpu, batch } | RcuEvent::KrcBatchTaken { cpu, batch } => {
            n.t.krcs.push(cpu);
            n.t.batches.push((cpu, batch));
        }
        RcuEvent::KrcMonitorSet { cpu, .. }
        | RcuEvent::KrcReadyTaken { cpu, .. }
        | RcuEvent::KrcObjectUnchained { cpu, .. } => n.t.krcs.push(cpu),
    }
}

/// Names what a SLAB event touches. Exhaustive: see the module's rules.
pub(crate) fn slab_touches(event: &SlabEvent, n: &mut Naming) {
    match *event {
        SlabEvent::CacheCreated(ref new) => n.t.caches.push(new.id),
        // Names, the widened object size and the destroyed mark: nothing an invariant reads.
        SlabEvent::CacheAliased(_)
        | SlabEvent::CacheUnaliased(_)
        | SlabEvent::CacheDestroyed { .. } => {}
        SlabEvent::SlabCreated(ref new) => n.slab(new.pfn, Some(new.cache)),
        // Colouring, the reap clock and the touched marks tune behaviour; no invariant reads
        // them.
        SlabEvent::ColourNext { .. }
        | SlabEvent::FreeTouched { .. }
        | SlabEvent::NextReap { .. }
        | SlabEvent::AcTouched { .. }
        | SlabEvent::AlienLockTaken { .. }
        | SlabEvent::Jiffies { .. }
        | SlabEvent::ReapNode { .. } => {}
        SlabEvent::ObjGot { pfn }
        | SlabEvent::ObjPut { pfn, .. }
        | SlabEvent::FreelistAt { pfn, .. }
        | SlabEvent::ObjectAllocated { pfn, .. }
        | SlabEvent::ObjectFreed { pfn, .. } => n.slab(pfn, None),
        SlabEvent::SlabListed { cache, pfn, .. } | SlabEvent::SlabUnlisted { cache, pfn } => {
            let node =
                n.m.slab()
                    .slabs
                    .get(&pfn)
                    .map_or(n.node_of(pfn), |s| s.node);
            n.slab(pfn, Some(cache));
            n.node_entry(cache, node, pfn);
        }
        SlabEvent::NodeCounts { cache, node, .. } => n.t.nodes.push((cache, node)),
        SlabEvent::AcPushed { cache, ac, addr } => {
            n.t.arrays.push((cache, ac));
            n.object(cache, addr);
        }
        SlabEvent::AcPopped { cache, ac } => {
            n.t.arrays.push((cache, ac));
            if let Some(&top) = array(n.m, cache, ac).and_then(|e| e.last()) {
                n.object(cache, top);
            }
        }
        SlabEvent::AcDropped { cache, ac, count } => {
            n.t.arrays.push((cache, ac));
            let oldest: Vec<u64> = array(n.m, cache, ac)
                .map(|e| e.iter().take(count as usize).copied().collect())
                .unwrap_or_default();
            for obj in oldest {
                n.object(cache, obj);
            }
        }
        // The objects stay in arrays of the cache: no slab's count of parked objects moves.
        SlabEvent::AcMoved {
            cache, from, to, ..
        } => {
            n.t.arrays.push((cache, from));
            n.t.arrays.push((cache, to));
        }
        SlabEvent::SlabDestroyed { cache, pfn } => {
            let node =
                n.m.slab()
                    .slabs
                    .get(&pfn)
                    .map_or(n.node_of(pfn), |s| s.node);
            n.slab(pfn, Some(cache));
            n.frames(pfn, 0);
            n.node_entry(cache, node, pfn);
        }
    }
}

/// The entries of a SLAB array cache.
fn array(m: &Machine, cache: CacheId, ac: AcRef) -> Option<&[u64]> {
    Some(&m.slab().caches.get(cache)?.ac(ac)?.entry)
}
