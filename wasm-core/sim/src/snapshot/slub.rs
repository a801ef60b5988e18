//! SLUB's caches as the snapshot shows them.

use super::{
    hex, BarnView, CacheBrief, CacheView, CpuView, NodeView, PartialSlab, PcsView, SheafView,
    SlabBrief, SlabPlace, SlabView, SlotState, SlotView, View,
};
use crate::ids::{CacheId, CpuId, NodeId, SheafId, TiSlice, TiVec};
use crate::machine::{Machine, Pfn};
use crate::slub::sheaf::{MAX_EMPTY_SHEAVES, MAX_FULL_SHEAVES};
use crate::slub::state::{KmemCache, Slab};
use std::collections::BTreeMap;

pub(crate) fn briefs(m: &Machine) -> Vec<CacheBrief> {
    let mut live = vec![0u32; m.slub().caches.len()];
    let mut slabs = vec![0u32; m.slub().caches.len()];
    for slab in m.slub().slabs.values() {
        let c = slab.cache.index();
        if c < live.len() {
            live[c] += slab.allocated.iter().filter(|&&a| a).count() as u32;
            slabs[c] += 1;
        }
    }
    m.slub()
        .caches
        .iter()
        .map(|s| CacheBrief {
            id: s.id,
            name: s.name.clone(),
            object_size: s.geometry.object_size,
            size: s.geometry.size,
            objs_per_slab: s.geometry.objs_per_slab,
            order: s.geometry.order,
            live_objects: live[s.id.index()],
            slabs: slabs[s.id.index()],
            kmalloc: s.kmalloc.map(|k| k.ty),
            destroyed: s.destroyed,
        })
        .collect()
}

/// The object index of `addr` in the slab at `pfn`, if it is one of its objects.
fn index_in(m: &Machine, pfn: Pfn, slab: &Slab, addr: u64) -> Option<u32> {
    let base = m.object_addr(pfn, slab.size, 0);
    let delta = addr.checked_sub(base)?;
    let index = delta / u64::from(slab.size);
    (delta % u64::from(slab.size) == 0 && index < u64::from(slab.objects)).then_some(index as u32)
}

/// A free chain from `head`, following the decoded free pointers through whatever slab holds
/// each object; cut after `limit` objects or at an address outside every slab.
fn chain(m: &Machine, s: &KmemCache, head: u64, limit: u32) -> Vec<u64> {
    let mut out = Vec::new();
    let mut obj = head;
    while obj != 0 && out.len() < limit as usize {
        out.push(obj);
        let Some(pfn) = m.addr_pfn(obj).and_then(|p| m.slub().slabs.head_of(p)) else {
            break;
        };
        let Some(slab) = m.slub().slabs.get(&pfn) else {
            break;
        };
        let Some(index) = index_in(m, pfn, slab, obj) else {
            break;
        };
        obj = s.freelist_ptr_decode(slab.words[index as usize], s.freeptr_addr(obj));
    }
    out
}

fn brief(pfn: Pfn, slab: &Slab, place: SlabPlace) -> SlabBrief {
    SlabBrief {
        pfn,
        node: slab.node,
        order: slab.order,
        objects: slab.objects,
        inuse: slab.inuse,
        frozen: slab.frozen,
        place,
    }
}

fn sheaf_view(m: &Machine, id: SheafId) -> Option<SheafView> {
    let sheaf = m.slub().sheaves.get(&id)?;
    Some(SheafView {
        id: id.0,
        capacity: sheaf.capacity,
        objects: sheaf.objects.iter().copied().map(hex).collect(),
    })
}

/// `c->partial` of `cpu` from the top; each slab's place is noted.
fn cpu_partial(
    m: &Machine,
    top: Option<Pfn>,
    cpu: CpuId,
    places: &mut BTreeMap<Pfn, SlabPlace>,
) -> Vec<PartialSlab> {
    let mut partial = Vec::new();
    let mut next = top;
    while let Some(pfn) = next {
        let Some(slab) = m.slub().slabs.get(&pfn) else {
            break;
        };
        if partial.len() > m.slub().slabs.len() {
            break;
        }
        places.insert(pfn, SlabPlace::CpuPartial { cpu });
        partial.push(PartialSlab {
            pfn,
            slabs: slab.slabs,
            inuse: slab.inuse,
            objects: slab.objects,
        });
        next = slab.next;
    }
    partial
}

