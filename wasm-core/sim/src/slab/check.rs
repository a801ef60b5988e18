//! Invariants of SLAB's state, one item at a time: an array cache (its entries are free
//! objects of its cache, handed out of their slab, of the right node), a slab (its index
//! array, `active` = objects held + objects parked in arrays, its pages, the list it says it
//! is on), an entry of a node's slab list, a node's counters. `check_all` applies them to
//! every item; the incremental checker (`machine::check`) to the items a step touched.

use super::place_of;
use super::state::{AcRef, ArrayCache, KmemCache, SlabList};
use crate::geometry::slab::FreelistLayout;
use crate::ids::{CacheId, NodeId};
use crate::machine::check::{hex, messages, problem, Problem, Totals};
use crate::machine::{FrameState, Machine, Owner, Pfn};
use std::collections::{BTreeMap, BTreeSet};

const LISTS: [SlabList; 3] = [SlabList::Partial, SlabList::Full, SlabList::Free];

/// Where a slab is in its cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SlabPlace {
    /// Times it is on a node's partial, full and free list of its cache.
    pub on: [u32; 3],
    /// Its objects in the cache's array caches.
    pub parked: u32,
}

/// How a check finds where slabs are in their own cache: an index of every slab built in one
/// pass (a full check), or a scan of one slab's cache (a local check). Both report the same
/// facts; a slab on another cache's list or in its arrays is reported by that list's or
/// array's own check.
pub(crate) enum SlabPlaces {
    Index(BTreeMap<Pfn, SlabPlace>),
    Scan,
}

fn list_slot(which: SlabList) -> usize {
    match which {
        SlabList::Partial => 0,
        SlabList::Full => 1,
        SlabList::Free => 2,
    }
}

fn list_of(n: &super::state::KmemCacheNode, which: SlabList) -> &std::collections::VecDeque<Pfn> {
    match which {
        SlabList::Partial => &n.slabs_partial,
        SlabList::Full => &n.slabs_full,
        SlabList::Free => &n.slabs_free,
    }
}

/// Every array cache of a cache.
pub(crate) fn arrays(s: &KmemCache) -> Vec<AcRef> {
    let mut out: Vec<AcRef> = s.cpu.keys().map(|cpu| AcRef::Cpu { cpu }).collect();
    for (node, n) in s.node.iter_enumerated() {
        if n.shared.is_some() {
            out.push(AcRef::Shared { node });
        }
        for (remote, a) in n.alien.iter_enumerated() {
            if a.is_some() {
                out.push(AcRef::Alien { node, remote });
            }
        }
    }
    out
}

/// The node an array's objects must come from.
fn array_node(m: &Machine, r: AcRef) -> Option<NodeId> {
    match r {
        AcRef::Cpu { cpu } => (m.config.nodes > 1).then(|| m.cpu_node[cpu]),
        AcRef::Shared { node } => Some(node),
        AcRef::Alien { remote, .. } => Some(remote),
    }
}

impl SlabPlaces {
    /// Every list entry and array entry of every cache, indexed by slab.
    pub(crate) fn index(m: &Machine) -> SlabPlaces {
        let mut index: BTreeMap<Pfn, SlabPlace> = BTreeMap::new();
        for s in &m.slab().caches {
            let mine = |pfn: Pfn| m.slab().slabs.get(&pfn).is_some_and(|sl| sl.cache == s.id);
            for n in &s.node {
                for which in LISTS {
                    for &pfn in list_of(n, which).iter().filter(|&&pfn| mine(pfn)) {
                        index.entry(pfn).or_default().on[list_slot(which)] += 1;
                    }
                }
            }
            for r in arrays(s) {
                for &obj in &s.ac(r).expect("listed array").entry {
                    if let Some(p) = place_of(m, obj).filter(|p| p.offset == 0 && mine(p.pfn)) {
                        index.entry(p.pfn).or_default().parked += 1;
                    }
                }
            }
        }
        SlabPlaces::Index(index)
    }

