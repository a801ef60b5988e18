//! The incremental checker against the full one: a corruption of anything a step touched is
//! reported by the check of that step, as the full check reports it; a corruption of what no
//! step touches waits for the next full check. Each corruption is made on the replayed
//! machine right after the step, before the step's check.

use super::{check_machine, Checker, FullChecks, TraceCheck};
use crate::boot::{Allocator, BootOptions};
use crate::geometry::SlabFlags;
use crate::gfp::GFP_KERNEL;
use crate::ids::{CpuId, NodeId};
use crate::machine::{FrameState, Machine, MachineConfig, Owner, Pfn};
use crate::page_alloc::{alloc_pages, drain_local_pages, free_pages};
use crate::rcu;
use crate::rcu::event::RcuEvent;
use crate::rcu::state::RcuFunc;
use crate::slab::event::SlabEvent;
use crate::slab::state::SlabList;
use crate::slab_common::kfree;
use crate::trace::{Event, Recorder};

/// A booted machine of `cpus` CPUs on one node of `pages` pages, with pcp `batch` and `high`,
/// under `allocator`, its kmalloc caches created.
fn boot(allocator: Allocator, cpus: u32, pages: u32, pcp: (u32, u32)) -> Recorder {
    let config = MachineConfig {
        cpus,
        nodes: 1,
        cpu_node: Vec::new(),
        page_size: 4096,
        pages_per_node: pages,
        pcp_batch: Some(pcp.0),
        pcp_high: Some(pcp.1),
    };
    let m = Machine::new(config).unwrap().with_allocator(allocator);
    let mut rec = Recorder::new(m, true);
    match allocator {
        Allocator::Slub => crate::slub::create_kmalloc_caches(&mut rec, &BootOptions::default()),
        Allocator::Slab => crate::slab::create_kmalloc_caches(&mut rec, &BootOptions::default()),
    }
    .unwrap();
    rec
}

/// SLUB over the page allocator: slabs filled on cpu0, freed from cpu1 (`__slab_free()`, cpu
/// partial stacks, node partial lists, discards), and page blocks through pcp and buddy lists.
fn slub_workload() -> Recorder {
    let mut rec = boot(Allocator::Slub, 2, 256, (7, 28));
    let a: Vec<u64> = (0..48)
        .map(|_| crate::slub::kmalloc(&mut rec, 512, CpuId(0), None))
        .collect();
    for x in a {
        kfree(&mut rec, x, CpuId(1), None);
    }
    for _ in 0..12 {
        crate::slub::kmalloc(&mut rec, 512, CpuId(0), None);
    }
    let cache = crate::slub::kmalloc_cache_for(&rec, 512).unwrap().unwrap();
    crate::slub::flush_cpu_slab(&mut rec, cache, CpuId(1));
    let p = alloc_pages(&mut rec, CpuId(0), None, 2, Owner::Pages).unwrap();
    free_pages(&mut rec, CpuId(0), p).unwrap();
    let q: Vec<Pfn> = (0..20)
        .map(|_| alloc_pages(&mut rec, CpuId(1), None, 0, Owner::Pages).unwrap())
        .collect();
    for pfn in q {
        free_pages(&mut rec, CpuId(1), pfn).unwrap();
    }
    drain_local_pages(&mut rec, CpuId(1)).unwrap();
    rec
}

/// SLAB: array refills and flushes, slabs moving between the node lists.
fn slab_workload() -> Recorder {
    let mut rec = boot(Allocator::Slab, 2, 512, (7, 28));
    let kmalloc =
        |rec: &mut Recorder| crate::slab::__do_kmalloc_node(rec, 100, GFP_KERNEL, CpuId(0), None);
    let a: Vec<u64> = (0..200).map(|_| kmalloc(&mut rec)).collect();
    for x in a {
        kfree(&mut rec, x, CpuId(1), None);
    }
    for _ in 0..50 {
        kmalloc(&mut rec);
    }
    rec
}

