//! SLUB invariants (the kernel's `validate_slab()`/`on_freelist()` ideas and the state table of
//! spec 2.6), one item at a time: a slab, a CPU's `kmem_cache_cpu`, an entry of a node's
//! partial or full list, a node's counters. `check_all` applies them to every item; the
//! incremental checker (`machine::check`) to the items a step touched.

use super::state::{KmemCache, KmemCacheCpu, Slab};
use crate::geometry::SlubVersion;
use crate::ids::SheafId;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::check::{hex, messages, problem, Problem, Totals};
use crate::machine::{FrameState, Machine, Owner, Pfn};
use std::collections::BTreeMap;

/// Where a slab is held in its cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SlubPlace {
    /// The CPUs whose `c->slab` it is, one bit each.
    pub cpu_slab: u64,
    /// Per-CPU partial stacks that hold it (counted, so a slab on two shows).
    pub cpu_partial: u32,
    /// The CPUs whose partial stack holds it, one bit each.
    pub cpu_partial_of: u64,
    /// Times it is on a node partial list of its cache.
    pub node_partial: u32,
    /// Times it is on a node full list of its cache.
    pub node_full: u32,
    /// Tasks of an interleaved run that hold it between two micro-steps (`SlubState::held`).
    pub task: u32,
    /// Refills that took it off its node list (7.x, `SlubState::isolated`).
    pub isolated: u32,
}

impl SlubPlace {
    fn held(self) -> bool {
        self != SlubPlace::default()
    }

    fn per_cpu(self) -> u32 {
        self.cpu_slab.count_ones() + self.cpu_partial + self.task
    }
}

/// How a check finds where slabs are held in their own cache: an index of every slab built in
/// one pass (a full check), or a scan of one slab's cache (a local check). Both report the
/// same facts; a slab held by another cache is reported by that holder's own check.
pub(crate) enum SlubPlaces {
    Index(BTreeMap<Pfn, SlubPlace>),
    Scan,
}

impl SlubPlaces {
    /// Every holder of every cache, indexed by slab.
    pub(crate) fn index(m: &Machine) -> SlubPlaces {
        let mut index: BTreeMap<Pfn, SlubPlace> = BTreeMap::new();
        for s in &m.slub().caches {
            let mine = |pfn: &Pfn| m.slub().slabs.get(pfn).is_some_and(|sl| sl.cache == s.id);
            for (cpu, c) in s.cpu.iter_enumerated() {
                if let Some(pfn) = c.slab.filter(mine) {
                    index.entry(pfn).or_default().cpu_slab |= cpu.bit();
                }
                for pfn in cpu_partial(m, c).filter(mine) {
                    let place = index.entry(pfn).or_default();
                    place.cpu_partial += 1;
                    place.cpu_partial_of |= cpu.bit();
                }
            }
            for h in m.slub().held.iter().filter(|h| mine(&h.pfn)) {
                index.entry(h.pfn).or_default().task += 1;
            }
            for pfn in m.slub().isolated.iter().filter(|p| mine(p)) {
                index.entry(*pfn).or_default().isolated += 1;
            }
            for n in &s.node {
                for &pfn in n.partial.iter().filter(|p| mine(p)) {
                    index.entry(pfn).or_default().node_partial += 1;
                }
                for &pfn in n.full.iter().filter(|p| mine(p)) {
                    index.entry(pfn).or_default().node_full += 1;
                }
            }
        }
        SlubPlaces::Index(index)
    }

