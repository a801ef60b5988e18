//! SLAB tests: refills, the per-CPU array, the shared array, alien caches, free_block's trim to
//! free_limit, colouring, OFF_SLAB index arrays, reaping, shrink/destroy, bad frees, the node
//! lock count before and after the 4.7 refill change, and random operation sequences with
//! every invariant checked after every step.

use super::check::{check_slab, check_slab_settled};
use super::state::BATCHREFILL_LIMIT;
use super::*;
use crate::boot::{Allocator, BootOptions};
use crate::geometry::slab::FreelistLayout;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::check::{check_page_allocator, FullChecks, TraceCheck};
use crate::machine::{Machine, MachineConfig, Owner};
use crate::page_alloc::{alloc_pages, alloc_pages_thisnode, free_pages};
use crate::slub::FreeOutcome;
use proptest::prelude::*;

pub(super) fn boot_with(
    cpus: u32,
    nodes: u32,
    pages: u32,
    switches: &BootOptions,
    seed: u64,
) -> Recorder {
    let mut m = Machine::new_seeded(
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
    .with_allocator(Allocator::Slab);
    m.alloc.slab_mut().legacy_refill = switches.slab_legacy_refill;
    let mut rec = Recorder::new(m, true);
    create_kmalloc_caches(&mut rec, switches).unwrap();
    rec
}

pub(super) fn boot(cpus: u32, nodes: u32) -> Recorder {
    boot_with(cpus, nodes, 16384, &BootOptions::default(), 0)
}

pub(super) fn cache(rec: &mut Recorder, name: &str, size: u32) -> CacheId {
    kmem_cache_create(
        rec,
        name,
        size,
        0,
        Default::default(),
        false,
        &BootOptions::default(),
    )
    .unwrap()
}

pub(super) fn consistent(rec: &Recorder) {
    let mut bad = check_slab(rec.machine());
    bad.extend(check_slab_settled(rec.machine()));
    bad.extend(check_page_allocator(rec.machine()));
    assert!(bad.is_empty(), "{bad:#?}");
}

fn locks(rec: &Recorder) -> u64 {
    rec.machine().list_lock_taken.iter().sum()
}

#[test]
fn first_allocation_grows_without_the_node_lock_and_fills_a_cold_array() {
    let mut rec = boot(2, 1);
    let id = cache(&mut rec, "obj100", 100);
    let g = rec.machine().slab().caches[id].geometry.clone();
    assert_eq!((g.limit, g.batchcount), (120, 60));
    let before = locks(&rec);
    let a = slab_alloc_node(&mut rec, id, CpuId(0), None);
    assert_ne!(a, 0);
    consistent(&rec);
    let m = rec.machine();
    let s = &m.slab().caches[id];
    // A cold array refills BATCHREFILL_LIMIT objects, straight from the new slab; one was
    // handed out.
    assert_eq!(s.cpu[CpuId(0)].avail(), BATCHREFILL_LIMIT - 1);
    assert!(s.cpu[CpuId(0)].touched);
    let n = &s.node[NodeId(0)];
    assert_eq!(n.slabs_partial.len(), 1);
    assert_eq!(n.total_slabs, 1);
    assert_eq!(n.free_objects, u64::from(g.num - BATCHREFILL_LIMIT));
    // Only cache_grow_end() took list_lock.
    assert_eq!(locks(&rec) - before, 1);
    // The next allocation is an array hit: the newest pointer, no lock.
    let top = *s.cpu[CpuId(0)].entry.last().unwrap();
    let before = locks(&rec);
    assert_eq!(slab_alloc_node(&mut rec, id, CpuId(0), None), top);
    assert_eq!(locks(&rec), before);
    assert_eq!(rec.steps().last().unwrap().path, "array hit");
}

#[test]
fn before_4_7_a_growing_refill_takes_the_node_lock_twice() {
    let legacy = BootOptions {
        slab_legacy_refill: true,
        ..BootOptions::default()
    };
    let mut rec = boot_with(2, 1, 16384, &legacy, 0);
    let id = kmem_cache_create(
        &mut rec,
        "obj100",
        100,
        0,
        Default::default(),
        false,
        &legacy,
    )
    .unwrap();
    let before = locks(&rec);
    slab_alloc_node(&mut rec, id, CpuId(0), None);
    consistent(&rec);
    // cache_grow_end() links the free slab, then the retried refill takes it under the lock.
    assert_eq!(locks(&rec) - before, 2);
    let s = &rec.machine().slab().caches[id];
    assert_eq!(s.cpu[CpuId(0)].avail(), BATCHREFILL_LIMIT - 1);
}

#[test]
fn a_second_cpu_refills_from_the_slab_lists_under_the_lock() {
    let mut rec = boot(2, 1);
    let id = cache(&mut rec, "obj100", 100);
    slab_alloc_node(&mut rec, id, CpuId(0), None);
    let before = locks(&rec);
    slab_alloc_node(&mut rec, id, CpuId(1), None);
    consistent(&rec);
    assert_eq!(locks(&rec) - before, 1);
    let step = rec
        .steps()
        .into_iter()
        .rev()
        .find(|s| s.function == "cache_alloc_refill");
    assert_eq!(step.unwrap().path, "from the node's slab lists");
    let s = &rec.machine().slab().caches[id];
    assert_eq!(s.cpu[CpuId(1)].avail(), BATCHREFILL_LIMIT - 1);
    // Both CPUs' objects came from the one slab, which is now 32 objects in.
    let pfn = s.node[NodeId(0)].slabs_partial[0];
    assert_eq!(
        rec.machine().slab().slabs[&pfn].active,
        2 * BATCHREFILL_LIMIT
    );
}

#[test]
fn a_full_array_flushes_its_oldest_batch_to_the_shared_array_then_to_the_slabs() {
    let mut rec = boot(2, 1);
    let id = cache(&mut rec, "obj100", 100);
    let g = rec.machine().slab().caches[id].geometry.clone();
    let objs: Vec<u64> = (0..(g.limit + g.batchcount) * 10)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    // Empty the arrays first, so the frees below start from an empty per-CPU array.
    kmem_cache_shrink(&mut rec, id, CpuId(0));
    consistent(&rec);
    for &o in &objs[..g.limit as usize] {
        assert_eq!(kfree(&mut rec, o, CpuId(0), None), FreeOutcome::Freed);
    }
    let s = &rec.machine().slab().caches[id];
    let array = s.cpu[CpuId(0)].entry.clone();
    assert_eq!(s.cpu[CpuId(0)].avail(), g.limit);
    // One more free: the oldest batchcount pointers move to the shared array.
    kfree(&mut rec, objs[g.limit as usize], CpuId(0), None);
    consistent(&rec);
    let s = &rec.machine().slab().caches[id];
    assert_eq!(
        s.node[NodeId(0)].shared.as_ref().unwrap().entry,
        array[..g.batchcount as usize]
    );
    assert_eq!(s.cpu[CpuId(0)].avail(), g.limit - g.batchcount + 1);
    // Fill the shared array (8 * 60 = 480); then a flush goes through free_block().
    let shared_limit = s.node[NodeId(0)].shared.as_ref().unwrap().limit;
    let mut next = g.limit as usize + 1;
    while rec.machine().slab().caches[id].node[NodeId(0)]
        .shared
        .as_ref()
        .unwrap()
        .avail()
        < shared_limit
    {
        kfree(&mut rec, objs[next], CpuId(0), None);
        next += 1;
    }
    let free_before = rec.machine().slab().caches[id].node[NodeId(0)].free_objects;
    while rec.machine().slab().caches[id].cpu[CpuId(0)].avail() < g.limit {
        kfree(&mut rec, objs[next], CpuId(0), None);
        next += 1;
    }
    kfree(&mut rec, objs[next], CpuId(0), None);
    consistent(&rec);
    let step = rec
        .steps()
        .into_iter()
        .rev()
        .find(|s| s.function == "cache_flusharray");
    assert_eq!(
        step.unwrap().path,
        "array full: oldest batch back to the slabs"
    );
    let free_after = rec.machine().slab().caches[id].node[NodeId(0)].free_objects;
    assert_eq!(free_after, free_before + u64::from(g.batchcount));
}

#[test]
fn remote_frees_go_to_the_alien_cache_and_drain_to_their_node_when_full() {
    let mut rec = boot(2, 2);
    let id = cache(&mut rec, "obj100", 100);
    // cpu1 is on node 1: it allocates node-1 objects; cpu0 (node 0) frees them.
    let objs: Vec<u64> = (0..40)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(1), None))
        .collect();
    assert!(objs
        .iter()
        .all(|&o| rec.machine().node_of(rec.machine().addr_pfn(o).unwrap()) == NodeId(1)));
    for &o in &objs[..12] {
        kfree(&mut rec, o, CpuId(0), None);
    }
    consistent(&rec);
    let alien = alien_ac(NodeId(0), NodeId(1));
    assert_eq!(ac_entries(rec.machine(), id, alien), objs[..12].to_vec());
    let before = rec.machine().list_lock_taken.clone();
    kfree(&mut rec, objs[12], CpuId(0), None);
    consistent(&rec);
    // The full alien cache (limit 12) drained under node 1's lock into node 1's shared array.
    assert_eq!(ac_entries(rec.machine(), id, alien), vec![objs[12]]);
    let after = &rec.machine().list_lock_taken;
    assert_eq!(
        (
            after[NodeId(0)] - before[NodeId(0)],
            after[NodeId(1)] - before[NodeId(1)]
        ),
        (0, 1)
    );
    let shared = ac_entries(rec.machine(), id, shared_ac(NodeId(1)));
    assert_eq!(shared, objs[..12].to_vec());
}

