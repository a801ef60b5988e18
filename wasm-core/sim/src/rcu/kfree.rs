//! `kfree_rcu()` (kernel/rcu/tree.c, v6.6): `kvfree_call_rcu()` queues a pointer on the
//! calling CPU's `krc`, `kfree_rcu_monitor()` hands the queue to RCU as a batch, and after the
//! grace period `kfree_rcu_work()` frees it: each page of pointers with one `kfree_bulk()`
//! (newest page first; SLUB's `kfree_bulk()` works from the end of the array, SLAB's from its
//! start), then the objects chained through their own `rcu_head`, newest first, one
//! `kvfree()` each.
//!
//! Where the pointers live:
//! - `kfree_rcu(ptr, rhf)` (the scenario's `kfree_rcu`) records the pointer in a page of
//!   `struct kvfree_rcu_bulk_data`. It may not allocate: with no room in the newest page and
//!   no page in the CPU's page cache (`bkvcache`, empty at boot), the object is chained
//!   through its `rcu_head` instead (channel 3), and the page-cache worker
//!   (`fill_page_cache_func()`) allocates `rcu_min_cached_objs` pages for later calls.
//! - `kfree_rcu_mightsleep(ptr)` (no `rcu_head`) may allocate the page itself
//!   (`__get_free_page()`); if that fails it waits for a grace period and frees at once.
//! - A page done with goes back to the page cache while it holds fewer than
//!   `rcu_min_cached_objs` pages, else to the page allocator.
//!
//! Bad pointers are diagnostic steps: `kfree_rcu()` of what is not an allocated object, or of
//! an object already queued, is refused; a queued object freed meanwhile by `kfree()` is not
//! freed again when its batch runs (the kernel would: a double free it does not notice).

use super::event::RcuEvent;
use super::state::{kvfree_bulk_max_entr, RcuFunc, RCU_MIN_CACHED_OBJS};
use super::{call_rcu, emit, grace_period};
use crate::ids::CpuId;
use crate::machine::{Machine, Owner, Pfn};
use crate::page_alloc::{alloc_pages, free_pages};
use crate::slab_common;
use crate::trace::Recorder;

/// What `kvfree_call_rcu()` did with a pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KfreeRcuOutcome {
    /// Queued on the CPU's `krc`, to be freed after a grace period.
    Queued,
    /// `kfree_rcu_mightsleep()` found no page: it waited for a grace period and freed the
    /// object itself.
    FreedInline,
    /// NULL: nothing to do.
    Ignored,
    /// A bad pointer: a diagnostic step was recorded and nothing changed.
    Refused,
}

/// Whether `addr` is an object a caller holds (a slab object or a large kmalloc).
fn live_object(m: &Machine, addr: u64) -> bool {
    crate::allocator::ops(m).is_live_object(m, addr) || slab_common::is_large_kmalloc(m, addr)
}

/// 6.18+: whether `addr` waits in an `rcu_free` sheaf (a CPU's, or one submitted to RCU).
fn queued_in_sheaf(m: &Machine, addr: u64) -> bool {
    if m.profile.slub.sheaves() == crate::geometry::Sheaves::None {
        return false;
    }
    let st = m.slub();
    let holds = |id| {
        st.sheaves
            .get(&id)
            .is_some_and(|s| s.objects.contains(&addr))
    };
    let on_cpu = st
        .caches
        .iter()
        .any(|c| c.pcs.iter().any(|p| p.rcu_free.is_some_and(holds)));
    on_cpu
        || m.rcu.cblist.iter().flatten().any(|cb| match cb.func {
            RcuFunc::RcuFreeSheaf { sheaf, .. } => holds(sheaf),
            _ => false,
        })
}

/// `kfree_rcu_sheaf()` (mm/slab_common.c, 6.18+): the cache whose `rcu_free` sheaf takes
/// `addr` on `cpu`, if any: an object of a slab on the CPU's own node, in a cache with
/// sheaves.
fn sheaf_cache_for(m: &Machine, addr: u64, cpu: CpuId) -> Option<crate::ids::CacheId> {
    if m.profile.slub.sheaves() == crate::geometry::Sheaves::None {
        return None;
    }
    let place = crate::slub::place_of(m, addr)?;
    let slab = m.slub().slabs.get(&place.pfn)?;
    let cache = slab.cache;
    (m.slub().caches[cache].sheaf_capacity() > 0 && slab.node == m.cpu_node[cpu]).then_some(cache)
}

/// Whether some CPU's `krc` still waits to free `addr`.
fn queued(m: &Machine, addr: u64) -> bool {
    m.rcu
        .krc
        .iter()
        .any(|k| k.waiting_objects().any(|a| a == addr))
}