    /// Where the slab at `pfn` of cache `cache` is held.
    pub(crate) fn get(&self, m: &Machine, cache: CacheId, pfn: Pfn) -> SlubPlace {
        match self {
            SlubPlaces::Index(index) => index.get(&pfn).copied().unwrap_or_default(),
            SlubPlaces::Scan => {
                let mut place = SlubPlace::default();
                let Some(s) = m.slub().caches.get(cache) else {
                    return place;
                };
                let count = |list: &[Pfn]| list.iter().filter(|&&at| at == pfn).count() as u32;
                for (cpu, c) in s.cpu.iter_enumerated() {
                    if c.slab == Some(pfn) {
                        place.cpu_slab |= cpu.bit();
                    }
                    let on_stack = cpu_partial(m, c).filter(|&at| at == pfn).count() as u32;
                    if on_stack > 0 {
                        place.cpu_partial += on_stack;
                        place.cpu_partial_of |= cpu.bit();
                    }
                }
                for n in &s.node {
                    place.node_partial += count(&n.partial);
                    place.node_full += count(&n.full);
                }
                place.task = m.slub().held.iter().filter(|h| h.pfn == pfn).count() as u32;
                place.isolated = m.slub().isolated.iter().filter(|&&p| p == pfn).count() as u32;
                place
            }
        }
    }
}

/// The slabs of a CPU's partial stack, top first, stopping at a slab that does not exist or
/// after as many links as there are slabs (a cycle; `check_cpu` reports both).
pub(crate) fn cpu_partial<'a>(m: &'a Machine, c: &KmemCacheCpu) -> impl Iterator<Item = Pfn> + 'a {
    let mut at = c.partial;
    let mut left = m.slub().slabs.len() + 1;
    std::iter::from_fn(move || {
        let pfn = at.filter(|_| left > 0)?;
        left -= 1;
        at = m.slub().slabs.get(&pfn).and_then(|s| s.next);
        Some(pfn)
    })
}

/// Every SLUB invariant of the machine.
pub(crate) fn check_all(m: &Machine, totals: &Totals, bad: &mut Vec<Problem>) {
    let places = SlubPlaces::index(m);
    for s in &m.slub().caches {
        for cpu in s.cpu.keys() {
            check_cpu(m, s.id, cpu, bad);
        }
        for (node, n) in s.node.iter_enumerated() {
            for &pfn in &n.partial {
                check_node_entry(m, s.id, node, false, pfn, bad);
            }
            for &pfn in &n.full {
                check_node_entry(m, s.id, node, true, pfn, bad);
            }
            check_node_counters(m, s.id, node, totals, bad);
        }
    }
    for (pfn, slab) in m.slub().slabs.iter() {
        check_slab(m, pfn, places.get(m, slab.cache, pfn), bad);
    }
    for s in &m.slub().caches {
        check_sheaves(m, s.id, bad);
    }
}

/// The SLUB invariants with the sums computed here (for tests that check SLUB alone).
pub fn check_slub(m: &Machine) -> Vec<String> {
    let totals = Totals::of(m);
    let mut bad = Vec::new();
    check_all(m, &totals, &mut bad);
    crate::machine::check::check_live(m, &totals, &mut bad);
    messages(bad)
}

/// Walks a freelist from `head`, requiring every object to be a free slot of slab `pfn` seen
/// on no other freelist of the slab (`seen`, one bit per object). Returns its length.
fn walk(
    m: &Machine,
    pfn: Pfn,
    slab: &Slab,
    head: u64,
    what: &str,
    seen: &mut [u64],
    bad: &mut Vec<Problem>,
) -> u32 {
    walk_n(m, pfn, slab, head, u32::MAX, what, seen, bad)
}