#[test]
fn free_block_keeps_at_most_free_limit_free_objects_on_a_node() {
    let mut rec = boot(1, 1);
    let id = cache(&mut rec, "obj1000", 1000);
    let g = rec.machine().slab().caches[id].geometry.clone();
    let n = 400usize;
    let objs: Vec<u64> = (0..n)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    for &o in &objs {
        kfree(&mut rec, o, CpuId(0), None);
    }
    consistent(&rec);
    let node = &rec.machine().slab().caches[id].node[NodeId(0)];
    assert!(node.free_objects <= u64::from(node.free_limit));
    // free_limit = (1 + cpus on the node) * batchcount + num.
    assert_eq!(node.free_limit, 2 * g.batchcount + g.num);
    assert!(rec.steps().iter().any(|s| s.function == "slab_destroy"));
}

#[test]
fn slabs_of_a_node_take_successive_colours() {
    // object 700, align 8: order 1, 11 objects, 7 colours of 64 bytes (spec 5.8).
    let mut rec = boot(1, 1);
    let id = cache(&mut rec, "obj700", 700);
    let g = rec.machine().slab().caches[id].geometry.clone();
    assert_eq!((g.gfporder, g.num, g.colour, g.colour_off), (1, 11, 7, 64));
    let mut colours = Vec::new();
    for _ in 0..9 {
        let before: Vec<Pfn> = rec.machine().slab().slabs.keys().copied().collect();
        // Allocate until a new slab appears.
        loop {
            slab_alloc_node(&mut rec, id, CpuId(0), None);
            let new = rec
                .machine()
                .slab()
                .slabs
                .iter()
                .find(|(p, s)| s.cache == id && !before.contains(p));
            if let Some((_, s)) = new {
                colours.push(s.colour_off / 64);
                break;
            }
        }
    }
    consistent(&rec);
    assert_eq!(colours, vec![1, 2, 3, 4, 5, 6, 0, 1, 2]);
}

