//! Allocation: `slab_alloc_node()` (fast path) and `___slab_alloc()` (slow path), with
//! `get_partial_node()`, `acquire_slab()`, `new_slab()`/`allocate_slab()` and kmalloc
//! (mm/slub.c and mm/slab_common.c, v6.6; spec 2.5, 2.6).

use super::cmpxchg::SlabWord;
use super::create::kmalloc_slab;
use super::state::TID_STEP;
use super::{freepointer_at, place_of, set_cpu_freelist};
use crate::geometry::kmalloc::KmallocTarget;
use crate::geometry::SlubVersion;
use crate::gfp::{Gfp, GFP_KERNEL};
use crate::ids::{CacheId, CpuId, NodeId};
use crate::kmalloc_caches::KmallocType;
use crate::machine::{Owner, Pfn};
use crate::page_alloc::{alloc_pages, alloc_pages_thisnode};
use crate::slab_common::ZERO_SIZE_PTR;
use crate::slub::mem::SlubMem;
use crate::smp::micro::{Access, Micro, RetryReason};
use crate::smp::{run_sync, Call, CallGuard, Ctx};
use crate::trace::{Event, Recorder};
use std::future::Future;

/// `kmalloc(size, GFP_KERNEL)`/`kmalloc_node()` from an unnamed caller (address 0): an
/// object of at least `size` bytes, or NULL (0).
pub fn kmalloc(rec: &mut Recorder, size: u64, cpu: CpuId, node: Option<NodeId>) -> u64 {
    __do_kmalloc_node(rec, size, GFP_KERNEL, 0, cpu, node)
}

/// `__do_kmalloc_node()`, v6.6: `kmalloc_slab()` picks the cache from the size, the gfp flags
/// and, with random kmalloc caches, the caller's address (`_RET_IP_`); then
/// `slab_alloc_node()`. Above `KMALLOC_MAX_CACHE_SIZE` the pages come straight from the page
/// allocator (`__kmalloc_large_node()`).
pub fn __do_kmalloc_node(
    rec: &mut Recorder,
    size: u64,
    flags: Gfp,
    caller: u64,
    cpu: CpuId,
    node: Option<NodeId>,
) -> u64 {
    match kmalloc_cache(rec, size, flags, caller, cpu, node) {
        // kmalloc_cache() has checked the cache (alloc_cache).
        Ok(cache) => slab_alloc_sequential(rec, cache, cpu, node),
        Err(result) => result,
    }
}

/// `slab_alloc()` run sequentially: the fast path straight through when it applies and
/// nobody asked for its micro-steps (`sequential_alloc_fast`), else the sync twin of the
/// racing code (from `__slab_alloc()` when the fast path's reads already sent it there).
#[inline(always)]
fn slab_alloc_sequential(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: Option<NodeId>,
) -> u64 {
    let m = rec.machine();
    if m.slub().caches[cache].sheaf_capacity() > 0 || !m.profile.slub.has_cpu_slab() {
        return run_sync!(rec, cpu, |k| sync::slab_alloc(k, cache, node));
    }
    match sequential_alloc_fast(rec, cache, cpu, node) {
        Sequential::Done(object) => object,
        Sequential::Slow => run_sync!(rec, cpu, |k| sync::__slab_alloc(k, cache, node)),
        Sequential::Twin => run_sync!(rec, cpu, |k| sync::slab_alloc(k, cache, node)),
    }
}

/// What a sequential fast path did (`sequential_alloc_fast`, `free::sequential_free_fast`).
pub(crate) enum Sequential<T> {
    /// It ran, and returned this.
    Done(T),
    /// Its reads send the operation to the slow path: the caller runs the slow path's twin
    /// (the twin of the fast path would make the same reads, which record nothing when no
    /// micro-step is kept, and go there too).
    Slow,
    /// It does not apply (micro-steps kept, or a freelist that leads out of the slabs): the
    /// caller runs the racing code's twin from the start.
    Twin,
}

/// The fast path of `asyn::slab_alloc` as a sequential run takes it, without the
/// micro-step boundaries that only an interleaved run or a person opening the step needs
/// (nothing can race between them here, so the cmpxchg succeeds): the same step, the same
/// events, in the same order (`tests::sequential_fast_paths_match_the_racing_code`). `Slow`
/// with no object, no cpu slab or a cpu slab of another node.
#[inline(always)]
fn sequential_alloc_fast(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: Option<NodeId>,
) -> Sequential<u64> {
    if rec.keeps_micro() {
        return Sequential::Twin;
    }
    let m = rec.machine();
    let c = &m.slub().caches[cache].cpu[cpu];
    let (object, Some(slab)) = (c.freelist, c.slab) else {
        return Sequential::Slow;
    };
    if object == 0 {
        return Sequential::Slow;
    }
    if let Some(n) = node {
        if m.slub().slabs.get(&slab).is_none_or(|s| s.node != n) {
            return Sequential::Slow;
        }
    }
    let Some(place) = place_of(m, object) else {
        return Sequential::Twin;
    };
    let next = freepointer_at(m, &place, object); // get_freepointer_safe()
    Sequential::Done(
        rec.call("slab_alloc_node", "fast path", "step.alloc_fast", |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
            set_cpu_freelist(rec, cache, cpu, next); // __update_cpu_freelist_fast()
            crate::slub::hand_out(rec, cache, cpu, place.pfn, object, place.index);
            object
        }),
    )
}

