//! Freeing: `kfree()`, `kmem_cache_free()` → `slab_free()` → `do_slab_free()` (fast path) or
//! `__slab_free()` (mm/slub.c, v6.6; spec 2.7.1, 2.7.2), and the checks that turn bad frees
//! into diagnostic steps instead of corrupting the simulation.

use super::alloc::Sequential;
use super::cmpxchg::SlabWord;
use super::{object_freed, place_of, set_cpu_freelist, set_freepointer_at};
use crate::ids::{CacheId, CpuId};
use crate::machine::{Machine, Pfn};
pub use crate::slab_common::FreeOutcome;
use crate::slab_common::{
    cache_from_obj_checks, diagnostic, free_outside_slabs, free_prologue, wrong_cache,
    wrong_cache_unchecked,
};
use crate::slub::mem::SlubMem;
use crate::slub::sheaf::FreeFrom;
use crate::smp::micro::{Access, Micro};
use crate::smp::{run_sync, CallGuard, Ctx};
use crate::trace::{End, Recorder, Splice};
use std::future::Future;

/// `kfree()` of `addr` on `cpu`; with `cache`, `kmem_cache_free(cache, addr)`.
pub fn kfree(rec: &mut Recorder, addr: u64, cpu: CpuId, cache: Option<CacheId>) -> FreeOutcome {
    match free_target(rec, addr, cpu, cache) {
        Ok(t) => {
            slab_free(rec, t.cache, t.pfn, addr, t.index, cpu);
            FreeOutcome::Freed
        }
        Err(outcome) => outcome,
    }
}

/// What `slab_free()` frees an object into: the cache whose code runs, the slab and the
/// object's index there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FreeTarget {
    pub cache: CacheId,
    pub pfn: Pfn,
    pub index: u32,
}

/// `kfree()`/`kmem_cache_free()` up to `slab_free()`: every check a free passes first, each
/// failure a diagnostic step and the outcome.
#[inline(always)]
pub(crate) fn free_target(
    rec: &mut Recorder,
    addr: u64,
    cpu: CpuId,
    cache: Option<CacheId>,
) -> Result<FreeTarget, FreeOutcome> {
    let m = rec.machine();
    let destroyed = cache.filter(|&c| m.slub().caches[c].destroyed);
    if let Some(outcome) = free_prologue(rec, addr, destroyed) {
        return Err(outcome);
    }
    let m = rec.machine();
    let Some(place) = place_of(m, addr) else {
        // With slub_debug the kernel reports "Invalid object pointer".
        return Err(free_outside_slabs(rec, addr, cpu, cache));
    };
    if place.offset != 0 {
        // slub_debug=F: "Invalid object pointer"; without it the free pointer is written into
        // the middle of a neighbour and the freelist is corrupted.
        return Err(diagnostic(
            rec,
            "pointer inside an object",
            "step.kfree_inside_object",
            addr,
        ));
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
            return Err(diagnostic(
                rec,
                "double free: slub_debug reports Slab has 0 allocated objects",
                "step.kfree_double_free_debug_inuse",
                addr,
            ));
        }
        if s.flags.consistency_checks {
            // free_consistency_checks() → on_freelist(): "Object already free".
            return Err(diagnostic(
                rec,
                "double free: slub_debug=F reports Object already free",
                "step.kfree_double_free_debug",
                addr,
            ));
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
            return Err(diagnostic(
                rec,
                "double free caught by BUG_ON(object == fp)",
                "step.kfree_double_free_bug",
                addr,
            ));
        }
        return Err(diagnostic(
            rec,
            "double free",
            "step.kfree_double_free",
            addr,
        ));
    }
    let mut s = slab_cache;
    if let Some(named) = cache.filter(|&c| c != slab_cache) {
        match cache_from_obj_unchecked(rec, named, slab_cache, addr, place.pfn) {
            Some(named) => s = named,
            None => wrong_cache(rec, named, slab_cache),
        }
    }
    Ok(FreeTarget {
        cache: s,
        pfn: place.pfn,
        index: place.index,
    })
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
    let objs = &[(addr, index)];
    let m = rec.machine();
    if m.slub().caches[cache].sheaf_capacity() > 0 || !m.profile.slub.has_cpu_slab() {
        run_sync!(rec, cpu, |k| sync::slab_free_k(k, cache, pfn, addr, index));
        return;
    }
    match sequential_free_fast(rec, cache, pfn, addr, index, cpu) {
        Sequential::Done(()) => {}
        Sequential::Slow => run_sync!(rec, cpu, |k| sync::__slab_free(k, cache, pfn, objs)),
        Sequential::Twin => run_sync!(rec, cpu, |k| sync::do_slab_free(k, cache, pfn, objs)),
    }
}

