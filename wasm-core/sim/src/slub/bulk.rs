//! The bulk API: `kmem_cache_alloc_bulk()` and `kmem_cache_free_bulk()`/`kfree_bulk()` with
//! `build_detached_freelist()` (mm/slub.c, v6.6; spec 2.8).
//!
//! A bulk free is, per detached freelist, up to three steps: `build_detached_freelist()`
//! gathers and links the group; `slab_free_freelist_hook()` reverses it (groups of two or
//! more); `do_slab_free()` (fast path, `__slab_free()` or a debug cache's
//! `free_to_partial_list()`) frees it, as a `kfree()` would.

use super::free::{cache_from_obj_unchecked, free_path, FreeOutcome};
use super::state::TID_STEP;
use super::{obj_to_index, place_of, set_freepointer};
use crate::ids::{CacheId, CpuId, Pfn};
use crate::page_alloc::free_pages;
use crate::slab_common::is_large_kmalloc;
use crate::slub::mem::SlubMem;
use crate::smp::{run_sync, Ctx};
use crate::trace::{DetachedFreelist, Event, Recorder};
use std::collections::BTreeSet;

/// How far `build_detached_freelist()` looks past entries of other slabs.
const LOOKAHEAD: u32 = 3;

/// `kmem_cache_alloc_bulk()`: `n` objects, all or none.
pub fn kmem_cache_alloc_bulk(rec: &mut Recorder, cache: CacheId, n: u32, cpu: CpuId) -> Vec<u64> {
    run_sync!(rec, cpu, |k| sync::alloc_bulk(k, cache, n))
}

/// `kmem_cache_free_bulk(cache, objs)`, or `kfree_bulk(objs)` when `cache` is `None`. Every
/// entry is checked first; an array the kernel would crash or corrupt on is refused whole
/// with a diagnostic step.
pub fn kmem_cache_free_bulk(
    rec: &mut Recorder,
    cache: Option<CacheId>,
    objs: &[u64],
    cpu: CpuId,
) -> FreeOutcome {
    run_sync!(rec, cpu, |k| sync::free_bulk(k, cache, objs))
}

/// The first entry that is not a live object of the right kind (or appears twice).
pub(crate) fn first_bad(rec: &Recorder, cache: Option<CacheId>, objs: &[u64]) -> Option<u64> {
    let m = rec.machine();
    let mut seen = BTreeSet::new();
    objs.iter().copied().find(|&o| {
        if !seen.insert(o) {
            return true;
        }
        if cache.is_none() && is_large_kmalloc(rec.machine(), o) {
            return false;
        }
        match place_of(m, o) {
            Some(p) => p.offset != 0 || !m.is_live(o),
            None => true,
        }
    })
}