    /// Where the slab at `pfn` of cache `cache` is.
    pub(crate) fn get(&self, m: &Machine, cache: CacheId, pfn: Pfn) -> SlabPlace {
        match self {
            SlabPlaces::Index(index) => index.get(&pfn).copied().unwrap_or_default(),
            SlabPlaces::Scan => {
                let mut place = SlabPlace::default();
                let Some(s) = m.slab().caches.get(cache) else {
                    return place;
                };
                for n in &s.node {
                    for which in LISTS {
                        place.on[list_slot(which)] +=
                            list_of(n, which).iter().filter(|&&at| at == pfn).count() as u32;
                    }
                }
                // The slab's bytes: an object in an array lies between them.
                let order = m.slab().slabs.get(&pfn).map_or(0, |sl| sl.order);
                let start = m.object_addr(pfn, 1, 0);
                let end = start + m.page.bytes(u32::from(order));
                for r in arrays(s) {
                    let ac = s.ac(r).expect("listed array");
                    place.parked += ac
                        .entry
                        .iter()
                        .filter(|&&obj| {
                            (start..end).contains(&obj)
                                && place_of(m, obj).is_some_and(|p| p.pfn == pfn && p.offset == 0)
                        })
                        .count() as u32;
                }
                place
            }
        }
    }
}

/// Every SLAB invariant of the machine.
pub(crate) fn check_all(m: &Machine, totals: &Totals, bad: &mut Vec<Problem>) {
    let places = SlabPlaces::index(m);
    let mut seen = BTreeSet::new();
    for s in &m.slab().caches {
        for r in arrays(s) {
            check_array(m, s.id, r, &mut seen, bad);
        }
        for (node, n) in s.node.iter_enumerated() {
            for which in LISTS {
                for &pfn in list_of(n, which) {
                    check_list_entry(m, s.id, node, which, pfn, bad);
                }
            }
            check_node_counters(m, s.id, node, totals, bad);
        }
    }
    for (&pfn, slab) in &m.slab().slabs {
        check_one_slab(m, pfn, places.get(m, slab.cache, pfn), bad);
    }
}

/// The SLAB invariants with the sums computed here (for tests that check SLAB alone).
pub fn check_slab(m: &Machine) -> Vec<String> {
    let totals = Totals::of(m);
    let mut bad = Vec::new();
    check_all(m, &totals, &mut bad);
    if m.allocator() == crate::boot::Allocator::Slab {
        crate::machine::check::check_live(m, &totals, &mut bad);
    }
    messages(bad)
}

/// One array cache: within its limit; each entry a free object of its cache, handed out of
/// its slab (not free in the slab's index array), of the node the array serves, and not in
/// another array (`seen`: the entries of the arrays checked so far).
pub(crate) fn check_array(
    m: &Machine,
    cache: CacheId,
    r: AcRef,
    seen: &mut BTreeSet<u64>,
    bad: &mut Vec<Problem>,
) {
    let sl = &m.slab();
    let Some(s) = sl.caches.get(cache) else {
        return;
    };
    let Some(ac): Option<&ArrayCache> = s.ac(r) else {
        return;
    };
    let node = array_node(m, r);
    if ac.avail() > ac.limit {
        bad.push(problem!(
            "check.array_over_limit",
            "{cache}: {array} holds {avail} pointers, over its limit {limit}",
            cache = &s.name,
            array = r,
            avail = ac.avail(),
            limit = ac.limit
        ));
    }
    for &obj in &ac.entry {
        if !seen.insert(obj) {
            bad.push(problem!(
                "check.array_object_twice",
                "{cache}: object {object} is in arrays twice",
                cache = &s.name,
                object = hex(obj)
            ));
            continue;
        }
        let Some(p) = place_of(m, obj).filter(|p| p.offset == 0) else {
            bad.push(problem!(
                "check.array_not_object",
                "{cache}: {array} holds {object}, not an object",
                cache = &s.name,
                array = r,
                object = hex(obj)
            ));
            continue;
        };
        let slab = &sl.slabs[&p.pfn];
        if slab.cache != s.id {
            bad.push(problem!(
                "check.array_foreign_object",
                "{cache}: {array} holds {object} of another cache",
                cache = &s.name,
                array = r,
                object = hex(obj)
            ));
        }
        if slab.allocated[p.index as usize] {
            bad.push(problem!(
                "check.array_object_allocated",
                "{cache}: object {object} is both in {array} and allocated",
                cache = &s.name,
                object = hex(obj),
                array = r
            ));
        }
        if slab.freelist[(slab.active as usize).min(slab.freelist.len())..].contains(&p.index) {
            bad.push(problem!(
                "check.array_object_free_in_slab",
                "{cache}: object {object} is in {array} but still free in its slab",
                cache = &s.name,
                object = hex(obj),
                array = r
            ));
        }
        if node.is_some_and(|n| n != slab.node) {
            bad.push(problem!(
                "check.array_object_node",
                "{cache}: {array} holds {object} of node {node}",
                cache = &s.name,
                array = r,
                object = hex(obj),
                node = slab.node
            ));
        }
    }
}