/// `__do_kmalloc_node()` up to `slab_alloc_node()`: the cache to allocate from, or the
/// call's result when no cache serves it (size 0, a large kmalloc straight from the page
/// allocator, a size too large, a destroyed cache).
#[inline(always)]
pub(crate) fn kmalloc_cache(
    rec: &mut Recorder,
    size: u64,
    flags: Gfp,
    caller: u64,
    cpu: CpuId,
    node: Option<NodeId>,
) -> Result<CacheId, u64> {
    match kmalloc_slab(rec, size, flags, caller) {
        Ok(Ok((cache, ty))) => {
            // With random kmalloc caches, a normal request's copy (0 is the normal cache).
            let copy = match ty {
                KmallocType::Normal => Some(0),
                KmallocType::Random(n) => Some(n),
                _ => None,
            };
            if let Some(copy) = copy.filter(|_| rec.machine().random_kmalloc_seed.is_some()) {
                random_kmalloc_step(rec, cache, caller, copy);
            }
            alloc_cache(rec, cache)
        }
        Ok(Err(KmallocTarget::ZeroSizePtr)) => {
            Err(rec.call("kmalloc", "size 0", "step.kmalloc_zero", |_| ZERO_SIZE_PTR))
        }
        Ok(Err(KmallocTarget::Large { order })) => {
            // __kmalloc_large_node(): straight to the page allocator.
            Err(
                match alloc_pages(rec, cpu, node, order as u8, Owner::LargeKmalloc) {
                    Ok(pfn) => rec.machine().object_addr(pfn, 1, 0),
                    Err(_) => 0,
                },
            )
        }
        Ok(Err(KmallocTarget::Cache(_))) | Err(_) => {
            Err(
                rec.call("kmalloc", "too large", "step.kmalloc_too_large", |rec| {
                    rec.arg("size", size);
                    0
                }),
            )
        }
    }
}

/// `cache`, unless it is destroyed (then the diagnostic step and NULL).
#[inline(always)]
pub(crate) fn alloc_cache(rec: &mut Recorder, cache: CacheId) -> Result<CacheId, u64> {
    if rec.machine().slub().caches[cache].destroyed {
        Err(use_destroyed_cache(rec, cache))
    } else {
        Ok(cache)
    }
}

/// The choice `kmalloc_type()` makes among the normal cache and its 15 random copies, shown
/// as a step of its own (the kernel computes it inline): `hash_64(caller ^
/// random_kmalloc_seed, 4)` is the copy, 0 being the normal cache.
fn random_kmalloc_step(rec: &mut Recorder, cache: CacheId, caller: u64, copy: u8) {
    rec.call(
        "kmalloc_slab",
        "random kmalloc cache",
        "step.kmalloc_random",
        |rec| {
            rec.arg_addr("caller", caller);
            rec.arg("copy", copy);
            rec.arg_cache("cache", cache);
        },
    );
}

/// `slab_alloc_node()`: `cache`'s next object for `cpu`, from `node` if given.
pub fn slab_alloc_node(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: Option<NodeId>,
) -> u64 {
    match alloc_cache(rec, cache) {
        Ok(cache) => slab_alloc_sequential(rec, cache, cpu, node),
        Err(result) => result,
    }
}

/// An allocation from a destroyed cache: the `kmem_cache` structure is freed memory now, a
/// use-after-free in the caller.
pub(crate) fn use_destroyed_cache(rec: &mut Recorder, cache: CacheId) -> u64 {
    rec.call(
        "kmem_cache_alloc",
        "destroyed cache",
        "step.use_destroyed_cache",
        |rec| {
            rec.arg_cache("cache", cache);
            0
        },
    )
}

/// Records that `object`, just taken off a CPU freelist, went to the caller (an object on a
/// CPU freelist lies in a slab; a damaged freelist may say otherwise, and then nothing is
/// recorded).
#[inline]
pub(crate) fn object_handed_out(rec: &mut Recorder, cache: CacheId, cpu: CpuId, object: u64) {
    if let Some(place) = place_of(rec.machine(), object) {
        crate::slub::hand_out(rec, cache, cpu, place.pfn, object, place.index);
    }
}

/// `___slab_alloc()` with no slab to be had: `slab_out_of_memory()`, and NULL.
pub(crate) fn slab_out_of_memory(rec: &mut Recorder, cache: CacheId) -> u64 {
    rec.call("___slab_alloc", "out of memory", "step.slab_oom", |rec| {
        rec.arg_cache("cache", cache);
        0
    })
}

/// The pages `new_slab()` → `allocate_slab()` got: where, of which order, for how many objects.
pub(crate) struct NewSlabPages {
    pub pfn: Pfn,
    pub order: u8,
    pub objects: u32,
}

/// `new_slab()` → `allocate_slab()`, first half: pages of the preferred order, else of the
/// minimum order (their page allocator steps come before the `allocate_slab` step).
/// With `thisnode` (`__GFP_THISNODE`), from `node` only.
pub(crate) fn new_slab(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: Option<NodeId>,
    thisnode: bool,
) -> Option<NewSlabPages> {
    let g = rec.machine().slub().caches[cache].geometry.clone();
    let mut order = g.order as u8;
    let mut objects = g.objs_per_slab;
    let owner = Owner::Slab { cache };
    let pages = |rec: &mut Recorder, order: u8| match node.filter(|_| thisnode) {
        Some(n) => alloc_pages_thisnode(rec, cpu, n, order, owner),
        None => alloc_pages(rec, cpu, node, order, owner),
    };
    let pfn = match pages(rec, order) {
        Ok(pfn) => pfn,
        Err(_) if g.min_order < g.order => {
            // ORDER_FALLBACK
            order = g.min_order as u8;
            objects = g.min_objs_per_slab;
            pages(rec, order).ok()?
        }
        Err(_) => return None,
    };
    Some(NewSlabPages {
        pfn,
        order,
        objects,
    })
}

