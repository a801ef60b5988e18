//! Freeing: `kfree()`, `kmem_cache_free()` → `slab_free()` → `do_slab_free()` (fast path) or
//! `__slab_free()` (mm/slub.c, v6.6; spec 2.7.1, 2.7.2), and the checks that turn bad frees
//! into diagnostic steps instead of corrupting the simulation.

use super::partial::{discard_slab, put_cpu_partial};
use super::{object_freed, place_of, set_cpu_freelist, set_freepointer_at};
use crate::ids::{CacheId, CpuId};
use crate::machine::{Machine, Pfn};
pub use crate::slab_common::FreeOutcome;
use crate::slab_common::{
    cache_from_obj_checks, diagnostic, free_outside_slabs, free_prologue, wrong_cache,
    wrong_cache_unchecked,
};
use crate::trace::{End, Event, Recorder, Splice};

/// `kfree()` of `addr` on `cpu`; with `cache`, `kmem_cache_free(cache, addr)`.
pub fn kfree(rec: &mut Recorder, addr: u64, cpu: CpuId, cache: Option<CacheId>) -> FreeOutcome {
    let m = rec.machine();
    let destroyed = cache.filter(|&c| m.slub().caches[c].destroyed);
    if let Some(outcome) = free_prologue(rec, addr, destroyed) {
        return outcome;
    }
    let m = rec.machine();
    let Some(place) = place_of(m, addr) else {
        // With slub_debug the kernel reports "Invalid object pointer".
        return free_outside_slabs(rec, addr, cpu, cache);
    };
    if place.offset != 0 {
        // slub_debug=F: "Invalid object pointer"; without it the free pointer is written into
        // the middle of a neighbour and the freelist is corrupted.
        return diagnostic(
            rec,
            "pointer inside an object",
            "step.kfree_inside_object",
            addr,
        );
    }
    let slab = &m.slub().slabs[&place.pfn];
    let slab_cache = slab.cache;
    if !slab.allocated[place.index as usize] {
        // Freeing a free object. A debug cache's free goes through free_to_partial_list(),
        // whose free_debug_processing() checks before set_freepointer() links anything
        // (mm/slub.c, v6.6): first slab->inuse against the count to free (every debug cache),
        // then, with SLAB_CONSISTENCY_CHECKS, on_freelist(). Either abandons the free.
        let s = &m.slub().caches[slab_cache];
        if s.debug() && slab.inuse == 0 {
            return diagnostic(
                rec,
                "double free: slub_debug reports Slab has 0 allocated objects",
                "step.kfree_double_free_debug_inuse",
                addr,
            );
        }
        if s.flags.consistency_checks {
            // free_consistency_checks() → on_freelist(): "Object already free".
            return diagnostic(
                rec,
                "double free: slub_debug=F reports Object already free",
                "step.kfree_double_free_debug",
                addr,
            );
        }
        // With CONFIG_SLAB_FREELIST_HARDENED, set_freepointer() has a naive check,
        // BUG_ON(object == fp): freeing again the object at the head of the freelist it would
        // be linked in front of (this CPU's c->freelist for its cpu slab, else the slab's own
        // freelist) oopses. Any other double free goes unnoticed without slub_debug: the
        // freelist gets a cycle and the object is handed out twice later.
        let c = &s.cpu[cpu];
        let fp = if c.slab == Some(place.pfn) {
            c.freelist
        } else {
            slab.freelist
        };
        if s.hardened && fp == addr {
            return diagnostic(
                rec,
                "double free caught by BUG_ON(object == fp)",
                "step.kfree_double_free_bug",
                addr,
            );
        }
        return diagnostic(rec, "double free", "step.kfree_double_free", addr);
    }
    let mut s = slab_cache;
    if let Some(named) = cache.filter(|&c| c != slab_cache) {
        match cache_from_obj_unchecked(rec, named, slab_cache, addr, place.pfn) {
            Some(named) => s = named,
            None => wrong_cache(rec, named, slab_cache),
        }
    }
    slab_free(rec, s, place.pfn, addr, place.index, cpu);
    FreeOutcome::Freed
}

