//! linux-7.2's sheaves against the worked examples of spec after 6.6, 6.4 (its figures come
//! from a model of the spec that matched real 7.2 kernels on every phase), with every
//! invariant checked after every step.

use super::*;
use crate::boot::BootOptions;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::check::{check_trace, FullChecks};
use crate::machine::{Machine, MachineConfig};
use crate::sysfs::sysfs_attribute;

/// A booted linux-7.2 machine of `cpus` CPUs on `nodes` nodes, 4096 pages each.
fn boot72(cpus: u32, nodes: u32) -> Recorder {
    let m = Machine::new(MachineConfig {
        cpus,
        nodes,
        cpu_node: vec![],
        page_size: 4096,
        pages_per_node: 4096,
        pcp_batch: None,
        pcp_high: None,
    })
    .unwrap()
    .with_profile(&crate::profile::LINUX_7_2);
    let mut rec = Recorder::new(m, true);
    create_kmalloc_caches(&mut rec, &BootOptions::default()).unwrap();
    rec
}

/// A new, unmergeable cache of `size`-byte objects (a usercopy region keeps it unmerged).
fn cache(rec: &mut Recorder, name: &str, size: u32) -> CacheId {
    kmem_cache_create_usercopy(
        rec,
        name,
        size,
        0,
        Default::default(),
        0,
        size,
        false,
        &BootOptions::default(),
    )
    .unwrap()
}

/// A sysfs count of `cache`: its total before the per-node part.
fn sysfs(rec: &Recorder, cache: &str, attr: &str) -> u64 {
    let text = sysfs_attribute(rec.machine(), cache, attr).unwrap();
    text.split_whitespace().next().unwrap().parse().unwrap()
}

fn alloc(rec: &mut Recorder, cache: CacheId, n: usize, cpu: u32) -> Vec<u64> {
    (0..n)
        .map(|_| slab_alloc_node(rec, cache, CpuId::new(cpu), None))
        .collect()
}

fn free(rec: &mut Recorder, objs: &[u64], cpu: u32) {
    for &o in objs {
        assert_eq!(kfree(rec, o, CpuId::new(cpu), None), FreeOutcome::Freed);
    }
}

fn checked(rec: &Recorder) {
    if let Err(v) = check_trace(rec, FullChecks::EVERY_STEP) {
        panic!("{v}");
    }
}

fn counts(rec: &Recorder, name: &str) -> (u64, u64, u64) {
    (
        sysfs(rec, name, "slabs"),
        sysfs(rec, name, "partial"),
        sysfs(rec, name, "objects"),
    )
}

fn sheaf_sizes(rec: &Recorder, cache: CacheId, cpu: u32) -> (usize, Option<usize>) {
    let st = rec.machine().slub();
    let pcs = st.caches[cache].pcs[CpuId::new(cpu)];
    let size = |s| st.sheaves[&s].objects.len();
    (pcs.main.map_or(0, size), pcs.spare.map(size))
}

fn barn(rec: &Recorder, cache: CacheId, node: u32) -> (usize, usize) {
    let b = rec.machine().slub().caches[cache].node[NodeId::new(node)]
        .barn
        .as_ref()
        .unwrap();
    (b.full.len(), b.empty.len())
}

#[test]
fn the_first_allocation_refills_a_whole_sheaf() {
    // 6.4 item 1: 128-byte objects, 32 a slab, capacity 60.
    let mut rec = boot72(4, 1);
    let c = cache(&mut rec, "t", 128);
    assert_eq!(sysfs(&rec, "t", "sheaf_capacity"), 60);
    let first = alloc(&mut rec, c, 1, 0)[0];
    assert_eq!(counts(&rec, "t"), (2, 1, 60));
    // The object is the last one put in the sheaf: from the second slab, its 28th.
    let second = rec.machine().slub().caches[c].node[NodeId::new(0)].partial[0];
    assert_eq!(first, rec.machine().object_addr(second, 128, 27));
    // The emptied main is the spare now.
    assert_eq!(sheaf_sizes(&rec, c, 0), (59, Some(0)));
    checked(&rec);
}