/// RCU under SLUB: a `SLAB_TYPESAFE_BY_RCU` cache's empty slabs handed to `call_rcu()` by a
/// shrink, and `kfree_rcu()` pointers through the page cache, two batches and their callbacks.
fn rcu_workload() -> Recorder {
    let mut rec = boot(Allocator::Slub, 3, 64, (3, 12));
    let flags = SlabFlags {
        typesafe_by_rcu: true,
        ..SlabFlags::default()
    };
    let boot = BootOptions::default();
    let sighand = crate::slub::kmem_cache_create(&mut rec, "sighand", 512, 0, flags, false, &boot);
    let sighand = sighand.unwrap();
    let s: Vec<u64> = (0..16)
        .map(|_| crate::slub::slab_alloc_node(&mut rec, sighand, CpuId(0), None))
        .collect();
    for x in s {
        kfree(&mut rec, x, CpuId(0), Some(sighand));
    }
    crate::slub::kmem_cache_shrink(&mut rec, sighand, CpuId(1));
    rcu::synchronize_rcu(&mut rec);
    rcu::rcu_barrier(&mut rec);
    let k: Vec<u64> = (0..7)
        .map(|_| crate::slub::kmalloc(&mut rec, 64, CpuId(0), None))
        .collect();
    for &x in &k[..4] {
        rcu::kvfree_call_rcu(&mut rec, x, CpuId(0), false);
    }
    rcu::kfree_rcu_monitor(&mut rec, None);
    rcu::kvfree_call_rcu(&mut rec, k[4], CpuId(0), false);
    rcu::kfree_rcu_monitor(&mut rec, Some(CpuId(0)));
    rcu::kvfree_call_rcu(&mut rec, k[5], CpuId(0), false);
    rcu::kfree_rcu_monitor(&mut rec, Some(CpuId(0)));
    rcu::kfree_rcu_monitor(&mut rec, Some(CpuId(1)));
    rcu::synchronize_rcu(&mut rec);
    rcu::kfree_rcu_monitor(&mut rec, None);
    rcu::rcu_barrier(&mut rec);
    rec
}

/// Every step (index) with an event `pick` accepts, and what it returned.
fn steps_with<T>(rec: &Recorder, pick: impl Fn(&Event) -> Option<T>) -> Vec<(usize, T)> {
    (0..rec.step_count())
        .filter_map(|i| rec.step_events(i).iter().find_map(&pick).map(|t| (i, t)))
        .collect()
}

/// Step `i` of `rec` through a checker, then `corrupt` on the machine after it (given the
/// machine and what it picked). Returns what the check of the step and the full check report;
/// the step itself, uncorrupted, must check clean.
fn check_step_corrupted<T>(
    rec: &Recorder,
    i: usize,
    picked: T,
    corrupt: impl FnOnce(&mut Machine, T),
) -> (Vec<String>, Vec<String>) {
    let mut m = rec.snapshot_at(i).expect("recorded");
    let (mut checker, bad) = Checker::new(&m);
    assert!(bad.is_empty(), "{bad:?}");
    checker.begin(&m);
    rec.replay_step_inspecting(&mut m, i, |before, e| checker.before_event(before, e));
    let clean = checker.clone().end(&m);
    assert!(clean.is_empty(), "step {} checks clean: {clean:?}", i + 1);
    corrupt(&mut m, picked);
    (checker.end(&m), check_machine(&m))
}

/// The first step `pick` accepts whose corruption `corrupt` makes (it may decline a step by
/// returning false) is reported by both checks, the local one with `needle` in a line.
fn caught<T: Clone>(
    workload: fn() -> Recorder,
    needle: &str,
    pick: impl Fn(&Event) -> Option<T>,
    corrupt: impl Fn(&mut Machine, T) -> bool,
) {
    let rec = workload();
    for (i, picked) in steps_with(&rec, pick) {
        let mut made = false;
        let (local, full) = check_step_corrupted(&rec, i, picked, |m, t| made = corrupt(m, t));
        if !made {
            continue;
        }
        assert!(
            local.iter().any(|l| l.contains(needle)),
            "step {}: the local check missed it ({needle}): {local:?}",
            i + 1
        );
        assert!(!full.is_empty(), "the full check sees it too");
        return;
    }
    panic!("no step to corrupt for {needle}");
}