/// The fast path of `asyn::do_slab_free` for one object as a sequential run takes it, without
/// the micro-step boundaries that only an interleaved run or a person opening the step needs
/// (nothing can race between them here, so the cmpxchg succeeds): the same step, the same
/// events, in the same order (`tests::sequential_fast_paths_match_the_racing_code`). `Slow`
/// when the slab is not this CPU's cpu slab; `Twin` when micro-steps are kept.
#[inline(always)]
fn sequential_free_fast(
    rec: &mut Recorder,
    cache: CacheId,
    pfn: Pfn,
    addr: u64,
    index: u32,
    cpu: CpuId,
) -> Sequential<()> {
    if rec.keeps_micro() {
        return Sequential::Twin;
    }
    let c = &rec.machine().slub().caches[cache].cpu[cpu];
    if c.slab != Some(pfn) {
        return Sequential::Slow;
    }
    let freelist = c.freelist;
    rec.call("do_slab_free", "fast path", "step.free_fast", |rec| {
        rec.arg_cache("cache", cache);
        rec.arg("cpu", cpu);
        rec.arg("count", 1u32);
        set_freepointer_at(rec, pfn, index, freelist);
        set_cpu_freelist(rec, cache, cpu, addr); // __update_cpu_freelist_fast()
        object_freed(rec, cache, cpu, pfn, addr, index);
    });
    Sequential::Done(())
}

/// The way `do_slab_free()` takes for objects of the slab at `pfn` freed on `cpu`, as the
/// state reads now: the fast path onto `c->freelist` when the slab is the CPU's cpu slab, else
/// `__slab_free()`, which a debug cache (never a cpu slab) does under the node's list lock
/// (`free_to_partial_list()`).
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

/// The paths that race with other CPUs: written once, run as async code by the
/// interleaving executor and as its synchronous twin (`sync`) by sequential runs.
#[slabscope_dual::dual]
pub(crate) mod asyn {
    use super::*;
    use crate::slub::alloc::asyn::{read_tid, update_cpu_freelist_fast};
    use crate::slub::cmpxchg::asyn::{read_slab, slab_update_freelist};
    use crate::slub::partial::asyn::{discard_slab_k, put_cpu_partial};

    /// `do_slab_free()` (mm/slub.c, v6.6): frees `objs` of one slab, each with its index there,
    /// already linked head to tail (`objs[0]` is the head, each links to the next, the last is
    /// the tail). Objects of the CPU's cpu slab go on `c->freelist` with the lockless cmpxchg on
    /// (freelist, tid), retried from `redo` when the tid moved on; others take `__slab_free()`,
    /// which a debug cache (never a cpu slab) does under the node's list lock:
    ///
    /// ```text
    /// redo:
    ///     c = raw_cpu_ptr(s->cpu_slab); tid = READ_ONCE(c->tid);
    ///     if (slab != c->slab) { __slab_free(...); return; }
    ///     freelist = READ_ONCE(c->freelist);
    ///     set_freepointer(s, tail_obj, freelist);
    ///     if (!__update_cpu_freelist_fast(s, freelist, head, tid)) {
    ///         note_cmpxchg_failure("slab_free", s, tid); goto redo;
    ///     }
    /// ```
    pub(crate) async fn do_slab_free(k: Ctx<'_>, cache: CacheId, pfn: Pfn, objs: &[(u64, u32)]) {
        do_slab_free_from(k, cache, pfn, objs, FreeFrom::Caller).await;
    }