/// The cache's sheaves a task holds with the lock dropped.
fn held_sheaves(m: &Machine, id: CacheId) -> Vec<SheafView> {
    m.slub()
        .held_sheaves
        .iter()
        .filter(|&&sh| m.slub().sheaves.get(&sh).is_some_and(|x| x.cache == id))
        .filter_map(|&sh| sheaf_view(m, sh))
        .collect()
}

/// The cache's `rcu_free` sheaves waiting in `call_rcu()` callbacks, oldest first per CPU.
fn rcu_sheaves(m: &Machine, id: CacheId) -> Vec<SheafView> {
    m.rcu
        .cblist
        .iter()
        .flatten()
        .filter_map(|cb| match cb.func {
            crate::rcu::state::RcuFunc::RcuFreeSheaf { cache, sheaf, .. } if cache == id => {
                sheaf_view(m, sheaf)
            }
            _ => None,
        })
        .collect()
}

/// `s->cpu_sheaves` of `cpu`, for a cache with sheaves.
fn pcs_view(v: &View, s: &KmemCache, cpu: CpuId) -> Option<PcsView> {
    let m = v.m;
    let pcs = s.pcs.get(cpu).filter(|_| s.sheaf_capacity() > 0)?;
    Some(PcsView {
        main: pcs.main.and_then(|id| sheaf_view(m, id)),
        spare: pcs.spare.and_then(|id| sheaf_view(m, id)),
        rcu_free: pcs.rcu_free.and_then(|id| sheaf_view(m, id)),
        locked: v.transient.pcs_holders.contains(&(s.id, cpu)),
    })
}

/// `n->barn` of `node`, for a cache with sheaves.
fn barn_view(v: &View, s: &KmemCache, node: NodeId) -> Option<BarnView> {
    let m = v.m;
    let b = s.node.get(node)?.barn.as_ref()?;
    Some(BarnView {
        full: b.full.iter().filter_map(|&id| sheaf_view(m, id)).collect(),
        empty: b.empty.iter().filter_map(|&id| sheaf_view(m, id)).collect(),
        max_full: MAX_FULL_SHEAVES as u32,
        max_empty: MAX_EMPTY_SHEAVES as u32,
        held_by: v
            .transient
            .barn_holders
            .iter()
            .find(|h| h.0 == s.id && h.1 == node)
            .map(|h| h.2),
    })
}

/// Where each object held in a sheaf of cache `id` is: on a CPU's sheaf, or (None) in the
/// barn or a sheaf a task holds.
fn sheaf_objects(m: &Machine, id: CacheId) -> BTreeMap<u64, Option<CpuId>> {
    let s = &m.slub().caches[id];
    let mut out = BTreeMap::new();
    for (_, sheaf) in m.slub().sheaves.iter().filter(|(_, sh)| sh.cache == id) {
        for &o in &sheaf.objects {
            out.insert(o, None);
        }
    }
    for (cpu, pcs) in s.pcs.iter_enumerated() {
        for sheaf in [pcs.main, pcs.spare, pcs.rcu_free].into_iter().flatten() {
            for &o in m
                .slub()
                .sheaves
                .get(&sheaf)
                .map_or(&[][..], |sh| &sh.objects)
            {
                out.insert(o, Some(cpu));
            }
        }
    }
    out
}

