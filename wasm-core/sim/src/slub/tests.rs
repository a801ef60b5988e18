//! SLUB tests: the slab life cycle of spec 5.13, partial-list movements, kmalloc, bad frees,
//! /proc/slabinfo, and random operation sequences with every invariant checked after every step.

use super::check::check_slub;
use super::*;
use crate::boot::BootOptions;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::check::{check_page_allocator, FullChecks, TraceCheck};
use crate::machine::{Machine, MachineConfig};
use crate::slab_common::DestroyOutcome;
use crate::slabinfo::slabinfo;
use crate::trace::Splice;
use proptest::prelude::*;

pub(super) fn boot(cpus: u32, nodes: u32, pages: u32) -> Recorder {
    boot_with(cpus, nodes, pages, &BootOptions::default(), 0)
}

pub(super) fn boot_with(
    cpus: u32,
    nodes: u32,
    pages: u32,
    switches: &BootOptions,
    seed: u64,
) -> Recorder {
    let m = Machine::new_seeded(
        MachineConfig {
            cpus,
            nodes,
            cpu_node: vec![],
            page_size: 4096,
            pages_per_node: pages,
            pcp_batch: Some(3),
            pcp_high: Some(12),
        },
        seed,
    )
    .unwrap();
    let mut rec = Recorder::new(m, true);
    create_kmalloc_caches(&mut rec, switches).unwrap();
    rec
}

pub(super) fn cache(rec: &mut Recorder, name: &str, size: u32) -> CacheId {
    cache_with(rec, name, size, &BootOptions::default())
}

pub(super) fn cache_with(
    rec: &mut Recorder,
    name: &str,
    size: u32,
    switches: &BootOptions,
) -> CacheId {
    kmem_cache_create(rec, name, size, 0, Default::default(), false, switches).unwrap()
}

pub(super) fn consistent(rec: &Recorder) {
    let mut bad = check_slub(rec.machine());
    bad.extend(check_page_allocator(rec.machine()));
    assert!(bad.is_empty(), "{bad:#?}");
}

pub(super) fn slab_of(rec: &Recorder, addr: u64) -> Pfn {
    place_of(rec.machine(), addr).unwrap().pfn
}

#[test]
fn life_cycle_of_spec_5_13() {
    let mut rec = boot(1, 1, 1024);
    let id = cache(&mut rec, "obj48", 48);
    let g = rec.machine().slub().caches[id].geometry.clone();
    assert_eq!(
        (g.objs_per_slab, g.cpu_partial_slabs, g.min_partial),
        (85, 3, 5)
    );

    // 1-2: four full slabs A..D and a fifth, E, as the cpu slab.
    let objs: Vec<u64> = (0..85 * 4 + 1)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    let slabs: Vec<Pfn> = (0..5).map(|k| slab_of(&rec, objs[k * 85])).collect();
    let m = rec.machine();
    assert_eq!(m.slub().caches[id].cpu[CpuId(0)].slab, Some(slabs[4]));
    for &a in &slabs[..4] {
        let s = &m.slub().slabs[&a];
        assert!(
            !s.frozen && s.freelist == 0 && s.inuse == 85,
            "full and unlisted"
        );
    }
    assert!(m.slub().caches[id].node[NodeId(0)].partial.is_empty());
    consistent(&rec);

    // 3-4: a free to each of A, B, C freezes it onto the cpu partial stack.
    for k in 0..3 {
        assert_eq!(
            kfree(&mut rec, objs[k * 85], CpuId(0), Some(id)),
            FreeOutcome::Freed
        );
        let c = &rec.machine().slub().caches[id].cpu[CpuId(0)];
        assert_eq!(c.partial, Some(slabs[k]));
        assert_eq!(rec.machine().slub().slabs[&slabs[k]].slabs, k as u32 + 1);
        assert!(rec.machine().slub().slabs[&slabs[k]].frozen);
    }
    // A second free to B is linked into its freelist and nothing else moves.
    kfree(&mut rec, objs[85 + 1], CpuId(0), Some(id));
    assert_eq!(rec.machine().slub().slabs[&slabs[1]].inuse, 83);

    // 5: D's first free finds a full stack (3 slabs): A, B, C go to the node list tail in stack
    // order (C, B, A), and D starts a new stack.
    kfree(&mut rec, objs[3 * 85], CpuId(0), Some(id));
    let m = rec.machine();
    assert_eq!(
        m.slub().caches[id].node[NodeId(0)].partial,
        [slabs[2], slabs[1], slabs[0]]
    );
    assert_eq!(m.slub().caches[id].cpu[CpuId(0)].partial, Some(slabs[3]));
    assert_eq!(m.slub().slabs[&slabs[3]].slabs, 1);
    assert!(!m.slub().slabs[&slabs[0]].frozen);
    consistent(&rec);

    // 6: when E runs out the stack is popped: D's one free object is taken with get_freelist.
    let mut more = Vec::new();
    while rec.machine().slub().caches[id].cpu[CpuId(0)].slab == Some(slabs[4]) {
        more.push(slab_alloc_node(&mut rec, id, CpuId(0), None));
        if more.len() > 200 {
            panic!("E never ran out");
        }
    }
    assert_eq!(
        *more.last().unwrap(),
        objs[3 * 85],
        "the object freed to D comes back"
    );
    assert_eq!(
        rec.machine().slub().caches[id].cpu[CpuId(0)].slab,
        Some(slabs[3])
    );
    consistent(&rec);

    // Then the node partial list: C first, with the cpu partial stack refilled from the rest.
    let next = slab_alloc_node(&mut rec, id, CpuId(0), None);
    assert_eq!(slab_of(&rec, next), slabs[2]);
    let m = rec.machine();
    // cpu_partial_slabs = 3: one slab becomes the cpu slab and 3/2+1 = 2 go to the stack.
    assert!(m.slub().caches[id].node[NodeId(0)].partial.is_empty());
    assert_eq!(m.slub().caches[id].cpu[CpuId(0)].partial, Some(slabs[0]));
    assert_eq!(m.slub().slabs[&slabs[0]].slabs, 2);
    consistent(&rec);
}

