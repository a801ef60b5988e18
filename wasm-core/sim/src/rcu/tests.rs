//! RCU tests: the grace period of `SLAB_TYPESAFE_BY_RCU` slabs under both allocators, what
//! `synchronize_rcu()` and `rcu_barrier()` do and do not wait for, `kmem_cache_destroy()`'s
//! barrier, and `kfree_rcu()` from `kvfree_call_rcu()` to `kfree_bulk()` of each batch.

use super::check::check_rcu;
use super::state::{kvfree_bulk_max_entr, RcuFunc, RCU_MIN_CACHED_OBJS};
use super::*;
use crate::boot::Allocator;
use crate::boot::BootOptions;
use crate::geometry::SlabFlags;
use crate::ids::{CacheId, CpuId};
use crate::machine::check::{check_trace, FullChecks};
use crate::machine::{FrameState, Machine, MachineConfig, Owner};
use crate::slabinfo::slabinfo;

fn boot(allocator: Allocator, cpus: u32, pages: u32) -> Recorder {
    let m = Machine::new_seeded(
        MachineConfig {
            cpus,
            nodes: 1,
            cpu_node: vec![],
            page_size: 4096,
            pages_per_node: pages,
            pcp_batch: Some(3),
            pcp_high: Some(12),
        },
        0,
    )
    .unwrap()
    .with_allocator(allocator);
    let mut rec = Recorder::new(m, true);
    match allocator {
        Allocator::Slub => crate::slub::create_kmalloc_caches(&mut rec, &BootOptions::default()),
        Allocator::Slab => crate::slab::create_kmalloc_caches(&mut rec, &BootOptions::default()),
    }
    .unwrap();
    rec
}

fn rcu_cache(rec: &mut Recorder, name: &str, size: u32) -> CacheId {
    let flags = SlabFlags {
        typesafe_by_rcu: true,
        ..SlabFlags::default()
    };
    let boot = BootOptions::default();
    match rec.machine().allocator() {
        Allocator::Slub => crate::slub::kmem_cache_create(rec, name, size, 0, flags, false, &boot),
        Allocator::Slab => crate::slab::kmem_cache_create(rec, name, size, 0, flags, false, &boot),
    }
    .unwrap()
}

fn alloc(rec: &mut Recorder, cache: CacheId, cpu: CpuId) -> u64 {
    let obj = match rec.machine().allocator() {
        Allocator::Slub => crate::slub::slab_alloc_node(rec, cache, cpu, None),
        Allocator::Slab => crate::slab::slab_alloc_node(rec, cache, cpu, None),
    };
    assert_ne!(obj, 0);
    obj
}

fn kmalloc(rec: &mut Recorder, size: u64, cpu: CpuId) -> u64 {
    let obj = match rec.machine().allocator() {
        Allocator::Slub => crate::slub::kmalloc(rec, size, cpu, None),
        Allocator::Slab => crate::slab::kmalloc(rec, size, cpu, None),
    };
    assert_ne!(obj, 0);
    obj
}

fn free(rec: &mut Recorder, obj: u64, cpu: CpuId) {
    match rec.machine().allocator() {
        Allocator::Slub => crate::slub::kfree(rec, obj, cpu, None),
        Allocator::Slab => crate::slab::kfree(rec, obj, cpu, None),
    };
}

fn shrink(rec: &mut Recorder, cache: CacheId, cpu: CpuId) {
    match rec.machine().allocator() {
        Allocator::Slub => crate::slub::kmem_cache_shrink(rec, cache, cpu),
        Allocator::Slab => {
            crate::slab::kmem_cache_shrink(rec, cache, cpu);
        }
    }
}

/// Every invariant holds after every step recorded so far (what the step touched, and
/// everything), and the live machine replays.
fn consistent(rec: &Recorder) {
    if let Err(v) = check_trace(rec, FullChecks::EVERY_STEP) {
        panic!("{v}");
    }
    assert_eq!(&rec.snapshot_at(rec.cursor()).unwrap(), rec.machine());
}

/// Free pages: in the buddy lists and on every pcp list.
fn free_pages(m: &Machine) -> u64 {
    m.zones.iter().map(|z| z.free_pages).sum::<u64>()
        + m.pcp.iter().map(|p| u64::from(p.count)).sum::<u64>()
}

fn state(rec: &Recorder, pfn: Pfn) -> FrameState {
    rec.machine().frames[pfn].state
}