    /// `slab_free()` of one object: 6.18+ tries this CPU's sheaves first when the object's
    /// slab is on the CPU's own node (`can_free_to_pcs()`; 6.18 checks the node only), then
    /// `do_slab_free()` (6.x) or `__slab_free()` (7.x, no cpu slab).
    pub(crate) async fn slab_free_k(k: Ctx<'_>, cache: CacheId, pfn: Pfn, addr: u64, index: u32) {
        if k.sheaf_capacity(cache) > 0
            && k.slab_node(pfn) == Some(k.cpu_to_node(k.cpu()))
            && Box::pin(crate::slub::sheaves::asyn::free_to_pcs(k, cache, addr)).await
        {
            return;
        }
        if k.slub_version().has_cpu_slab() {
            do_slab_free(k, cache, pfn, &[(addr, index)]).await;
        } else {
            Box::pin(__slab_free_from(
                k,
                cache,
                pfn,
                &[(addr, index)],
                FreeFrom::Caller,
            ))
            .await;
        }
    }

    /// `do_slab_free()` of objects a caller held, or of objects a flushed sheaf held (6.18+),
    /// which no caller gives back (`from`).
    pub(crate) async fn do_slab_free_from(
        k: Ctx<'_>,
        cache: CacheId,
        pfn: Pfn,
        objs: &[(u64, u32)],
        from: FreeFrom,
    ) {
        let _f = k.frame("do_slab_free");
        let (head, (_, tail_index)) = (objs[0].0, objs[objs.len() - 1]);
        loop {
            // redo:
            let (c, tid) = read_tid(k, cache).await;
            let c_slab = read_cpu_slab(k, cache, c).await;
            if c_slab != Some(pfn) {
                return __slab_free_from(k, cache, pfn, objs, from).await;
            }
            let step = k.call("do_slab_free", "fast path", "step.free_fast");
            k.arg_cache("cache", cache);
            k.arg("cpu", k.cpu());
            k.arg("count", objs.len() as u32);
            let freelist = read_cpu_freelist_only(k, cache, c).await;
            set_freepointer_k(k, pfn, tail_index, freelist).await;
            if update_cpu_freelist_fast(k, cache, freelist, head, tid, "slab_free").await {
                let cpu = k.cpu();
                k.objects_given_back(cache, cpu, pfn, objs, from);
                return;
            }
            drop(step); // goto redo
        }
    }

