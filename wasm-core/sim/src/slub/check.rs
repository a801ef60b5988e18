//! SLUB invariants (the kernel's `validate_slab()`/`on_freelist()` ideas and the state table of
//! spec 2.6), checked after every step by tests and `slabscope run --check`.

use super::state::Slab;
use crate::machine::{FrameState, Machine, Owner, Pfn};
use std::collections::{BTreeMap, BTreeSet};

/// Walks a freelist from `head`, requiring every object to be a free slot of slab `pfn`.
fn walk(
    m: &Machine,
    pfn: Pfn,
    slab: &Slab,
    head: u64,
    what: &str,
    seen: &mut BTreeSet<u64>,
    bad: &mut Vec<String>,
) -> u32 {
    let size = m.caches[slab.cache as usize].geometry.size;
    let mut n = 0;
    let mut at = head;
    while at != 0 {
        if n > slab.objects {
            bad.push(format!("{what} of slab {pfn:#x} has a cycle"));
            break;
        }
        let start = m.object_addr(pfn, size, 0);
        let index = at.wrapping_sub(start) / u64::from(size);
        if at < start || index >= u64::from(slab.objects) || (at - start) % u64::from(size) != 0 {
            bad.push(format!(
                "{what} of slab {pfn:#x} points outside it: {at:#x}"
            ));
            break;
        }
        if !seen.insert(at) {
            bad.push(format!(
                "object {at:#x} is on two freelists (or twice on one)"
            ));
        }
        if m.is_live(at) {
            bad.push(format!(
                "object {at:#x} is both free ({what}) and allocated"
            ));
        }
        n += 1;
        let s = &m.caches[slab.cache as usize];
        at = s.freelist_ptr_decode(slab.words[index as usize], s.freeptr_addr(at));
    }
    n
}