/// `walk`, stopping after `limit` objects.
#[allow(clippy::too_many_arguments, reason = "walk's arguments and the limit")]
fn walk_n(
    m: &Machine,
    pfn: Pfn,
    slab: &Slab,
    head: u64,
    limit: u32,
    what: &str,
    seen: &mut [u64],
    bad: &mut Vec<Problem>,
) -> u32 {
    let s = &m.slub().caches[slab.cache];
    let size = u64::from(s.geometry.size);
    let start = m.object_addr(pfn, s.geometry.size, 0);
    let mut n = 0;
    let mut at = head;
    while at != 0 && n < limit {
        if n > slab.objects {
            bad.push(problem!(
                "check.freelist_cycle",
                "{what} of slab {pfn} has a cycle",
                what = what,
                pfn = hex(pfn)
            ));
            break;
        }
        let index = at.wrapping_sub(start) / size;
        if at < start || index >= u64::from(slab.objects) || (at - start) % size != 0 {
            bad.push(problem!(
                "check.freelist_outside",
                "{what} of slab {pfn} points outside it: {at}",
                what = what,
                pfn = hex(pfn),
                at = hex(at)
            ));
            break;
        }
        let (word, bit) = (index as usize / 64, 1u64 << (index % 64));
        if seen[word] & bit != 0 {
            bad.push(problem!(
                "check.object_on_two_freelists",
                "object {object} is on two freelists (or twice on one)",
                object = hex(at)
            ));
        }
        seen[word] |= bit;
        if slab.allocated[index as usize] {
            bad.push(problem!(
                "check.object_free_and_allocated",
                "object {object} is both free ({what}) and allocated",
                object = hex(at),
                what = what
            ));
        }
        n += 1;
        at = s.freelist_ptr_decode(slab.words[index as usize], s.freeptr_addr(at));
    }
    n
}

/// One slab: its pages are a slab of its cache; its freelist and the freelists of the CPUs
/// whose cpu slab it is hold free objects of its own, once each; `inuse` counts what is not on
/// its own freelist, objects held plus those on cpu freelists; and where it is held agrees
/// with `frozen` and the state table of spec 2.6. A slab that is gone is held nowhere.
pub(crate) fn check_slab(m: &Machine, pfn: Pfn, place: SlubPlace, bad: &mut Vec<Problem>) {
    let Some(slab) = m.slub().slabs.get(&pfn) else {
        if place.held() {
            bad.push(problem!(
                "check.slab_gone_but_held",
                "slab {pfn} is gone but still held: {place}",
                pfn = hex(pfn),
                place = format!("{place:?}")
            ));
        }
        return;
    };
    let head = m.frame(pfn).map(|f| f.state);
    if head
        != Some(FrameState::Allocated {
            order: slab.order,
            owner: Owner::Slab { cache: slab.cache },
        })
    {
        bad.push(problem!(
            "check.slab_pages",
            "slab {pfn}'s pages are {state}",
            pfn = hex(pfn),
            state = format!("{head:?}")
        ));
    }
    let s = &m.slub().caches[slab.cache];
    let mut seen = vec![0u64; (slab.objects as usize).div_ceil(64)];
    let free = walk(
        m,
        pfn,
        slab,
        slab.freelist,
        "slab->freelist",
        &mut seen,
        bad,
    );
    if slab.inuse + free != slab.objects {
        bad.push(problem!(
            "check.slab_inuse_free",
            "slab {pfn}: inuse {inuse} + {free} free != {objects} objects",
            pfn = hex(pfn),
            inuse = slab.inuse,
            free = free,
            objects = slab.objects
        ));
    }
    let mut cpu_free = 0;
    for (cpu, c) in s.cpu.iter_enumerated() {
        if place.cpu_slab & cpu.bit() != 0 {
            cpu_free += walk(m, pfn, slab, c.freelist, "c->freelist", &mut seen, bad);
        }
    }
    for h in m.slub().held.iter().filter(|h| h.pfn == pfn) {
        let what = "a task's freelist";
        cpu_free += walk_n(m, pfn, slab, h.freelist, h.count, what, &mut seen, bad);
    }
    // 6.18+: objects in the cache's sheaves are in use from the slab's side.
    let in_sheaves = sheaf_objects_of(m, pfn, slab, &mut seen, bad);
    let live = slab.allocated.iter().filter(|&&a| a).count() as u32;
    if live + cpu_free + in_sheaves != slab.inuse {
        bad.push(problem!(
            "check.slab_inuse_live",
            "slab {pfn}: {live} allocated + {cpu_free} on a cpu freelist != inuse {inuse}",
            pfn = hex(pfn),
            live = live,
            cpu_free = cpu_free + in_sheaves,
            inuse = slab.inuse
        ));
    }
    if place.per_cpu() > 1 || place.node_partial > 1 || place.node_full > 1 {
        bad.push(problem!(
            "check.slab_held_twice",
            "{cache}: slab {pfn} is held more than once: {place}",
            cache = &s.name,
            pfn = hex(pfn),
            place = format!("{place:?}")
        ));
    }
    check_slab_state(m.profile.slub, s, pfn, slab, place, free, bad);
}