/// An entry of a node's `which` list is a slab of the cache on that node that says it is on
/// that list, with as many objects active as the list stands for (some and not all on
/// `slabs_partial`, all on `slabs_full`, none on `slabs_free`); an OBJFREELIST slab has its
/// index array exactly when it is not full.
pub(crate) fn check_list_entry(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    which: SlabList,
    pfn: Pfn,
    bad: &mut Vec<Problem>,
) {
    let Some(s) = m.slab().caches.get(cache) else {
        return;
    };
    let g = &s.geometry;
    let Some(slab) = m.slab().slabs.get(&pfn) else {
        bad.push(problem!(
            "check.list_missing_slab",
            "{cache}: node {node} lists a missing slab {pfn}",
            cache = &s.name,
            node = node,
            pfn = hex(pfn)
        ));
        return;
    };
    if slab.list != Some(which) || slab.cache != s.id || slab.node != node {
        bad.push(problem!(
            "check.list_slab_says",
            "{cache}: slab {pfn} on node {node}'s {list} list says {says} of cache {of_cache} \
             node {of_node}",
            cache = &s.name,
            pfn = hex(pfn),
            node = node,
            list = format!("{which:?}"),
            says = format!("{:?}", slab.list),
            of_cache = slab.cache,
            of_node = slab.node
        ));
    }
    let ok = match which {
        SlabList::Partial => slab.active > 0 && slab.active < g.num,
        SlabList::Full => slab.active == g.num,
        SlabList::Free => slab.active == 0,
    };
    if !ok {
        bad.push(problem!(
            "check.list_slab_active",
            "{cache}: slab {pfn} with {active} of {num} active is on the {list} list",
            cache = &s.name,
            pfn = hex(pfn),
            active = slab.active,
            num = g.num,
            list = format!("{which:?}")
        ));
    }
    if g.layout == FreelistLayout::ObjFreelist
        && (slab.freelist_addr == 0) != (slab.active == g.num)
    {
        bad.push(problem!(
            "check.objfreelist_index",
            "{cache}: OBJFREELIST slab {pfn} has its index array at {at} with {active} active",
            cache = &s.name,
            pfn = hex(pfn),
            at = hex(slab.freelist_addr),
            active = slab.active
        ));
    }
}

/// `check_list_entry` wherever `pfn` is on the node's lists.
pub(crate) fn check_list_entries_of(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    pfn: Pfn,
    bad: &mut Vec<Problem>,
) {
    let Some(n) = m.slab().caches.get(cache).and_then(|s| s.node.get(node)) else {
        return;
    };
    for which in LISTS {
        if list_of(n, which).contains(&pfn) {
            check_list_entry(m, cache, node, which, pfn, bad);
        }
    }
}

/// A node's `total_slabs` and `free_objects` count the slabs on its lists and their free
/// objects; `free_slabs` is the length of `slabs_free`.
pub(crate) fn check_node_counters(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    totals: &Totals,
    bad: &mut Vec<Problem>,
) {
    let Some(s) = m.slab().caches.get(cache) else {
        return;
    };
    let Some(n) = s.node.get(node) else {
        return;
    };
    let [listed, free_objects] = totals.node(m, cache, node);
    if n.total_slabs as i64 != listed {
        bad.push(problem!(
            "check.total_slabs",
            "{cache}: node {node} total_slabs {total_slabs} but {listed} slabs on its lists",
            cache = &s.name,
            node = node,
            total_slabs = n.total_slabs,
            listed = listed
        ));
    }
    if n.free_slabs != n.slabs_free.len() as u64 {
        bad.push(problem!(
            "check.free_slabs",
            "{cache}: node {node} free_slabs {free_slabs} but slabs_free has {len}",
            cache = &s.name,
            node = node,
            free_slabs = n.free_slabs,
            len = n.slabs_free.len()
        ));
    }
    if n.free_objects as i64 != free_objects {
        bad.push(problem!(
            "check.free_objects",
            "{cache}: node {node} free_objects {counted} but its slabs hold {free_objects} free",
            cache = &s.name,
            node = node,
            counted = n.free_objects,
            free_objects = free_objects
        ));
    }
}