pub fn check_slub(m: &Machine) -> Vec<String> {
    let mut bad = Vec::new();
    let mut seen = BTreeSet::new();
    // Where each slab is: cpu slab / cpu partial (frozen) or node partial.
    let mut frozen_home: BTreeMap<Pfn, String> = BTreeMap::new();
    let mut on_node: BTreeSet<Pfn> = BTreeSet::new();
    let mut on_full: BTreeSet<Pfn> = BTreeSet::new();
    for s in &m.caches {
        for (cpu, c) in s.cpu.iter().enumerate() {
            if let Some(pfn) = c.slab {
                frozen_home.insert(pfn, format!("cpu{cpu} slab"));
                match m.slabs.get(&pfn) {
                    Some(slab) => {
                        walk(m, pfn, slab, c.freelist, "c->freelist", &mut seen, &mut bad);
                    }
                    None => bad.push(format!(
                        "{}: cpu{cpu}'s slab {pfn:#x} does not exist",
                        s.name
                    )),
                }
            } else if c.freelist != 0 {
                bad.push(format!(
                    "{}: cpu{cpu} has a freelist but no cpu slab",
                    s.name
                ));
            }
            let mut at = c.partial;
            let mut expect_slabs = None;
            while let Some(pfn) = at {
                if frozen_home
                    .insert(pfn, format!("cpu{cpu} partial"))
                    .is_some()
                {
                    bad.push(format!(
                        "{}: slab {pfn:#x} is in two per-CPU places",
                        s.name
                    ));
                    break;
                }
                let Some(slab) = m.slabs.get(&pfn) else {
                    bad.push(format!(
                        "{}: cpu{cpu} partial slab {pfn:#x} does not exist",
                        s.name
                    ));
                    break;
                };
                if let Some(e) = expect_slabs {
                    if slab.slabs != e {
                        bad.push(format!(
                            "{}: cpu{cpu} partial stack depth {} where {e} expected",
                            s.name, slab.slabs
                        ));
                    }
                }
                expect_slabs = slab.slabs.checked_sub(1);
                at = slab.next;
            }
        }
        for (node, n) in s.node.iter().enumerate() {
            for &pfn in &n.full {
                let ok = m.slabs.get(&pfn).is_some_and(|sl| {
                    sl.node as usize == node && sl.cache == s.id && sl.freelist == 0
                });
                if !ok || !on_full.insert(pfn) || !s.flags.store_user {
                    bad.push(format!(
                        "{}: node {node} full list holds {pfn:#x}, not a full slab of its own \
                         (or twice, or without SLAB_STORE_USER)",
                        s.name
                    ));
                }
            }
            for &pfn in &n.partial {
                if !on_node.insert(pfn) {
                    bad.push(format!(
                        "{}: slab {pfn:#x} twice on node partial lists",
                        s.name
                    ));
                }
                if m.slabs
                    .get(&pfn)
                    .is_none_or(|sl| sl.node as usize != node || sl.cache != s.id)
                {
                    bad.push(format!(
                        "{}: node {node} partial list holds {pfn:#x}, not its slab",
                        s.name
                    ));
                }
            }
            let mine: Vec<&Slab> = m
                .slabs
                .values()
                .filter(|sl| sl.cache == s.id && sl.node as usize == node)
                .collect();
            if n.nr_slabs != mine.len() as u64
                || n.total_objects != mine.iter().map(|sl| u64::from(sl.objects)).sum::<u64>()
            {
                bad.push(format!(
                    "{}: node {node} counts {} slabs/{} objects, but has {}",
                    s.name,
                    n.nr_slabs,
                    n.total_objects,
                    mine.len()
                ));
            }
        }
    }
    let counted: u64 = m
        .slabs
        .values()
        .map(|s| s.allocated.iter().filter(|&&a| a).count() as u64)
        .sum();
    if counted != m.live_objects {
        bad.push(format!(
            "{counted} objects marked allocated, but live_objects is {}",
            m.live_objects
        ));
    }
    for (pfn, slab) in m.slabs.iter() {
        let head = m.frame(pfn).map(|f| f.state);
        if head
            != Some(FrameState::Allocated {
                order: slab.order,
                owner: Owner::Slab { cache: slab.cache },
            })
        {
            bad.push(format!("slab {pfn:#x}'s pages are {head:?}"));
        }
        let free = walk(
            m,
            pfn,
            slab,
            slab.freelist,
            "slab->freelist",
            &mut seen,
            &mut bad,
        );
        if slab.inuse + free != slab.objects {
            bad.push(format!(
                "slab {pfn:#x}: inuse {} + {free} free != {} objects",
                slab.inuse, slab.objects
            ));
        }
        let cpu_free = m.caches[slab.cache as usize]
            .cpu
            .iter()
            .filter(|c| c.slab == Some(pfn))
            .map(|c| super::freelist_len(m, c.freelist))
            .sum::<u32>();
        let live = slab.allocated.iter().filter(|&&a| a).count() as u32;
        if live + cpu_free != slab.inuse {
            bad.push(format!(
                "slab {pfn:#x}: {live} allocated + {cpu_free} on a cpu freelist != inuse {}",
                slab.inuse
            ));
        }
        // The state table of spec 2.6; debug caches never freeze a slab, and keep their full
        // slabs on n->full with SLAB_STORE_USER.
        let s = &m.caches[slab.cache as usize];
        if s.debug() && slab.frozen {
            bad.push(format!("slab {pfn:#x} of debug cache {} is frozen", s.name));
        }
        let full_listed = on_full.contains(&pfn);
        if slab.freelist == 0 && s.debug() && s.flags.store_user != full_listed {
            bad.push(format!(
                "slab {pfn:#x}: full, and on n->full = {full_listed} with SLAB_STORE_USER = {}",
                s.flags.store_user
            ));
        }
        match (
            slab.frozen,
            frozen_home.contains_key(&pfn),
            on_node.contains(&pfn),
        ) {
            (true, true, false) | (false, false, true) => {}
            (false, false, false) if slab.freelist == 0 => {} // full, on no list (or n->full)
            other => bad.push(format!(
                "slab {pfn:#x}: frozen/per-CPU/node-partial = {other:?} (free {free})"
            )),
        }
    }
    bad
}