/// The first free object of a SLUB slab: on its own freelist, else on a cpu freelist.
fn a_free_object(m: &Machine, pfn: Pfn) -> Option<u64> {
    let slab = m.slub().slabs.get(&pfn)?;
    let s = &m.slub().caches[slab.cache];
    Some(slab.freelist).filter(|&f| f != 0).or_else(|| {
        s.cpu
            .iter()
            .find(|c| c.slab == Some(pfn) && c.freelist != 0)
            .map(|c| c.freelist)
    })
}

#[test]
fn a_broken_freelist_of_a_touched_slab_is_caught_at_its_step() {
    let freed = |e: &Event| match *e {
        Event::ObjectFreed { pfn, .. } => Some(pfn),
        _ => None,
    };
    caught(slub_workload, "on two freelists", freed, |m, pfn| {
        let Some(obj) = a_free_object(m, pfn) else {
            return false;
        };
        // The object's free pointer now points at itself: a cycle.
        let index = crate::slub::place_of(m, obj).expect("an object").index;
        let s = &m.slub().caches[m.slub().slabs[&pfn].cache];
        let word = s.freelist_ptr_encode(obj, s.freeptr_addr(obj));
        m.alloc.slub_mut().slabs.get_mut(&pfn).unwrap().words[index as usize] = word;
        true
    });
    caught(slub_workload, "inuse", freed, |m, pfn| {
        m.alloc.slub_mut().slabs.get_mut(&pfn).unwrap().inuse += 1;
        true
    });
}

#[test]
fn a_broken_cpu_structure_or_partial_stack_is_caught_at_its_step() {
    let cpu_freelist = |e: &Event| match *e {
        Event::CpuFreelistSet { cache, cpu, .. } => Some((cache, cpu)),
        _ => None,
    };
    caught(
        slub_workload,
        "has a freelist but no cpu slab",
        cpu_freelist,
        |m, (cache, cpu)| {
            let c = &mut m.alloc.slub_mut().caches[cache].cpu[cpu];
            if c.freelist == 0 {
                return false;
            }
            c.slab = None;
            true
        },
    );
    let pushed = |e: &Event| match *e {
        Event::CpuPartialSet { top: Some(top), .. } => Some(top),
        _ => None,
    };
    caught(
        slub_workload,
        "frozen/per-CPU/node-partial",
        pushed,
        |m, top| {
            match m.alloc.slub_mut().slabs.get_mut(&top) {
                Some(slab) if slab.frozen => slab.frozen = false,
                _ => return false,
            }
            true
        },
    );
}

#[test]
fn a_broken_node_list_or_node_counter_is_caught_at_its_step() {
    let added = |e: &Event| match *e {
        Event::NodePartialAdded {
            cache, node, pfn, ..
        } => Some((cache, node, pfn)),
        _ => None,
    };
    caught(
        slub_workload,
        "held more than once",
        added,
        |m, (cache, node, pfn)| {
            let list = &mut m.alloc.slub_mut().caches[cache].node[node].partial;
            if !list.contains(&pfn) {
                return false;
            }
            list.push(pfn);
            true
        },
    );
    let counted = |e: &Event| match *e {
        Event::SlabCounted { cache, node, .. } => Some((cache, node)),
        _ => None,
    };
    caught(slub_workload, "counts", counted, |m, (cache, node)| {
        m.alloc.slub_mut().caches[cache].node[node].nr_slabs += 1;
        true
    });
    let allocated = |e: &Event| match *e {
        Event::ObjectAllocated { .. } => Some(()),
        _ => None,
    };
    caught(slub_workload, "live_objects", allocated, |m, ()| {
        m.live_objects += 1;
        true
    });
}