/// The first pages of the slabs holding `objs`.
fn slab_pfns(rec: &Recorder, objs: &[u64]) -> Vec<Pfn> {
    let m = rec.machine();
    let mut pfns: Vec<Pfn> = objs
        .iter()
        .map(|&o| match m.allocator() {
            Allocator::Slub => crate::slub::place_of(m, o).unwrap().pfn,
            Allocator::Slab => crate::slab::place_of(m, o).unwrap().pfn,
        })
        .collect();
    pfns.sort_unstable();
    pfns.dedup();
    pfns
}

/// SLUB `free_slab()` / SLAB `slab_destroy()` of a `SLAB_TYPESAFE_BY_RCU` cache hand the pages
/// to `call_rcu()`: after the shrink that empties the slabs, their pages are neither a slab
/// of the cache (slabinfo counts none) nor free; `synchronize_rcu()` ends the grace period
/// but runs no callback; `rcu_barrier()` runs them, on the CPU that queued them, and the
/// pages go to that CPU's pcp list.
#[test]
fn typesafe_by_rcu_slab_pages_wait_for_rcu_barrier() {
    for allocator in [Allocator::Slub, Allocator::Slab] {
        let mut rec = boot(allocator, 2, 1024);
        let id = rcu_cache(&mut rec, "rcu_obj", 512);
        let objs: Vec<u64> = (0..24).map(|_| alloc(&mut rec, id, CpuId(0))).collect();
        let pfns = slab_pfns(&rec, &objs);
        assert!(pfns.len() >= 2, "{allocator:?}");
        for &o in &objs {
            free(&mut rec, o, CpuId(0));
        }
        let before = free_pages(rec.machine());
        let mut pages = 0;
        shrink(&mut rec, id, CpuId(1));
        for &pfn in &pfns {
            let FrameState::Allocated { order, owner } = state(&rec, pfn) else {
                panic!("{allocator:?}: pfn {pfn} is {:?}", state(&rec, pfn));
            };
            assert_eq!(owner, Owner::SlabRcu { cache: id }, "{allocator:?}");
            pages += 1u64 << order;
        }
        assert_eq!(free_pages(rec.machine()), before, "{allocator:?}");
        let info = slabinfo(rec.machine());
        let line = info.lines().find(|l| l.starts_with("rcu_obj ")).unwrap();
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((cols[1], cols[2]), ("0", "0"), "{allocator:?}: {line}");
        assert_eq!(rec.machine().rcu.cblist[CpuId(1)].len(), pfns.len());
        assert!(rec.machine().rcu.cblist[CpuId(0)].is_empty());

        synchronize_rcu(&mut rec);
        assert_eq!(free_pages(rec.machine()), before, "{allocator:?}");
        assert_eq!(rec.machine().rcu.pending(), pfns.len());

        rcu_barrier(&mut rec);
        assert_eq!(rec.machine().rcu.pending(), 0);
        assert_eq!(free_pages(rec.machine()), before + pages, "{allocator:?}");
        for &pfn in &pfns {
            assert!(
                matches!(state(&rec, pfn), FrameState::Pcp { cpu: CpuId(1), .. }),
                "{allocator:?}: pfn {pfn} is {:?}",
                state(&rec, pfn)
            );
        }
        consistent(&rec);
    }
}

/// A second `rcu_barrier()` finds nothing to wait for; a slab freed after a grace period
/// waits for the next one, and `rcu_barrier()` ends it.
#[test]
fn each_callback_waits_for_the_grace_period_after_its_call_rcu() {
    let mut rec = boot(Allocator::Slub, 1, 1024);
    let id = rcu_cache(&mut rec, "rcu_obj", 1024);
    let a: Vec<u64> = (0..16).map(|_| alloc(&mut rec, id, CpuId(0))).collect();
    for &o in &a {
        free(&mut rec, o, CpuId(0));
    }
    shrink(&mut rec, id, CpuId(0));
    synchronize_rcu(&mut rec);
    let b: Vec<u64> = (0..16).map(|_| alloc(&mut rec, id, CpuId(0))).collect();
    for &o in &b {
        free(&mut rec, o, CpuId(0));
    }
    shrink(&mut rec, id, CpuId(0));
    let m = &rec.machine().rcu;
    assert_eq!(m.completed, 1);
    let gps: Vec<u32> = m.cblist[CpuId(0)].iter().map(|c| c.gp).collect();
    assert!(gps.contains(&1) && gps.contains(&2), "{gps:?}");
    assert!(gps.windows(2).all(|w| w[0] <= w[1]));
    rcu_barrier(&mut rec);
    assert_eq!(rec.machine().rcu.completed, 2);
    assert_eq!(rec.machine().rcu.pending(), 0);
    let steps = rec.step_count();
    rcu_barrier(&mut rec);
    assert_eq!(rec.step_count(), steps + 1);
    assert_eq!(
        rec.machine().rcu.completed,
        2,
        "no callbacks: no grace period"
    );
    consistent(&rec);
}