#[test]
fn an_off_slab_cache_takes_its_index_arrays_from_a_kmalloc_cache() {
    let mut rec = boot(1, 1);
    let id = kmem_cache_create(
        &mut rec,
        "ctor512",
        512,
        0,
        Default::default(),
        true,
        &BootOptions::default(),
    )
    .unwrap();
    let s = rec.machine().slab().caches[id].clone();
    assert_eq!(s.geometry.layout, FreelistLayout::OffSlab);
    let fc = s.freelist_cache.expect("a freelist cache");
    let live_before = rec.machine().live_objects;
    let obj = slab_alloc_node(&mut rec, id, CpuId(0), None);
    consistent(&rec);
    let pfn = place_of(rec.machine(), obj).unwrap().pfn;
    let mgmt = rec.machine().slab().slabs[&pfn].freelist_addr;
    let owner = place_of(rec.machine(), mgmt).unwrap().pfn;
    assert_eq!(rec.machine().slab().slabs[&owner].cache, fc);
    assert_eq!(rec.machine().live_objects, live_before + 2);
    // Destroying the slab frees its index array too.
    kfree(&mut rec, obj, CpuId(0), None);
    kmem_cache_shrink(&mut rec, id, CpuId(0));
    consistent(&rec);
    assert_eq!(rec.machine().live_objects, live_before);
}