/// The objects of slab `pfn` that its cache's sheaves hold (6.18+), or an operation's array on
/// their way from one: each a slot of the slab, on no freelist, not allocated, held once.
fn sheaf_objects_of(
    m: &Machine,
    pfn: Pfn,
    slab: &Slab,
    seen: &mut [u64],
    bad: &mut Vec<Problem>,
) -> u32 {
    let st = m.slub();
    if st.sheaves.is_empty() && st.stacked.is_empty() {
        return 0;
    }
    let size = slab.size;
    let start = m.object_addr(pfn, size, 0);
    let end = start + u64::from(slab.objects) * u64::from(size);
    let mut n = 0;
    let held = st
        .sheaves
        .values()
        .filter(|s| s.cache == slab.cache)
        .map(|s| s.objects.as_slice())
        .chain(std::iter::once(st.stacked.as_slice()));
    for objects in held {
        for &o in objects.iter().filter(|&&o| o >= start && o < end) {
            let index = (o - start) / u64::from(size);
            if (o - start) % u64::from(size) != 0 {
                bad.push(problem!(
                    "check.sheaf_object_inside",
                    "a sheaf holds {object}, inside an object of slab {pfn}",
                    object = hex(o),
                    pfn = hex(pfn)
                ));
                continue;
            }
            let (word, bit) = (index as usize / 64, 1u64 << (index % 64));
            if seen[word] & bit != 0 {
                bad.push(problem!(
                    "check.sheaf_object_twice",
                    "object {object} is in a sheaf and on a freelist, or in two sheaves",
                    object = hex(o)
                ));
            }
            seen[word] |= bit;
            if slab.allocated[index as usize] {
                bad.push(problem!(
                    "check.sheaf_object_allocated",
                    "object {object} is both in a sheaf and allocated",
                    object = hex(o)
                ));
            }
            n += 1;
        }
    }
    n
}

