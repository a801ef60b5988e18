//! Invariants of SLAB's state, checked after every step by tests and `slabscope run --check`:
//! array entries are free objects of their cache, handed out of their slab and held once;
//! list membership agrees with `active`; the node counters agree with the lists; every slab
//! owns its pages.

use super::place_of;
use super::state::{AcRef, SlabList};
use crate::geometry::slab::FreelistLayout;
use crate::machine::{FrameState, Machine, Owner, Pfn};
use std::collections::{BTreeMap, BTreeSet};

/// Every violation found, worded for a person; empty when the state is consistent. Slabs
/// between `cache_grow_begin()` and `cache_grow_end()`, or taken off a list for
/// `slabs_destroy()`, may be on no list at a step boundary; see `check_slab_settled`.
pub fn check_slab(m: &Machine) -> Vec<String> {
    let mut bad = Vec::new();
    let sl = &m.slab;
    // Objects each slab has handed out to arrays, by slab.
    let mut in_arrays: BTreeMap<Pfn, u32> = BTreeMap::new();
    let mut seen_entries = BTreeSet::new();
    let mut live = 0u64;
    for s in &sl.caches {
        let g = &s.geometry;
        let mut arrays: Vec<(AcRef, &super::state::ArrayCache, Option<u32>)> = Vec::new();
        for (cpu, ac) in s.cpu.iter().enumerate() {
            let node = (m.config.nodes > 1).then(|| m.cpu_node[cpu]);
            arrays.push((AcRef::Cpu { cpu: cpu as u16 }, ac, node));
        }
        for (node, n) in s.node.iter().enumerate() {
            if let Some(sh) = &n.shared {
                arrays.push((AcRef::Shared { node: node as u8 }, sh, Some(node as u32)));
            }
            for (remote, a) in n.alien.iter().enumerate() {
                if let Some(a) = a {
                    let r = AcRef::Alien {
                        node: node as u8,
                        remote: remote as u8,
                    };
                    arrays.push((r, a, Some(remote as u32)));
                }
            }
        }
        for (r, ac, node) in arrays {
            if ac.avail() > ac.limit {
                bad.push(format!(
                    "{}: {r:?} holds {} pointers, over its limit {}",
                    s.name,
                    ac.avail(),
                    ac.limit
                ));
            }
            for &obj in &ac.entry {
                if !seen_entries.insert(obj) {
                    bad.push(format!("{}: object {obj:#x} is in arrays twice", s.name));
                    continue;
                }
                let Some(p) = place_of(m, obj).filter(|p| p.offset == 0) else {
                    bad.push(format!("{}: {r:?} holds {obj:#x}, not an object", s.name));
                    continue;
                };
                let slab = &sl.slabs[&p.pfn];
                if slab.cache != s.id {
                    bad.push(format!("{}: {r:?} holds {obj:#x} of another cache", s.name));
                }
                if slab.allocated[p.index as usize] {
                    bad.push(format!(
                        "{}: object {obj:#x} is both in {r:?} and allocated",
                        s.name
                    ));
                }
                if slab.freelist[slab.active as usize..].contains(&p.index) {
                    bad.push(format!(
                        "{}: object {obj:#x} is in {r:?} but still free in its slab",
                        s.name
                    ));
                }
                if node.is_some_and(|n| n != slab.node) {
                    bad.push(format!(
                        "{}: {r:?} holds {obj:#x} of node {}",
                        s.name, slab.node
                    ));
                }
                *in_arrays.entry(p.pfn).or_default() += 1;
            }
        }
        for (node, n) in s.node.iter().enumerate() {
            let mut listed = 0u64;
            let mut free_objects = 0u64;
            for (which, list) in [
                (SlabList::Partial, &n.slabs_partial),
                (SlabList::Full, &n.slabs_full),
                (SlabList::Free, &n.slabs_free),
            ] {
                for &pfn in list {
                    listed += 1;
                    let Some(slab) = sl.slabs.get(&pfn) else {
                        bad.push(format!(
                            "{}: node {node} lists a missing slab {pfn:#x}",
                            s.name
                        ));
                        continue;
                    };
                    if slab.list != Some(which) || slab.cache != s.id || slab.node as usize != node
                    {
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
                    free_objects += u64::from(g.num - slab.active);
                }
            }
            if n.total_slabs != listed {
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
            if n.free_objects != free_objects {
                bad.push(format!(
                    "{}: node {node} free_objects {} but its slabs hold {free_objects} free",
                    s.name, n.free_objects
                ));
            }
        }
    }
    for (&pfn, slab) in &sl.slabs {
        let Some(s) = sl.caches.get(slab.cache as usize) else {
            bad.push(format!("slab {pfn:#x} of a missing cache {}", slab.cache));
            continue;
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
            continue;
        }
        let held = slab.allocated.iter().filter(|&&a| a).count() as u32;
        live += u64::from(held);
        let parked = in_arrays.get(&pfn).copied().unwrap_or(0);
        if held + parked != slab.active {
            bad.push(format!(
                "{}: slab {pfn:#x} has {} active but callers hold {held} and arrays {parked}",
                s.name, slab.active
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
    }
    if m.allocator == crate::scenario::Allocator::Slab && live != m.live_objects {
        bad.push(format!(
            "live_objects {} but slabs hold {live} allocated objects",
            m.live_objects
        ));
    }
    bad
}

/// Between operations no slab is in transit: every slab is on one of its node's lists.
pub fn check_slab_settled(m: &Machine) -> Vec<String> {
    m.slab
        .slabs
        .iter()
        .filter(|(_, s)| s.list.is_none())
        .map(|(pfn, s)| {
            format!(
                "{}: slab {pfn:#x} is on no list between operations",
                m.slab.caches[s.cache as usize].name
            )
        })
        .collect()
}
