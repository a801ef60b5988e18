//! Moving slabs between the cpu slab, the per-CPU partial stack and the node lists:
//! `put_cpu_partial()`, `__unfreeze_partials()`, `deactivate_slab()`, `flush_cpu_slab()`,
//! `discard_slab()` (mm/slub.c, v6.6; spec 2.7.3, 2.7.4).
//!
//! These record their events into the step their caller has open.

use super::cmpxchg::SlabWord;
use crate::ids::{CacheId, CpuId};
use crate::machine::{Damage, Pfn};
use crate::page_alloc::free_pages;
use crate::slub::mem::SlubMem;
use crate::smp::micro::{Access, Micro};
use crate::smp::{run_sync, Ctx};
use crate::trace::{End, Event, Recorder};
use std::future::Future;

/// `deactivate_slab()`'s `enum slab_modes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Partial,
    Free,
    FullNoList,
}

/// `discard_slab()`: uncount it and free its pages (on `cpu`), inside the caller's step.
///
/// `cache` is the cache whose code runs. After a free to the wrong cache that was not checked
/// it can be another cache than the slab's own: the kernel's `dec_slabs_node(cache)` then
/// takes the slab off counters that never counted it. The simulator takes it off the slab's
/// own cache and records that damage.
///
/// `free_slab()` of a `SLAB_TYPESAFE_BY_RCU` cache frees them through `call_rcu()` instead:
/// they wait for a grace period (`dec_slabs_node()` has already run, so no count shows them).
pub(crate) fn discard_slab(rec: &mut Recorder, cache: CacheId, cpu: CpuId, pfn: Pfn) {
    let slab = rec.machine().slub().slabs[&pfn].fields();
    let rcu = rec.machine().slub().caches[cache].flags.typesafe_by_rcu;
    // What discard_slab() does either way.
    let body = |rec: &mut Recorder| {
        rec.arg_cache("cache", cache);
        rec.arg("pfn", pfn);
        if slab.cache != cache {
            rec.emit(Event::DamageRecorded(Box::new(
                Damage::ForeignSlabDiscarded {
                    cache,
                    slab_cache: slab.cache,
                    pfn,
                    node: slab.node,
                    objects: slab.objects,
                },
            )));
        }
        rec.emit(Event::SlabUncounted {
            cache: slab.cache,
            node: slab.node,
            objects: slab.objects,
        });
        rec.emit(Event::SlabDiscarded { cache, pfn });
        if rcu {
            // rcu_free_slab() frees through slab->slab_cache, the slab's own cache.
            crate::rcu::free_slab_rcu(rec, cpu, slab.cache, pfn, slab.order);
        } else {
            let _ = free_pages(rec, cpu, pfn);
        }
    };
    if rcu {
        rec.call(
            "discard_slab",
            "SLAB_TYPESAFE_BY_RCU: call_rcu",
            "step.discard_slab_rcu",
            body,
        );
    } else {
        rec.call("discard_slab", "empty slab", "step.discard_slab", body);
    }
}

/// `flush_cpu_slab()` on `cpu`: deactivate its cpu slab and unfreeze its partial stack.
pub fn flush_cpu_slab(rec: &mut Recorder, cache: CacheId, cpu: CpuId) {
    run_sync!(rec, cpu, |k| sync::flush_cpu_slab_k(k, cache));
}

/// The paths that race with other CPUs: written once, run as async code by the
/// interleaving executor and as its synchronous twin (`sync`) by sequential runs.
#[slabscope_dual::dual]
pub(crate) mod asyn {
    use super::*;
    use crate::slub::alloc::asyn::detach_cpu_slab;
    use crate::slub::cmpxchg::asyn::{read_slab, slab_update_freelist};
    use crate::slub::free::asyn::set_freepointer_k;