#[test]
fn fast_paths_stay_on_the_cpu_freelist_and_bump_tid() {
    let mut rec = boot(2, 1, 1024);
    let id = kmalloc_cache_for(&rec, 64).unwrap().unwrap();
    let a = kmalloc(&mut rec, 64, CpuId(0), None);
    let tid = rec.machine().slub().caches[id].cpu[CpuId(0)].tid;
    let b = kmalloc(&mut rec, 60, CpuId(0), None);
    assert_eq!(b, a + 64, "objects come in address order from a new slab");
    assert_eq!(rec.steps().last().unwrap().path, "fast path");
    assert_eq!(
        rec.machine().slub().caches[id].cpu[CpuId(0)].tid,
        tid + state::TID_STEP
    );
    kfree(&mut rec, b, CpuId(0), None);
    assert_eq!(
        rec.machine().slub().caches[id].cpu[CpuId(0)].freelist,
        b,
        "freed to c->freelist"
    );
    assert_eq!(
        rec.machine().slub().slabs[&slab_of(&rec, a)].inuse,
        64,
        "inuse unchanged by a fast free"
    );
    // A remote free goes to slab->freelist; the owner picks it up with get_freelist later.
    kfree(&mut rec, a, CpuId(1), None);
    assert_eq!(rec.machine().slub().slabs[&slab_of(&rec, a)].freelist, a);
    consistent(&rec);
    assert!(
        tid % state::TID_STEP == 0,
        "cpu0's tid keeps its CPU number in the low bits"
    );
}

#[test]
fn empty_slabs_are_kept_up_to_min_partial_then_discarded() {
    let mut rec = boot(1, 1, 2048);
    let id = cache(&mut rec, "big", 1024);
    let g = rec.machine().slub().caches[id].geometry.clone();
    let per = g.objs_per_slab as usize;
    // Fill 8 slabs, then make the cpu slab another one so all 8 are unlisted and full.
    let objs: Vec<u64> = (0..per * 8 + 1)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    // Flush the stack each time so that slabs reach the node list, then empty them.
    for k in 0..8 {
        for i in 0..per {
            kfree(&mut rec, objs[k * per + i], CpuId(0), Some(id));
        }
        flush_cpu_slab(&mut rec, id, CpuId(0));
        consistent(&rec);
    }
    let n = &rec.machine().slub().caches[id].node[NodeId(0)];
    assert_eq!(
        n.partial.len() as u32,
        g.min_partial,
        "empty slabs kept: min_partial"
    );
    assert!(rec
        .machine()
        .slub()
        .slabs
        .values()
        .filter(|s| s.cache == id)
        .all(|s| s.inuse == 0 || !s.frozen));
    let discards = rec
        .steps()
        .iter()
        .flat_map(|s| s.events.iter())
        .filter(|e| matches!(e, Event::SlabDiscarded { .. }))
        .count();
    // Eight slabs emptied. The ninth, the cpu slab with one live object, went to the node list
    // at the first flush and holds one of the min_partial places; so 8 - (5 - 1) were freed.
    assert_eq!(
        discards,
        8 - (g.min_partial as usize - 1),
        "the rest went back to the page allocator"
    );
    assert_eq!(rec.machine().slub().slabs[&n.partial[0]].inuse, 1);
}

#[test]
fn kmalloc_classes_large_allocations_and_bad_frees() {
    let mut rec = boot(2, 1, 1024);
    assert_eq!(
        kmalloc(&mut rec, 0, CpuId(0), None),
        crate::slab_common::ZERO_SIZE_PTR
    );
    assert_eq!(
        kfree(&mut rec, crate::slab_common::ZERO_SIZE_PTR, CpuId(0), None),
        FreeOutcome::Ignored
    );
    let big = kmalloc(&mut rec, 9000, CpuId(0), None);
    let pfn = rec.machine().addr_pfn(big).unwrap();
    assert!(matches!(
        rec.machine().frames[pfn].state,
        crate::machine::FrameState::Allocated {
            order: 2,
            owner: crate::machine::Owner::LargeKmalloc
        }
    ));
    assert_eq!(kfree(&mut rec, big, CpuId(1), None), FreeOutcome::Freed);

    let a = kmalloc(&mut rec, 100, CpuId(0), None);
    let before = rec.machine().clone();
    assert_eq!(kfree(&mut rec, a + 8, CpuId(0), None), FreeOutcome::Refused);
    assert_eq!(
        rec.steps().last().unwrap().caption.key,
        "step.kfree_inside_object"
    );
    assert_eq!(
        kfree(&mut rec, a + 128, CpuId(0), None),
        FreeOutcome::Refused,
        "never allocated"
    );
    assert_eq!(
        kfree(&mut rec, 0xdead_0000, CpuId(0), None),
        FreeOutcome::Refused
    );
    assert_eq!(rec.machine(), &before, "refused frees change nothing");
    assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Freed);
    assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Refused);
    assert_eq!(
        rec.steps().last().unwrap().caption.key,
        "step.kfree_double_free"
    );
    // Without hardening or slub_debug=F, cache_from_obj() does not look (fidelity_tests.rs
    // has the rest).
    let other = cache(&mut rec, "other", 128);
    let b = kmalloc(&mut rec, 128, CpuId(0), None);
    assert_eq!(
        kfree(&mut rec, b, CpuId(0), Some(other)),
        FreeOutcome::Freed
    );
    assert!(rec
        .steps()
        .iter()
        .any(|s| s.caption.key == "step.wrong_cache_unchecked"));
    consistent(&rec);
}

#[test]
fn compatible_caches_merge_unless_told_not_to() {
    let mut rec = boot(1, 1, 256);
    let a = cache(&mut rec, "a", 100);
    let b = cache(&mut rec, "b", 104);
    assert_eq!(a, b, "104 fits a's 104-byte slots");
    let c = cache(&mut rec, "c", 90);
    assert_ne!(a, c, "96 would waste a word of a's 104: not merged");
    assert_eq!(rec.machine().slub().caches[a].aliases, ["b"]);
    assert_ne!(
        kmem_cache_create(
            &mut rec,
            "d",
            100,
            0,
            Default::default(),
            true,
            &BootOptions::default()
        )
        .unwrap(),
        a,
        "ctor never merges"
    );
    let nomerge = BootOptions {
        slab_nomerge: true,
        ..BootOptions::default()
    };
    assert_ne!(
        kmem_cache_create(&mut rec, "e", 100, 0, Default::default(), false, &nomerge).unwrap(),
        a
    );
}

#[test]
fn slabinfo_counts_cpu_free_objects_as_active() {
    let mut rec = boot(1, 1, 1024);
    let objs: Vec<u64> = (0..40)
        .map(|_| kmalloc(&mut rec, 64, CpuId(0), None))
        .collect();
    for &o in &objs[..10] {
        kfree(&mut rec, o, CpuId(0), None);
    }
    let text = slabinfo(rec.machine());
    let line = text.lines().find(|l| l.starts_with("kmalloc-64 ")).unwrap();
    // One slab of 64 objects, the cpu slab: all 64 count as active (2.11).
    assert_eq!(line, "kmalloc-64            64     64     64   64    1 : tunables    0    0    0 : slabdata      1      1      0");
    assert!(text.starts_with("slabinfo - version: 2.1\n# name"));
    let order: Vec<&str> = text
        .lines()
        .skip(2)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    // create_kmalloc_caches(): the cgroup type is created last, so listed first.
    assert_eq!(order.first(), Some(&"kmalloc-cg-8k"), "newest first");
    assert_eq!(order.last(), Some(&"kmalloc-8"));
    let k64 = kmalloc_cache_for(&rec, 64).unwrap().unwrap();
    flush_cpu_slab(&mut rec, k64, CpuId(0));
    let text = slabinfo(rec.machine());
    let line = text.lines().find(|l| l.starts_with("kmalloc-64 ")).unwrap();
    assert!(
        line.starts_with("kmalloc-64            30     64"),
        "{line}"
    );
}