/// A refused `kfree_rcu()` of `addr`, as a step with this path and caption key.
fn refused(rec: &mut Recorder, path: &'static str, key: &'static str, addr: u64, cpu: CpuId) {
    rec.call("kvfree_call_rcu", path, key, |rec| {
        rec.arg("cpu", cpu);
        rec.arg_addr("object", addr);
    });
}

/// `kvfree_call_rcu()` on `cpu`: `kfree_rcu(addr, rhf)`, or with `may_sleep`
/// `kfree_rcu_mightsleep(addr)`.
#[allow(
    clippy::too_many_lines,
    reason = "mirrors kvfree_call_rcu() of kernel/rcu/tree.c step by step, each refusal and fallback in its order"
)]
pub fn kvfree_call_rcu(
    rec: &mut Recorder,
    addr: u64,
    cpu: CpuId,
    may_sleep: bool,
) -> KfreeRcuOutcome {
    if addr == 0 {
        // kvfree_rcu_arg_2()/_1(): a NULL pointer never reaches kvfree_call_rcu().
        rec.call("kfree_rcu", "NULL", "step.kfree_rcu_null", |_| {});
        return KfreeRcuOutcome::Ignored;
    }
    let m = rec.machine();
    if queued_in_sheaf(m, addr) {
        refused(rec, "queued twice", "step.kfree_rcu_twice", addr, cpu);
        return KfreeRcuOutcome::Refused;
    }
    if !live_object(m, addr) {
        refused(
            rec,
            "not the start of an allocated object",
            "step.kfree_rcu_invalid",
            addr,
            cpu,
        );
        return KfreeRcuOutcome::Refused;
    }
    if queued(m, addr) {
        // With CONFIG_DEBUG_OBJECTS_RCU_HEAD: "Double-freed call" and the pointer is leaked;
        // without it, the object is freed twice after the grace period.
        refused(rec, "queued twice", "step.kfree_rcu_twice", addr, cpu);
        return KfreeRcuOutcome::Refused;
    }
    // 6.18+: kfree_rcu_sheaf() first, for either kind of call.
    if let Some(cache) = sheaf_cache_for(m, addr, cpu) {
        let sheafed = crate::smp::run_sync!(rec, cpu, |k| {
            crate::slub::sheaves::sync::__kfree_rcu_sheaf(k, cache, addr)
        });
        if sheafed {
            return KfreeRcuOutcome::Queued;
        }
    }
    let m = rec.machine();
    let max = kvfree_bulk_max_entr(m.page.page_size) as usize;
    let krc = &m.rcu.krc[cpu];
    let room = krc
        .queued
        .bulk
        .first()
        .is_some_and(|b| b.records.len() < max);
    let cached = krc.bkvcache.last().copied();
    let gp = m.rcu.next_gp();
    let arm = !krc.monitor_pending;
    let (path, key) = match (room, cached, may_sleep) {
        (true, _, _) => ("record in the newest page", "step.kfree_rcu_record"),
        (false, Some(_), _) => ("new page from the page cache", "step.kfree_rcu_cached_page"),
        (false, None, true) => (
            "no cached page: __get_free_page()",
            "step.kfree_rcu_alloc_page",
        ),
        (false, None, false) => (
            "no page: chain through the rcu_head",
            "step.kfree_rcu_chain",
        ),
    };
    let (page, outcome) = rec.call("kvfree_call_rcu", path, key, |rec| {
        rec.arg("cpu", cpu);
        rec.arg_addr("object", addr);
        let mut page = if room { None } else { cached };
        if let Some(pfn) = page {
            emit(
                rec,
                RcuEvent::KrcPageAttached {
                    cpu,
                    pfn,
                    cached: true,
                },
            );
        } else if !room && may_sleep {
            // __get_free_page(GFP_KERNEL | __GFP_NORETRY | __GFP_NOMEMALLOC | __GFP_NOWARN), with
            // the krc lock dropped.
            page = alloc_pages(rec, cpu, None, 0, Owner::KfreeRcu { cpu }).ok();
            if let Some(pfn) = page {
                emit(
                    rec,
                    RcuEvent::KrcPageAttached {
                        cpu,
                        pfn,
                        cached: false,
                    },
                );
            }
        }
        let outcome = if room || page.is_some() {
            if let Some(pfn) = page {
                rec.arg("pfn", pfn);
            }
            emit(rec, RcuEvent::KrcPointerRecorded { cpu, addr, gp });
            KfreeRcuOutcome::Queued
        } else if !may_sleep {
            emit(rec, RcuEvent::KrcObjectChained { cpu, addr, gp });
            KfreeRcuOutcome::Queued
        } else {
            KfreeRcuOutcome::FreedInline
        };
        if outcome == KfreeRcuOutcome::Queued && arm {
            emit(rec, RcuEvent::KrcMonitorSet { cpu, pending: true });
        }
        (page, outcome)
    });
    if !room && page.is_none() {
        // run_page_cache_worker(): its work runs next.
        fill_page_cache_func(rec, cpu);
    }
    if outcome == KfreeRcuOutcome::FreedInline {
        // kvfree_call_rcu() of a pointer it could not record: synchronize_rcu(), then kvfree().
        rec.call(
            "kvfree_call_rcu",
            "no page: synchronize_rcu() and kvfree()",
            "step.kfree_rcu_inline",
            |rec| {
                rec.arg("cpu", cpu);
                rec.arg_addr("object", addr);
                grace_period(rec);
            },
        );
        slab_common::kfree(rec, addr, cpu, None);
    }
    outcome
}