/// `build_detached_freelist()`'s gathering and `slab_free_freelist_hook()`, as steps; returns
/// how many entries remain, and the group to free (the cache, the slab, the objects head
/// first with their indices), or no group for a large kmalloc freed here.
#[allow(clippy::type_complexity, reason = "one use, by the caller above")]
/// Without `hook` (a sheaf flush's `__kmem_cache_free_bulk()`, 6.18+), the group is freed as
/// gathered.
pub(crate) fn detach(
    rec: &mut Recorder,
    cache: Option<CacheId>,
    p: &mut [u64],
    size: usize,
    cpu: CpuId,
    hook: bool,
) -> (usize, Option<CacheId>, Option<Pfn>, Option<Vec<(u64, u32)>>) {
    let mut size = size - 1;
    let object = p[size];
    if cache.is_none() && is_large_kmalloc(rec.machine(), object) {
        rec.call(
            "kfree_bulk",
            "large kmalloc",
            "step.free_large_kmalloc",
            |rec| {
                let pfn = rec.machine().addr_pfn(object).expect("checked");
                let _ = free_pages(rec, cpu, pfn);
            },
        );
        return (size, None, None, None);
    }
    let place = place_of(rec.machine(), object).expect("checked");
    let slab = place.pfn;
    let slab_cache = rec.machine().slub().slabs[&slab].cache;
    // df->s: kfree_bulk() takes the slab's cache; kmem_cache_free_bulk() asks cache_from_obj(),
    // which without hardening or slub_debug=F keeps the named cache whatever the slab is.
    let df_cache = match cache {
        Some(named) if named != slab_cache => {
            cache_from_obj_unchecked(rec, named, slab_cache, object, slab).unwrap_or(slab_cache)
        }
        _ => slab_cache,
    };
    let mut group = vec![object]; // head first; `object` is the tail
    let mut lookahead = LOOKAHEAD;
    let mut same = size;
    let mut scanned = 0;
    while size > 0 {
        size -= 1;
        scanned += 1;
        let o = p[size];
        if place_of(rec.machine(), o).map(|q| q.pfn) == Some(slab) {
            group.insert(0, o);
            same -= 1;
            if size != same {
                p.swap(size, same);
            }
            continue;
        }
        lookahead -= 1;
        if lookahead == 0 {
            break;
        }
    }
    let detached = rec.call(
        "build_detached_freelist",
        "detached freelist",
        "step.detached_freelist",
        |rec| {
            rec.arg_cache("cache", df_cache);
            rec.arg("slab", slab);
            rec.arg("count", group.len() as u32);
            rec.arg("scanned", scanned);
            // The way do_slab_free() below will take.
            let splice = free_path(rec.machine(), df_cache, slab, cpu);
            let detached = DetachedFreelist {
                cache: df_cache,
                slab,
                cpu,
                splice,
                objects: group.clone(),
                scanned,
                lookahead_left: lookahead,
                array: p.to_vec(),
                done_from: same as u32,
            };
            rec.emit(Event::DetachedFreelistBuilt(Box::new(detached.clone())));
            if let Some(expected) = cache.filter(|&c| c != df_cache) {
                // cache_from_obj() with its checks: reported, then freed to the object's own cache.
                rec.arg_cache("wrong_cache", expected);
            }
            // The links as the kernel writes them: the tail first (NULL), then each gathered object
            // in front of the previous head.
            set_freepointer(rec, object, 0);
            for pair in group.windows(2).rev() {
                set_freepointer(rec, pair[0], pair[1]);
            }
            detached
        },
    );
    let group = if hook {
        slab_free_freelist_hook(rec, &detached, group)
    } else {
        group
    };
    let objs: Vec<(u64, u32)> = group
        .iter()
        .map(|&o| (o, obj_to_index(rec.machine(), slab, o)))
        .collect();
    (same, Some(df_cache), Some(slab), Some(objs))
}

/// `slab_free_freelist_hook()` on the detached freelist `group` (head first), as `slab_free()`
/// runs it before `do_slab_free()` (mm/slub.c, v6.6): it walks the list from its head and
/// pushes every object the free hooks do not hold back (none here: no KASAN quarantine, no
/// KFENCE) onto a new list, so the list it hands on is reversed. Returns that list, head
/// first. A list of one object comes out as it went in (its free pointer is set to NULL,
/// which `do_slab_free()` overwrites), so only groups of two or more get a step; the same
/// holds for `kfree()` and `kmem_cache_free()`, whose one-object lists take the same pass.
fn slab_free_freelist_hook(
    rec: &mut Recorder,
    detached: &DetachedFreelist,
    mut group: Vec<u64>,
) -> Vec<u64> {
    if group.len() < 2 {
        return group;
    }
    rec.call(
        "slab_free_freelist_hook",
        "reverse the detached freelist",
        "step.slab_free_freelist_hook",
        |rec| {
            rec.arg_cache("cache", detached.cache);
            rec.arg("slab", detached.slab);
            rec.arg("count", group.len() as u32);
            // Each object is linked in front of the new list built so far.
            let mut head = 0;
            for &object in &group {
                set_freepointer(rec, object, head);
                head = object;
            }
            group.reverse();
            rec.arg_addr("head", head);
            rec.emit(Event::DetachedFreelistReversed(Box::new(
                DetachedFreelist {
                    objects: group.clone(),
                    ..detached.clone()
                },
            )));
        },
    );
    group
}

/// The paths that race with other CPUs: written once, run as async code by the
/// interleaving executor and as its synchronous twin (`sync`) by sequential runs.
#[slabscope_dual::dual]
pub(crate) mod asyn {
    use super::*;
    use crate::slub::alloc::asyn::___slab_alloc;
    use crate::slub::free::asyn::{__slab_free, do_slab_free};