/// The rest of `___slab_alloc()`'s new-slab branch, in the same step as `allocate_slab()`: the
/// slab's whole freelist goes to the CPU, the slab is frozen with every object in use, and
/// `inc_slabs_node()` counts it.
pub(crate) fn take_new_slab_freelist(rec: &mut Recorder, cache: CacheId, pfn: Pfn) -> u64 {
    let slab = &rec.machine().slub().slabs[&pfn];
    let (freelist, objects, node) = (slab.freelist, slab.objects, slab.node);
    rec.emit(Event::SlabStateSet {
        pfn,
        freelist: 0,
        inuse: objects,
        frozen: true,
    });
    rec.emit(Event::SlabCounted {
        cache,
        node,
        objects,
    });
    freelist
}

/// The paths that race with other CPUs: written once, run as async code by the
/// interleaving executor and as its synchronous twin (`sync`) by sequential runs.
#[slabscope_dual::dual]
pub(crate) mod asyn {
    use super::*;
    use crate::slub::cmpxchg::asyn::{read_slab, slab_update_freelist};
    use crate::slub::free::asyn::read_cpu_slab;
    use crate::slub::partial::asyn::{__put_partials, deactivate_slab, put_cpu_partial};

    /// The lockless fast path of `slab_alloc_node()` (mm/slub.c, v6.6, `CONFIG_PREEMPTION`):
    ///
    /// ```text
    /// redo:
    ///     c = raw_cpu_ptr(s->cpu_slab); tid = READ_ONCE(c->tid);
    ///     object = c->freelist; slab = c->slab;
    ///     if (!object || !slab || !node_match(slab, node))
    ///         object = __slab_alloc(s, gfpflags, node, addr, c, orig_size);
    ///     else {
    ///         next_object = get_freepointer_safe(s, object);
    ///         if (!__update_cpu_freelist_fast(s, object, next_object, tid)) {
    ///             note_cmpxchg_failure("slab_alloc", s, tid);
    ///             goto redo;
    ///         }
    ///     }
    /// ```
    ///
    /// Preemption and interrupts stay on: the task can be preempted (and migrated) or
    /// interrupted between any two of these accesses, and the tid makes the cmpxchg fail then.
    pub(crate) async fn slab_alloc(k: Ctx<'_>, cache: CacheId, node: Option<NodeId>) -> u64 {
        let _f = k.frame("slab_alloc_node");
        // 6.18+: the per-CPU sheaves first (alloc_from_pcs()); 7.x has no cpu slab behind them.
        if k.sheaf_capacity(cache) > 0 {
            if let Some(object) =
                Box::pin(crate::slub::sheaves::asyn::alloc_from_pcs(k, cache, node)).await
            {
                return object;
            }
        }
        if !k.slub_version().has_cpu_slab() {
            return Box::pin(crate::slub::sheaves::asyn::slab_alloc_7x(k, cache, node)).await;
        }
        loop {
            // redo:
            let (c, tid) = read_tid(k, cache).await;
            let (object, slab) = read_cpu_freelist(k, cache, c).await;
            let node_ok = match (node, slab) {
                (Some(n), Some(pfn)) => k.slab_node(pfn) == Some(n),
                _ => true,
            };
            if object == 0 || slab.is_none() || !node_ok {
                // Boxed: the slow path's state is large, and the fast path should not carry it.
                return Box::pin(__slab_alloc(k, cache, node)).await;
            }
            let step = k.call("slab_alloc_node", "fast path", "step.alloc_fast");
            k.arg_cache("cache", cache);
            k.arg("cpu", k.cpu());
            let next = get_freepointer_safe(k, object).await;
            if update_cpu_freelist_fast(k, cache, object, next, tid, "slab_alloc").await {
                let cpu = k.cpu();
                k.object_handed_out(cache, cpu, object);
                return object;
            }
            drop(step); // goto redo
        }
    }

    /// `c = raw_cpu_ptr(s->cpu_slab); tid = READ_ONCE(c->tid)`: `c` is the CPU the task is on at
    /// that moment, which it keeps even if it migrates.
    #[inline(always)]
    pub(crate) fn read_tid(k: Ctx<'_>, cache: CacheId) -> impl Future<Output = (CpuId, u64)> + '_ {
        k.step(Access::ReadTid, move || {
            let c = k.cpu();
            let tid = k.cpu_slab(cache, c).tid;
            k.tid_read();
            k.note(|| Micro::ReadTid {
                cache,
                cpu: c,
                of: c,
                tid,
            });
            (c, tid)
        })
    }

    /// `c->freelist` and `c->slab` of CPU `c`'s `kmem_cache_cpu` (read with `c` as the task
    /// found it, wherever the task runs now).
    #[inline(always)]
    pub(crate) fn read_cpu_freelist(
        k: Ctx<'_>,
        cache: CacheId,
        c: CpuId,
    ) -> impl Future<Output = (u64, Option<Pfn>)> + '_ {
        k.step(Access::ReadCpu, move || {
            let cc = k.cpu_slab(cache, c);
            let (freelist, slab) = (cc.freelist, cc.slab);
            k.note(|| Micro::ReadCpu {
                cache,
                cpu: k.cpu(),
                of: c,
                freelist,
                slab,
            });
            (freelist, slab)
        })
    }