/// `fill_page_cache_func()` on `cpu`: allocates empty pointer pages until the page cache
/// holds `rcu_min_cached_objs`, or an allocation fails.
fn fill_page_cache_func(rec: &mut Recorder, cpu: CpuId) {
    let have = rec.machine().rcu.krc[cpu].bkvcache.len();
    if have >= RCU_MIN_CACHED_OBJS {
        return;
    }
    rec.call(
        "fill_page_cache_func",
        "refill the page cache",
        "step.krc_fill_page_cache",
        |rec| {
            rec.arg("cpu", cpu);
            let mut added = 0u32;
            for _ in have..RCU_MIN_CACHED_OBJS {
                let owner = Owner::KfreeRcu { cpu };
                let Ok(pfn) = alloc_pages(rec, cpu, None, 0, owner) else {
                    break;
                };
                emit(rec, RcuEvent::KrcPageCached { cpu, pfn });
                added += 1;
            }
            rec.arg("pages", added);
        },
    );
}

/// A `kfree_rcu_monitor` operation: the monitor's delayed work (`KFREE_DRAIN_JIFFIES`, 5 s)
/// has expired on `cpu`, or on every CPU where it is pending, and runs there.
pub fn kfree_rcu_monitor(rec: &mut Recorder, cpu: Option<CpuId>) {
    let krc = &rec.machine().rcu.krc;
    let cpus: Vec<CpuId> = match cpu {
        Some(c) => vec![c],
        None => krc.keys().collect(),
    };
    let pending: Vec<CpuId> = cpus
        .into_iter()
        .filter(|&c| krc[c].monitor_pending)
        .collect();
    if pending.is_empty() {
        rec.call(
            "kfree_rcu_monitor",
            "not pending",
            "step.krc_monitor_idle",
            |_| {},
        );
        return;
    }
    for cpu in pending {
        monitor(rec, cpu);
    }
}

/// `kfree_rcu_monitor()` on `cpu`: frees at once what no longer needs a grace period
/// (`kvfree_rcu_drain_ready()`), then hands what is still queued to a free batch
/// (`queue_rcu_work()`: a callback for the next grace period), or rearms itself when both
/// batches are busy. Its work reads pending until its last step.
#[doc(alias = "kfree_rcu_monitor")]
fn monitor(rec: &mut Recorder, cpu: CpuId) {
    let m = rec.machine();
    let queued = &m.rcu.krc[cpu].queued;
    // kvfree_rcu_drain_ready(): from the oldest page, those whose grace period has ended.
    let pages = queued
        .bulk
        .iter()
        .rev()
        .take_while(|b| m.rcu.elapsed(b.gp))
        .count();
    let head = !queued.head.is_empty() && m.rcu.elapsed(queued.head_gp);
    // Whether anything stays queued after the drain.
    let rest = pages < queued.bulk.len() || (!head && !queued.head.is_empty());
    if pages > 0 || head {
        let ready: usize = queued.bulk[queued.bulk.len() - pages..]
            .iter()
            .map(|b| b.records.len())
            .sum::<usize>()
            + if head { queued.head.len() } else { 0 };
        rec.call(
            "kvfree_rcu_drain_ready",
            "grace period over: free without a batch",
            "step.krc_drain_ready",
            |rec| {
                rec.arg("cpu", cpu);
                rec.arg("objects", ready as u32);
                emit(
                    rec,
                    RcuEvent::KrcReadyTaken {
                        cpu,
                        pages: pages as u32,
                        head,
                    },
                );
                if !rest {
                    emit(
                        rec,
                        RcuEvent::KrcMonitorSet {
                            cpu,
                            pending: false,
                        },
                    );
                }
            },
        );
        free_work(rec, cpu);
        if !rest {
            return;
        }
    }
    let krc = &rec.machine().rcu.krc[cpu];
    let objects = krc.queued.objects() as u32;
    // need_wait_for_krwp_work(): a batch is free once kfree_rcu_work() has taken its lists.
    let free = krc.krw_arr.iter().position(|b| b.is_empty());
    // kvfree_call_rcu() arms the monitor only with something queued, and every run that
    // empties the queue disarms it: a pending monitor finds pointers here.
    debug_assert!(objects > 0);
    if let Some(batch) = free {
        let batch = batch as u8;
        rec.call(
            "kfree_rcu_monitor",
            "queue_rcu_work",
            "step.krc_batch",
            |rec| {
                rec.arg("cpu", cpu);
                rec.arg("objects", objects);
                rec.arg("batch", batch);
                emit(
                    rec,
                    RcuEvent::KrcMonitorSet {
                        cpu,
                        pending: false,
                    },
                );
                emit(rec, RcuEvent::KrcBatchDetached { cpu, batch });
                call_rcu(rec, cpu, RcuFunc::KfreeRcuWork { batch });
            },
        );
    } else {
        rec.call(
            "kfree_rcu_monitor",
            "both batches busy: rearm",
            "step.krc_rearm",
            |rec| {
                rec.arg("cpu", cpu);
                rec.arg("objects", objects);
                // schedule_delayed_monitor_work() again: the work stays pending.
                emit(rec, RcuEvent::KrcMonitorSet { cpu, pending: true });
            },
        );
    }
}