/// `kmem_cache_destroy()` of a `SLAB_TYPESAFE_BY_RCU` cache ends with
/// `slab_caches_to_rcu_destroy_workfn()`'s `rcu_barrier()`: the cache's own slabs and every
/// other callback queued before it have run.
#[test]
fn destroying_a_typesafe_by_rcu_cache_waits_for_rcu_barrier() {
    for allocator in [Allocator::Slub, Allocator::Slab] {
        let mut rec = boot(allocator, 2, 1024);
        let other = rcu_cache(&mut rec, "other", 256);
        let id = rcu_cache(&mut rec, "doomed", 256);
        let o: Vec<u64> = (0..20).map(|_| alloc(&mut rec, other, CpuId(1))).collect();
        for &x in &o {
            free(&mut rec, x, CpuId(1));
        }
        shrink(&mut rec, other, CpuId(1));
        let d: Vec<u64> = (0..20).map(|_| alloc(&mut rec, id, CpuId(0))).collect();
        for &x in &d {
            free(&mut rec, x, CpuId(0));
        }
        assert!(rec.machine().rcu.pending() > 0);
        let outcome = match allocator {
            Allocator::Slub => crate::slub::kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
            Allocator::Slab => crate::slab::kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
        };
        assert_eq!(outcome, crate::slab_common::DestroyOutcome::Destroyed);
        assert_eq!(rec.machine().rcu.pending(), 0, "{allocator:?}");
        let waiting = rec
            .machine()
            .frames
            .iter()
            .filter(|f| {
                matches!(
                    f.state,
                    FrameState::Allocated {
                        owner: Owner::SlabRcu { .. },
                        ..
                    }
                )
            })
            .count();
        assert_eq!(waiting, 0, "{allocator:?}");
        let functions: Vec<&str> = rec.steps().iter().map(|s| s.function).collect();
        let work = functions
            .iter()
            .rposition(|f| *f == "slab_caches_to_rcu_destroy_workfn")
            .expect("the destroy work ran");
        assert_eq!(functions[work + 1], "rcu_barrier");
        consistent(&rec);
    }
}