#[test]
fn cache_reap_clears_touched_first_then_drains_an_unused_array() {
    let mut rec = boot(1, 1);
    let id = cache(&mut rec, "obj100", 100);
    let objs: Vec<u64> = (0..30)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    for &o in &objs {
        kfree(&mut rec, o, CpuId(0), None);
    }
    let avail = rec.machine().slab().caches[id].cpu[CpuId(0)].avail();
    cache_reap(&mut rec, None);
    consistent(&rec);
    let ac = &rec.machine().slab().caches[id].cpu[CpuId(0)];
    assert_eq!((ac.avail(), ac.touched), (avail, false));
    cache_reap(&mut rec, None);
    consistent(&rec);
    // (limit + 4) / 5 = 24 of the oldest go back to the slabs.
    let ac = &rec.machine().slab().caches[id].cpu[CpuId(0)];
    assert_eq!(ac.avail(), avail - 24);
    assert_eq!(
        rec.machine().slab().jiffies,
        2 * super::state::REAPTIMEOUT_AC
    );
}

#[test]
fn shrink_empties_every_array_and_destroy_refuses_a_cache_with_objects() {
    let mut rec = boot(2, 2);
    let id = cache(&mut rec, "obj64", 64);
    let objs: Vec<u64> = (0..100)
        .map(|i| slab_alloc_node(&mut rec, id, CpuId::new(i % 2), None))
        .collect();
    for (i, &o) in objs.iter().enumerate().skip(1) {
        kfree(&mut rec, o, CpuId::new((i as u32 + 1) % 2), None);
    }
    consistent(&rec);
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
        crate::slab_common::DestroyOutcome::StillHasObjects
    );
    consistent(&rec);
    let s = &rec.machine().slab().caches[id];
    assert!(s.cpu.iter().all(|a| a.avail() == 0));
    assert_eq!(s.node.iter().map(|n| n.total_slabs).sum::<u64>(), 1);
    kfree(&mut rec, objs[0], CpuId(0), None);
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
        crate::slab_common::DestroyOutcome::Destroyed
    );
    consistent(&rec);
    assert!(rec.machine().slab().slabs.values().all(|s| s.cache != id));
    // A destroyed cache is a use after free.
    assert_eq!(slab_alloc_node(&mut rec, id, CpuId(0), None), 0);
    assert_eq!(rec.steps().last().unwrap().path, "destroyed cache");
}

