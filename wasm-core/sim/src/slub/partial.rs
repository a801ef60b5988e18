//! Moving slabs between the cpu slab, the per-CPU partial stack and the node lists:
//! `put_cpu_partial()`, `__unfreeze_partials()`, `deactivate_slab()`, `flush_cpu_slab()`,
//! `discard_slab()` (mm/slub.c, v6.6; spec 2.7.3, 2.7.4).
//!
//! These record their events into the step their caller has open.

use super::{freelist_len, get_freepointer, set_cpu_freelist, set_freepointer};
use crate::ids::{CacheId, CpuId};
use crate::machine::{Damage, Pfn};
use crate::page_alloc::free_pages;
use crate::trace::{End, Event, Recorder};

/// `put_cpu_partial()`: push a frozen slab on `cpu`'s partial stack. With `drain`, a stack that
/// already holds `cpu_partial_slabs` slabs is first moved whole to the node lists.
pub(crate) fn put_cpu_partial(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    pfn: Pfn,
    drain: bool,
) {
    let s = &rec.machine().slub().caches[cache];
    let limit = s.geometry.cpu_partial_slabs;
    let mut old = s.cpu[cpu].partial;
    let mut spill = None;
    let mut slabs = 0;
    if let Some(top) = old {
        let depth = rec.machine().slub().slabs[&top].slabs;
        if drain && depth >= limit {
            spill = Some(top);
            old = None;
        } else {
            slabs = depth;
        }
    }
    // The new top's `slab->slabs` (mm/slub.c, v6.6: the depth of the stack from it down).
    rec.arg("slabs", slabs + 1);
    rec.emit(Event::SlabPartialLinked {
        pfn,
        next: old,
        slabs: slabs + 1,
    });
    rec.emit(Event::CpuPartialSet {
        cache,
        cpu,
        top: Some(pfn),
    });
    if let Some(list) = spill {
        // CPU_PARTIAL_DRAIN
        rec.arg("drained", 1u32);
        __unfreeze_partials(rec, cache, cpu, Some(list));
    }
}

/// `__unfreeze_partials()`: every slab of the list is unfrozen and added to the tail of its
/// node's partial list, or discarded when empty and the node already keeps `min_partial`.
/// The empty ones are pushed on `slab_to_discard` (through `slab->next`) and freed from its
/// head once the lock is dropped: last met, first discarded (mm/slub.c, v6.6).
pub(crate) fn __unfreeze_partials(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    list: Option<Pfn>,
) {
    let min_partial = u64::from(rec.machine().slub().caches[cache].geometry.min_partial);
    let mut discard = Vec::new();
    let mut at = list;
    let mut locked = None;
    while let Some(pfn) = at {
        let slab = rec.machine().slub().slabs[&pfn].fields();
        at = slab.next;
        // The node's list_lock is taken whenever the node changes from the previous slab's.
        if locked != Some(slab.node) {
            locked = Some(slab.node);
            rec.emit(Event::ListLockTaken {
                cache,
                node: slab.node,
            });
        }
        rec.emit(Event::SlabPartialLinked {
            pfn,
            next: None,
            slabs: 0,
        });
        rec.emit(Event::SlabStateSet {
            pfn,
            freelist: slab.freelist,
            inuse: slab.inuse,
            frozen: false,
        });
        let nr_partial = rec.machine().slub().caches[cache].node[slab.node]
            .partial
            .len() as u64;
        if slab.inuse == 0 && nr_partial >= min_partial {
            discard.push(pfn);
        } else {
            rec.emit(Event::NodePartialAdded {
                cache,
                node: slab.node,
                pfn,
                end: End::Tail,
            });
        }
    }
    // Pushed on the head of the discard list, freed from its head: the last one first.
    for pfn in discard.into_iter().rev() {
        discard_slab(rec, cache, cpu, pfn);
    }
}

/// `deactivate_slab()`: the former cpu slab takes back the CPU's freelist and is unfrozen; it
/// then goes to its node's partial list (tail if others freed to it meanwhile, else head), is
/// discarded when empty and the node keeps enough, or stays unlisted when full.
pub(crate) fn deactivate_slab(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    pfn: Pfn,
    cpu_freelist: u64,
) {
    let slab = rec.machine().slub().slabs[&pfn].fields();
    let end = if slab.freelist != 0 {
        End::Tail
    } else {
        End::Head
    };
    // Stage one: count the CPU's free objects and find the last.
    let free_delta = freelist_len(rec.machine(), cpu_freelist);
    let mut tail = cpu_freelist;
    while tail != 0 && get_freepointer(rec.machine(), tail) != 0 {
        tail = get_freepointer(rec.machine(), tail);
    }
    // Stage two: splice it in front of the slab's own freelist and unfreeze.
    let (freelist, inuse) = if cpu_freelist != 0 {
        set_freepointer(rec, tail, slab.freelist);
        (cpu_freelist, slab.inuse - free_delta)
    } else {
        (slab.freelist, slab.inuse)
    };
    rec.emit(Event::SlabStateSet {
        pfn,
        freelist,
        inuse,
        frozen: false,
    });
    // Stage three: the list.
    let s = &rec.machine().slub().caches[cache];
    let nr_partial = s.node[slab.node].partial.len() as u64;
    if inuse == 0 && nr_partial >= u64::from(s.geometry.min_partial) {
        rec.arg("deactivate", "empty: discard");
        discard_slab(rec, cache, cpu, pfn);
    } else if freelist != 0 {
        rec.emit(Event::ListLockTaken {
            cache,
            node: slab.node,
        });
        rec.arg(
            "deactivate",
            if end == End::Head {
                "to head"
            } else {
                "to tail"
            },
        );
        rec.emit(Event::NodePartialAdded {
            cache,
            node: slab.node,
            pfn,
            end,
        });
    } else {
        rec.arg("deactivate", "full");
    }
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

/// `flush_slab()`: detach the cpu slab and the CPU's freelist (bumping tid), then
/// `deactivate_slab()` them. Also the node-mismatch branch of `___slab_alloc()`.
pub(crate) fn flush_slab(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    pfn: Pfn,
    cpu_freelist: u64,
) {
    rec.emit(Event::CpuSlabSet {
        cache,
        cpu,
        slab: None,
    });
    set_cpu_freelist(rec, cache, cpu, 0);
    deactivate_slab(rec, cache, cpu, pfn, cpu_freelist);
}

/// `flush_cpu_slab()`: deactivate `cpu`'s cpu slab and unfreeze its partial stack.
pub fn flush_cpu_slab(rec: &mut Recorder, cache: CacheId, cpu: CpuId) {
    let c = rec.machine().slub().caches[cache].cpu[cpu].clone();
    if let Some(pfn) = c.slab {
        rec.call(
            "flush_slab",
            "deactivate cpu slab",
            "step.flush_slab",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                flush_slab(rec, cache, cpu, pfn, c.freelist);
            },
        );
    }
    if c.partial.is_some() {
        rec.call(
            "unfreeze_partials_cpu",
            "cpu partial to node",
            "step.unfreeze_partials",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                rec.emit(Event::CpuPartialSet {
                    cache,
                    cpu,
                    top: None,
                });
                __unfreeze_partials(rec, cache, cpu, c.partial);
            },
        );
    }
}