/// A cache's sheaves and barns (6.18+): every CPU has a main sheaf of the cache; every sheaf
/// is where exactly one of a CPU's slots or a barn's lists says, holds at most its capacity of
/// objects of its cache; a barn's full sheaves are full and its empty ones empty.
pub(crate) fn check_sheaves(m: &Machine, cache: CacheId, bad: &mut Vec<Problem>) {
    let st = m.slub();
    let Some(s) = st.caches.get(cache) else {
        return;
    };
    if s.pcs.is_empty() {
        return;
    }
    let mut places: BTreeMap<SheafId, u32> = BTreeMap::new();
    for (cpu, pcs) in s.pcs.iter_enumerated() {
        if pcs.main.is_none() && !s.destroyed {
            bad.push(problem!(
                "check.pcs_no_main",
                "{cache}: cpu{cpu} has no main sheaf",
                cache = &s.name,
                cpu = cpu
            ));
        }
        for sheaf in [pcs.main, pcs.spare, pcs.rcu_free].into_iter().flatten() {
            *places.entry(sheaf).or_default() += 1;
        }
    }
    // Sheaves submitted with call_rcu() wait in their callback until it runs.
    for cb in m.rcu.cblist.iter().flatten() {
        if let crate::rcu::state::RcuFunc::RcuFreeSheaf {
            cache: c, sheaf, ..
        } = cb.func
        {
            if c == cache {
                *places.entry(sheaf).or_default() += 1;
            }
        }
    }
    for n in &s.node {
        let Some(barn) = &n.barn else { continue };
        for (list, full) in [(&barn.full, true), (&barn.empty, false)] {
            for &sheaf in list {
                *places.entry(sheaf).or_default() += 1;
                let Some(sh) = st.sheaves.get(&sheaf) else {
                    continue;
                };
                let size = sh.objects.len() as u32;
                if (full && size != sh.capacity) || (!full && size != 0) {
                    bad.push(problem!(
                        "check.barn_sheaf_size",
                        "{cache}: a barn's {which} sheaf holds {size} of {capacity}",
                        cache = &s.name,
                        which = if full { "full" } else { "empty" },
                        size = size,
                        capacity = sh.capacity
                    ));
                }
            }
        }
    }
    for (id, sheaf) in st.sheaves.iter().filter(|(_, sh)| sh.cache == cache) {
        let held = places.get(&id).copied().unwrap_or(0);
        if held > 1 || (held == 0 && !st.held_sheaves.contains(&id)) {
            bad.push(problem!(
                "check.sheaf_place",
                "{cache}: sheaf {sheaf} is held {count} times",
                cache = &s.name,
                sheaf = id.0,
                count = held
            ));
        }
        if sheaf.objects.len() as u32 > sheaf.capacity {
            bad.push(problem!(
                "check.sheaf_overfull",
                "{cache}: sheaf {sheaf} holds {size}, more than its capacity {capacity}",
                cache = &s.name,
                sheaf = id.0,
                size = sheaf.objects.len(),
                capacity = sheaf.capacity
            ));
        }
        for &o in &sheaf.objects {
            let ok = crate::slub::place_of(m, o)
                .is_some_and(|p| st.slabs.get(&p.pfn).is_some_and(|sl| sl.cache == cache));
            if !ok {
                bad.push(problem!(
                    "check.sheaf_foreign_object",
                    "{cache}: sheaf {sheaf} holds {object}, not an object of its cache",
                    cache = &s.name,
                    sheaf = id.0,
                    object = hex(o)
                ));
            }
        }
    }
}