/// `cache_from_obj(named, x)` (mm/slab.h, v6.6) for an object `addr` of `slab_cache`'s slab at
/// `pfn`, when `named` is another cache. Without its checks (neither hardening nor
/// `slub_debug=F` on `named`) it does not look: `slab_free()` goes on with the named cache's
/// code, offset, per-CPU and node lists on the other cache's slab; the damage is recorded and
/// `Some(named)` returned. With its checks, `None`: the caller reports "Wrong slab cache" and
/// frees to the object's own cache.
pub(super) fn cache_from_obj_unchecked(
    rec: &mut Recorder,
    named: CacheId,
    slab_cache: CacheId,
    addr: u64,
    pfn: Pfn,
) -> Option<CacheId> {
    let m = rec.machine();
    let n = &m.slub().caches[named];
    if cache_from_obj_checks(n.hardened, n.flags.consistency_checks) {
        return None;
    }
    let offsets = (
        n.geometry.offset,
        m.slub().caches[slab_cache].geometry.offset,
    );
    wrong_cache_unchecked(
        rec,
        "wrong cache, not checked",
        "step.wrong_cache_unchecked",
        named,
        slab_cache,
        addr,
        pfn,
        Some(offsets),
    );
    Some(named)
}

/// `slab_free()` for one object, object `index` of the slab at `pfn`. Its
/// `slab_free_freelist_hook()` pass over a one-object list changes nothing (it stores NULL in
/// the free pointer, which `do_slab_free()` overwrites), so it gets no step; see `bulk.rs`.
fn slab_free(rec: &mut Recorder, cache: CacheId, pfn: Pfn, addr: u64, index: u32, cpu: CpuId) {
    do_slab_free(rec, cache, pfn, &[(addr, index)], cpu);
}

/// `do_slab_free()`: frees `objs` of one slab, each with its index there, already linked head
/// to tail (`objs[0]` is the head, each links to the next, the last is the tail), the way
/// `free_path()` says: objects of this CPU's cpu slab go on `c->freelist` (fast path); others
/// take `__slab_free()`.
pub(crate) fn do_slab_free(
    rec: &mut Recorder,
    cache: CacheId,
    pfn: Pfn,
    objs: &[(u64, u32)],
    cpu: CpuId,
) {
    match free_path(rec.machine(), cache, pfn, cpu) {
        Splice::CpuFreelist => {}
        Splice::SlabFreelist => return __slab_free(rec, cache, pfn, objs, cpu),
        Splice::ListLock => return free_to_partial_list(rec, cache, pfn, objs, cpu),
    }
    let (head, (_, tail_index)) = (objs[0].0, objs[objs.len() - 1]);
    let cpu_head = rec.machine().slub().caches[cache].cpu[cpu].freelist;
    rec.call("do_slab_free", "fast path", "step.free_fast", |rec| {
        rec.arg_cache("cache", cache);
        rec.arg("cpu", cpu);
        rec.arg("count", objs.len() as u32);
        set_freepointer_at(rec, pfn, tail_index, cpu_head);
        set_cpu_freelist(rec, cache, cpu, head);
        for &(addr, index) in objs {
            object_freed(rec, cache, cpu, pfn, addr, index);
        }
    });
}

/// The way `do_slab_free()` takes for objects of the slab at `pfn` freed on `cpu`: the fast
/// path onto `c->freelist` when the slab is the CPU's cpu slab, else `__slab_free()`, which a
/// debug cache (never a cpu slab) does under the node's list lock (`free_to_partial_list()`).
pub(crate) fn free_path(m: &Machine, cache: CacheId, pfn: Pfn, cpu: CpuId) -> Splice {
    let s = &m.slub().caches[cache];
    if s.cpu[cpu].slab == Some(pfn) {
        Splice::CpuFreelist
    } else if s.debug() {
        Splice::ListLock
    } else {
        Splice::SlabFreelist
    }
}