#[test]
fn broken_pages_lists_and_counts_are_caught_at_their_step() {
    let pages = |e: &Event| match *e {
        Event::PagesAllocated { pfn, .. } => Some(pfn),
        _ => None,
    };
    caught(
        slub_workload,
        "detached at a step boundary",
        pages,
        |m, pfn| {
            let FrameState::Allocated { order, .. } = m.frames[pfn].state else {
                return false;
            };
            m.frames[pfn].state = FrameState::Detached { order };
            true
        },
    );
    let freed = |e: &Event| match *e {
        Event::FreeBlockAdded {
            node, pfn, order, ..
        } => Some((node, pfn, order)),
        _ => None,
    };
    let still_free =
        |m: &Machine, pfn: Pfn, order: u8| m.frames[pfn].state == FrameState::Buddy { order };
    caught(
        slub_workload,
        "links around",
        freed,
        |m, (_, pfn, order)| {
            if !still_free(m, pfn, order) {
                return false;
            }
            m.frames[pfn].next = pfn;
            true
        },
    );
    // Page conservation: the block leaves its list (length and NR_FREE_PAGES agree) but its
    // frame still says it is free, so its pages are counted nowhere.
    caught(
        slub_workload,
        "blocks are in its state",
        freed,
        |m, (node, pfn, order)| {
            if !still_free(m, pfn, order) {
                return false;
            }
            let zone = &mut m.zones[node];
            zone.free_area[order as usize].remove(&mut m.frames, pfn);
            zone.free_pages -= 1 << order;
            true
        },
    );
    caught(slub_workload, "NR_FREE_PAGES", freed, |m, (node, ..)| {
        m.zones[node].free_pages += 1;
        true
    });
    let pcp = |e: &Event| match *e {
        Event::PcpBlockAdded { cpu, node, .. } => Some((cpu, node)),
        _ => None,
    };
    caught(slub_workload, "pcp count", pcp, |m, (cpu, node)| {
        let i = m.pcp_index(cpu, node);
        m.pcp[i].count += 1;
        true
    });
}

#[test]
fn broken_slab_arrays_slabs_and_lists_are_caught_at_their_step() {
    let pushed = |e: &Event| match *e {
        Event::Slab(SlabEvent::AcPushed { addr, .. }) => Some(addr),
        _ => None,
    };
    caught(slab_workload, "and allocated", pushed, |m, addr| {
        let Some(p) = crate::slab::place_of(m, addr) else {
            return false;
        };
        let slab = m.alloc.slab_mut().slabs.get_mut(&p.pfn).unwrap();
        if slab.allocated[p.index as usize] {
            return false;
        }
        slab.allocated[p.index as usize] = true;
        true
    });
    let got = |e: &Event| match *e {
        Event::Slab(SlabEvent::ObjGot { pfn }) => Some(pfn),
        _ => None,
    };
    caught(slab_workload, "active but callers hold", got, |m, pfn| {
        m.alloc.slab_mut().slabs.get_mut(&pfn).unwrap().active -= 1;
        true
    });
    let listed = |e: &Event| match *e {
        Event::Slab(SlabEvent::SlabListed { pfn, .. }) => Some(pfn),
        _ => None,
    };
    caught(slab_workload, "says it is on", listed, |m, pfn| {
        let Some(slab) = m.alloc.slab_mut().slabs.get_mut(&pfn) else {
            return false;
        };
        slab.list = match slab.list {
            Some(SlabList::Free) => Some(SlabList::Partial),
            Some(_) => Some(SlabList::Free),
            None => return false,
        };
        true
    });
    let counts = |e: &Event| match *e {
        Event::Slab(SlabEvent::NodeCounts { cache, node, .. }) => Some((cache, node)),
        _ => None,
    };
    caught(slab_workload, "free_objects", counts, |m, (cache, node)| {
        m.alloc.slab_mut().caches[cache].node[node].free_objects += 1;
        true
    });
}