/// Where slab `pfn` is held agrees with `frozen`: the state table of spec 2.6 (from 6.8, spec
/// after 6.6, 2.3: only the cpu slab is frozen); debug caches never freeze a slab, and keep
/// their full slabs on n->full with SLAB_STORE_USER.
fn check_slab_state(
    version: SlubVersion,
    s: &KmemCache,
    pfn: Pfn,
    slab: &Slab,
    place: SlubPlace,
    free: u32,
    bad: &mut Vec<Problem>,
) {
    if s.debug() && slab.frozen {
        bad.push(problem!(
            "check.debug_slab_frozen",
            "slab {pfn} of debug cache {cache} is frozen",
            pfn = hex(pfn),
            cache = &s.name
        ));
    }
    let full_listed = place.node_full > 0;
    if slab.freelist == 0 && s.debug() && s.flags.store_user != full_listed {
        bad.push(problem!(
            "check.full_list_store_user",
            "slab {pfn}: full, and on n->full = {full_listed} with SLAB_STORE_USER = {store_user}",
            pfn = hex(pfn),
            full_listed = full_listed,
            store_user = s.flags.store_user
        ));
    }
    if !version.has_cpu_slab() {
        // 7.x (spec after 6.6, 4.1): no slab is frozen; a node partial slab has free objects,
        // a slab on no list has none, unless a task holds it (a refill isolated it).
        let node = place.node_partial > 0;
        let fine = !slab.frozen
            && place.cpu_slab == 0
            && place.cpu_partial == 0
            && (place.task > 0 || place.isolated > 0 || node == (slab.freelist != 0));
        if !fine {
            bad.push(problem!(
                "check.slab_state_7_0",
                "slab {pfn}: frozen {frozen}, on the node partial list {node} (free {free})",
                pfn = hex(pfn),
                frozen = slab.frozen,
                node = node,
                free = free
            ));
        }
        return;
    }
    if version.delayed_freezing() {
        let on_cpu = (
            place.cpu_slab != 0,
            place.cpu_partial > 0,
            place.node_partial > 0,
        );
        match (slab.frozen, on_cpu) {
            (true, (true, false, false))
            | (false, (false, true, false))
            | (false, (false, false, true)) => {}
            (false, (false, false, false)) if slab.freelist == 0 => {} // full, on no list
            // A task holds it between two micro-steps: taken off the node list or a cpu
            // partial stack and not yet frozen, frozen and not yet installed, or on its way
            // back to a node list.
            (_, (false, false, false)) if place.task > 0 => {}
            other => bad.push(problem!(
                "check.slab_state_6_8",
                "slab {pfn}: frozen/(cpu slab, cpu partial, node partial) = {state} (free {free})",
                pfn = hex(pfn),
                state = format!("{other:?}"),
                free = free
            )),
        }
        return;
    }
    match (slab.frozen, place.per_cpu() > 0, place.node_partial > 0) {
        (true, true, false) | (false, false, true) => {}
        (false, false, false) if slab.freelist == 0 => {} // full, on no list (or n->full)
        // A task holds it between two micro-steps: frozen for it, or unfrozen and empty on
        // its way to discard_slab().
        (false, true, false) if place.task > 0 => {}
        other => bad.push(problem!(
            "check.slab_state",
            "slab {pfn}: frozen/per-CPU/node-partial = {state} (free {free})",
            pfn = hex(pfn),
            state = format!("{other:?}"),
            free = free
        )),
    }
}

/// One CPU's `kmem_cache_cpu`: its cpu slab is a slab of the cache (and without one it has
/// no freelist); its partial stack links slabs of the cache whose `slabs` count down by one.
pub(crate) fn check_cpu(m: &Machine, cache: CacheId, cpu: CpuId, bad: &mut Vec<Problem>) {
    let Some(s) = m.slub().caches.get(cache) else {
        return;
    };
    let c = &s.cpu[cpu];
    let mine = |pfn: Pfn| m.slub().slabs.get(&pfn).is_some_and(|sl| sl.cache == cache);
    // Whose slab it is instead: after an unchecked free to the wrong cache (known damage), a
    // slab of another cache whose objects this cache now hands out as its own.
    let whose = |pfn: Pfn| {
        m.slub()
            .slabs
            .get(&pfn)
            .map(|sl| m.cache_name(sl.cache).unwrap_or("?").to_string())
    };
    match c.slab {
        Some(pfn) if !mine(pfn) => bad.push(match whose(pfn) {
            Some(other) => problem!(
                "check.cpu_slab_foreign",
                "{cache}: cpu{cpu}'s cpu slab {pfn} is a slab of {other}, not of the cache",
                cache = &s.name,
                cpu = cpu,
                pfn = hex(pfn),
                other = other
            ),
            None => problem!(
                "check.cpu_slab_missing",
                "{cache}: cpu{cpu}'s cpu slab {pfn} is no slab, not of the cache",
                cache = &s.name,
                cpu = cpu,
                pfn = hex(pfn)
            ),
        }),
        None if c.freelist != 0 => bad.push(problem!(
            "check.cpu_freelist_without_slab",
            "{cache}: cpu{cpu} has a freelist but no cpu slab",
            cache = &s.name,
            cpu = cpu
        )),
        _ => {}
    }
    let mut expect_slabs: Option<u32> = None;
    let mut links = 0;
    for pfn in cpu_partial(m, c) {
        links += 1;
        let Some(slab) = m.slub().slabs.get(&pfn).filter(|_| mine(pfn)) else {
            bad.push(match whose(pfn) {
                Some(other) => problem!(
                    "check.cpu_partial_foreign",
                    "{cache}: cpu{cpu}'s per-CPU partial slab {pfn} is a slab of {other}, not of \
                     the cache",
                    cache = &s.name,
                    cpu = cpu,
                    pfn = hex(pfn),
                    other = other
                ),
                None => problem!(
                    "check.cpu_partial_missing",
                    "{cache}: cpu{cpu}'s per-CPU partial slab {pfn} is no slab, not of the cache",
                    cache = &s.name,
                    cpu = cpu,
                    pfn = hex(pfn)
                ),
            });
            return;
        };
        if let Some(e) = expect_slabs {
            if slab.slabs != e {
                bad.push(problem!(
                    "check.cpu_partial_depth",
                    "{cache}: cpu{cpu} partial stack depth {depth} where {expected} expected",
                    cache = &s.name,
                    cpu = cpu,
                    depth = slab.slabs,
                    expected = e
                ));
                return;
            }
        }
        expect_slabs = slab.slabs.checked_sub(1);
    }
    if links > m.slub().slabs.len() {
        bad.push(problem!(
            "check.cpu_partial_cycle",
            "{cache}: cpu{cpu}'s partial stack has a cycle",
            cache = &s.name,
            cpu = cpu
        ));
    }
}