    /// `put_cpu_partial()` (mm/slub.c, v6.6): under the local lock, push a frozen slab on this
    /// CPU's partial stack; with `drain`, a stack that already holds `cpu_partial_slabs` slabs is
    /// taken off whole and, after the lock is dropped, moved to the node lists.
    pub(crate) async fn put_cpu_partial(k: Ctx<'_>, cache: CacheId, pfn: Pfn, drain: bool) {
        let _f = k.frame("put_cpu_partial");
        k.local_lock_irqsave(cache).await;
        let cpu = k.cpu();
        let limit = k.cpu_partial_slabs(cache);
        let mut old = k.cpu_slab(cache, cpu).partial;
        let mut spill = None;
        let mut slabs = 0;
        if let Some(top) = old {
            let depth = k.slab_fields(top).slabs;
            if drain && depth >= limit {
                spill = Some(top);
                old = None;
            } else {
                slabs = depth;
            }
        }
        // The new top's `slab->slabs` (mm/slub.c, v6.6: the depth of the stack from it down).
        k.arg_always("slabs", slabs + 1);
        k.set_slab_partial_link(pfn, old, slabs + 1);
        k.set_cpu_partial(cache, cpu, Some(pfn));
        k.release(pfn);
        hold_list(k, spill);
        k.local_unlock_irqrestore(cache).await;
        if let Some(list) = spill {
            // CPU_PARTIAL_DRAIN
            k.arg("drained", 1u32);
            if k.slub_version().delayed_freezing() {
                __put_partials(k, cache, Some(list), false).await;
            } else {
                __unfreeze_partials(k, cache, Some(list)).await;
            }
        }
    }

    /// `__put_partials()` (mm/slub.c, 6.8+; v6.12.117): the slabs of a per-CPU partial list
    /// are not frozen any more, so no cmpxchg: under each node's `list_lock` (taken when the node
    /// changes), a slab goes to the tail of its node's partial list, or, empty while the node
    /// keeps `min_partial`, on `slab_to_discard`, freed from its head after the unlock. With
    /// `alone`, only the first slab (the cpu partial pop's `slab->next = NULL`).
    pub(crate) async fn __put_partials(k: Ctx<'_>, cache: CacheId, list: Option<Pfn>, alone: bool) {
        let _f = k.frame("__put_partials");
        let min_partial = k.min_partial(cache);
        let mut discard = Vec::new();
        let mut at = list;
        let mut locked = None;
        while let Some(pfn) = at {
            let slab = k.slab_fields(pfn);
            at = if alone { None } else { slab.next };
            if locked != Some(slab.node) {
                if let Some(n) = locked {
                    k.spin_unlock_irqrestore(cache, n).await;
                }
                locked = Some(slab.node);
                k.spin_lock_irqsave(cache, slab.node).await;
            }
            // The slab leaves the cpu partial stack (`slab->next` is not read again).
            k.set_slab_partial_link(pfn, None, 0);
            let inuse = k.slab_fields(pfn).inuse;
            let nr_partial = k.nr_partial(cache, slab.node) as u64;
            if inuse == 0 && nr_partial >= min_partial {
                discard.push(pfn);
            } else {
                k.release(pfn);
                k.add_partial(cache, slab.node, pfn, End::Tail); // FREE_ADD_PARTIAL
            }
        }
        if let Some(n) = locked {
            k.spin_unlock_irqrestore(cache, n).await;
        }
        // Pushed on the head of the discard list, freed from its head: the last one first.
        for pfn in discard.into_iter().rev() {
            discard_slab_k(k, cache, pfn).await; // DEACTIVATE_EMPTY, FREE_SLAB
        }
    }

    /// `__unfreeze_partials()` (mm/slub.c, v6.6): every slab of the detached list is unfrozen with
    /// a cmpxchg loop (remote frees race with it) under its node's `list_lock`, taken whenever the
    /// node changes from the previous slab's, and added to the tail of the node's partial list,
    /// or, when empty and the node already keeps `min_partial`, pushed on `slab_to_discard`
    /// (through `slab->next`) and freed from its head once the lock is dropped: last met, first
    /// discarded.
    pub(crate) async fn __unfreeze_partials(k: Ctx<'_>, cache: CacheId, list: Option<Pfn>) {
        let _f = k.frame("__unfreeze_partials");
        let min_partial = k.min_partial(cache);
        let mut discard = Vec::new();
        let mut at = list;
        let mut locked = None;
        while let Some(pfn) = at {
            let slab = k.slab_fields(pfn);
            at = slab.next;
            if locked != Some(slab.node) {
                if let Some(n) = locked {
                    k.spin_unlock_irqrestore(cache, n).await;
                }
                locked = Some(slab.node);
                k.spin_lock_irqsave(cache, slab.node).await;
            }
            loop {
                let old = read_slab(k, pfn).await;
                let new = SlabWord {
                    freelist: old.freelist,
                    inuse: old.inuse,
                    frozen: false,
                };
                // The slab leaves the cpu partial stack (`slab->next` cleared) as it is unfrozen.
                if slab_update_freelist(k, pfn, &old, new, "__unfreeze_partials", true).await {
                    let nr_partial = k.nr_partial(cache, slab.node) as u64;
                    if new.inuse == 0 && nr_partial >= min_partial {
                        discard.push(pfn);
                    } else {
                        k.release(pfn);
                        k.add_partial(cache, slab.node, pfn, End::Tail);
                    }
                    break;
                }
            }
        }
        if let Some(n) = locked {
            k.spin_unlock_irqrestore(cache, n).await;
        }
        // Pushed on the head of the discard list, freed from its head: the last one first.
        for pfn in discard.into_iter().rev() {
            discard_slab_k(k, cache, pfn).await;
        }
    }