    /// `__kmem_cache_alloc_bulk()` (mm/slub.c, v6.6): with preemption off and the local lock held
    /// (`local_lock_irq()`), the objects come off `c->freelist` without a tid bump each; an empty
    /// freelist bumps the tid, drops the lock and calls `___slab_alloc()`, which refills it. Out
    /// of memory gives back what was taken and fails the whole request.
    pub(crate) async fn alloc_bulk(k: Ctx<'_>, cache: CacheId, n: u32) -> Vec<u64> {
        // 6.18+: a cache with sheaves takes what they have first; 7.x has no cpu slab.
        if k.sheaf_capacity(cache) > 0 || !k.slub_version().has_cpu_slab() {
            return Box::pin(crate::slub::sheaves::asyn::alloc_bulk_pcs(k, cache, n)).await;
        }
        __kmem_cache_alloc_bulk(k, cache, n).await
    }

    /// `__kmem_cache_alloc_bulk()` of the cpu-slab SLUB (6.x).
    pub(crate) async fn __kmem_cache_alloc_bulk(k: Ctx<'_>, cache: CacheId, n: u32) -> Vec<u64> {
        let step = k.call("kmem_cache_alloc_bulk", "bulk", "step.alloc_bulk");
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.arg("count", n);
        k.preempt(true);
        k.local_lock_irqsave(cache).await;
        let mut p = Vec::with_capacity(n as usize);
        for _ in 0..n {
            // `c = this_cpu_ptr(s->cpu_slab)` afresh: ___slab_alloc() lets the task move while
            // it gets a new slab.
            let cpu = k.cpu();
            let c = k.cpu_slab(cache, cpu);
            if c.freelist == 0 {
                k.set_cpu_freelist_tid(cache, cpu, 0, c.tid + TID_STEP);
                k.local_unlock_irqrestore(cache).await;
                let obj = ___slab_alloc(k, cache, None).await;
                if obj == 0 {
                    // error: give back what was taken and fail the whole request.
                    k.preempt(false);
                    if !p.is_empty() {
                        free_bulk(k, Some(cache), &p).await;
                    }
                    k.arg("failed", "out of memory");
                    drop(step);
                    return Vec::new();
                }
                p.push(obj);
                k.local_lock_irqsave(cache).await;
                continue;
            }
            p.push(k.bulk_take_object(cache, cpu, c.freelist, c.tid));
        }
        let cpu = k.cpu();
        let c = k.cpu_slab(cache, cpu);
        k.set_cpu_freelist_tid(cache, cpu, c.freelist, c.tid + TID_STEP);
        k.local_unlock_irqrestore(cache).await;
        k.preempt(false);
        drop(step);
        p
    }

    /// `kmem_cache_free_bulk()` as kernel code: each detached freelist freed as it is built.
    pub(crate) async fn free_bulk(k: Ctx<'_>, cache: Option<CacheId>, objs: &[u64]) -> FreeOutcome {
        if k.bulk_first_bad(cache, objs).is_some() {
            return FreeOutcome::Refused;
        }
        // 6.18+: a named cache with sheaves frees to them (`free_to_pcs_bulk()`).
        if let Some(c) = cache.filter(|&c| k.sheaf_capacity(c) > 0) {
            Box::pin(crate::slub::sheaves::asyn::free_to_pcs_bulk(k, c, objs)).await;
            return FreeOutcome::Freed;
        }
        let mut p = objs.to_vec();
        let mut size = p.len();
        while size > 0 {
            size = build_detached_freelist(k, cache, &mut p, size).await;
        }
        FreeOutcome::Freed
    }

    /// `build_detached_freelist()`: takes the last entry, gathers the other entries of its slab
    /// from the end of the array until the third entry of another slab, and parks the gathered
    /// ones at the top of the array; then `slab_free()` frees the group with one `do_slab_free()`,
    /// after `slab_free_freelist_hook()` has reversed it. Returns how many entries remain to be
    /// freed.
    pub(crate) async fn build_detached_freelist(
        k: Ctx<'_>,
        cache: Option<CacheId>,
        p: &mut [u64],
        size: usize,
    ) -> usize {
        let cpu = k.cpu();
        let (same, group) = k.bulk_detach(cache, p, size, cpu, true);
        let Some((df_cache, slab, group)) = group else {
            return same;
        };
        if k.slub_version().has_cpu_slab() {
            do_slab_free(k, df_cache, slab, &group).await;
        } else {
            // 7.x: slab_free_bulk() -> __slab_free(), there is no cpu slab.
            Box::pin(__slab_free(k, df_cache, slab, &group)).await;
        }
        same
    }
}