/// RCU under SLUB: a `SLAB_TYPESAFE_BY_RCU` cache's slabs waiting for a grace period, and
/// `kfree_rcu()` through its page cache, its batches and their callbacks.
#[test]
fn broken_rcu_callbacks_batches_and_pages_are_caught_at_their_step() {
    // A slab's pages handed to call_rcu() whose frame no longer says so.
    let queued_slab = |e: &Event| match *e {
        Event::Rcu(RcuEvent::CallbackQueued {
            func: RcuFunc::FreeSlab { pfn, .. },
            ..
        }) => Some(pfn),
        _ => None,
    };
    caught(rcu_workload, "but the page is", queued_slab, |m, pfn| {
        let FrameState::Allocated { order, .. } = m.frames[pfn].state else {
            return false;
        };
        m.frames[pfn].state = FrameState::Allocated {
            order,
            owner: Owner::Pages,
        };
        true
    });
    // A pointer page held twice (the page cache takes a page it already has).
    let cached = |e: &Event| match *e {
        Event::Rcu(RcuEvent::KrcPageCached { cpu, pfn }) => Some((cpu, pfn)),
        _ => None,
    };
    caught(
        rcu_workload,
        "held twice by RCU",
        cached,
        |m, (cpu, pfn)| {
            m.rcu.krc[cpu]
                .queued
                .bulk
                .push(crate::rcu::state::BulkData {
                    pfn,
                    gp: 0,
                    records: vec![0x1000],
                });
            true
        },
    );
    // A pointer queued, with no monitor armed, or queued on another CPU as well.
    let recorded = |e: &Event| match *e {
        Event::Rcu(RcuEvent::KrcPointerRecorded { cpu, addr, .. }) => Some((cpu, addr)),
        _ => None,
    };
    caught(
        rcu_workload,
        "no monitor work is pending",
        recorded,
        |m, (cpu, _)| {
            m.rcu.krc[cpu].monitor_pending = false;
            true
        },
    );
    caught(
        rcu_workload,
        "queued by kfree_rcu() twice",
        recorded,
        |m, (cpu, addr)| {
            let other = CpuId::from((cpu.index() + 1) % m.rcu.krc.len());
            m.rcu.krc[other].krw_arr[1].head.push(addr);
            true
        },
    );
    // A batch handed to RCU whose callback is lost.
    let detached = |e: &Event| match *e {
        Event::Rcu(RcuEvent::KrcBatchDetached { cpu, batch }) => Some((cpu, batch)),
        _ => None,
    };
    caught(rcu_workload, "0 callbacks", detached, |m, (cpu, batch)| {
        m.rcu.cblist[cpu].retain(|c| c.func != RcuFunc::KfreeRcuWork { batch });
        true
    });
    // A callback queued for a grace period before the one ahead of it.
    let queued = |e: &Event| match *e {
        Event::Rcu(RcuEvent::CallbackQueued { cpu, .. }) => Some(cpu),
        _ => None,
    };
    caught(rcu_workload, "waits for grace period", queued, |m, cpu| {
        let list = &mut m.rcu.cblist[cpu];
        if list.len() < 2 {
            return false;
        }
        let last = list.len() - 1;
        list[last].gp = list[last - 1].gp.saturating_sub(1);
        list[last].gp < list[last - 1].gp
    });
}

#[test]
fn a_corruption_no_step_touches_waits_for_the_next_full_check() {
    let rec = slub_workload();
    const EVERY: usize = 20;
    let mut check = TraceCheck::new(&rec, FullChecks::Every(EVERY)).expect("boots clean");
    let at = EVERY + 1;
    check.advance(&rec, at).expect("clean so far");
    // kmalloc-8k: a cache no step of the scenario uses.
    let m = check.machine_mut();
    let id = m
        .slub()
        .caches
        .position(|c| c.name == "kmalloc-8k")
        .unwrap();
    m.alloc.slub_mut().caches[id].node[NodeId(0)].nr_slabs += 1;
    check
        .advance(&rec, at + 1)
        .expect("the next step does not touch it");
    let next_full = (at + 2..=rec.step_count())
        .find(|&c| c % EVERY == 0 || rec.is_keyframe(c) || c == rec.step_count())
        .unwrap();
    let v = check.finish(&rec).expect_err("the full check sees it");
    assert_eq!(v.step, next_full);
    assert!(v.problems.iter().any(|p| p.contains("kmalloc-8k")), "{v}");
}