#[test]
fn free_slabs_are_destroyed_from_the_tail_of_slabs_free() {
    // SLAB has SLUB's discard-order question twice and answers it like the kernel:
    // drain_freelist() destroys slabs_free.prev (the tail) first, one slab per lock hold,
    // and free_block() list_move()s each slab it trims to the head of the caller's list, which
    // slabs_destroy() walks from the head (mm/slab.c, v6.6).
    let mut rec = boot(1, 1);
    let id = cache(&mut rec, "obj1000", 1000);
    let num = rec.machine().slab().caches[id].geometry.num as usize;
    let objs: Vec<u64> = (0..num * 3)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    for &o in &objs {
        kfree(&mut rec, o, CpuId(0), None);
    }
    let from = rec.steps().len();
    assert!(!kmem_cache_shrink(&mut rec, id, CpuId(0)));
    let steps = rec.steps();
    let drained = from
        + steps[from..]
            .iter()
            .position(|s| s.function == "drain_freelist")
            .expect("shrink drains the free slabs");
    let before = rec.snapshot_at(drained).unwrap();
    let mut free: Vec<Pfn> = before.slab().caches[id].node[NodeId(0)]
        .slabs_free
        .iter()
        .copied()
        .collect();
    assert_eq!(free.len(), 3);
    free.reverse();
    let destroyed: Vec<Pfn> = steps[drained..]
        .iter()
        .flat_map(|s| s.events.iter())
        .filter_map(|e| match e {
            crate::trace::Event::Slab(SlabEvent::SlabDestroyed { pfn, .. }) => Some(*pfn),
            _ => None,
        })
        .collect();
    assert_eq!(destroyed, free, "tail first");
    consistent(&rec);
}

#[test]
fn bad_frees_are_diagnosed_and_change_nothing() {
    let hardened = BootOptions {
        freelist_hardened: true,
        ..BootOptions::default()
    };
    let mut rec = boot_with(1, 1, 16384, &hardened, 0);
    let id = kmem_cache_create(
        &mut rec,
        "obj64",
        64,
        0,
        Default::default(),
        false,
        &hardened,
    )
    .unwrap();
    let a = slab_alloc_node(&mut rec, id, CpuId(0), None);
    let b = slab_alloc_node(&mut rec, id, CpuId(0), None);
    assert_eq!(kfree(&mut rec, a + 8, CpuId(0), None), FreeOutcome::Refused);
    kfree(&mut rec, a, CpuId(0), None);
    let before = rec.machine().clone();
    // `a` is the newest pointer of the array: the hardened check catches it.
    assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Refused);
    assert_eq!(
        rec.steps().last().unwrap().caption.key,
        "step.kfree_double_free_warn"
    );
    kfree(&mut rec, b, CpuId(0), None);
    // Now `a` is under `b`: the check misses it; the simulator still refuses it.
    assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Refused);
    assert_eq!(
        rec.steps().last().unwrap().caption.key,
        "step.kfree_double_free"
    );
    assert_eq!(
        kfree(&mut rec, 0x1234, CpuId(0), None),
        FreeOutcome::Refused
    );
    assert_eq!(rec.machine().live_objects, before.live_objects - 1);
    consistent(&rec);
}

#[test]
fn a_remote_node_request_bypasses_the_array() {
    let mut rec = boot(2, 2);
    let id = cache(&mut rec, "obj64", 64);
    let obj = slab_alloc_node(&mut rec, id, CpuId(0), Some(NodeId(1)));
    consistent(&rec);
    let m = rec.machine();
    assert_eq!(m.node_of(m.addr_pfn(obj).unwrap()), NodeId(1));
    assert_eq!(m.slab().caches[id].cpu[CpuId(0)].avail(), 0);
}

#[test]
fn kmalloc_uses_slab_size_classes_and_large_kmalloc() {
    let mut rec = boot(1, 1);
    let a = kmalloc(&mut rec, 8, CpuId(0), None);
    let place = place_of(rec.machine(), a).unwrap();
    let cache = rec.machine().slab().slabs[&place.pfn].cache;
    assert_eq!(rec.machine().slab().caches[cache].name, "kmalloc-32");
    let b = kmalloc(&mut rec, 70, CpuId(0), None);
    let cache = rec.machine().slab().slabs[&place_of(rec.machine(), b).unwrap().pfn].cache;
    let s = &rec.machine().slab().caches[cache];
    assert_eq!((s.name.as_str(), s.geometry.size), ("kmalloc-96", 128));
    let big = kmalloc(&mut rec, 100_000, CpuId(0), None);
    assert_ne!(big, 0);
    assert!(place_of(rec.machine(), big).is_none());
    assert_eq!(kfree(&mut rec, big, CpuId(0), None), FreeOutcome::Freed);
    consistent(&rec);
}