    /// `deactivate_slab()` (mm/slub.c, v6.6; 6.8 reordered it, below): the former cpu slab, detached by the caller with the
    /// CPU's freelist `cpu_freelist`, takes that freelist back and is unfrozen with a cmpxchg
    /// loop (remote frees race with it). What follows is chosen before each cmpxchg: discarded
    /// when it will be empty and the node keeps `min_partial` (`M_FREE`), added to its node's
    /// partial list under the `list_lock` taken before the cmpxchg ("Taking the spinlock
    /// removes the possibility that acquire_slab() will see a slab that is frozen";
    /// `M_PARTIAL`, at the tail if others had freed to it, else the head), or left unlisted when
    /// full (`M_FULL_NOLIST`). From 6.8 (v6.12.117) the cmpxchg comes first and the choice
    /// after it, with the `list_lock` taken only to add the slab to the list; the outcomes are
    /// the same.
    pub(crate) async fn deactivate_slab(k: Ctx<'_>, cache: CacheId, pfn: Pfn, cpu_freelist: u64) {
        let _f = k.frame("deactivate_slab");
        // "if (slab->freelist) ... DEACTIVATE_TO_TAIL": a look at the slab before stage one.
        let first = read_slab(k, pfn).await;
        let end = if first.freelist != 0 {
            End::Tail
        } else {
            End::Head
        };
        // Stage one: count the CPU's free objects and find the last (objects the task holds).
        let (free_delta, tail) = k.freelist_count_tail(cpu_freelist);
        let (node, min_partial) = (k.slab_fields(pfn).node, k.min_partial(cache));
        let delayed = k.slub_version().delayed_freezing();
        // Stage two: splice it in front of the slab's own freelist and unfreeze.
        let (new, mode) = loop {
            // redo:
            let old = read_slab(k, pfn).await;
            let new = if cpu_freelist != 0 {
                let index = k.obj_to_index(pfn, tail);
                set_freepointer_k(k, pfn, index, old.freelist).await;
                SlabWord {
                    freelist: cpu_freelist,
                    inuse: old.inuse - free_delta,
                    frozen: false,
                }
            } else {
                SlabWord {
                    freelist: old.freelist,
                    inuse: old.inuse,
                    frozen: false,
                }
            };
            if delayed {
                // 6.8+ (v6.12.117): unfreeze first, decide after ("unfreezing slab").
                if slab_update_freelist(k, pfn, &old, new, "unfreezing slab", false).await {
                    // Its freelist is back on it; the task holds the slab, on no list, until
                    // it is discarded or listed.
                    k.hold(pfn, 0);
                    let nr_partial = k.nr_partial(cache, node) as u64;
                    let mode = if new.inuse == 0 && nr_partial >= min_partial {
                        Mode::Free
                    } else if new.freelist != 0 {
                        k.spin_lock_irqsave(cache, node).await;
                        k.release(pfn);
                        Mode::Partial
                    } else {
                        k.release(pfn);
                        Mode::FullNoList
                    };
                    break (new, mode);
                }
                continue;
            }
            let nr_partial = k.nr_partial(cache, node) as u64;
            let mode = if new.inuse == 0 && nr_partial >= min_partial {
                Mode::Free
            } else if new.freelist != 0 {
                k.spin_lock_irqsave(cache, node).await;
                Mode::Partial
            } else {
                Mode::FullNoList
            };
            if slab_update_freelist(k, pfn, &old, new, "deactivate_slab", false).await {
                if mode == Mode::Free {
                    k.hold(pfn, 0); // its freelist is back on it; discard_slab() next
                } else {
                    k.release(pfn);
                }
                break (new, mode);
            }
            if mode == Mode::Partial {
                k.spin_unlock_irqrestore(cache, node).await;
            }
        };
        // Stage three: the list.
        match mode {
            Mode::Partial => {
                k.arg(
                    "deactivate",
                    if end == End::Head {
                        "to head"
                    } else {
                        "to tail"
                    },
                );
                k.add_partial(cache, node, pfn, end);
                k.spin_unlock_irqrestore(cache, node).await;
            }
            Mode::Free => {
                k.arg("deactivate", "empty: discard");
                discard_slab_k(k, cache, pfn).await;
            }
            Mode::FullNoList => {
                debug_assert_eq!(new.freelist, 0);
                k.arg("deactivate", "full");
            }
        }
    }

