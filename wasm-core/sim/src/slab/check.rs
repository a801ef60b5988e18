//! Invariants of SLAB's state, one item at a time: an array cache (its entries are free
//! objects of its cache, handed out of their slab, of the right node), a slab (its index
//! array, `active` = objects held + objects parked in arrays, its pages, the list it says it
//! is on), an entry of a node's slab list, a node's counters. `check_all` applies them to
//! every item; the incremental checker (`machine::check`) to the items a step touched.

use super::place_of;
use super::state::{AcRef, ArrayCache, KmemCache, SlabList};
use crate::geometry::slab::FreelistLayout;
use crate::ids::{CacheId, NodeId};
use crate::machine::check::Totals;
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
pub(crate) fn check_all(m: &Machine, totals: &Totals, bad: &mut Vec<String>) {
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
    bad
}

/// One array cache: within its limit; each entry a free object of its cache, handed out of
/// its slab (not free in the slab's index array), of the node the array serves, and not in
/// another array (`seen`: the entries of the arrays checked so far).
pub(crate) fn check_array(
    m: &Machine,
    cache: CacheId,
    r: AcRef,
    seen: &mut BTreeSet<u64>,
    bad: &mut Vec<String>,
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
        bad.push(format!(
            "{}: {r} holds {} pointers, over its limit {}",
            s.name,
            ac.avail(),
            ac.limit
        ));
    }
    for &obj in &ac.entry {
        if !seen.insert(obj) {
            bad.push(format!("{}: object {obj:#x} is in arrays twice", s.name));
            continue;
        }
        let Some(p) = place_of(m, obj).filter(|p| p.offset == 0) else {
            bad.push(format!("{}: {r} holds {obj:#x}, not an object", s.name));
            continue;
        };
        let slab = &sl.slabs[&p.pfn];
        if slab.cache != s.id {
            bad.push(format!("{}: {r} holds {obj:#x} of another cache", s.name));
        }
        if slab.allocated[p.index as usize] {
            bad.push(format!(
                "{}: object {obj:#x} is both in {r} and allocated",
                s.name
            ));
        }
        if slab.freelist[(slab.active as usize).min(slab.freelist.len())..].contains(&p.index) {
            bad.push(format!(
                "{}: object {obj:#x} is in {r} but still free in its slab",
                s.name
            ));
        }
        if node.is_some_and(|n| n != slab.node) {
            bad.push(format!(
                "{}: {r} holds {obj:#x} of node {}",
                s.name, slab.node
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
    bad: &mut Vec<String>,
) {
    let Some(s) = m.slab().caches.get(cache) else {
        return;
    };
    let g = &s.geometry;
    let Some(slab) = m.slab().slabs.get(&pfn) else {
        bad.push(format!(
            "{}: node {node} lists a missing slab {pfn:#x}",
            s.name
        ));
        return;
    };
    if slab.list != Some(which) || slab.cache != s.id || slab.node != node {
        bad.push(format!(
            "{}: slab {pfn:#x} on node {node}'s {which:?} list says {:?} of cache {} node {}",
            s.name, slab.list, slab.cache, slab.node
        ));
    }
    let ok = match which {
        SlabList::Partial => slab.active > 0 && slab.active < g.num,
        SlabList::Full => slab.active == g.num,
        SlabList::Free => slab.active == 0,
    };
    if !ok {
        bad.push(format!(
            "{}: slab {pfn:#x} with {} of {} active is on the {which:?} list",
            s.name, slab.active, g.num
        ));
    }
    if g.layout == FreelistLayout::ObjFreelist
        && (slab.freelist_addr == 0) != (slab.active == g.num)
    {
        bad.push(format!(
            "{}: OBJFREELIST slab {pfn:#x} has its index array at {:#x} with {} active",
            s.name, slab.freelist_addr, slab.active
        ));
    }
}

/// `check_list_entry` wherever `pfn` is on the node's lists.
pub(crate) fn check_list_entries_of(
    m: &Machine,
    cache: CacheId,
    node: NodeId,
    pfn: Pfn,
    bad: &mut Vec<String>,
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
    bad: &mut Vec<String>,
) {
    let Some(s) = m.slab().caches.get(cache) else {
        return;
    };
    let Some(n) = s.node.get(node) else {
        return;
    };
    let [listed, free_objects] = totals.node(m, cache, node);
    if n.total_slabs as i64 != listed {
        bad.push(format!(
            "{}: node {node} total_slabs {} but {listed} slabs on its lists",
            s.name, n.total_slabs
        ));
    }
    if n.free_slabs != n.slabs_free.len() as u64 {
        bad.push(format!(
            "{}: node {node} free_slabs {} but slabs_free has {}",
            s.name,
            n.free_slabs,
            n.slabs_free.len()
        ));
    }
    if n.free_objects as i64 != free_objects {
        bad.push(format!(
            "{}: node {node} free_objects {} but its slabs hold {free_objects} free",
            s.name, n.free_objects
        ));
    }
}

/// One slab: its index array holds distinct objects from `active` on, none of them held by
/// a caller; `active` is what callers hold plus what sits in array caches; its first page is
/// a slab of its cache; it is on exactly the list it says, once (or on none, between
/// `cache_grow_begin()` and `cache_grow_end()`). A slab that is gone is on no list.
pub(crate) fn check_one_slab(m: &Machine, pfn: Pfn, place: SlabPlace, bad: &mut Vec<String>) {
    let Some(slab) = m.slab().slabs.get(&pfn) else {
        if place.on != [0; 3] {
            bad.push(format!("slab {pfn:#x} is gone but still listed: {place:?}"));
        }
        return;
    };
    let Some(s) = m.slab().caches.get(slab.cache) else {
        bad.push(format!("slab {pfn:#x} of a missing cache {}", slab.cache));
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
        bad.push(format!(
            "{}: slab {pfn:#x}'s free indices {free:?} are not distinct objects of 0..{num}",
            s.name
        ));
        return;
    }
    let held = slab.allocated.iter().filter(|&&a| a).count() as u32;
    if held + place.parked != slab.active {
        bad.push(format!(
            "{}: slab {pfn:#x} has {} active but callers hold {held} and arrays {}",
            s.name, slab.active, place.parked
        ));
    }
    for (i, &a) in slab.allocated.iter().enumerate() {
        if a && distinct.contains(&(i as u32)) {
            bad.push(format!(
                "{}: object {i} of slab {pfn:#x} is allocated but free in the index array",
                s.name
            ));
        }
    }
    match m.frame(pfn).map(|f| f.state) {
        Some(FrameState::Allocated {
            order,
            owner: Owner::Slab { cache },
        }) if cache == slab.cache && order == slab.order => {}
        other => bad.push(format!(
            "{}: slab {pfn:#x}'s first page is {other:?}",
            s.name
        )),
    }
    let mut want = [0; 3];
    if let Some(which) = slab.list {
        want[list_slot(which)] = 1;
    }
    if place.on != want {
        bad.push(format!(
            "{}: slab {pfn:#x} says it is on {:?} but is on the partial/full/free lists {:?} times",
            s.name, slab.list, place.on
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