#[derive(Clone, Debug)]
enum Op {
    Alloc {
        cpu: u32,
        cache: usize,
        node: Option<u32>,
    },
    Free {
        cpu: u32,
        pick: usize,
    },
    Reap {
        cpu: Option<u32>,
    },
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
        6 => (0u32..3, 0usize..4, prop::option::weighted(0.1, 0u32..3)).prop_map(|(cpu, cache, node)| Op::Alloc { cpu, cache, node }),
        5 => (0u32..3, any::<usize>()).prop_map(|(cpu, pick)| Op::Free { cpu, pick }),
        1 => prop::option::of(0u32..3).prop_map(|cpu| Op::Reap { cpu }),
        1 => (0u32..3, 0usize..4).prop_map(|(cpu, cache)| Op::Shrink { cpu, cache }),
        1 => (0u32..3, 0usize..4, 1u32..40).prop_map(|(cpu, cache, n)| Op::AllocBulk { cpu, cache, n }),
        1 => (0u32..3, prop::collection::vec(any::<usize>(), 1..16)).prop_map(|(cpu, picks)| Op::FreeBulk { cpu, picks }),
        2 => (0u32..3, any::<usize>(), prop::bool::weighted(0.2)).prop_map(|(cpu, pick, mightsleep)| Op::KfreeRcu { cpu, pick, mightsleep }),
        1 => prop::option::of(0u32..3).prop_map(|cpu| Op::KfreeRcuMonitor { cpu }),
        1 => Just(Op::SynchronizeRcu),
        1 => Just(Op::RcuBarrier),
    ]
}

proptest! {
    // 128 cases of 1..600 operations: about 4*10^4 SLAB operations per run. A longer run:
    // PROPTEST_CASES=5000 cargo test --release -p slabscope-sim random_slab (docs/testing.md).
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Random allocations (some for a given node), local and remote frees, reaps, shrinks and
    /// bulk operations on random small machines, with and without randomisation, hardening
    /// and the pre-4.7 refill, in caches with and without SLAB_TYPESAFE_BY_RCU, with
    /// kfree_rcu() and grace periods between them: after every step the invariants hold,
    /// between operations no slab is in transit, and snapshots replay to the live state.
    #[test]
    fn random_slab_operations_keep_every_invariant(
        cpus in 1u32..=3,
        nodes in 1u32..=3,
        pages in 64u32..400,
        sizes in prop::array::uniform3(prop_oneof![8u32..300, 300u32..5000]),
        ctor in any::<bool>(),
        freelist_random in any::<bool>(),
        freelist_hardened in any::<bool>(),
        slab_legacy_refill in any::<bool>(),
        typesafe_by_rcu in prop::array::uniform3(any::<bool>()),
        seed in any::<u64>(),
        ops in prop::collection::vec(op(), 1..600),
    ) {
        let nodes = nodes.min(cpus);
        let switches = BootOptions { freelist_random, freelist_hardened, slab_legacy_refill, ..BootOptions::default() };
        let mut rec = boot_with(cpus, nodes, pages, &switches, seed);
        let mut ids: Vec<CacheId> = sizes.iter().enumerate().map(|(i, &s)| {
            let flags = crate::geometry::SlabFlags { typesafe_by_rcu: typesafe_by_rcu[i], ..Default::default() };
            kmem_cache_create(&mut rec, &format!("c{i}"), s, 0, flags, ctor && i == 0, &switches).unwrap()
        }).collect();
        ids.push(rec.machine().slab().kmalloc_caches.get(crate::kmalloc_caches::KmallocType::Normal, 5).unwrap());
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
                Op::Reap { cpu } => cache_reap(&mut rec, cpu.map(|c| CpuId::new(c % cpus))),
                Op::Shrink { cpu, cache } => {
                    kmem_cache_shrink(&mut rec, ids[cache], CpuId::new(cpu % cpus));
                }
                Op::AllocBulk { cpu, cache, n } => {
                    let got = kmem_cache_alloc_bulk(&mut rec, ids[cache], n, CpuId::new(cpu % cpus));
                    prop_assert!(got.is_empty() || got.len() == n as usize);
                    live.extend(got);
                }
                Op::FreeBulk { cpu, picks } => {
                    let mut batch = Vec::new();
                    for pick in picks {
                        if !live.is_empty() {
                            batch.push(live.swap_remove(pick % live.len()));
                        }
                    }
                    if !batch.is_empty() {
                        kmem_cache_free_bulk(&mut rec, None, &batch, CpuId::new(cpu % cpus));
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
                let step = &rec.steps()[v.step - 1];
                prop_assert!(false, "{} ({} {})", v, step.function, step.path);
            }
            let mut settled = check_slab_settled(rec.machine());
            settled.extend(crate::rcu::check::check_rcu_settled(rec.machine()));
            prop_assert!(settled.is_empty(), "{:?}", settled);
            // Callers hold `live`, plus OFF_SLAB index arrays held by the slab layer, plus what
            // kfree_rcu() has not freed yet.
            let arrays = rec.machine().slab().slabs.values().filter(|s| {
                rec.machine().slab().caches[s.cache].geometry.layout == FreelistLayout::OffSlab
            }).count();
            let queued: usize = rec.machine().rcu.krc.iter().map(|k| k.waiting()).sum();
            prop_assert_eq!(rec.machine().live_objects as usize, live.len() + arrays + queued);
        }
        prop_assert_eq!(check.machine(), rec.machine());
        prop_assert_eq!(&rec.snapshot_at(rec.cursor()).unwrap(), rec.machine());
    }
}