/// The run of one batch, step by step: the first `kfree_rcu()` on a CPU finds no page (the
/// page cache is empty at boot and `kfree_rcu(ptr, rhf)` may not allocate), so it chains the
/// object through its `rcu_head` and the page-cache worker allocates `rcu_min_cached_objs`
/// pages; the next ones go into a page. The monitor hands both to batch 0 with a callback;
/// `rcu_barrier()` runs it and `kfree_rcu_work()` frees the page's pointers with one
/// `kfree_bulk()` and then the chained object with `kfree()`: the allocator ends exactly as
/// if the caller had done those frees itself, in that order.
#[test]
fn kfree_rcu_frees_each_page_with_kfree_bulk_then_the_chained_objects() {
    for allocator in [Allocator::Slub, Allocator::Slab] {
        let mut rec = boot(allocator, 2, 1024);
        let objs: Vec<u64> = (0..6).map(|_| kmalloc(&mut rec, 64, CpuId(0))).collect();
        let mut twin = boot(allocator, 2, 1024);
        for &o in &objs {
            assert_eq!(kmalloc(&mut twin, 64, CpuId(0)), o);
        }
        let free_before = free_pages(rec.machine());

        assert_eq!(
            kvfree_call_rcu(&mut rec, objs[0], CpuId(0), false),
            KfreeRcuOutcome::Queued
        );
        let krc = &rec.machine().rcu.krc[CpuId(0)];
        assert_eq!(krc.queued.head, vec![objs[0]]);
        assert_eq!(krc.bkvcache.len(), RCU_MIN_CACHED_OBJS);
        assert!(krc.monitor_pending);
        assert_eq!(
            free_pages(rec.machine()),
            free_before - RCU_MIN_CACHED_OBJS as u64
        );
        for &o in &objs[1..] {
            kvfree_call_rcu(&mut rec, o, CpuId(0), false);
        }
        let krc = &rec.machine().rcu.krc[CpuId(0)];
        assert_eq!(krc.queued.bulk.len(), 1);
        assert_eq!(krc.queued.bulk[0].records, objs[1..]);
        assert_eq!(krc.bkvcache.len(), RCU_MIN_CACHED_OBJS - 1);
        // Queued objects are still allocated.
        assert_eq!(rec.machine().live_objects, 6);

        // rcu_barrier() does not wait for pointers no monitor has handed to RCU (6.6 has no
        // kvfree_rcu_barrier()).
        rcu_barrier(&mut rec);
        assert_eq!(rec.machine().rcu.krc[CpuId(0)].queued.objects(), 6);
        kfree_rcu_monitor(&mut rec, None);
        let krc = &rec.machine().rcu.krc[CpuId(0)];
        assert!(krc.queued.is_empty() && !krc.monitor_pending);
        assert_eq!(krc.krw_arr[0].objects(), 6);
        assert_eq!(
            rec.machine().rcu.cblist[CpuId(0)][0].func,
            RcuFunc::KfreeRcuWork { batch: 0 }
        );
        synchronize_rcu(&mut rec);
        assert_eq!(
            rec.machine().live_objects,
            6,
            "synchronize_rcu() runs no callback"
        );
        rcu_barrier(&mut rec);
        assert_eq!(rec.machine().live_objects, 0);
        let krc = &rec.machine().rcu.krc[CpuId(0)];
        assert!(krc.krw_arr[0].is_empty() && krc.work.is_empty());
        assert_eq!(krc.bkvcache.len(), RCU_MIN_CACHED_OBJS);
        consistent(&rec);

        // The twin frees the same objects the way kfree_rcu_work() does, on the same CPU.
        match allocator {
            Allocator::Slub => {
                crate::slub::kmem_cache_free_bulk(&mut twin, None, &objs[1..], CpuId(0));
            }
            Allocator::Slab => {
                crate::slab::kmem_cache_free_bulk(&mut twin, None, &objs[1..], CpuId(0))
            }
        }
        free(&mut twin, objs[0], CpuId(0));
        let (m, t) = (rec.machine(), twin.machine());
        match allocator {
            Allocator::Slub => {
                assert_eq!(m.slub().caches, t.slub().caches);
                assert_eq!(m.slub().slabs, t.slub().slabs);
            }
            Allocator::Slab => assert_eq!(m.slab(), t.slab()),
        }
    }
}

/// Pages of pointers are freed newest first, each with its own `kfree_bulk()`; a page goes
/// back to the page cache while it holds fewer than `rcu_min_cached_objs`, else to the page
/// allocator.
#[test]
fn full_pages_of_pointers_are_freed_newest_first() {
    let mut rec = boot(Allocator::Slub, 1, 2048);
    let max = kvfree_bulk_max_entr(4096) as usize;
    assert_eq!(max, 507);
    let objs: Vec<u64> = (0..max + 10)
        .map(|_| kmalloc(&mut rec, 8, CpuId(0)))
        .collect();
    let mut twin = boot(Allocator::Slub, 1, 2048);
    for &o in &objs {
        assert_eq!(kmalloc(&mut twin, 8, CpuId(0)), o);
    }
    // A warm page cache: one chained object first.
    for &o in &objs {
        kvfree_call_rcu(&mut rec, o, CpuId(0), false);
    }
    let q = &rec.machine().rcu.krc[CpuId(0)].queued;
    assert_eq!(q.head, vec![objs[0]]);
    assert_eq!(q.bulk.len(), 2);
    assert_eq!(q.bulk[0].records, objs[max + 1..]);
    assert_eq!(q.bulk[1].records, objs[1..max + 1]);
    let (newest, oldest) = (q.bulk[0].pfn, q.bulk[1].pfn);
    assert_eq!(
        rec.machine().rcu.krc[CpuId(0)].bkvcache.len(),
        RCU_MIN_CACHED_OBJS - 2
    );
    // One more page in the cache, so that it is full when the second page comes back.
    rec.call(
        "fill_page_cache_func",
        "test",
        "step.krc_fill_page_cache",
        |rec| {
            let owner = Owner::KfreeRcu { cpu: CpuId(0) };
            let spare = crate::page_alloc::alloc_pages(rec, CpuId(0), None, 0, owner).unwrap();
            emit(
                rec,
                RcuEvent::KrcPageCached {
                    cpu: CpuId(0),
                    pfn: spare,
                },
            );
        },
    );
    kfree_rcu_monitor(&mut rec, Some(CpuId(0)));
    rcu_barrier(&mut rec);
    assert_eq!(rec.machine().live_objects, 0);
    let released: Vec<(Pfn, &str)> = rec
        .steps()
        .iter()
        .filter(|s| s.function == "kvfree_rcu_bulk")
        .map(|s| {
            let pfn = s.events.iter().find_map(|e| match e {
                Event::Rcu(RcuEvent::KrcPageReleased { pfn, .. }) => Some(*pfn),
                _ => None,
            });
            (pfn.unwrap(), s.path)
        })
        .collect();
    assert_eq!(
        released,
        [
            (newest, "page back to the page cache"),
            (oldest, "page freed")
        ]
    );
    assert!(matches!(state(&rec, oldest), FrameState::Pcp { .. }));
    consistent(&rec);
    crate::slub::kmem_cache_free_bulk(&mut twin, None, &objs[max + 1..], CpuId(0));
    crate::slub::kmem_cache_free_bulk(&mut twin, None, &objs[1..max + 1], CpuId(0));
    crate::slub::kfree(&mut twin, objs[0], CpuId(0), None);
    assert_eq!(rec.machine().slub().caches, twin.machine().slub().caches);
    assert_eq!(rec.machine().slub().slabs, twin.machine().slub().slabs);
}