#[test]
fn detached_freelist_trace_of_spec_2_8() {
    let mut rec = boot(2, 1, 1024);
    let id = cache(&mut rec, "k1024", 1024);
    let per = rec.machine().slub().caches[id].geometry.objs_per_slab as usize;
    let objs: Vec<u64> = (0..per * 5)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    let s = |slab: usize, i: usize| objs[slab * per + i];
    let (a, b, c, d, e) = (0, 1, 2, 3, 4);
    let p = [
        s(a, 1),
        s(b, 1),
        s(a, 2),
        s(c, 1),
        s(a, 3),
        s(d, 1),
        s(e, 1),
        s(a, 4),
    ];
    let from = rec.steps().len();
    assert_eq!(
        kmem_cache_free_bulk(&mut rec, Some(id), &p, CpuId(1)),
        FreeOutcome::Freed
    );
    let built: Vec<&Event> = rec.steps()[from..]
        .iter()
        .flat_map(|st| st.events.iter())
        .filter(|ev| matches!(ev, Event::DetachedFreelistBuilt { .. }))
        .collect();
    // 1st call: A4 with A3 (E1 and D1 miss, A3 hits and is parked, C1 is the third miss).
    let Event::DetachedFreelistBuilt(df) = built[0] else {
        unreachable!()
    };
    let (objects, array, done_from, lookahead_left) =
        (&df.objects, &df.array, &df.done_from, &df.lookahead_left);
    assert_eq!(objects, &[s(a, 3), s(a, 4)]);
    assert_eq!(
        array,
        &[
            s(a, 1),
            s(b, 1),
            s(a, 2),
            s(c, 1),
            s(e, 1),
            s(d, 1),
            s(a, 3),
            s(a, 4)
        ]
    );
    assert_eq!((*done_from, *lookahead_left), (6, 0));
    // cpu1 frees into slab A, which is no CPU's c->slab: __slab_free()'s cmpxchg on the slab.
    assert_eq!((df.cpu, df.splice), (CpuId(1), Splice::SlabFreelist));
    // Then D1 alone (E1, C1, A2 miss), and so on until all eight are free.
    let Event::DetachedFreelistBuilt(df) = built[1] else {
        unreachable!()
    };
    assert_eq!(df.objects, &[s(d, 1)]);
    assert!(p.iter().all(|o| !rec.machine().is_live(*o)));
    consistent(&rec);
    // Objects of cpu0's own c->slab, freed on cpu0: the fast path onto c->freelist.
    let mine = [
        slab_alloc_node(&mut rec, id, CpuId(0), None),
        slab_alloc_node(&mut rec, id, CpuId(0), None),
    ];
    let from = rec.steps().len();
    assert_eq!(
        kmem_cache_free_bulk(&mut rec, Some(id), &mine, CpuId(0)),
        FreeOutcome::Freed
    );
    let spliced: Vec<(CpuId, Splice)> = rec.steps()[from..]
        .iter()
        .flat_map(|st| st.events.iter())
        .filter_map(|ev| match ev {
            Event::DetachedFreelistBuilt(df) => Some((df.cpu, df.splice)),
            _ => None,
        })
        .collect();
    // The walk starts at the last entry. Here the two objects lie in two slabs: only the
    // second one's is cpu0's c->slab when the bulk free runs.
    let slab_of = |o: u64| place_of(rec.machine(), o).unwrap().pfn;
    let cpu_slab = rec.machine().slub().caches[id].cpu[CpuId(0)].slab;
    assert_eq!(
        (
            Some(slab_of(mine[1])) == cpu_slab,
            Some(slab_of(mine[0])) == cpu_slab
        ),
        (true, false)
    );
    assert_eq!(
        spliced,
        [
            (CpuId(0), Splice::CpuFreelist),
            (CpuId(0), Splice::SlabFreelist)
        ]
    );
    // A bad entry refuses the whole array.
    let before = rec.machine().clone();
    assert_eq!(
        kmem_cache_free_bulk(&mut rec, Some(id), &[s(b, 2), s(b, 1)], CpuId(0)),
        FreeOutcome::Refused
    );
    assert_eq!(
        kmem_cache_free_bulk(&mut rec, Some(id), &[s(b, 2), s(b, 2)], CpuId(0)),
        FreeOutcome::Refused
    );
    assert_eq!(rec.machine(), &before);
}

#[test]
fn alloc_bulk_is_all_or_nothing() {
    let mut rec = boot(1, 1, 64);
    let id = cache(&mut rec, "k512", 512);
    let got = kmem_cache_alloc_bulk(&mut rec, id, 20, CpuId(0));
    assert_eq!(got.len(), 20);
    assert_eq!(
        got.iter().collect::<std::collections::BTreeSet<_>>().len(),
        20
    );
    assert_eq!(rec.machine().live_objects as usize, 20);
    consistent(&rec);
    // 64 pages hold at most 64 * 8 = 512 such objects: asking for 1000 fails and frees back.
    assert!(kmem_cache_alloc_bulk(&mut rec, id, 1000, CpuId(0)).is_empty());
    assert_eq!(rec.machine().live_objects as usize, 20);
    consistent(&rec);
}

#[test]
fn shrink_frees_empty_slabs_and_puts_the_fullest_first() {
    let mut rec = boot(1, 1, 1024);
    let id = cache(&mut rec, "k256", 256);
    let per = rec.machine().slub().caches[id].geometry.objs_per_slab as usize;
    assert_eq!(per, 16);
    let objs: Vec<u64> = (0..per * 5)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    let slabs: Vec<Pfn> = (0..5).map(|k| slab_of(&rec, objs[k * per])).collect();
    // Free 3, 16 (all), 1 and 2 objects of slabs 0..3, then flush them to the node list.
    for (k, n) in [(0, 3), (1, 16), (2, 1), (3, 2)] {
        for i in 0..n {
            kfree(&mut rec, objs[k * per + i], CpuId(0), Some(id));
        }
    }
    flush_cpu_slab(&mut rec, id, CpuId(0));
    assert!(
        rec.machine().slub().caches[id].node[NodeId(0)]
            .partial
            .contains(&slabs[1]),
        "kept: below min_partial"
    );
    kmem_cache_shrink(&mut rec, id, CpuId(0));
    let n = &rec.machine().slub().caches[id].node[NodeId(0)];
    // Fullest first: 1 free (slab 2), 2 free (slab 3), 3 free (slab 0); the empty slab 1 is
    // freed even though the node holds fewer than min_partial.
    assert_eq!(n.partial, [slabs[2], slabs[3], slabs[0]]);
    assert!(!rec.machine().slub().slabs.contains_key(&slabs[1]));
    consistent(&rec);
}