/// Takes every page of `node` with `cpu` (its pcp list for the node included).
fn exhaust_node(rec: &mut Recorder, cpu: CpuId, node: NodeId) {
    while alloc_pages_thisnode(rec, cpu, node, 0, Owner::Pages).is_ok() {}
}

/// The node whose memory holds `obj`.
fn obj_node(rec: &Recorder, obj: u64) -> u32 {
    u32::from(
        rec.machine()
            .node_of(place_of(rec.machine(), obj).unwrap().pfn),
    )
}

/// The caption argument `name` of the last step of `function`, as shown.
fn last_arg(rec: &Recorder, function: &str, name: &str) -> Option<crate::trace::Shown> {
    let steps = rec.steps();
    let step = steps.iter().rev().find(|s| s.function == function)?;
    let (_, v) = step.caption.args.iter().find(|(k, _)| *k == name)?;
    Some(v.clone())
}

#[test]
fn fallback_alloc_walks_the_local_zonelist() {
    // Three nodes, cpuN on node N. Node 1's zonelist is 1 2 0: with node 1 out of memory,
    // fallback_alloc() on cpu1 takes an object from node 2's lists although node 0 has free
    // objects too.
    let mut rec = boot_with(3, 3, 256, &BootOptions::default(), 0);
    let id = cache(&mut rec, "obj64", 64);
    for n in [0, 2] {
        slab_alloc_node(&mut rec, id, CpuId(n), None);
        assert!(rec.machine().slab().caches[id].node[NodeId(n)].free_objects > 0);
    }
    exhaust_node(&mut rec, CpuId(1), NodeId(1));
    let obj = slab_alloc_node(&mut rec, id, CpuId(1), None);
    consistent(&rec);
    assert_eq!(obj_node(&rec, obj), 2);
    assert_eq!(
        last_arg(&rec, "fallback_alloc", "zonelist"),
        Some(crate::trace::Shown::Text("1 2 0".into()))
    );
    // No node with free objects: the new slab comes from the page allocator, which walks the
    // same zonelist (cache_grow_begin() without __GFP_THISNODE) and finds node 2.
    let mut rec = boot_with(3, 3, 256, &BootOptions::default(), 0);
    let id = cache(&mut rec, "obj64", 64);
    exhaust_node(&mut rec, CpuId(1), NodeId(1));
    let obj = slab_alloc_node(&mut rec, id, CpuId(1), None);
    consistent(&rec);
    assert_eq!(obj_node(&rec, obj), 2);
}