/// One slab: its index array holds distinct objects from `active` on, none of them held by
/// a caller; `active` is what callers hold plus what sits in array caches; its first page is
/// a slab of its cache; it is on exactly the list it says, once (or on none, between
/// `cache_grow_begin()` and `cache_grow_end()`). A slab that is gone is on no list.
pub(crate) fn check_one_slab(m: &Machine, pfn: Pfn, place: SlabPlace, bad: &mut Vec<Problem>) {
    let Some(slab) = m.slab().slabs.get(&pfn) else {
        if place.on != [0; 3] {
            bad.push(problem!(
                "check.slab_gone_but_listed",
                "slab {pfn} is gone but still listed: {place}",
                pfn = hex(pfn),
                place = format!("{place:?}")
            ));
        }
        return;
    };
    let Some(s) = m.slab().caches.get(slab.cache) else {
        bad.push(problem!(
            "check.slab_missing_cache",
            "slab {pfn} of a missing cache {cache}",
            pfn = hex(pfn),
            cache = slab.cache
        ));
        return;
    };
    let num = s.geometry.num as usize;
    // The index array's entries from `active` on are the free objects; those below are
    // stale (the kernel never reads them).
    let free = slab.freelist.get(slab.active as usize..).unwrap_or(&[]);
    let distinct: BTreeSet<u32> = free.iter().copied().collect();
    if slab.freelist.len() != num
        || slab.allocated.len() != num
        || slab.active as usize > num
        || distinct.len() != free.len()
        || distinct.iter().any(|&i| i as usize >= num)
    {
        bad.push(problem!(
            "check.slab_free_indices",
            "{cache}: slab {pfn}'s free indices {free} are not distinct objects of 0..{num}",
            cache = &s.name,
            pfn = hex(pfn),
            free = format!("{free:?}"),
            num = num
        ));
        return;
    }
    let held = slab.allocated.iter().filter(|&&a| a).count() as u32;
    if held + place.parked != slab.active {
        bad.push(problem!(
            "check.slab_active",
            "{cache}: slab {pfn} has {active} active but callers hold {held} and arrays {parked}",
            cache = &s.name,
            pfn = hex(pfn),
            active = slab.active,
            held = held,
            parked = place.parked
        ));
    }
    for (i, &a) in slab.allocated.iter().enumerate() {
        if a && distinct.contains(&(i as u32)) {
            bad.push(problem!(
                "check.slab_object_allocated_free",
                "{cache}: object {index} of slab {pfn} is allocated but free in the index array",
                cache = &s.name,
                index = i,
                pfn = hex(pfn)
            ));
        }
    }
    match m.frame(pfn).map(|f| f.state) {
        Some(FrameState::Allocated {
            order,
            owner: Owner::Slab { cache },
        }) if cache == slab.cache && order == slab.order => {}
        other => bad.push(problem!(
            "check.slab_first_page",
            "{cache}: slab {pfn}'s first page is {state}",
            cache = &s.name,
            pfn = hex(pfn),
            state = format!("{other:?}")
        )),
    }
    let mut want = [0; 3];
    if let Some(which) = slab.list {
        want[list_slot(which)] = 1;
    }
    if place.on != want {
        bad.push(problem!(
            "check.slab_list_count",
            "{cache}: slab {pfn} says it is on {says} but is on the partial/full/free lists \
             {times} times",
            cache = &s.name,
            pfn = hex(pfn),
            says = format!("{:?}", slab.list),
            times = format!("{:?}", place.on)
        ));
    }
}

/// Between operations no slab is in transit: every slab is on one of its node's lists.
pub fn check_slab_settled(m: &Machine) -> Vec<String> {
    m.slab()
        .slabs
        .iter()
        .filter(|(_, s)| s.list.is_none())
        .map(|(pfn, s)| {
            format!(
                "{}: slab {pfn:#x} is on no list between operations",
                m.slab().caches[s.cache].name
            )
        })
        .collect()
}