#[test]
fn destroy_refuses_a_busy_cache_and_drops_merged_names_first() {
    let mut rec = boot(1, 1, 1024);
    let id = cache(&mut rec, "a", 200);
    let alias = cache(&mut rec, "b", 200);
    assert_eq!(id, alias);
    let x = slab_alloc_node(&mut rec, id, CpuId(0), None);
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, Some("b"), CpuId(0)),
        DestroyOutcome::Unreferenced
    );
    assert!(rec.machine().slub().caches[id].aliases.is_empty());
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
        DestroyOutcome::StillHasObjects
    );
    assert_eq!(rec.steps().last().unwrap().caption.key, "step.destroy_busy");
    assert!(!rec.machine().slub().caches[id].destroyed);
    kfree(&mut rec, x, CpuId(0), Some(id));
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
        DestroyOutcome::Destroyed
    );
    assert!(
        rec.machine().slub().slabs.values().all(|s| s.cache != id),
        "every slab went back"
    );
    assert!(!slabinfo(rec.machine()).contains("\na "));
    assert_eq!(slab_alloc_node(&mut rec, id, CpuId(0), None), 0);
    assert_eq!(
        rec.steps().last().unwrap().caption.key,
        "step.use_destroyed_cache"
    );
    consistent(&rec);
}

#[derive(Clone, Debug)]
enum Op {
    Shrink {
        cpu: u32,
        cache: usize,
    },
    AllocBulk {
        cpu: u32,
        cache: usize,
        n: u32,
    },
    FreeBulk {
        cpu: u32,
        picks: Vec<usize>,
    },
    Alloc {
        cpu: u32,
        cache: usize,
        node: Option<u32>,
    },
    Free {
        cpu: u32,
        pick: usize,
    },
    Flush {
        cpu: u32,
        cache: usize,
    },
    KfreeRcu {
        cpu: u32,
        pick: usize,
        mightsleep: bool,
    },
    KfreeRcuMonitor {
        cpu: Option<u32>,
    },
    SynchronizeRcu,
    RcuBarrier,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..3, 0usize..3, prop::option::of(0u32..3)).prop_map(|(cpu, cache, node)| Op::Alloc { cpu, cache, node }),
        5 => (0u32..3, any::<usize>()).prop_map(|(cpu, pick)| Op::Free { cpu, pick }),
        1 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Flush { cpu, cache }),
        1 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Shrink { cpu, cache }),
        1 => (0u32..3, 0usize..3, 1u32..24).prop_map(|(cpu, cache, n)| Op::AllocBulk { cpu, cache, n }),
        1 => (0u32..3, prop::collection::vec(any::<usize>(), 1..16)).prop_map(|(cpu, picks)| Op::FreeBulk { cpu, picks }),
        2 => (0u32..3, any::<usize>(), prop::bool::weighted(0.2)).prop_map(|(cpu, pick, mightsleep)| Op::KfreeRcu { cpu, pick, mightsleep }),
        1 => prop::option::of(0u32..3).prop_map(|cpu| Op::KfreeRcuMonitor { cpu }),
        1 => Just(Op::SynchronizeRcu),
        1 => Just(Op::RcuBarrier),
    ]
}

/// `slub_debug` letters F, Z, P, U as the bits 1, 2, 4, 8 of `debug` (the property tests draw
/// 0 three times in four).
fn slub_debug_letters(debug: u8) -> crate::geometry::SlabFlags {
    crate::geometry::SlabFlags {
        consistency_checks: debug & 1 != 0,
        red_zone: debug & 2 != 0,
        poison: debug & 4 != 0,
        store_user: debug & 8 != 0,
        ..Default::default()
    }
}