#[test]
fn ninety_six_allocations_pull_two_sheaves_and_frees_stay_in_them() {
    // 6.4 items 2 and 3.
    let mut rec = boot72(4, 1);
    let c = cache(&mut rec, "t", 128);
    let a = alloc(&mut rec, c, 96, 0);
    assert_eq!(counts(&rec, "t"), (4, 1, 120));
    assert_eq!(sheaf_sizes(&rec, c, 0).0, 24);
    free(&mut rec, &a, 0);
    assert_eq!(counts(&rec, "t"), (4, 1, 120));
    assert_eq!(sheaf_sizes(&rec, c, 0), (60, Some(60)));
    let b = alloc(&mut rec, c, 96, 0);
    assert_eq!(counts(&rec, "t"), (4, 1, 120));
    // Most recently freed first: the last 60 freed come back first, newest first.
    let mut expect: Vec<u64> = a[36..].iter().rev().copied().collect();
    expect.extend(a[..36].iter().rev());
    assert_eq!(b, expect);
    checked(&rec);
}

#[test]
fn another_cpu_keeps_what_it_frees_until_its_sheaves_overflow() {
    // 6.4 item 4: cpu0 allocates 100, cpu1 frees them: all in cpu1's sheaves.
    let mut rec = boot72(4, 1);
    let c = cache(&mut rec, "t", 128);
    let a = alloc(&mut rec, c, 100, 0);
    free(&mut rec, &a, 1);
    assert_eq!(sheaf_sizes(&rec, c, 1), (40, Some(60)));
    assert_eq!(barn(&rec, c, 0), (0, 0));
    let slabs = sysfs(&rec, "t", "slabs");
    // cpu1 gets them back, the last freed first.
    let b = alloc(&mut rec, c, 100, 1);
    assert_eq!(b, a.iter().rev().copied().collect::<Vec<_>>());
    assert_eq!(sysfs(&rec, "t", "slabs"), slabs);
    // cpu0 cannot see what cpu1 holds: its 20 left-overs, then new slabs.
    free(&mut rec, &b, 1);
    let before = sysfs(&rec, "t", "slabs");
    alloc(&mut rec, c, 100, 0);
    assert_eq!(sysfs(&rec, "t", "slabs"), before + 4);
    checked(&rec);
}

#[test]
fn a_mass_free_keeps_twelve_sheaves_and_flushes_the_rest() {
    // 6.4 item 5.
    let mut rec = boot72(4, 1);
    let c = cache(&mut rec, "t", 128);
    let a = alloc(&mut rec, c, 640, 0);
    assert_eq!(counts(&rec, "t"), (21, 1, 660));
    free(&mut rec, &a, 0);
    assert_eq!(counts(&rec, "t"), (21, 1, 660));
    assert_eq!(barn(&rec, c, 0), (9, 0));
    let d = cache(&mut rec, "u", 128);
    let b = alloc(&mut rec, d, 1280, 0);
    assert_eq!(counts(&rec, "u"), (42, 1, 1320));
    free(&mut rec, &b, 0);
    assert_eq!(counts(&rec, "u"), (27, 9, 720));
    assert_eq!(barn(&rec, d, 0), (10, 0));
    checked(&rec);
}

#[test]
fn a_small_capacity_cache_flushes_four_at_a_time() {
    // 6.4 item 6: 4096-byte objects, order 3, 8 a slab, capacity 4, min_partial 6.
    let mut rec = boot72(4, 1);
    let c = cache(&mut rec, "t", 4096);
    assert_eq!(sysfs(&rec, "t", "sheaf_capacity"), 4);
    let a = alloc(&mut rec, c, 64, 0);
    assert_eq!(counts(&rec, "t"), (8, 0, 64));
    free(&mut rec, &a, 0);
    assert_eq!(counts(&rec, "t"), (8, 3, 48));
    checked(&rec);
}

#[test]
fn frees_from_another_node_bypass_the_sheaves() {
    // 6.4 item 8: two nodes, cpu0 on node 0, cpu2 on node 1.
    let mut rec = boot72(4, 2);
    let c = cache(&mut rec, "t", 128);
    let a = alloc(&mut rec, c, 100, 0);
    free(&mut rec, &a, 2);
    // Straight back to their slabs, all on node 0's partial list now.
    assert_eq!(sheaf_sizes(&rec, c, 2).0, 0);
    assert_eq!(counts(&rec, "t"), (4, 4, 20));
    // cpu2 does not raid node 0 (only 4 partial slabs, not more than min_partial 5).
    alloc(&mut rec, c, 100, 2);
    assert_eq!(sysfs(&rec, "t", "slabs"), 8);
    checked(&rec);
}