    /// `get_freepointer_safe(s, object)`: the word at the free pointer's offset, read without
    /// trusting that `object` is still free (another task may have taken it, or its slab may be
    /// gone: the read then returns garbage, here 0, and the tid makes the cmpxchg fail).
    #[inline(always)]
    pub(crate) fn get_freepointer_safe(k: Ctx<'_>, object: u64) -> impl Future<Output = u64> + '_ {
        k.step(Access::GetFreepointer, move || {
            let next = k.get_freepointer_safe(object);
            k.note(|| Micro::GetFreepointer {
                cpu: k.cpu(),
                object,
                next,
            });
            next
        })
    }

    /// `__update_cpu_freelist_fast()`: `this_cpu_try_cmpxchg_freelist()` of the (freelist, tid)
    /// pair of the CPU the task is on now, from (`old`, `tid`) to (`new`, `next_tid(tid)`).
    /// Under the teaching switch `no_tid` only the freelist is compared. A failure is what
    /// `note_cmpxchg_failure(site, s, tid)` reports before the caller goes back to `redo`.
    #[inline]
    pub(crate) fn update_cpu_freelist_fast<'a>(
        k: Ctx<'a>,
        cache: CacheId,
        old: u64,
        new: u64,
        tid: u64,
        site: &'static str,
    ) -> impl Future<Output = bool> + 'a {
        k.step(Access::CmpxchgCpu, move || {
            let cpu = k.cpu();
            let no_tid = k.teaching().no_tid;
            let (ok, found, found_tid) = k.cpu_cmpxchg(cache, cpu, old, tid, new, no_tid);
            let reason = if ok {
                // Only a compare without the tid can succeed on a stale read.
                let stale = no_tid && found_tid != tid;
                let aba = stale && k.stale_cpu_freelist(cache, cpu, new);
                if aba {
                    k.diagnose(
                        "__update_cpu_freelist_fast",
                        "ABA: a stale next pointer installed",
                        "step.aba_stale_freelist",
                        move |rec| {
                            rec.arg_cache("cache", cache);
                            rec.arg("cpu", cpu);
                            rec.arg_addr("object", new);
                            rec.arg("old_tid", tid);
                            rec.arg("tid", found_tid);
                        },
                    );
                }
                None
            } else {
                let reason = note_cmpxchg_failure(k, tid);
                k.count_retry(site, reason);
                Some(reason)
            };
            k.note(|| Micro::CmpxchgCpu {
                cache,
                cpu,
                ok,
                old,
                old_tid: tid,
                found,
                found_tid,
                new,
                no_tid,
                reason,
                // A migrated task compares another CPU's pair, whose tid never matched.
                changed_at: match reason {
                    Some(r) if r != RetryReason::Migrated => k.cpu_pair_changed_at(cache, cpu),
                    _ => None,
                },
            });
            ok
        })
    }

    /// `note_cmpxchg_failure()` (mm/slub.c, v6.6): why the fast path's cmpxchg failed, as the
    /// kernel tells it from the tid it read and the tid the CPU has now ("due to cpu change" when
    /// the CPU in the tid's low bits differs, "due to cpu running other code" when only the
    /// event count does), made precise by what the simulator saw since the tid was read: a
    /// preemption or an interrupt on this CPU.
    pub(crate) fn note_cmpxchg_failure(k: Ctx<'_>, tid: u64) -> RetryReason {
        if tid % TID_STEP != u64::from(k.cpu()) {
            RetryReason::Migrated
        } else {
            k.disturbance()
        }
    }

    /// `__slab_alloc()`: with `CONFIG_PREEMPT_COUNT`, `slub_get_cpu_ptr()` disables preemption
    /// and takes `c` afresh (the task may have moved since the fast path read its tid).
    pub(crate) async fn __slab_alloc(k: Ctx<'_>, cache: CacheId, node: Option<NodeId>) -> u64 {
        k.preempt(true);
        let object = ___slab_alloc(k, cache, node).await;
        k.preempt(false);
        object
    }

    /// `___slab_alloc()` (mm/slub.c, v6.6), with its labels. Entered with preemption off; the
    /// per-CPU state is changed only under `local_lock_irqsave(&s->cpu_slab->lock)` and read
    /// again after each time the lock was dropped (an interrupt on this CPU may have changed it,
    /// and other CPUs may have freed to its slabs). The sequential steps: `node mismatch`,
    /// `load c->freelist`, `get_freelist`, `cpu partial pop`, `get_partial_node` (with the slab
    /// installed in the same step), `get_any_partial`, `allocate_slab`, `out of memory`.
    #[allow(
        clippy::too_many_lines,
        reason = "mirrors ___slab_alloc()'s labels (reread_slab, load_freelist, new_slab, ...) in the kernel's order"
    )]
    pub(crate) async fn ___slab_alloc(k: Ctx<'_>, cache: CacheId, node: Option<NodeId>) -> u64 {
        if k.cache_debug(cache) {
            return slab_alloc_debug(k, cache, node).await;
        }
        let _f = k.frame("___slab_alloc");
        'reread_slab: loop {
            let c = k.cpu();
            // reread_slab: `slab = READ_ONCE(c->slab)` (c->freelist is read under the lock).
            let slab = read_cpu_slab(k, cache, c).await;
            if let Some(pfn) = slab {
                // redo:
                let slab_node = k.slab_fields(pfn).node;
                if node.is_some_and(|n| n != slab_node) {
                    // ALLOC_NODE_MISMATCH: goto deactivate_slab.
                    let step = k.call(
                        "___slab_alloc",
                        "node mismatch: deactivate",
                        "step.node_mismatch",
                    );
                    k.arg_cache("cache", cache);
                    k.arg("cpu", c);
                    k.arg("slab_node", slab_node);
                    k.local_lock_irqsave(cache).await;
                    if k.cpu_slab(cache, c).slab != Some(pfn) {
                        k.local_unlock_irqrestore(cache).await;
                        drop(step);
                        continue 'reread_slab;
                    }
                    let freelist = detach_cpu_slab(k, cache, c);
                    k.local_unlock_irqrestore(cache).await;
                    deactivate_slab(k, cache, pfn, freelist).await;
                    drop(step);
                    continue 'reread_slab; // c->slab is NULL now: new_slab
                }
                // "must check again c->slab in case we got preempted and it changed"
                k.local_lock_irqsave(cache).await;
                let cc = k.cpu_slab(cache, c);
                if cc.slab != Some(pfn) {
                    k.local_unlock_irqrestore(cache).await;
                    continue 'reread_slab;
                }
                if cc.freelist != 0 {
                    let _step = k.call("___slab_alloc", "load c->freelist", "step.load_freelist");
                    k.arg_cache("cache", cache);
                    k.arg("cpu", c);
                    let object = load_freelist(k, cache, c, cc.freelist);
                    k.local_unlock_irqrestore(cache).await;
                    return object;
                }
                // get_freelist(): take what other CPUs freed to this slab.
                let mut step = k.call("get_freelist", "", "step.get_freelist");
                k.arg_cache("cache", cache);
                k.arg("cpu", c);
                let freelist = get_freelist(k, pfn, &step).await;
                step.leave(); // back in ___slab_alloc (load_freelist, or DEACTIVATE_BYPASS)
                if freelist != 0 {
                    // ALLOC_REFILL, load_freelist:
                    let object = load_freelist(k, cache, c, freelist);
                    k.local_unlock_irqrestore(cache).await;
                    return object;
                }
                // DEACTIVATE_BYPASS: the slab is full and on no list now.
                k.set_cpu_slab_ptr(cache, c, None);
                k.set_cpu_freelist(cache, c, 0);
                k.local_unlock_irqrestore(cache).await;
                drop(step);
            }
            // new_slab: the per-CPU partial stack first.
            let c = k.cpu();
            if k.cpu_slab(cache, c).partial.is_some() {
                k.local_lock_irqsave(cache).await;
                let cc = k.cpu_slab(cache, c);
                if cc.slab.is_some() {
                    k.local_unlock_irqrestore(cache).await;
                    continue 'reread_slab;
                }
                if let Some(top) = cc.partial {
                    let delayed = k.slub_version().delayed_freezing();
                    let top_fields = k.slab_fields(top);
                    let matches = node.is_none_or(|n| n == top_fields.node);
                    let step = if !delayed {
                        k.call("___slab_alloc", "cpu partial pop", "step.cpu_partial_pop")
                    } else if matches {
                        k.call(
                            "___slab_alloc",
                            "cpu partial pop",
                            "step.cpu_partial_pop_6_8",
                        )
                    } else {
                        k.call(
                            "___slab_alloc",
                            "cpu partial pop: other node",
                            "step.cpu_partial_pop_6_8",
                        )
                    };
                    k.arg_cache("cache", cache);
                    k.arg("cpu", c);
                    k.set_cpu_partial(cache, c, top_fields.next);
                    if delayed {
                        // 6.9+ (v6.12.117): still under the lock, a slab of the wanted node
                        // becomes the cpu slab and get_freelist() freezes it as it takes its
                        // objects (a cpu partial slab always has some); one of another node goes
                        // back to the node lists and the loop looks at the next.
                        if matches {
                            // `c->slab = slab; freelist = get_freelist(s, slab)`: in the model
                            // c->slab is set as the cmpxchg freezes the slab (under the local
                            // lock nobody reads it in between); until then the task holds it.
                            k.hold(top, 0);
                            let freelist = get_freelist(k, top, &step).await;
                            k.set_cpu_slab_ptr(cache, c, Some(top));
                            k.release(top);
                            step.set_path("cpu partial pop");
                            let object = load_freelist(k, cache, c, freelist);
                            k.local_unlock_irqrestore(cache).await;
                            return object;
                        }
                        k.hold(top, 0);
                        k.local_unlock_irqrestore(cache).await;
                        __put_partials(k, cache, Some(top), true).await;
                        drop(step);
                        continue 'reread_slab;
                    }
                    k.set_cpu_slab_ptr(cache, c, Some(top));
                    k.local_unlock_irqrestore(cache).await;
                    drop(step);
                    continue 'reread_slab; // goto redo: c->freelist is NULL, so get_freelist()
                }
                // "we were preempted and partial list got empty": new_objects.
                k.local_unlock_irqrestore(cache).await;
            }
            // 6.10+ (v6.12.117): a request for a node without __GFP_THISNODE first tries that
            // node alone (GFP_NOWAIT | __GFP_THISNODE), and only if no slab can be had there
            // again with the caller's flags.
            let later = k.slub_version() >= SlubVersion::V6_12;
            let mut try_thisnode = later && node.is_some();
            // new_objects: get_partial(), and the slab it finds installed in the same step.
            loop {
                let search = node.unwrap_or(k.cpu_to_node(c));
                if let Some(object) = get_partial_node(k, cache, search, install_k(k, cache)).await
                {
                    return object;
                }
                // get_partial(): other nodes unless the request is pinned to its node (6.6:
                // any node named; 6.10+: a node named with __GFP_THISNODE).
                let pinned = if later { try_thisnode } else { node.is_some() };
                if !pinned {
                    let from_node =
                        async |k, n| get_partial_node(k, cache, n, install_k(k, cache)).await;
                    if let Some(object) = get_any_partial(k, cache, search, false, from_node).await
                    {
                        return object;
                    }
                }
                // slub_put_cpu_ptr(); new_slab(); slub_get_cpu_ptr(): preemption is on meanwhile.
                k.preempt(false);
                k.at(Access::Work).await;
                let cpu = k.cpu();
                let new = k.new_slab(cache, cpu, node, try_thisnode);
                k.note(|| Micro::Work { cpu: k.cpu() });
                k.preempt(true);
                let Some(new) = new else {
                    if try_thisnode {
                        try_thisnode = false;
                        continue; // goto new_objects
                    }
                    return k.slab_out_of_memory(cache);
                };
                let step = allocate_slab_step(k, cache, &new);
                let pfn = new.pfn;
                // "No other reference to the slab yet": its freelist is taken without a cmpxchg.
                let freelist = k.take_new_slab_freelist(cache, pfn);
                k.hold(pfn, freelist);
                let object = install(k, cache, pfn, freelist).await;
                drop(step);
                return object;
            }
        }
    }

    /// `deactivate_slab:`/`flush_slab()`'s first half, under the local lock: the cpu slab and the
    /// CPU's freelist are detached (`c->slab = NULL; c->freelist = NULL; c->tid = next_tid()`);
    /// returns the freelist.
    #[inline]
    pub(crate) fn detach_cpu_slab(k: Ctx<'_>, cache: CacheId, c: CpuId) -> u64 {
        let cc = k.cpu_slab(cache, c);
        let (slab, freelist) = (cc.slab, cc.freelist);
        k.set_cpu_slab_ptr(cache, c, None);
        k.set_cpu_freelist(cache, c, 0);
        if let Some(pfn) = slab {
            k.hold(pfn, freelist);
        }
        freelist
    }

    /// `get_freelist()` (mm/slub.c, v6.6), under the local lock: takes the frozen cpu slab's
    /// whole freelist with a cmpxchg loop (remote frees race with it), leaving the slab frozen
    /// when there was one and unfrozen (full, on no list) when it was empty.
    pub(crate) async fn get_freelist(k: Ctx<'_>, pfn: Pfn, step: &Call<'_>) -> u64 {
        loop {
            let old = read_slab(k, pfn).await;
            let (objects, taken) = (old.objects, old.freelist);
            step.set_path(if taken != 0 {
                "remote frees"
            } else {
                "cpu slab exhausted"
            });
            let new = SlabWord {
                freelist: 0,
                inuse: objects,
                frozen: taken != 0,
            };
            if slab_update_freelist(k, pfn, &old, new, "get_freelist", false).await {
                return taken;
            }
        }
    }

    /// `retry_load_slab:` then `load_freelist:` (mm/slub.c, v6.6): under the local lock, the
    /// slab becomes the cpu slab (a cpu slab an interrupt installed meanwhile is flushed first)
    /// and the first object of `freelist` goes to the caller. Continues the step that found the
    /// slab, so no sequential step ends with a frozen slab that belongs to nobody.
    pub(crate) async fn install(k: Ctx<'_>, cache: CacheId, pfn: Pfn, freelist: u64) -> u64 {
        // ___slab_alloc()'s own code, whichever function found the slab.
        let _f = k.frame("___slab_alloc");
        loop {
            k.local_lock_irqsave(cache).await;
            let c = k.cpu();
            let cc = k.cpu_slab(cache, c);
            if let Some(other) = cc.slab {
                // CPUSLAB_FLUSH: an interrupt on this CPU installed a cpu slab meanwhile.
                let flush_freelist = detach_cpu_slab(k, cache, c);
                k.local_unlock_irqrestore(cache).await;
                deactivate_slab(k, cache, other, flush_freelist).await;
                continue; // goto retry_load_slab
            }
            k.release(pfn);
            k.set_cpu_slab_ptr(cache, c, Some(pfn));
            let object = load_freelist(k, cache, c, freelist);
            k.local_unlock_irqrestore(cache).await;
            return object;
        }
    }

    /// `install` as a continuation of `get_partial_node()` (`k` only gives its type).
    pub(crate) fn install_k<'a>(
        _k: Ctx<'a>,
        cache: CacheId,
    ) -> impl AsyncFnOnce(Ctx<'a>, Pfn, u64) -> u64 {
        async move |k, pfn, freelist| install(k, cache, pfn, freelist).await
    }

    /// `load_freelist:` under the local lock: the first object goes to the caller, the rest
    /// become `c->freelist` (bumping the tid).
    #[inline]
    pub(crate) fn load_freelist(k: Ctx<'_>, cache: CacheId, c: CpuId, freelist: u64) -> u64 {
        k.load_freelist(cache, c, freelist);
        freelist
    }

    /// `get_partial_node()` (mm/slub.c, v6.6): under the node's `list_lock`, `acquire_slab()`
    /// freezes the first slab of the partial list and takes its freelist (a cmpxchg, which a
    /// remote free to that slab can make fail: the walk then stops), and up to
    /// `cpu_partial_slabs / 2 + 1` more slabs are frozen onto the cpu partial stack. The first
    /// slab and its freelist go to `then` (the caller installs it in the same step). `None`, and
    /// no step, when the list is empty (a look at `n->nr_partial` without the lock).
    pub(crate) async fn get_partial_node<'a, R>(
        k: Ctx<'a>,
        cache: CacheId,
        node: NodeId,
        then: impl AsyncFnOnce(Ctx<'a>, Pfn, u64) -> R,
    ) -> Option<R> {
        k.at(Access::ReadNode).await;
        let nr_partial = k.nr_partial(cache, node);
        k.note(|| Micro::ReadNode {
            cache,
            node,
            cpu: k.cpu(),
            nr_partial: nr_partial as u32,
        });
        if nr_partial == 0 {
            return None;
        }
        let (limit, has_cpu_partial) = (k.cpu_partial_slabs(cache), k.has_cpu_partial(cache));
        let delayed = k.slub_version().delayed_freezing();
        let step = if delayed {
            k.call(
                "get_partial_node",
                "node partial",
                "step.get_partial_node_6_8",
            )
        } else {
            k.call("get_partial_node", "node partial", "step.get_partial_node")
        };
        k.arg_cache("cache", cache);
        k.arg("node", node);
        if delayed {
            let pfn = take_partial_slabs(k, cache, node, limit).await?;
            // ___slab_alloc(): freeze_slab(), then retry_load_slab.
            let freelist = freeze_slab(k, pfn).await;
            let r = then(k, pfn, freelist).await;
            drop(step);
            return Some(r);
        }
        k.spin_lock_irqsave(cache, node).await;
        let mut object = None;
        let mut partial_slabs = 0u32;
        // The list in order: each pass takes the slab at its head (acquire_slab() removes it), and
        // nothing else changes this node's list while its lock is held.
        while let Some(pfn) = k.node_partial_first(cache, node) {
            let first = object.is_none();
            let Some(freelist) = acquire_slab(k, cache, node, pfn, first).await else {
                break;
            };
            if first {
                object = Some((pfn, freelist));
            } else {
                put_cpu_partial(k, cache, pfn, false).await;
                partial_slabs += 1;
            }
            if !has_cpu_partial || partial_slabs > limit / 2 {
                break;
            }
        }
        k.arg("to_cpu_partial", partial_slabs);
        k.spin_unlock_irqrestore(cache, node).await;
        let (pfn, freelist) = object?;
        let r = then(k, pfn, freelist).await;
        drop(step);
        Some(r)
    }

    /// `get_partial_node()` from 6.8 on (mm/slub.c, v6.12.117), the walk under the node's
    /// `list_lock`: nothing is frozen any more. The first slab only leaves the list
    /// (`remove_partial()`), for the caller to freeze; up to `cpu_partial_slabs / 2 + 1` more go
    /// unfrozen onto this CPU's partial stack (`put_cpu_partial(s, slab, 0)`). No slab when the
    /// list emptied since the look without the lock.
    pub(crate) async fn take_partial_slabs(
        k: Ctx<'_>,
        cache: CacheId,
        node: NodeId,
        limit: u32,
    ) -> Option<Pfn> {
        k.spin_lock_irqsave(cache, node).await;
        let mut first = None;
        let mut partial_slabs = 0u32;
        while let Some(pfn) = k.node_partial_first(cache, node) {
            k.remove_partial(cache, node, pfn);
            k.hold(pfn, 0);
            if first.is_none() {
                first = Some(pfn); // ALLOC_FROM_PARTIAL
                                   // 6.10+: "if slub_get_cpu_partial(s) == 0" the walk ends here.
                if limit == 0 {
                    break;
                }
            } else {
                put_cpu_partial(k, cache, pfn, false).await; // CPU_PARTIAL_NODE
                partial_slabs += 1;
                if partial_slabs > limit / 2 {
                    break;
                }
            }
        }
        k.arg("to_cpu_partial", partial_slabs);
        k.spin_unlock_irqrestore(cache, node).await;
        first
    }

    /// `freeze_slab()` (mm/slub.c, 6.8+; v6.12.117): a slab just taken off the node list
    /// becomes frozen with every object in use, its whole freelist taken; a cmpxchg loop, as
    /// remote frees race with it.
    pub(crate) async fn freeze_slab(k: Ctx<'_>, pfn: Pfn) -> u64 {
        loop {
            let old = read_slab(k, pfn).await;
            let new = SlabWord {
                freelist: 0,
                inuse: old.objects,
                frozen: true,
            };
            if slab_update_freelist(k, pfn, &old, new, "freeze_slab", false).await {
                k.hold(pfn, old.freelist);
                return old.freelist;
            }
        }
    }

    /// `acquire_slab()` (mm/slub.c, v6.6), under the node's lock: freeze the slab with a cmpxchg
    /// (taking its whole freelist when `mode`, for the cpu slab) and take it off the partial list.
    /// `None` when the cmpxchg failed (a remote free changed the slab meanwhile).
    pub(crate) async fn acquire_slab(
        k: Ctx<'_>,
        cache: CacheId,
        node: NodeId,
        pfn: Pfn,
        mode: bool,
    ) -> Option<u64> {
        let old = read_slab(k, pfn).await;
        let new = if mode {
            SlabWord {
                freelist: 0,
                inuse: old.objects,
                frozen: true,
            }
        } else {
            SlabWord {
                freelist: old.freelist,
                inuse: old.inuse,
                frozen: true,
            }
        };
        if !slab_update_freelist(k, pfn, &old, new, "acquire_slab", false).await {
            return None;
        }
        // remove_partial(n, slab), under the lock, in the cmpxchg's micro-step.
        k.remove_partial(cache, node, pfn);
        k.hold(pfn, if mode { old.freelist } else { 0 });
        Some(old.freelist)
    }

    /// `get_any_partial()`: with no partial slab on the local node, a slab from the partial list
    /// of another node that keeps more than `min_partial`, searched in zonelist order, unless the
    /// defrag ratio says to stay local this time; `from_node` searches that node's list (and
    /// takes what it finds) inside this step. `None` when no node was found (with a step saying why, if it searched at
    /// all).
    ///
    /// 7.x names the look after its caller: `get_from_any_partial()` for one object,
    /// `__refill_objects_any()` for a sheaf's refill (`refill`), with the same rules (mm/slub.c,
    /// v7.2.13; the refill walks on to the next node while it has fewer than it needs, which
    /// with the single candidate node taken here makes no difference).
    pub(crate) async fn get_any_partial<'a, R>(
        k: Ctx<'a>,
        cache: CacheId,
        local: NodeId,
        refill: bool,
        from_node: impl AsyncFnOnce(Ctx<'a>, NodeId) -> Option<R>,
    ) -> Option<R> {
        if k.nr_nodes() == 1 {
            return None; // the zonelist holds the local node only: nothing more to find
        }
        let cpu = k.cpu();
        let (ratio, candidate) = k.any_partial_candidate(cache, local);
        let _step = match (k.slub_version() >= SlubVersion::V7_2, refill) {
            (false, _) => k.call(
                "get_any_partial",
                "remote node partial",
                "step.get_any_partial",
            ),
            (true, false) => k.call(
                "get_from_any_partial",
                "remote node partial",
                "step.get_from_any_partial_7_0",
            ),
            (true, true) => k.call(
                "__refill_objects_any",
                "remote node partial",
                "step.refill_objects_any_7_0",
            ),
        };
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        k.arg_zonelist("zonelist", local);
        // The kernel uses the cycle counter as a cheap random number: get_cycles() % 1024.
        let cycles = k.draw_below(1024);
        if ratio == 0 || cycles > ratio {
            k.arg("outcome", "defrag ratio: stay local");
            return None;
        }
        let Some(n) = candidate else {
            k.arg("outcome", "no other node has partial slabs to spare");
            return None;
        };
        k.arg("node", n);
        from_node(k, n).await
    }

    /// `___slab_alloc()` for a debug cache (`kmem_cache_debug()`): no cpu slab and no per-CPU
    /// partial stack; each object is taken under the node's `list_lock` from a node partial slab
    /// (`get_partial_node()` → `alloc_single_from_partial()`) or from a new slab
    /// (`alloc_single_from_new_slab()`).
    #[doc(alias = "___slab_alloc")]
    pub(crate) async fn slab_alloc_debug(k: Ctx<'_>, cache: CacheId, node: Option<NodeId>) -> u64 {
        let cpu = k.cpu();
        let search = node.unwrap_or(k.cpu_to_node(cpu));
        // 6.10+: the node alone first, as ___slab_alloc() does for any cache.
        let later = k.slub_version() >= SlubVersion::V6_12;
        let mut try_thisnode = later && node.is_some();
        loop {
            if let Some(object) = alloc_single_from_partial(k, cache, search).await {
                return object;
            }
            let pinned = if later { try_thisnode } else { node.is_some() };
            if !pinned {
                let from_node = async |k, n| alloc_single_from_partial(k, cache, n).await;
                if let Some(object) = get_any_partial(k, cache, search, false, from_node).await {
                    return object;
                }
            }
            k.at(Access::Work).await;
            let new = k.new_slab(cache, cpu, node, try_thisnode);
            k.note(|| Micro::Work { cpu });
            let Some(new) = new else {
                if try_thisnode {
                    try_thisnode = false;
                    continue;
                }
                return k.slab_out_of_memory(cache);
            };
            let step = allocate_slab_step(k, cache, &new);
            let object = alloc_single_from_new_slab(k, cache, new.pfn).await;
            drop(step);
            return object;
        }
    }

    /// `alloc_single_from_new_slab()` (mm/slub.c, v6.6), in the `allocate_slab` step: the first
    /// object of a new slab of a debug cache goes to the caller, and the slab onto the node's
    /// lists under its `list_lock`.
    pub(crate) async fn alloc_single_from_new_slab(k: Ctx<'_>, cache: CacheId, pfn: Pfn) -> u64 {
        let cpu = k.cpu();
        let (object, slab) = k.debug_take_first(pfn);
        k.spin_lock_irqsave(cache, slab.node).await;
        k.debug_list_new_slab(cache, cpu, &slab, pfn, object);
        k.spin_unlock_irqrestore(cache, slab.node).await;
        object
    }

    /// `get_partial_node()` of a debug cache: under the node's `list_lock`,
    /// `alloc_single_from_partial()` takes one object from the first partial slab; a slab that
    /// becomes full leaves the partial list (for `n->full` with `SLAB_STORE_USER`). `None`, and
    /// no step, when the list is empty.
    pub(crate) async fn alloc_single_from_partial(
        k: Ctx<'_>,
        cache: CacheId,
        node: NodeId,
    ) -> Option<u64> {
        k.at(Access::ReadNode).await;
        let nr_partial = k.nr_partial(cache, node);
        let cpu = k.cpu();
        k.note(|| Micro::ReadNode {
            cache,
            node,
            cpu,
            nr_partial: nr_partial as u32,
        });
        if nr_partial == 0 {
            return None;
        }
        let _step = k.call(
            "alloc_single_from_partial",
            "debug cache: node partial",
            "step.alloc_single_from_partial",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        k.arg("node", node);
        k.spin_lock_irqsave(cache, node).await;
        let object = k.debug_alloc_from_partial(cache, node, cpu);
        k.spin_unlock_irqrestore(cache, node).await;
        object
    }

    /// `allocate_slab()`, second half, as a step: the free objects are linked (shuffled when the
    /// cache has a random sequence, else in address order). The step stays open while the
    /// returned guard lives: the caller's use of the new slab (`___slab_alloc()` freezes it as
    /// the cpu slab) joins it.
    #[doc(alias = "allocate_slab")]
    pub(crate) fn allocate_slab_step<'a>(
        k: Ctx<'a>,
        cache: CacheId,
        new: &NewSlabPages,
    ) -> Call<'a> {
        let &NewSlabPages { order, objects, .. } = new;
        let path = if u32::from(order) == k.cache_order(cache) {
            "preferred order"
        } else {
            "order fallback"
        };
        let step = if k.slub_version().has_cpu_slab() {
            k.call("allocate_slab", path, "step.allocate_slab")
        } else {
            k.call("allocate_slab", path, "step.allocate_slab_7_0")
        };
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.arg("order", order);
        k.arg("objects", objects);
        k.init_slab_objects(cache, new);
        step
    }
}