/// After `synchronize_rcu()`, the monitor frees the pages whose grace period is over at once
/// (`kvfree_rcu_drain_ready()`), without a batch or a callback; a page that took a pointer
/// after the grace period waits for a batch.
#[test]
fn the_monitor_frees_at_once_what_a_grace_period_already_covers() {
    let mut rec = boot(Allocator::Slub, 1, 1024);
    let objs: Vec<u64> = (0..4).map(|_| kmalloc(&mut rec, 128, CpuId(0))).collect();
    kvfree_call_rcu(&mut rec, objs[0], CpuId(0), false); // chained; fills the page cache
    kvfree_call_rcu(&mut rec, objs[1], CpuId(0), false); // into a page
    synchronize_rcu(&mut rec);
    kfree_rcu_monitor(&mut rec, None);
    assert_eq!(rec.machine().live_objects, 2);
    assert_eq!(rec.machine().rcu.pending(), 0);
    assert!(!rec.machine().rcu.krc[CpuId(0)].monitor_pending);
    assert!(rec
        .steps()
        .iter()
        .any(|s| s.function == "kvfree_rcu_drain_ready"));

    kvfree_call_rcu(&mut rec, objs[2], CpuId(0), false);
    synchronize_rcu(&mut rec);
    kvfree_call_rcu(&mut rec, objs[3], CpuId(0), false); // the same page: its gp_snap moves on
    kfree_rcu_monitor(&mut rec, None);
    assert_eq!(rec.machine().live_objects, 2);
    assert_eq!(rec.machine().rcu.krc[CpuId(0)].krw_arr[0].objects(), 2);
    rcu_barrier(&mut rec);
    assert_eq!(rec.machine().live_objects, 0);
    consistent(&rec);
}

/// With both batches waiting for their grace period, the monitor cannot hand on what is
/// queued and rearms itself.
#[test]
fn the_monitor_rearms_while_both_batches_wait() {
    let mut rec = boot(Allocator::Slab, 2, 1024);
    let objs: Vec<u64> = (0..3).map(|_| kmalloc(&mut rec, 64, CpuId(1))).collect();
    for &o in &objs {
        kvfree_call_rcu(&mut rec, o, CpuId(1), false);
        kfree_rcu_monitor(&mut rec, Some(CpuId(1)));
    }
    let krc = &rec.machine().rcu.krc[CpuId(1)];
    assert_eq!(krc.krw_arr.iter().map(|b| b.objects()).sum::<usize>(), 2);
    assert_eq!(krc.queued.objects(), 1);
    assert!(krc.monitor_pending);
    assert_eq!(rec.steps().last().unwrap().path, "both batches busy: rearm");
    rcu_barrier(&mut rec);
    assert_eq!(rec.machine().live_objects, 1);
    kfree_rcu_monitor(&mut rec, None);
    rcu_barrier(&mut rec);
    assert_eq!(rec.machine().live_objects, 0);
    consistent(&rec);
}