/// An entry of a node's partial list (`full` false) or full list (`full` true) is a slab of
/// the cache on that node; a full list (kept only with `SLAB_STORE_USER`) holds full slabs.
pub(crate) fn check_node_entry(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    full: bool,
    pfn: Pfn,
    bad: &mut Vec<Problem>,
) {
    let Some(s) = m.slub().caches.get(cache) else {
        return;
    };
    let slab = m.slub().slabs.get(&pfn);
    let belongs = slab.is_some_and(|sl| sl.node == node && sl.cache == cache);
    if !full && !belongs {
        bad.push(problem!(
            "check.node_partial_foreign",
            "{cache}: node {node} partial list holds {pfn}, not its slab",
            cache = &s.name,
            node = node,
            pfn = hex(pfn)
        ));
    }
    if full && !(belongs && slab.is_some_and(|sl| sl.freelist == 0) && s.flags.store_user) {
        bad.push(problem!(
            "check.node_full_foreign",
            "{cache}: node {node} full list holds {pfn}, not a full slab of its own \
             (or without SLAB_STORE_USER)",
            cache = &s.name,
            node = node,
            pfn = hex(pfn)
        ));
    }
}

/// `check_node_entry` wherever `pfn` is on the node's lists.
pub(crate) fn check_node_entries_of(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    pfn: Pfn,
    bad: &mut Vec<Problem>,
) {
    let Some(n) = m.slub().caches.get(cache).and_then(|s| s.node.get(node)) else {
        return;
    };
    if n.partial.contains(&pfn) {
        check_node_entry(m, cache, node, false, pfn, bad);
    }
    if n.full.contains(&pfn) {
        check_node_entry(m, cache, node, true, pfn, bad);
    }
}

/// A node's `nr_slabs` and `total_objects` count every slab of the cache on the node.
pub(crate) fn check_node_counters(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    totals: &Totals,
    bad: &mut Vec<Problem>,
) {
    let Some(s) = m.slub().caches.get(cache) else {
        return;
    };
    let Some(n) = s.node.get(node) else {
        return;
    };
    let [slabs, objects] = totals.node(m, cache, node);
    if n.nr_slabs as i64 != slabs || n.total_objects as i64 != objects {
        bad.push(problem!(
            "check.node_counters",
            "{cache}: node {node} counts {nr_slabs} slabs/{total_objects} objects, but has \
             {slabs}/{objects}",
            cache = &s.name,
            node = node,
            nr_slabs = n.nr_slabs,
            total_objects = n.total_objects,
            slabs = slabs,
            objects = objects
        ));
    }
}