    /// `discard_slab()` of a slab the task holds and no list has, as a micro-step of its own.
    pub(crate) fn discard_slab_k(
        k: Ctx<'_>,
        cache: CacheId,
        pfn: Pfn,
    ) -> impl Future<Output = ()> + '_ {
        k.step(Access::Work, move || {
            let cpu = k.cpu();
            k.release(pfn);
            k.discard_slab(cache, cpu, pfn);
            k.note(|| Micro::Work { cpu });
        })
    }

    /// `flush_cpu_slab()` (mm/slub.c, v6.6), run on the CPU itself: `flush_slab()` (under the
    /// local lock, detach the cpu slab and the CPU's freelist, bumping the tid; then
    /// `deactivate_slab()`), then `unfreeze_partials()` (under the local lock, detach the partial
    /// stack; then `__unfreeze_partials()`).
    #[doc(alias = "flush_slab")]
    pub(crate) async fn flush_cpu_slab_k(k: Ctx<'_>, cache: CacheId) {
        let _f = k.frame("flush_cpu_slab");
        // 6.18+: the CPU's sheaves first (pcs_flush_all()); 7.x has nothing else per CPU.
        if k.sheaf_capacity(cache) > 0 {
            crate::slub::sheaves::asyn::pcs_flush_all(k, cache).await;
        }
        if !k.slub_version().has_cpu_slab() {
            return;
        }
        // Run by a work item bound to the CPU: preemptible, never migrated.
        k.pin(true);
        let cpu = k.cpu();
        if k.cpu_slab(cache, cpu).slab.is_some() {
            let _step = k.call("flush_slab", "deactivate cpu slab", "step.flush_slab");
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.local_lock_irqsave(cache).await;
            let slab = k.cpu_slab(cache, cpu).slab;
            let freelist = detach_cpu_slab_if(k, cache, cpu, slab);
            k.local_unlock_irqrestore(cache).await;
            if let Some(pfn) = slab {
                deactivate_slab(k, cache, pfn, freelist).await;
            }
        }
        if k.cpu_slab(cache, cpu).partial.is_some() {
            let delayed = k.slub_version().delayed_freezing();
            // 6.8 renamed unfreeze_partials() put_partials(): its slabs are not frozen.
            let _step = if delayed {
                k.call("put_partials", "cpu partial to node", "step.put_partials")
            } else {
                k.call(
                    "unfreeze_partials_cpu",
                    "cpu partial to node",
                    "step.unfreeze_partials",
                )
            };
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.local_lock_irqsave(cache).await;
            let list = k.cpu_slab(cache, cpu).partial;
            k.set_cpu_partial(cache, cpu, None);
            hold_list(k, list);
            k.local_unlock_irqrestore(cache).await;
            if delayed {
                __put_partials(k, cache, list, false).await;
            } else {
                __unfreeze_partials(k, cache, list).await;
            }
        }
        k.pin(false);
    }

    /// `flush_slab()`'s detach when there is a cpu slab (an interrupt may have flushed it since
    /// the caller looked); the CPU's freelist, or 0.
    pub(crate) fn detach_cpu_slab_if(
        k: Ctx<'_>,
        cache: CacheId,
        cpu: CpuId,
        slab: Option<Pfn>,
    ) -> u64 {
        if slab.is_some() {
            detach_cpu_slab(k, cache, cpu)
        } else {
            0
        }
    }

    /// Interleaved: the task holds every slab of the per-CPU partial list from `top` (taken
    /// off its CPU whole), until each is unfrozen.
    pub(crate) fn hold_list(k: Ctx<'_>, top: Option<Pfn>) {
        if !k.interleaved() {
            return;
        }
        let mut at = top;
        while let Some(pfn) = at {
            k.hold(pfn, 0);
            at = k.slab_next(pfn);
        }
    }
}
