//! SLAB's caches as the snapshot shows them.

use super::{
    hex, AlienView, ArrayView, CacheBrief, CacheView, CpuView, NodeView, SlabBrief, SlabPlace,
    SlabView, SlotState, SlotView, View,
};
use crate::ids::CacheId;
use crate::machine::{Machine, Pfn};
use crate::slab::state::{ArrayCache, Slab, SlabList};
use std::collections::VecDeque;

/// The address of object `index` of SLAB's slab at `pfn` (`index_to_obj()`: `s_mem` plus
/// `index * size`), if the slab exists.
pub(super) fn object_addr(m: &Machine, pfn: Pfn, index: u32) -> Option<u64> {
    let slab = m.slab().slabs.get(&pfn)?;
    let size = m.slab().caches.get(slab.cache)?.geometry.size;
    Some(m.object_addr(pfn, size, index) + u64::from(slab.colour_off))
}

pub(crate) fn briefs(m: &Machine) -> Vec<CacheBrief> {
    let caches = &m.slab().caches;
    let mut live = vec![0u32; caches.len()];
    let mut slabs = vec![0u32; caches.len()];
    for slab in m.slab().slabs.values() {
        let c = slab.cache.index();
        if c < live.len() {
            live[c] += slab.allocated.iter().filter(|&&a| a).count() as u32;
            slabs[c] += 1;
        }
    }
    caches
        .iter()
        .map(|c| CacheBrief {
            id: c.id,
            name: c.name.clone(),
            object_size: c.object_size,
            size: c.geometry.size,
            objs_per_slab: c.geometry.num,
            order: c.geometry.gfporder,
            live_objects: live[c.id.index()],
            slabs: slabs[c.id.index()],
            kmalloc: c.kmalloc.map(|k| k.ty),
            destroyed: c.destroyed,
        })
        .collect()
}

fn place(slab: &Slab) -> SlabPlace {
    match slab.list {
        Some(SlabList::Partial) => SlabPlace::SlabsPartial,
        Some(SlabList::Full) => SlabPlace::SlabsFull,
        Some(SlabList::Free) => SlabPlace::SlabsFree,
        None => SlabPlace::Unlisted,
    }
}

fn brief(pfn: Pfn, slab: &Slab) -> SlabBrief {
    SlabBrief {
        pfn,
        node: slab.node,
        order: slab.order,
        objects: slab.allocated.len() as u32,
        inuse: slab.active,
        frozen: false,
        place: place(slab),
    }
}

fn array(ac: &ArrayCache) -> ArrayView {
    ArrayView {
        avail: ac.avail(),
        limit: ac.limit,
        batchcount: ac.batchcount,
        touched: ac.touched,
        entry: ac.entry.iter().copied().map(hex).collect(),
    }
}

pub(crate) fn cache_view(v: &View, id: CacheId, wanted: Option<Pfn>) -> CacheView {
    let m = v.m;
    let c = &m.slab().caches[id];
    let g = &c.geometry;
    let list = |pfns: &VecDeque<Pfn>| -> Vec<SlabBrief> {
        pfns.iter()
            .filter_map(|&pfn| Some(brief(pfn, m.slab().slabs.get(&pfn)?)))
            .collect()
    };
    let cpus = c
        .cpu
        .iter_enumerated()
        .map(|(cpu, ac)| CpuView::Slab {
            cpu,
            node: m.cpu_node[cpu],
            ac: array(ac),
        })
        .collect();
    let nodes = c
        .node
        .iter_enumerated()
        .map(|(node, n)| NodeView::Slab {
            node,
            slabs_partial: list(&n.slabs_partial),
            slabs_full: list(&n.slabs_full),
            slabs_free: list(&n.slabs_free),
            total_slabs: n.total_slabs,
            free_slabs: n.free_slabs,
            free_objects: n.free_objects,
            free_limit: n.free_limit,
            shared: n.shared.as_ref().map(array),
            alien: n
                .alien
                .iter_enumerated()
                .filter_map(|(remote, ac)| {
                    Some(AlienView {
                        remote,
                        ac: array(ac.as_ref()?),
                    })
                })
                .collect(),
            list_lock: v.lock(id, node),
        })
        .collect();
    let slabs: Vec<SlabBrief> = m
        .slab()
        .slabs
        .iter()
        .filter(|(_, s)| s.cache == id)
        .map(|(&pfn, s)| brief(pfn, s))
        .collect();
    let shown = wanted
        .filter(|p| slabs.iter().any(|b| b.pfn == *p))
        .or_else(|| slabs.first().map(|b| b.pfn));
    let slab = shown.and_then(|pfn| slab_view(v, g.size, pfn));
    CacheView {
        id,
        name: c.name.clone(),
        object_size: c.object_size,
        size: g.size,
        objs_per_slab: g.num,
        order: g.gfporder,
        offset: 0,
        hardened: c.hardened,
        random: None,
        randomized: c.random_seq.is_some(),
        min_partial: 0,
        cpu_partial_slabs: 0,
        cpu_slab: false,
        sheaf_capacity: 0,
        held_sheaves: Vec::new(),
        rcu_sheaves: Vec::new(),
        cpus,
        nodes,
        slabs,
        slab,
    }
}

fn slab_view(v: &View, size: u32, pfn: Pfn) -> Option<SlabView> {
    let m = v.m;
    let slab = m.slab().slabs.get(&pfn)?;
    let free_order: Vec<u32> = slab
        .freelist
        .get(slab.active as usize..)
        .unwrap_or_default()
        .to_vec();
    let slots = (0..slab.allocated.len() as u32)
        .map(|i| {
            let addr = m.object_addr(pfn, size, i) + u64::from(slab.colour_off);
            let state = if slab.allocated[i as usize] {
                SlotState::Allocated
            } else if free_order.contains(&i) {
                SlotState::Free
            } else {
                SlotState::Cached
            };
            let (allocated_by, freed_by) = v.history.marks(addr, v.cursor);
            SlotView {
                index: i,
                addr: hex(addr),
                state,
                next: None,
                next_addr: None,
                stored: None,
                allocated_by,
                freed_by,
            }
        })
        .collect();
    Some(SlabView {
        brief: brief(pfn, slab),
        addr: hex(m.object_addr(pfn, size, 0)),
        freelist: (slab.freelist_addr != 0).then(|| hex(slab.freelist_addr)),
        colour_off: slab.colour_off,
        free_order,
        slots,
    })
}