/// `kfree_rcu_mightsleep()` may allocate its page; when even that fails it waits for a grace
/// period and frees the object itself.
#[test]
fn kfree_rcu_mightsleep_allocates_its_page_or_frees_inline() {
    let mut rec = boot(Allocator::Slub, 1, 64);
    let max = kvfree_bulk_max_entr(4096) as usize;
    let objs: Vec<u64> = (0..=max).map(|_| kmalloc(&mut rec, 8, CpuId(0))).collect();
    let free_before = free_pages(rec.machine());
    assert_eq!(
        kvfree_call_rcu(&mut rec, objs[0], CpuId(0), true),
        KfreeRcuOutcome::Queued
    );
    let krc = &rec.machine().rcu.krc[CpuId(0)];
    assert_eq!(krc.queued.bulk.len(), 1);
    assert!(krc.bkvcache.is_empty() && krc.queued.head.is_empty());
    let page = krc.queued.bulk[0].pfn;
    assert_eq!(
        state(&rec, page),
        FrameState::Allocated {
            order: 0,
            owner: Owner::KfreeRcu { cpu: CpuId(0) }
        }
    );
    assert_eq!(free_pages(rec.machine()), free_before - 1);
    // Use up memory, then fill the page.
    while crate::page_alloc::alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).is_ok() {}
    for &o in &objs[1..max] {
        assert_eq!(
            kvfree_call_rcu(&mut rec, o, CpuId(0), true),
            KfreeRcuOutcome::Queued
        );
    }
    let completed = rec.machine().rcu.completed;
    let live = rec.machine().live_objects;
    assert_eq!(
        kvfree_call_rcu(&mut rec, objs[max], CpuId(0), true),
        KfreeRcuOutcome::FreedInline
    );
    assert_eq!(rec.machine().rcu.completed, completed + 1);
    assert_eq!(rec.machine().live_objects, live - 1);
    consistent(&rec);
}

/// Bad pointers: not an object, queued twice, or freed by `kfree()` while queued (the batch
/// skips it with a diagnostic and frees the rest).
#[test]
fn bad_kfree_rcu_pointers_are_diagnostic_steps() {
    let mut rec = boot(Allocator::Slub, 1, 1024);
    let a = kmalloc(&mut rec, 64, CpuId(0));
    let b = kmalloc(&mut rec, 64, CpuId(0));
    let c = kmalloc(&mut rec, 64, CpuId(0));
    assert_eq!(
        kvfree_call_rcu(&mut rec, 0, CpuId(0), false),
        KfreeRcuOutcome::Ignored
    );
    assert_eq!(
        kvfree_call_rcu(&mut rec, a + 8, CpuId(0), false),
        KfreeRcuOutcome::Refused
    );
    kvfree_call_rcu(&mut rec, a, CpuId(0), false);
    kvfree_call_rcu(&mut rec, b, CpuId(0), false);
    kvfree_call_rcu(&mut rec, c, CpuId(0), false);
    assert_eq!(
        kvfree_call_rcu(&mut rec, b, CpuId(0), false),
        KfreeRcuOutcome::Refused
    );
    assert_eq!(rec.steps().last().unwrap().path, "queued twice");
    free(&mut rec, b, CpuId(0));
    kfree_rcu_monitor(&mut rec, None);
    rcu_barrier(&mut rec);
    assert_eq!(rec.machine().live_objects, 0);
    assert!(rec
        .steps()
        .iter()
        .any(|s| s.path == "pointer freed since kfree_rcu()"));
    consistent(&rec);
}

/// The checker sees a page RCU holds twice or not at all.
#[test]
fn the_checker_accounts_for_every_page_rcu_holds() {
    let mut rec = boot(Allocator::Slub, 1, 1024);
    let a = kmalloc(&mut rec, 64, CpuId(0));
    kvfree_call_rcu(&mut rec, a, CpuId(0), false);
    assert!(check_rcu(rec.machine()).is_empty());
    let mut m = rec.machine().clone();
    let pfn = m.rcu.krc[CpuId(0)].bkvcache.pop().unwrap();
    assert!(check_rcu(&m)
        .iter()
        .any(|e| e.contains(&format!("{pfn:#x}"))));
    let mut m = rec.machine().clone();
    m.rcu.krc[CpuId(0)].monitor_pending = false;
    assert!(check_rcu(&m)
        .iter()
        .any(|e| e.contains("no monitor work is pending")));
}