/// `__slab_free()` for `cnt = objs.len()` objects of one slab (not of a debug cache), linked
/// head to tail.
fn __slab_free(rec: &mut Recorder, cache: CacheId, pfn: Pfn, objs: &[(u64, u32)], cpu: CpuId) {
    let (head, (_, tail_index), cnt) = (objs[0].0, objs[objs.len() - 1], objs.len() as u32);
    let s = &rec.machine().slub().caches[cache];
    let (has_cpu_partial, min_partial) = (s.has_cpu_partial(), u64::from(s.geometry.min_partial));
    let slab = rec.machine().slub().slabs[&pfn].fields();
    let prior = slab.freelist;
    let was_frozen = slab.frozen;
    let inuse = slab.inuse - cnt;
    let mut frozen = was_frozen;
    let mut takes_node_lock = false;
    if (inuse == 0 || prior == 0) && !was_frozen {
        if has_cpu_partial && prior == 0 {
            frozen = true; // a full slab gets its first free: freeze it for this CPU
        } else {
            takes_node_lock = true;
        }
    }
    let path = if !takes_node_lock {
        if was_frozen {
            "frozen slab"
        } else if frozen {
            "full slab to cpu partial"
        } else {
            "partial slab"
        }
    } else if inuse == 0 {
        "empty slab"
    } else {
        "full slab to node partial"
    };
    rec.call("__slab_free", path, "step.slab_free", |rec| {
        rec.arg_cache("cache", cache);
        rec.arg("cpu", cpu);
        rec.arg("inuse", inuse);
        rec.arg("count", cnt);
        if takes_node_lock {
            // Taken before the cmpxchg that makes the slab empty or unfrozen-partial.
            rec.emit(Event::ListLockTaken {
                cache,
                node: slab.node,
            });
        }
        set_freepointer_at(rec, pfn, tail_index, prior);
        rec.emit(Event::SlabStateSet {
            pfn,
            freelist: head,
            inuse,
            frozen,
        });
        for &(addr, index) in objs {
            object_freed(rec, cache, cpu, pfn, addr, index);
        }
        if !takes_node_lock {
            if !was_frozen && frozen {
                put_cpu_partial(rec, cache, cpu, pfn, true); // CPU_PARTIAL_FREE
            }
            return;
        }
        let nr_partial = rec.machine().slub().caches[cache].node[slab.node]
            .partial
            .len() as u64;
        if inuse == 0 && nr_partial >= min_partial {
            if prior != 0 {
                rec.emit(Event::NodePartialRemoved {
                    cache,
                    node: slab.node,
                    pfn,
                }); // FREE_REMOVE_PARTIAL
            }
            discard_slab(rec, cache, cpu, pfn);
            return;
        }
        if !has_cpu_partial && prior == 0 {
            rec.emit(Event::NodePartialAdded {
                cache,
                node: slab.node,
                pfn,
                end: End::Tail,
            }); // FREE_ADD_PARTIAL
        }
    })
}

/// `free_to_partial_list()`: how a debug cache frees (`__slab_free()` sends it here), under the
/// node's `list_lock`: the objects go on the slab's freelist; a slab that was full returns to
/// the partial list (leaving `n->full`), and an empty one is discarded once the node keeps
/// `min_partial` partial slabs.
fn free_to_partial_list(
    rec: &mut Recorder,
    cache: CacheId,
    pfn: Pfn,
    objs: &[(u64, u32)],
    cpu: CpuId,
) {
    let (head, (_, tail_index), cnt) = (objs[0].0, objs[objs.len() - 1], objs.len() as u32);
    let s = &rec.machine().slub().caches[cache];
    let (store_user, min_partial) = (s.flags.store_user, s.geometry.min_partial as usize);
    let slab = rec.machine().slub().slabs[&pfn].fields();
    let nr_partial = s.node[slab.node].partial.len();
    let (prior, inuse, node) = (slab.freelist, slab.inuse - cnt, slab.node);
    let discard = inuse == 0 && nr_partial >= min_partial;
    let path = match (prior == 0, discard) {
        (_, true) => "debug cache: empty slab discarded",
        (true, false) => "debug cache: full slab to node partial",
        (false, false) => "debug cache: partial slab",
    };
    rec.call(
        "free_to_partial_list",
        path,
        "step.free_to_partial_list",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
            rec.arg("inuse", inuse);
            rec.arg("count", cnt);
            rec.emit(Event::ListLockTaken { cache, node });
            set_freepointer_at(rec, pfn, tail_index, prior);
            rec.emit(Event::SlabStateSet {
                pfn,
                freelist: head,
                inuse,
                frozen: false,
            });
            for &(addr, index) in objs {
                object_freed(rec, cache, cpu, pfn, addr, index);
            }
            if prior == 0 {
                if store_user {
                    rec.emit(Event::NodeFullRemoved { cache, node, pfn });
                }
                if !discard {
                    rec.emit(Event::NodePartialAdded {
                        cache,
                        node,
                        pfn,
                        end: End::Tail,
                    });
                }
            } else if discard {
                rec.emit(Event::NodePartialRemoved { cache, node, pfn });
            }
            if discard {
                discard_slab(rec, cache, cpu, pfn);
            }
        },
    );
}