proptest! {
    // 256 cases of 1..800 operations: about 10^5 operations per run. A longer run:
    // PROPTEST_CASES=10000 cargo test --release -p slabscope-sim random_slub (docs/testing.md).
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random allocations, local and remote frees and flushes on random small machines, with
    /// and without freelist randomisation and hardening, in caches with and without
    /// SLAB_TYPESAFE_BY_RCU, with kfree_rcu() and grace periods between them: after every
    /// step the invariants hold (the page allocator's, SLUB's and RCU's), and snapshots replay
    /// to the live state.
    #[test]
    fn random_slub_operations_keep_every_invariant(
        cpus in 1u32..=3,
        nodes in 1u32..=3,
        pages in 64u32..400,
        sizes in prop::array::uniform3(prop_oneof![8u32..300, 300u32..3000]),
        freelist_random in any::<bool>(),
        freelist_hardened in any::<bool>(),
        debug in prop_oneof![3 => Just(0u8), 1 => 1u8..16],
        typesafe_by_rcu in prop::array::uniform3(any::<bool>()),
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..800),
    ) {
        let nodes = nodes.min(cpus);
        let slub_debug = slub_debug_letters(debug);
        let switches = BootOptions { freelist_random, freelist_hardened, slub_debug, ..BootOptions::default() };
        let mut rec = boot_with(cpus, nodes, pages, &switches, seed);
        let ids: Vec<CacheId> = sizes.iter().enumerate().map(|(i, &s)| {
            let flags = crate::geometry::SlabFlags { typesafe_by_rcu: typesafe_by_rcu[i], ..Default::default() };
            kmem_cache_create(&mut rec, &format!("c{i}"), s, 0, flags, false, &switches).unwrap()
        }).collect();
        let mut live: Vec<u64> = Vec::new();
        let mut check = TraceCheck::new(&rec, FullChecks::EVERY_STEP).unwrap();
        for op in ops {
            match op {
                Op::Alloc { cpu, cache, node } => {
                    let obj = slab_alloc_node(&mut rec, ids[cache], CpuId::new(cpu % cpus), node.map(|n| NodeId::new(n % nodes)));
                    if obj != 0 {
                        live.push(obj);
                    }
                }
                Op::Free { cpu, pick } => {
                    if !live.is_empty() {
                        let obj = live.swap_remove(pick % live.len());
                        prop_assert_eq!(kfree(&mut rec, obj, CpuId::new(cpu % cpus), None), FreeOutcome::Freed);
                    }
                }
                Op::Flush { cpu, cache } => flush_cpu_slab(&mut rec, ids[cache], CpuId::new(cpu % cpus)),
                Op::Shrink { cpu, cache } => kmem_cache_shrink(&mut rec, ids[cache], CpuId::new(cpu % cpus)),
                Op::AllocBulk { cpu, cache, n } => {
                    let got = kmem_cache_alloc_bulk(&mut rec, ids[cache], n, CpuId::new(cpu % cpus));
                    prop_assert!(got.is_empty() || got.len() == n as usize);
                    live.extend(got);
                }
                Op::FreeBulk { cpu, picks } => {
                    // Distinct live objects, possibly of several caches: kfree_bulk.
                    let mut batch = Vec::new();
                    for pick in picks {
                        if !live.is_empty() {
                            batch.push(live.swap_remove(pick % live.len()));
                        }
                    }
                    if !batch.is_empty() {
                        prop_assert_eq!(kmem_cache_free_bulk(&mut rec, None, &batch, CpuId::new(cpu % cpus)), FreeOutcome::Freed);
                    }
                }
                Op::KfreeRcu { cpu, pick, mightsleep } => {
                    if !live.is_empty() {
                        let obj = live.swap_remove(pick % live.len());
                        crate::rcu::kvfree_call_rcu(&mut rec, obj, CpuId::new(cpu % cpus), mightsleep);
                    }
                }
                Op::KfreeRcuMonitor { cpu } => crate::rcu::kfree_rcu_monitor(&mut rec, cpu.map(|c| CpuId::new(c % cpus))),
                Op::SynchronizeRcu => crate::rcu::synchronize_rcu(&mut rec),
                Op::RcuBarrier => crate::rcu::rcu_barrier(&mut rec),
            }
            prop_assert!(rec.is_idle(), "an operation left a step open");
            // Every invariant after every step: what the step touched, and everything.
            if let Err(v) = check.advance(&rec, rec.cursor()) {
                prop_assert!(false, "{} ({})", v, rec.steps()[v.step - 1].function);
            }
            let settled = crate::rcu::check::check_rcu_settled(rec.machine());
            prop_assert!(settled.is_empty(), "{:?}", settled);
            // Callers hold `live`; kfree_rcu() holds what it has not freed yet.
            let queued: usize = rec.machine().rcu.krc.iter().map(|k| k.waiting()).sum();
            prop_assert_eq!(rec.machine().live_objects as usize, live.len() + queued);
        }
        prop_assert_eq!(check.machine(), rec.machine());
        prop_assert_eq!(&rec.snapshot_at(rec.cursor()).unwrap(), rec.machine());
    }
}

proptest! {
    /// `reciprocal_divide()` is exact for every offset inside a slab and every slot size.
    #[test]
    fn reciprocal_divide_is_exact(a in 0u32..(1 << 29), d in 1u32..(1 << 20)) {
        prop_assert_eq!(crate::slub::state::ReciprocalValue::new(d).divide(a), a / d);
    }
}

#[test]
fn freelist_randomisation_shuffles_each_new_slab_from_the_cache_sequence() {
    let switches = BootOptions {
        freelist_random: true,
        ..BootOptions::default()
    };
    let run = |seed: u64| {
        let mut rec = boot_with(1, 1, 1024, &switches, seed);
        let id = cache_with(&mut rec, "obj48", 48, &switches);
        let seq = rec.machine().slub().caches[id].random_seq.clone().unwrap();
        let objs: Vec<u64> = (0..85)
            .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
            .collect();
        consistent(&rec);
        (rec, seq, objs)
    };
    let (rec, seq, objs) = run(1);
    // The sequence is a permutation of 0..objs_per_slab.
    let mut sorted = seq.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..85).collect::<Vec<u32>>());
    // The slab hands out its objects in the order of the sequence, from some start position,
    // wrapping around: consecutive objects follow consecutive entries.
    let pfn = slab_of(&rec, objs[0]);
    let index = |addr: u64| place_of(rec.machine(), addr).unwrap().index;
    assert!(objs.iter().all(|&o| slab_of(&rec, o) == pfn));
    let start = seq.iter().position(|&i| i == index(objs[0])).unwrap();
    for (k, &o) in objs.iter().enumerate() {
        assert_eq!(index(o), seq[(start + k) % 85], "object {k}");
    }
    assert_ne!(
        objs.windows(2).filter(|w| w[1] == w[0] + 48).count(),
        84,
        "not address order"
    );
    // Same seed, same run; another seed, another sequence.
    assert_eq!(run(1).2, objs);
    assert_ne!(run(2).1, seq);
}

#[test]
fn hardened_free_pointers_are_stored_encoded() {
    let switches = BootOptions {
        freelist_hardened: true,
        ..BootOptions::default()
    };
    let mut rec = boot_with(1, 1, 1024, &switches, 9);
    let id = cache_with(&mut rec, "obj48", 48, &switches);
    let a = slab_alloc_node(&mut rec, id, CpuId(0), None);
    let s = &rec.machine().slub().caches[id];
    assert!(s.hardened && s.random != 0);
    let next = rec.machine().slub().caches[id].cpu[CpuId(0)].freelist;
    assert_eq!(next, a + 48);
    let place = place_of(rec.machine(), next).unwrap();
    let slab = &rec.machine().slub().slabs[&place.pfn];
    let stored = slab.words[place.index as usize];
    let ptr_addr = next + u64::from(s.geometry.offset);
    // freelist_ptr_encode(): ptr ^ s->random ^ swab(ptr_addr).
    assert_eq!(stored, (next + 48) ^ s.random ^ ptr_addr.swap_bytes());
    assert_eq!(get_freepointer(rec.machine(), next), next + 48);
    // The last free object's NULL is stored as a non-zero word too.
    let last = a + 48 * 84;
    let stored_null = slab.words[84];
    assert_eq!(
        stored_null,
        s.random ^ (last + u64::from(s.geometry.offset)).swap_bytes()
    );
    assert_eq!(get_freepointer(rec.machine(), last), 0);
    consistent(&rec);
}