#[test]
fn colour_next_advances_before_the_off_slab_index_array_is_allocated() {
    // 64 KiB pages: a 600-byte cache with a constructor keeps its index array OFF_SLAB (in
    // kmalloc-256) and has 2 colours.
    let m = Machine::new_seeded(
        MachineConfig {
            cpus: 1,
            nodes: 1,
            cpu_node: vec![],
            page_size: 65536,
            pages_per_node: 32,
            pcp_batch: Some(3),
            pcp_high: Some(12),
        },
        0,
    )
    .unwrap()
    .with_allocator(Allocator::Slab);
    let mut rec = Recorder::new(m, true);
    create_kmalloc_caches(&mut rec, &BootOptions::default()).unwrap();
    let id = kmem_cache_create(
        &mut rec,
        "ctor600",
        600,
        0,
        Default::default(),
        true,
        &BootOptions::default(),
    )
    .unwrap();
    let g = rec.machine().slab().caches[id].geometry.clone();
    assert_eq!((g.layout, g.colour), (FreelistLayout::OffSlab, 2));
    // Every page taken, and kmalloc-256 with nothing left to give.
    let mut held = Vec::new();
    while let Ok(pfn) = alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages) {
        held.push(pfn);
    }
    while kmalloc(&mut rec, 256, CpuId(0), None) != 0 {}
    // One page back: enough for a slab of ctor600, not for its index array as well.
    free_pages(&mut rec, CpuId(0), held.pop().unwrap()).unwrap();
    let from = rec.cursor();
    assert_eq!(slab_alloc_node(&mut rec, id, CpuId(0), None), 0);
    let steps = rec.steps();
    let ours = &steps[from..];
    // cache_alloc_refill()'s direct grow, ____cache_alloc_node()'s must_grow and
    // fallback_alloc()'s grow each got the page, took a colour, and gave the page back.
    let failed = ours
        .iter()
        .filter(|s| s.caption.key == "step.slab_grow_failed")
        .count();
    assert_eq!(failed, 3);
    // Each time the colour came first, then the index array's allocation.
    let colour = ours
        .iter()
        .position(|s| s.caption.key == "step.slab_grow_colour")
        .unwrap();
    let index_array = ours
        .iter()
        .position(|s| s.function == "slab_alloc_node" && s.path == "out of memory")
        .unwrap();
    assert!(colour < index_array);
    let colour_next = |rec: &Recorder| rec.machine().slab().caches[id].node[NodeId(0)].colour_next;
    assert_eq!(colour_next(&rec), failed as u32 % g.colour);
    // With pages for the slab and its index array, the next slab takes the colour after it.
    free_pages(&mut rec, CpuId(0), held.pop().unwrap()).unwrap();
    free_pages(&mut rec, CpuId(0), held.pop().unwrap()).unwrap();
    let obj = slab_alloc_node(&mut rec, id, CpuId(0), None);
    assert_ne!(obj, 0);
    let pfn = place_of(rec.machine(), obj).unwrap().pfn;
    let expected = (failed as u32 + 1) % g.colour;
    assert_eq!(
        rec.machine().slab().slabs[&pfn].colour_off,
        expected * g.colour_off
    );
    assert_eq!(colour_next(&rec), expected);
    for cursor in 1..=rec.cursor() {
        let snap = rec.snapshot_at(cursor).unwrap();
        let mut bad = check_slab(&snap);
        bad.extend(check_page_allocator(&snap));
        assert!(bad.is_empty(), "after step {cursor}: {bad:#?}");
    }
}