pub(crate) fn cache_view(v: &View, id: CacheId, wanted: Option<Pfn>) -> CacheView {
    let m = v.m;
    let s = &m.slub().caches[id];
    let g = &s.geometry;
    let mut places: BTreeMap<Pfn, SlabPlace> = BTreeMap::new();
    let mut cpus = Vec::new();
    let mut chains: TiVec<CpuId, Vec<u64>> = TiVec::new();
    for (cpu, c) in s.cpu.iter_enumerated() {
        if let Some(pfn) = c.slab {
            places.insert(pfn, SlabPlace::CpuSlab { cpu });
        }
        let partial = cpu_partial(m, c.partial, cpu, &mut places);
        let freelist = chain(m, s, c.freelist, g.objs_per_slab);
        let sheaves = pcs_view(v, s, cpu);
        cpus.push(CpuView::Slub {
            cpu,
            node: m.cpu_node[cpu],
            freelist: freelist.iter().copied().map(hex).collect(),
            tid: c.tid,
            slab: c.slab,
            partial,
            sheaves,
        });
        chains.push(freelist);
    }
    for n in &s.node {
        for &pfn in &n.partial {
            places.insert(pfn, SlabPlace::NodePartial);
        }
        for &pfn in &n.full {
            places.insert(pfn, SlabPlace::NodeFull);
        }
    }
    let place = |pfn: Pfn| places.get(&pfn).copied().unwrap_or(SlabPlace::Unlisted);
    let list = |pfns: &[Pfn]| -> Vec<SlabBrief> {
        pfns.iter()
            .filter_map(|&pfn| Some(brief(pfn, m.slub().slabs.get(&pfn)?, place(pfn))))
            .collect()
    };
    let nodes = s
        .node
        .iter_enumerated()
        .map(|(node, n)| NodeView::Slub {
            node,
            partial: list(&n.partial),
            full: list(&n.full),
            nr_partial: n.partial.len() as u32,
            min_partial: g.min_partial,
            nr_slabs: n.nr_slabs,
            total_objects: n.total_objects,
            list_lock: v.lock(id, node),
            barn: barn_view(v, s, node),
        })
        .collect();
    let slabs: Vec<SlabBrief> = m
        .slub()
        .slabs
        .iter()
        .filter(|(_, slab)| slab.cache == id)
        .map(|(pfn, slab)| brief(pfn, slab, place(pfn)))
        .collect();
    let shown = wanted
        .filter(|p| slabs.iter().any(|b| b.pfn == *p))
        .or_else(|| s.cpu.first().and_then(|c| c.slab))
        .or_else(|| slabs.first().map(|b| b.pfn));
    let slab = shown.and_then(|pfn| slab_view(v, s, &chains, pfn, place(pfn)));
    CacheView {
        id,
        name: s.name.clone(),
        object_size: g.object_size,
        size: g.size,
        objs_per_slab: g.objs_per_slab,
        order: g.order,
        offset: g.offset,
        hardened: s.hardened,
        random: s.hardened.then(|| hex(s.random)),
        randomized: s.random_seq.is_some(),
        min_partial: g.min_partial,
        cpu_partial_slabs: g.cpu_partial_slabs,
        cpu_slab: m.profile.slub.has_cpu_slab(),
        sheaf_capacity: s.sheaf_capacity(),
        held_sheaves: held_sheaves(m, id),
        rcu_sheaves: rcu_sheaves(m, id),
        cpus,
        nodes,
        slabs,
        slab,
    }
}

fn slab_view(
    v: &View,
    s: &KmemCache,
    chains: &TiSlice<CpuId, Vec<u64>>,
    pfn: Pfn,
    place: SlabPlace,
) -> Option<SlabView> {
    let m = v.m;
    let slab = m.slub().slabs.get(&pfn)?;
    // Objects on the owning CPU's c->freelist (only a cpu slab has one).
    let mut on_cpu: BTreeMap<u32, CpuId> = BTreeMap::new();
    if let SlabPlace::CpuSlab { cpu } = place {
        for &a in chains.get(cpu).map_or(&[][..], Vec::as_slice) {
            if let Some(i) = index_in(m, pfn, slab, a) {
                on_cpu.insert(i, cpu);
            }
        }
    }
    let in_sheaves = sheaf_objects(m, s.id);
    let free_order: Vec<u32> = chain(m, s, slab.freelist, slab.objects)
        .into_iter()
        .filter_map(|a| index_in(m, pfn, slab, a))
        .collect();
    let slots = (0..slab.objects)
        .map(|i| {
            let addr = m.object_addr(pfn, slab.size, i);
            let allocated = slab.allocated[i as usize];
            let state = if allocated {
                SlotState::Allocated
            } else if let Some(&cpu) = on_cpu.get(&i) {
                SlotState::CpuFreelist { cpu }
            } else if let Some(&cpu) = in_sheaves.get(&addr) {
                SlotState::Sheaf { cpu }
            } else if m.slub().stacked.contains(&addr) {
                SlotState::Stacked
            } else {
                SlotState::Free
            };
            let word = slab.words[i as usize];
            let on_freelist =
                !allocated && !in_sheaves.contains_key(&addr) && !m.slub().stacked.contains(&addr);
            let next = on_freelist.then(|| s.freelist_ptr_decode(word, s.freeptr_addr(addr)));
            let (allocated_by, freed_by) = v.history.marks(addr, v.cursor);
            SlotView {
                index: i,
                addr: hex(addr),
                state,
                next: next.and_then(|n| index_in(m, pfn, slab, n)),
                next_addr: next.filter(|&n| n != 0).map(hex),
                stored: (on_freelist && s.hardened).then(|| hex(word)),
                allocated_by,
                freed_by,
            }
        })
        .collect();
    Some(SlabView {
        brief: brief(pfn, slab, place),
        addr: hex(m.object_addr(pfn, slab.size, 0)),
        freelist: (slab.freelist != 0).then(|| hex(slab.freelist)),
        colour_off: 0,
        free_order,
        slots,
    })
}