/// The callback of `krw_arr[batch]` on `cpu` (`rcu_work_rcufn()`, its grace period over) and
/// the `kfree_rcu_work()` it queues, which takes the batch and frees it.
pub(super) fn kfree_rcu_work(rec: &mut Recorder, cpu: CpuId, batch: u8) {
    let objects = rec.machine().rcu.krc[cpu].krw_arr[batch as usize].objects() as u32;
    rec.call(
        "kfree_rcu_work",
        "after the grace period",
        "step.kfree_rcu_work",
        |rec| {
            rec.arg("cpu", cpu);
            rec.arg("batch", batch);
            rec.arg("objects", objects);
            let func = RcuFunc::KfreeRcuWork { batch };
            emit(rec, RcuEvent::CallbackInvoked { cpu, func });
            emit(rec, RcuEvent::KrcBatchTaken { cpu, batch });
        },
    );
    free_work(rec, cpu);
}

/// Frees what the work lists hold: each page with `kvfree_rcu_bulk()`, newest page first,
/// then the chained objects with `kvfree_rcu_list()`, newest first.
fn free_work(rec: &mut Recorder, cpu: CpuId) {
    let work = rec.machine().rcu.krc[cpu].work.clone();
    for page in &work.bulk {
        kvfree_rcu_bulk(rec, cpu, page.pfn, &page.records);
    }
    for &addr in &work.head {
        rec.call("kvfree_rcu_list", "kvfree", "step.kvfree_rcu_list", |rec| {
            rec.arg("cpu", cpu);
            rec.arg_addr("object", addr);
            emit(rec, RcuEvent::KrcObjectUnchained { cpu, addr });
        });
        slab_common::kfree(rec, addr, cpu, None);
    }
}

/// `kvfree_rcu_bulk()`: `kfree_bulk()` of a page's pointers, then the page goes back to the
/// page cache or to the page allocator.
fn kvfree_rcu_bulk(rec: &mut Recorder, cpu: CpuId, pfn: Pfn, records: &[u64]) {
    let mut live = Vec::with_capacity(records.len());
    for &addr in records {
        if live_object(rec.machine(), addr) {
            live.push(addr);
        } else {
            // Freed since kfree_rcu(): the kernel would free it a second time.
            rec.call(
                "kvfree_rcu_bulk",
                "pointer freed since kfree_rcu()",
                "step.kvfree_rcu_stale",
                |rec| {
                    rec.arg("cpu", cpu);
                    rec.arg_addr("object", addr);
                },
            );
        }
    }
    if !live.is_empty() {
        slab_common::kmem_cache_free_bulk(rec, None, &live, cpu);
    }
    let cached = rec.machine().rcu.krc[cpu].bkvcache.len() < RCU_MIN_CACHED_OBJS;
    rec.call(
        "kvfree_rcu_bulk",
        if cached {
            "page back to the page cache"
        } else {
            "page freed"
        },
        "step.kvfree_rcu_bulk",
        |rec| {
            rec.arg("cpu", cpu);
            rec.arg("pfn", pfn);
            rec.arg("count", records.len() as u32);
            emit(rec, RcuEvent::KrcPageReleased { cpu, pfn, cached });
            if !cached {
                let _ = free_pages(rec, cpu, pfn);
            }
        },
    );
}