#[test]
fn the_bootstrap_and_debug_caches_take_one_object_at_a_time() {
    let mut rec = boot72(4, 1);
    let switches = BootOptions {
        slub_debug: crate::geometry::SlabFlags {
            consistency_checks: true,
            ..Default::default()
        },
        ..BootOptions::default()
    };
    let c = kmem_cache_create(
        &mut rec,
        "dbg",
        128,
        0,
        Default::default(),
        false,
        &switches,
    )
    .unwrap();
    assert_eq!(sysfs(&rec, "dbg", "sheaf_capacity"), 0);
    alloc(&mut rec, c, 3, 0);
    assert_eq!(counts(&rec, "dbg"), (1, 1, 3));
    checked(&rec);
}

/// A booted linux-6.18 machine.
fn boot618(cpus: u32, nodes: u32) -> Recorder {
    let m = Machine::new(MachineConfig {
        cpus,
        nodes,
        cpu_node: vec![],
        page_size: 4096,
        pages_per_node: 4096,
        pcp_batch: None,
        pcp_high: None,
    })
    .unwrap()
    .with_profile(&crate::profile::LINUX_6_18);
    let mut rec = Recorder::new(m, true);
    create_kmalloc_caches(&mut rec, &BootOptions::default()).unwrap();
    rec
}

/// A cache of `size`-byte objects that asks for sheaves of `capacity` (6.18+).
fn sheaf_cache(rec: &mut Recorder, name: &str, size: u32, capacity: u32) -> CacheId {
    let args = crate::allocator::CacheArgs {
        name,
        size,
        align: 0,
        flags: Default::default(),
        useroffset: 0,
        usersize: 0,
        ctor: false,
        freeptr_offset: None,
        sheaf_capacity: Some(capacity),
    };
    super::create::kmem_cache_create_args(rec, &args, &BootOptions::default()).unwrap()
}

#[test]
fn a_6_18_refill_bulk_allocates_through_the_cpu_slab() {
    // Spec after 6.6, 6.5: capacity 32, 16 objects a slab. The first allocation fills a sheaf
    // with 32 objects of the cpu-slab layer: new slab A (all 16; exhausted), then new slab B
    // (16; the cpu slab now), and returns B's last object.
    let mut rec = boot618(4, 1);
    let c = sheaf_cache(&mut rec, "t", 256, 32);
    assert_eq!(sysfs(&rec, "t", "sheaf_capacity"), 32);
    let first = alloc(&mut rec, c, 1, 0)[0];
    let st = rec.machine().slub();
    let cpu_slab = st.caches[c].cpu[CpuId::new(0)].slab.unwrap();
    assert_eq!(first, rec.machine().object_addr(cpu_slab, 256, 15));
    assert_eq!(sysfs(&rec, "t", "slabs"), 2);
    assert_eq!(sheaf_sizes(&rec, c, 0).0, 31);
    // The cpu slab is exhausted too: its objects are all in the sheaf.
    assert_eq!(st.caches[c].cpu[CpuId::new(0)].freelist, 0);
    checked(&rec);
}

#[test]
fn a_6_18_cache_without_sheaves_is_6_12s_and_a_sheaf_cache_is_never_merged() {
    let mut rec = boot618(2, 1);
    let plain = cache(&mut rec, "plain", 192);
    assert_eq!(sysfs(&rec, "plain", "sheaf_capacity"), 0);
    assert!(rec.machine().slub().caches[plain].pcs.is_empty());
    let a = sheaf_cache(&mut rec, "a", 64, 32);
    let b = sheaf_cache(&mut rec, "b", 64, 32);
    assert_ne!(a, b);
    // A later mergeable 64-byte cache does not merge into one with sheaves.
    let m = kmem_cache_create(
        &mut rec,
        "m",
        64,
        0,
        Default::default(),
        false,
        &BootOptions::default(),
    )
    .unwrap();
    assert_ne!(m, a);
    let objs = alloc(&mut rec, a, 40, 0);
    free(&mut rec, &objs, 1);
    checked(&rec);
}