    /// `slab != c->slab`: the cpu slab of CPU `c`.
    #[inline(always)]
    pub(crate) fn read_cpu_slab(
        k: Ctx<'_>,
        cache: CacheId,
        c: CpuId,
    ) -> impl Future<Output = Option<Pfn>> + '_ {
        k.step(Access::ReadCpu, move || {
            let slab = k.cpu_slab(cache, c).slab;
            k.note(|| Micro::ReadCpuSlab {
                cache,
                cpu: k.cpu(),
                of: c,
                slab,
            });
            slab
        })
    }

    /// `freelist = READ_ONCE(c->freelist)` of CPU `c`.
    #[inline(always)]
    pub(crate) fn read_cpu_freelist_only(
        k: Ctx<'_>,
        cache: CacheId,
        c: CpuId,
    ) -> impl Future<Output = u64> + '_ {
        k.step(Access::ReadCpu, move || {
            let freelist = k.cpu_slab(cache, c).freelist;
            k.note(|| Micro::ReadCpuFreelist {
                cache,
                cpu: k.cpu(),
                of: c,
                freelist,
            });
            freelist
        })
    }

    /// `set_freepointer(s, object, value)` of object `index` of the slab at `pfn`, an object the
    /// task holds (nobody else reads it before a cmpxchg publishes it).
    #[inline(always)]
    pub(crate) fn set_freepointer_k(
        k: Ctx<'_>,
        pfn: Pfn,
        index: u32,
        value: u64,
    ) -> impl Future<Output = ()> + '_ {
        k.step(Access::SetFreepointer, move || {
            k.set_freepointer_at(pfn, index, value);
            k.note(|| Micro::SetFreepointer {
                cpu: k.cpu(),
                object: k.object_addr(pfn, index),
                value,
            });
        })
    }

    /// `__slab_free()` (mm/slub.c, v6.6) for `cnt = objs.len()` objects of one slab, linked
    /// head to tail. A debug cache's objects go to `free_to_partial_list()` first thing, as in
    /// the kernel (`kmem_cache_debug(s)`); any other cache's:
    ///
    /// ```text
    /// do {
    ///     if (n) { spin_unlock_irqrestore(&n->list_lock, flags); n = NULL; }
    ///     prior = slab->freelist; counters = slab->counters;
    ///     set_freepointer(s, tail, prior);
    ///     new.counters = counters; was_frozen = new.frozen; new.inuse -= cnt;
    ///     if ((!new.inuse || !prior) && !was_frozen) {
    ///         if (kmem_cache_has_cpu_partial(s) && !prior) new.frozen = 1;
    ///         else { n = get_node(s, slab_nid(slab)); spin_lock_irqsave(&n->list_lock, flags); }
    ///     }
    /// } while (!slab_update_freelist(s, slab, prior, counters, head, new.counters, "__slab_free"));
    /// ```
    pub(crate) async fn __slab_free(k: Ctx<'_>, cache: CacheId, pfn: Pfn, objs: &[(u64, u32)]) {
        __slab_free_from(k, cache, pfn, objs, FreeFrom::Caller).await;
    }

    /// `__slab_free()` of objects a caller held or a flushed sheaf held (`from`). From 7.0
    /// (v7.2.13) there is no frozen slab and no cpu partial list: a free into a full slab puts
    /// it at the tail of its node's partial list, and a slab with free objects on no list is
    /// one a refill isolated.
    #[allow(
        clippy::too_many_lines,
        reason = "__slab_free()'s retry loop and its outcomes in the kernel's order, with the versions' branches where the kernel's code differs"
    )]
    pub(crate) async fn __slab_free_from(
        k: Ctx<'_>,
        cache: CacheId,
        pfn: Pfn,
        objs: &[(u64, u32)],
        from: FreeFrom,
    ) {
        if k.cache_debug(cache) {
            return Box::pin(free_to_partial_list(k, cache, pfn, objs)).await;
        }
        let _f = k.frame("__slab_free");
        let (head, (_, tail_index), cnt) = (objs[0].0, objs[objs.len() - 1], objs.len() as u32);
        let (has_cpu_partial, min_partial) = (k.has_cpu_partial(cache), k.min_partial(cache));
        let delayed = k.slub_version().delayed_freezing();
        let (step, old, new, takes_node_lock) = loop {
            let old = read_slab(k, pfn).await;
            let (prior, was_frozen) = (old.freelist, old.frozen);
            let inuse = old.inuse - cnt;
            let mut frozen = was_frozen;
            let mut takes_node_lock = false;
            let mut to_cpu_partial = false;
            if (inuse == 0 || prior == 0) && !was_frozen {
                if has_cpu_partial && prior == 0 {
                    // A full slab gets its first free: this CPU's partial stack takes it,
                    // frozen for it in 6.6, as it is from 6.8.
                    to_cpu_partial = true;
                    frozen = !delayed;
                } else {
                    takes_node_lock = true;
                }
            }
            let path = if !takes_node_lock {
                if was_frozen {
                    "frozen slab"
                } else if to_cpu_partial {
                    "full slab to cpu partial"
                } else {
                    "partial slab"
                }
            } else if inuse == 0 {
                "empty slab"
            } else {
                "full slab to node partial"
            };
            let step = if !k.slub_version().has_cpu_slab() {
                k.call("__slab_free", path, "step.slab_free_7_0")
            } else if delayed {
                k.call("__slab_free", path, "step.slab_free_6_8")
            } else {
                k.call("__slab_free", path, "step.slab_free")
            };
            k.arg_cache("cache", cache);
            k.arg("cpu", k.cpu());
            k.arg("inuse", inuse);
            k.arg("count", cnt);
            set_freepointer_k(k, pfn, tail_index, prior).await;
            if takes_node_lock {
                k.spin_lock_irqsave(cache, old.node).await;
            }
            let new = SlabWord {
                freelist: head,
                inuse,
                frozen,
            };
            if slab_update_freelist(k, pfn, &old, new, "__slab_free", false).await {
                break (step, old, new, takes_node_lock);
            }
            drop(step);
            if takes_node_lock {
                k.spin_unlock_irqrestore(cache, old.node).await;
            }
        };
        let cpu = k.cpu();
        k.objects_given_back(cache, cpu, pfn, objs, from);
        let (prior, node) = (old.freelist, old.node);
        if !takes_node_lock {
            if !old.frozen && old.freelist == 0 && has_cpu_partial {
                k.hold(pfn, 0); // this CPU's, on its way to the cpu partial stack
                put_cpu_partial(k, cache, pfn, true).await; // CPU_PARTIAL_FREE
            }
            drop(step);
            return;
        }
        if delayed && prior != 0 && !k.on_node_partial(cache, node, pfn) {
            // 6.8+: a slab with free objects on no node list sits on some CPU's partial stack
            // (or a task holds it): it stays there, even empty.
            step.set_path(if k.slub_version().has_cpu_slab() {
                "cpu partial slab"
            } else {
                "isolated slab"
            });
            k.spin_unlock_irqrestore(cache, node).await;
            drop(step);
            return;
        }
        let nr_partial = k.nr_partial(cache, node) as u64;
        if new.inuse == 0 && nr_partial >= min_partial {
            // slab_empty:
            if prior != 0 {
                k.remove_partial(cache, node, pfn);
                // FREE_REMOVE_PARTIAL
            }
            k.hold(pfn, 0); // discarded once the lock is dropped
            k.spin_unlock_irqrestore(cache, node).await;
            discard_slab_k(k, cache, pfn).await;
            drop(step);
            return;
        }
        if !has_cpu_partial && prior == 0 {
            k.add_partial(cache, node, pfn, End::Tail); // FREE_ADD_PARTIAL
        }
        k.spin_unlock_irqrestore(cache, node).await;
        drop(step);
    }

    /// `free_to_partial_list()` (mm/slub.c, v6.6): how a debug cache frees (`__slab_free()` sends
    /// it here), all under the node's `list_lock`: the objects go on the slab's freelist; a slab
    /// that was full returns to the partial list (leaving `n->full`), and an empty one is
    /// discarded once the node keeps `min_partial` partial slabs (freed after the unlock).
    pub(crate) async fn free_to_partial_list(
        k: Ctx<'_>,
        cache: CacheId,
        pfn: Pfn,
        objs: &[(u64, u32)],
    ) {
        let cnt = objs.len() as u32;
        let min_partial = k.min_partial(cache) as usize;
        let node = k.slab_fields(pfn).node;
        let step = k.call("free_to_partial_list", "", "step.free_to_partial_list");
        k.spin_lock_irqsave(cache, node).await;
        let (slab, nr_partial) = (k.slab_fields(pfn), k.nr_partial(cache, node));
        let (prior, inuse) = (slab.freelist, slab.inuse - cnt);
        let discard = inuse == 0 && nr_partial >= min_partial;
        step.set_path(match (prior == 0, discard) {
            (_, true) => "debug cache: empty slab discarded",
            (true, false) => "debug cache: full slab to node partial",
            (false, false) => "debug cache: partial slab",
        });
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.arg("inuse", inuse);
        k.arg("count", cnt);
        let cpu = k.cpu();
        k.debug_free_to_partial(cache, node, cpu, pfn, objs, prior, inuse, discard);
        if discard {
            k.hold(pfn, 0); // discarded once the lock is dropped
        }
        k.spin_unlock_irqrestore(cache, node).await;
        if discard {
            discard_slab_k(k, cache, pfn).await;
        }
        drop(step);
    }
}