#[test]
fn hardening_catches_only_the_naive_double_free() {
    for hardened in [false, true] {
        let switches = BootOptions {
            freelist_hardened: hardened,
            ..BootOptions::default()
        };
        let mut rec = boot_with(1, 1, 1024, &switches, 3);
        let id = cache_with(&mut rec, "obj48", 48, &switches);
        let a = slab_alloc_node(&mut rec, id, CpuId(0), None);
        let b = slab_alloc_node(&mut rec, id, CpuId(0), None);
        assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Freed);
        // a is now the head of c->freelist: freeing it again is the case BUG_ON(object == fp)
        // catches.
        assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Refused);
        let key = rec.steps().last().unwrap().caption.key;
        let expected = if hardened {
            "step.kfree_double_free_bug"
        } else {
            "step.kfree_double_free"
        };
        assert_eq!(key, expected);
        // After b is freed, a is no longer the head: the check cannot see it.
        assert_eq!(kfree(&mut rec, b, CpuId(0), None), FreeOutcome::Freed);
        assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Refused);
        assert_eq!(
            rec.steps().last().unwrap().caption.key,
            "step.kfree_double_free"
        );
        consistent(&rec);
    }
}

#[test]
fn get_any_partial_takes_a_slab_from_a_node_with_partial_slabs_to_spare() {
    // Two nodes, cpu0 on node 0 and cpu1 on node 1. Node 1 gets more partial slabs than
    // min_partial; cpu0, with nothing local, then takes one of them (unless the defrag ratio
    // draw says stay local: with the default ratio 1000, 23 draws in 1024).
    let mut rec = boot(2, 2, 1024);
    let id = cache(&mut rec, "obj512", 512);
    let g = rec.machine().slub().caches[id].geometry.clone();
    let per_slab = g.objs_per_slab as usize;
    let slabs = g.min_partial as usize + 3;
    let objs: Vec<u64> = (0..per_slab * slabs)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(1), None))
        .collect();
    // Free one object of each slab from cpu0: full slabs become partial on node 1 (through
    // cpu0's partial stack, then flushed to the node).
    for chunk in objs.chunks(per_slab) {
        assert_eq!(
            kfree(&mut rec, chunk[0], CpuId(0), None),
            FreeOutcome::Freed
        );
    }
    flush_cpu_slab(&mut rec, id, CpuId(0));
    flush_cpu_slab(&mut rec, id, CpuId(1));
    let node1 = rec.machine().slub().caches[id].node[NodeId(1)]
        .partial
        .len();
    assert!(
        node1 > g.min_partial as usize,
        "{node1} partial slabs on node 1"
    );
    assert!(rec.machine().slub().caches[id].node[NodeId(0)]
        .partial
        .is_empty());
    let obj = slab_alloc_node(&mut rec, id, CpuId(0), None);
    let step = rec
        .steps()
        .into_iter()
        .rev()
        .find(|s| s.function == "get_any_partial")
        .unwrap();
    let stayed_local = step.caption.args.iter().any(|(k, _)| *k == "outcome");
    // Seed 0's draw is under the ratio: this run takes the remote branch.
    assert!(!stayed_local);
    let node = rec.machine().slub().slabs[&slab_of(&rec, obj)].node;
    assert_eq!(node, NodeId(1), "a slab from node 1's partial list");
    assert_eq!(
        rec.machine().slub().caches[id].node[NodeId(1)]
            .partial
            .len(),
        node1 - 1 - (node1 - 1).min((g.cpu_partial_slabs / 2 + 1) as usize),
        "one slab to the cpu, up to cpu_partial_slabs/2+1 more to cpu0's partial stack"
    );
    consistent(&rec);
    // With node 1 at min_partial or below, nothing is taken: a new local slab.
    let mut rec = boot(2, 2, 1024);
    let id = cache(&mut rec, "obj512", 512);
    let obj = slab_alloc_node(&mut rec, id, CpuId(0), None);
    assert_eq!(
        rec.machine().slub().slabs[&slab_of(&rec, obj)].node,
        NodeId(0)
    );
    assert!(rec
        .steps()
        .iter()
        .any(|s| s.function == "get_any_partial"
            && s.caption.args.iter().any(|(k, _)| *k == "outcome")));
}

/// Gives each node of `nodes` (through cpuN, on node N) `slabs` partial slabs of `id`: full
/// slabs with one object freed each, flushed from the per-CPU partial stack. Every slab is
/// filled before any becomes partial, so no allocation here takes another node's slab.
fn partial_slabs_on(rec: &mut Recorder, id: CacheId, nodes: &[u16], slabs: usize) {
    let per_slab = rec.machine().slub().caches[id].geometry.objs_per_slab as usize;
    let objs: Vec<Vec<u64>> = nodes
        .iter()
        .map(|&n| {
            (0..per_slab * slabs)
                .map(|_| slab_alloc_node(rec, id, CpuId(n), None))
                .collect()
        })
        .collect();
    for (&n, objs) in nodes.iter().zip(&objs) {
        for chunk in objs.chunks(per_slab) {
            assert_eq!(kfree(rec, chunk[0], CpuId(n), None), FreeOutcome::Freed);
        }
        flush_cpu_slab(rec, id, CpuId(n));
        let partial = &rec.machine().slub().caches[id].node[NodeId(n)].partial;
        assert_eq!(partial.len(), slabs);
    }
}

#[test]
fn get_any_partial_follows_the_zonelist_of_the_distance_table() {
    // Four sockets in a ring (one hop 16, the opposite socket 22), cpuN on node N. Node 1's
    // zonelist is 1 3 0 2: with spare partial slabs on nodes 0, 2 and 3, cpu1 takes one from
    // node 3, its nearest neighbour above it (not node 2, the next id; not node 0, the
    // lowest).
    let ring = vec![
        vec![10, 16, 16, 22],
        vec![16, 10, 22, 16],
        vec![16, 22, 10, 16],
        vec![22, 16, 16, 10],
    ];
    let m = Machine::new_seeded(
        MachineConfig {
            cpus: 4,
            nodes: 4,
            cpu_node: vec![],
            page_size: 4096,
            pages_per_node: 1024,
            pcp_batch: Some(3),
            pcp_high: Some(12),
        },
        0,
    )
    .unwrap()
    .with_node_distance(ring)
    .unwrap();
    let mut rec = Recorder::new(m, true);
    create_kmalloc_caches(&mut rec, &BootOptions::default()).unwrap();
    let id = cache(&mut rec, "obj512", 512);
    let spare = rec.machine().slub().caches[id].geometry.min_partial as usize + 1;
    partial_slabs_on(&mut rec, id, &[0, 2, 3], spare);
    let obj = slab_alloc_node(&mut rec, id, CpuId(1), None);
    consistent(&rec);
    let step = rec
        .steps()
        .into_iter()
        .rev()
        .find(|s| s.function == "get_any_partial")
        .unwrap();
    let arg = |name: &str| {
        step.caption
            .args
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    };
    // Seed 0's get_cycles() draw is under the defrag ratio: the zonelist is walked.
    assert_eq!(arg("outcome"), None);
    assert_eq!(
        arg("zonelist"),
        Some(crate::trace::Shown::Text("1 3 0 2".into()))
    );
    assert_eq!(arg("node"), Some(crate::trace::Shown::Num(3)));
    assert_eq!(
        rec.machine().slub().slabs[&slab_of(&rec, obj)].node,
        NodeId(3)
    );
}

#[test]
fn a_new_slab_on_a_full_node_comes_from_the_next_node_of_its_zonelist() {
    // Three nodes at the default distances, cpuN on node N; node 1 has no free page left.
    // allocate_slab() asks the page allocator without __GFP_THISNODE, so node 1's zonelist
    // 1 2 0 gives the slab node 2's memory.
    let mut rec = boot(3, 3, 256);
    let id = cache(&mut rec, "obj512", 512);
    while crate::page_alloc::alloc_pages_thisnode(
        &mut rec,
        CpuId(1),
        NodeId(1),
        0,
        crate::machine::Owner::Pages,
    )
    .is_ok()
    {}
    let obj = slab_alloc_node(&mut rec, id, CpuId(1), None);
    consistent(&rec);
    assert_eq!(
        rec.machine().slub().slabs[&slab_of(&rec, obj)].node,
        NodeId(2)
    );
    // kmalloc_node(…, 1) asks node 1's zonelist too: the same node 2.
    let other = slab_alloc_node(&mut rec, id, CpuId(0), Some(NodeId(1)));
    assert_eq!(
        rec.machine().slub().slabs[&slab_of(&rec, other)].node,
        NodeId(2)
    );
}

#[test]
fn debug_caches_take_the_locked_single_object_paths() {
    for store_user in [false, true] {
        let switches = BootOptions {
            slub_debug: crate::geometry::SlabFlags {
                consistency_checks: true,
                store_user,
                ..Default::default()
            },
            ..BootOptions::default()
        };
        let mut rec = boot_with(2, 1, 1024, &switches, 0);
        let id = cache_with(&mut rec, "dbg", 200, &switches);
        assert!(rec.machine().slub().caches[id].debug());
        let per_slab = rec.machine().slub().caches[id].geometry.objs_per_slab as usize;
        let objs: Vec<u64> = (0..per_slab + 1)
            .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
            .collect();
        consistent(&rec);
        let s = &rec.machine().slub().caches[id];
        // No cpu slab, no per-CPU state at all; the first slab is full, the second partial.
        assert!(s
            .cpu
            .iter()
            .all(|c| c.slab.is_none() && c.freelist == 0 && c.partial.is_none()));
        let first = slab_of(&rec, objs[0]);
        assert_eq!(
            s.node[NodeId(0)].partial,
            vec![slab_of(&rec, objs[per_slab])]
        );
        assert_eq!(
            s.node[NodeId(0)].full,
            if store_user { vec![first] } else { vec![] }
        );
        let functions: Vec<&str> = rec.steps().iter().map(|st| st.function).collect();
        assert!(functions.contains(&"alloc_single_from_partial"));
        assert!(!functions.contains(&"slab_alloc_node"), "no fast path");
        // A free to the full slab moves it back to the partial list, from any CPU.
        assert_eq!(kfree(&mut rec, objs[0], CpuId(1), None), FreeOutcome::Freed);
        let s = &rec.machine().slub().caches[id];
        assert!(s.node[NodeId(0)].full.is_empty());
        assert_eq!(s.node[NodeId(0)].partial.len(), 2);
        assert_eq!(
            rec.steps().last().unwrap().path,
            "debug cache: full slab to node partial"
        );
        // slub_debug=F names a double free.
        assert_eq!(
            kfree(&mut rec, objs[0], CpuId(1), None),
            FreeOutcome::Refused
        );
        assert_eq!(
            rec.steps().last().unwrap().caption.key,
            "step.kfree_double_free_debug"
        );
        for &o in &objs[1..] {
            assert_eq!(kfree(&mut rec, o, CpuId(0), None), FreeOutcome::Freed);
            consistent(&rec);
        }
        assert_eq!(rec.machine().live_objects, 0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The sequential fast paths (`alloc::sequential_alloc_fast`, `free::sequential_free_fast`)
    /// record what the racing code's sync twin records, step for step and event for event:
    /// the same random operations, double frees among them, run once with micro-steps kept
    /// (which takes the twin everywhere) and once without.
    #[test]
    fn sequential_fast_paths_match_the_racing_code(
        cpus in 1u32..=3,
        nodes in 1u32..=2,
        sizes in prop::array::uniform3(prop_oneof![8u32..300, 300u32..3000]),
        freelist_random in any::<bool>(),
        freelist_hardened in any::<bool>(),
        debug in prop_oneof![3 => Just(0u8), 1 => 1u8..16],
        seed in any::<u64>(),
        ops in prop::collection::vec((0u8..10, 0u32..3, 0usize..3, prop::option::of(0u32..2), any::<usize>()), 1..600),
    ) {
        let nodes = nodes.min(cpus);
        // A debug cache frees through free_to_partial_list().
        let slub_debug = slub_debug_letters(debug);
        let switches = BootOptions { freelist_random, freelist_hardened, slub_debug, ..BootOptions::default() };
        let run = |keep_micro: bool| {
            let mut rec = boot_with(cpus, nodes, 400, &switches, seed);
            let ids: Vec<CacheId> = sizes.iter().enumerate().map(|(i, &s)| {
                kmem_cache_create(&mut rec, &format!("c{i}"), s, 0, crate::geometry::SlabFlags::default(), false, &switches).unwrap()
            }).collect();
            rec.keep_micro(keep_micro);
            let (mut live, mut freed): (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
            for &(kind, cpu, cache, node, pick) in &ops {
                let cpu = CpuId::new(cpu % cpus);
                match kind {
                    0..=4 => {
                        let obj = slab_alloc_node(&mut rec, ids[cache], cpu, node.map(|n| NodeId::new(n % nodes)));
                        if obj != 0 {
                            live.push(obj);
                        }
                    }
                    5..=7 if !live.is_empty() => {
                        let obj = live.swap_remove(pick % live.len());
                        kfree(&mut rec, obj, cpu, None);
                        freed.push(obj);
                    }
                    // A double free now and then: a damaged freelist both ways.
                    8 if !freed.is_empty() => {
                        kfree(&mut rec, freed[pick % freed.len()], cpu, None);
                    }
                    _ => flush_cpu_slab(&mut rec, ids[cache], cpu),
                }
            }
            rec
        };
        let (with, without) = (run(true), run(false));
        prop_assert_eq!(with.step_count(), without.step_count());
        for i in 0..with.step_count() {
            let (mut a, b) = (with.step(i).unwrap(), without.step(i).unwrap());
            prop_assert!(!a.micro.is_empty() || a.function != "slab_alloc_node", "step {} kept no micro-step", i);
            a.micro.clear();
            prop_assert_eq!(a, b, "step {}", i);
        }
        prop_assert_eq!(with.machine(), without.machine());
    }
}

/// `boot_with` under another kernel profile.
fn boot_profile(
    profile: &'static crate::profile::KernelProfile,
    cpus: u32,
    nodes: u32,
    pages: u32,
    seed: u64,
) -> Recorder {
    let m = Machine::new_seeded(
        MachineConfig {
            cpus,
            nodes,
            cpu_node: vec![],
            page_size: 4096,
            pages_per_node: pages,
            pcp_batch: Some(3),
            pcp_high: Some(12),
        },
        seed,
    )
    .unwrap()
    .with_profile(profile);
    let mut rec = Recorder::new(m, true);
    create_kmalloc_caches(&mut rec, &BootOptions::default()).unwrap();
    rec
}

/// The later profiles, for the property tests.
const LATER: [&crate::profile::KernelProfile; 3] = [
    &crate::profile::LINUX_6_12,
    &crate::profile::LINUX_6_18,
    &crate::profile::LINUX_7_2,
];

proptest! {
    // 128 cases of 1..1700 operations over the three later profiles: about 10^5 operations
    // per run (PROPTEST_CASES raises it).
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The same random operations under linux-6.12 (delayed freezing), linux-6.18 (one cache
    /// asks for sheaves) and linux-7.2 (sheaves for every cache but a debug one, no cpu slab),
    /// on small machines of up to 3 nodes: after every step every invariant holds (objects in
    /// sheaves are free objects of their cache counted in their slab's inuse, each sheaf is in
    /// one place within its capacity, a barn's sheaves are full or empty as listed, nothing is
    /// lost: the machine's live objects are exactly what callers hold), and snapshots replay.
    #[test]
    fn random_operations_keep_every_invariant_under_the_later_profiles(
        profile in 0usize..3,
        cpus in 1u32..=3,
        nodes in 1u32..=3,
        pages in 96u32..400,
        sizes in prop::array::uniform3(prop_oneof![8u32..300, 300u32..5000]),
        capacity in 1u32..40,
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..1700),
    ) {
        let nodes = nodes.min(cpus);
        let profile = LATER[profile];
        let mut rec = boot_profile(profile, cpus, nodes, pages, seed);
        let switches = BootOptions::default();
        let ids: Vec<CacheId> = sizes.iter().enumerate().map(|(i, &s)| {
            let args = crate::allocator::CacheArgs {
                name: &format!("c{i}"),
                size: s,
                align: 0,
                flags: Default::default(),
                useroffset: 0,
                usersize: 0,
                ctor: false,
                freeptr_offset: None,
                // 6.18 gives sheaves only to a cache that asks: the first one does.
                sheaf_capacity: (i == 0 && profile.slub >= crate::geometry::SlubVersion::V6_18).then_some(capacity),
            };
            super::create::kmem_cache_create_args(&mut rec, &args, &switches).unwrap()
        }).collect();
        let mut live: Vec<u64> = Vec::new();
        // The boot's bucket tables (6.11+) stay allocated.
        let booted = rec.machine().live_objects as usize;
        let mut check = TraceCheck::new(&rec, FullChecks::EVERY_STEP).unwrap();
        let mut count = 0usize;
        for op in ops {
            let cpu = |c: u32| CpuId::new(c % cpus);
            match op {
                Op::Alloc { cpu: c, cache, node } => {
                    let obj = slab_alloc_node(&mut rec, ids[cache], cpu(c), node.map(|n| NodeId::new(n % nodes)));
                    if obj != 0 {
                        live.push(obj);
                    }
                }
                Op::Free { cpu: c, pick } => {
                    if !live.is_empty() {
                        let obj = live.swap_remove(pick % live.len());
                        prop_assert_eq!(kfree(&mut rec, obj, cpu(c), None), FreeOutcome::Freed);
                    }
                }
                Op::Flush { cpu: c, cache } => flush_cpu_slab(&mut rec, ids[cache], cpu(c)),
                Op::Shrink { cpu: c, cache } => kmem_cache_shrink(&mut rec, ids[cache], cpu(c)),
                Op::AllocBulk { cpu: c, cache, n } => {
                    let got = kmem_cache_alloc_bulk(&mut rec, ids[cache], n, cpu(c));
                    prop_assert!(got.is_empty() || got.len() == n as usize);
                    live.extend(got);
                }
                Op::FreeBulk { cpu: c, picks } => {
                    // One cache's objects (kmem_cache_free_bulk, through the sheaves when it
                    // has them), or several caches' (kfree_bulk).
                    let mut batch = Vec::new();
                    for pick in picks {
                        if !live.is_empty() {
                            batch.push(live.swap_remove(pick % live.len()));
                        }
                    }
                    let m = rec.machine();
                    let caches: std::collections::BTreeSet<CacheId> = batch
                        .iter()
                        .filter_map(|&o| place_of(m, o).map(|p| m.slub().slabs[&p.pfn].cache))
                        .collect();
                    let named = (caches.len() == 1).then(|| *caches.iter().next().unwrap());
                    if !batch.is_empty() {
                        prop_assert_eq!(kmem_cache_free_bulk(&mut rec, named, &batch, cpu(c)), FreeOutcome::Freed);
                    }
                }
                Op::KfreeRcu { cpu: c, pick, mightsleep } => {
                    if !live.is_empty() {
                        let obj = live.swap_remove(pick % live.len());
                        crate::rcu::kvfree_call_rcu(&mut rec, obj, cpu(c), mightsleep);
                    }
                }
                Op::KfreeRcuMonitor { cpu: c } => crate::rcu::kfree_rcu_monitor(&mut rec, c.map(cpu)),
                Op::SynchronizeRcu => crate::rcu::synchronize_rcu(&mut rec),
                Op::RcuBarrier => crate::rcu::rcu_barrier(&mut rec),
            }
            count += 1;
            prop_assert!(rec.is_idle(), "an operation left a step open");
            if let Err(v) = check.advance(&rec, rec.cursor()) {
                prop_assert!(false, "{}: {} ({})", profile.id, v, rec.steps()[v.step - 1].function);
            }
            let queued: usize = rec.machine().rcu.krc.iter().map(|k| k.waiting()).sum();
            prop_assert_eq!(rec.machine().live_objects as usize, booted + live.len() + queued);
        }
        prop_assert!(count > 0);
        prop_assert_eq!(check.machine(), rec.machine());
        prop_assert_eq!(&rec.snapshot_at(rec.cursor()).unwrap(), rec.machine());
    }
}
