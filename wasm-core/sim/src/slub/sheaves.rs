//! SLUB with per-CPU sheaves (mm/slub.c, v6.18.15 and v7.2.13; spec after 6.6, sections 3
//! and 4): allocation from and freeing to a CPU's sheaves, the barn they are exchanged with,
//! refills from the slabs and flushes back to them, and the single-object slab path of 7.x.
//!
//! Rules:
//! - A cache has sheaves when `s->sheaf_capacity` is not 0 (`cache_has_sheaves()`): in 6.18
//!   only a cache created with `sheaf_capacity`, in 7.x every cache but the debug and the
//!   bootstrap ones. Everything else in `slub` is the cpu-slab SLUB, which 7.x no longer has:
//!   there `slab_alloc_7x` and `__slab_free_from` are the only ways to the slabs.
//! - A CPU's sheaves are changed only under its `s->cpu_sheaves->lock` (`pcs_lock`, a
//!   `local_trylock()` on the fast paths: an interrupt that finds it held takes the slab
//!   path), a barn's lists only under the barn's lock; slabs as in the rest of SLUB. The
//!   lock is dropped around everything that may sleep or take `list_lock` (a refill, a flush,
//!   a new sheaf), so what the task read before is read again after.
//! - Steps: each decision that moves sheaves is a step of its own (`__pcs_replace_empty_main`,
//!   `__pcs_replace_full_main`), as are a refill's walk of the node list and each new slab;
//!   the object going to or coming from the caller is the last step of an operation.
//! - Not modelled: pfmemalloc slabs, `kmalloc_nolock()`, `slab_strict_numa`, prefilled
//!   sheaves, and the kmalloc cache a sheaf itself comes from (see `slub::sheaf`).

use crate::ids::{CacheId, NodeId, Pfn, SheafId};
use crate::slub::mem::SlubMem;
use crate::slub::sheaf::{FreeFrom, PcsSlot, MAX_EMPTY_SHEAVES, MAX_FULL_SHEAVES};
use crate::smp::Ctx;

/// Where a refill puts the objects it takes (`asyn::refill_objects`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dest {
    /// Onto a sheaf (`refill_sheaf()`).
    Sheaf(SheafId),
    /// To the caller (`kmem_cache_alloc_bulk()` beyond what the sheaves had).
    Caller,
}

/// `PCS_BATCH_MAX`: objects `sheaf_flush_main()` moves out of the lock at a time.
pub const PCS_BATCH_MAX: u32 = 32;

/// The paths that race with other CPUs: written once, run as async code by the
/// interleaving executor and as its synchronous twin (`sync`) by sequential runs.
#[slabscope_dual::dual]
pub(crate) mod asyn {
    use super::*;
    use crate::slub::alloc::asyn::{allocate_slab_step, get_any_partial};
    use crate::slub::cmpxchg::asyn::{read_slab, slab_update_freelist};
    use crate::slub::cmpxchg::SlabWord;
    use crate::slub::free::asyn::{__slab_free_from, do_slab_free_from};
    use crate::smp::micro::{Access, Micro};

    /// `alloc_from_pcs()` (v7.2.13; v6.18.15 the same but for the refill, below): the top
    /// object of this CPU's main sheaf, after `__pcs_replace_empty_main()` when it is empty.
    /// `None` (the caller takes the slab path): a node other than the local one is asked for,
    /// the lock is held by code this CPU interrupted, no full sheaf can be had, or the top
    /// object is not of the node asked for.
    pub(crate) async fn alloc_from_pcs(
        k: Ctx<'_>,
        cache: CacheId,
        node: Option<NodeId>,
    ) -> Option<u64> {
        let _f = k.frame("alloc_from_pcs");
        // Sheaves hold objects of the CPU's own memory node only.
        if node.is_some_and(|n| n != k.cpu_to_node(k.cpu())) {
            return None;
        }
        if !k.pcs_lock(cache, true).await {
            return None;
        }
        let cpu = k.cpu();
        let mut main = k.pcs(cache, cpu).main?;
        if k.sheaf_size(main) == 0 {
            main = __pcs_replace_empty_main(k, cache).await?;
        }
        let cpu = k.cpu();
        let top = k.sheaf_top(main);
        if let Some(n) = node {
            if k.object_node(top) != Some(n) {
                k.pcs_unlock(cache).await;
                return None;
            }
        }
        let step = k.call("alloc_from_pcs", "main sheaf", "step.alloc_from_pcs");
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        let object = k.sheaf_hand_out(cache, cpu, main);
        k.arg("left", k.sheaf_size(main));
        k.pcs_unlock(cache).await;
        drop(step);
        Some(object)
    }

    /// `__pcs_replace_empty_main()` (v7.2.13), entered with the lock held and an empty main
    /// sheaf: a non-empty spare becomes main; else a full sheaf of the barn is exchanged for
    /// the empty main; else (the lock dropped) an empty sheaf is refilled from the slabs and
    /// installed. The new main, with the lock held; `None` with it dropped.
    pub(crate) async fn __pcs_replace_empty_main(k: Ctx<'_>, cache: CacheId) -> Option<SheafId> {
        let cpu = k.cpu();
        let pcs = k.pcs(cache, cpu);
        let main = pcs.main?;
        if let Some(spare) = pcs.spare.filter(|&s| k.sheaf_size(s) > 0) {
            let _step = k.call(
                "__pcs_replace_empty_main",
                "spare",
                "step.pcs_replace_empty_main",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.set_pcs(cache, cpu, PcsSlot::Main, Some(spare));
            k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
            return Some(spare);
        }
        let node = k.cpu_to_node(cpu);
        // barn_replace_empty_sheaf(): the empty main for a full sheaf, if the barn has one.
        k.barn_lock(cache, node).await;
        let (nr_full, _) = k.barn_counts(cache, node);
        if nr_full > 0 {
            let step = k.call(
                "__pcs_replace_empty_main",
                "barn full sheaf",
                "step.pcs_replace_empty_main",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.arg("node", node);
            let full = k.barn_take(cache, node, true)?;
            k.barn_put(cache, node, main, false);
            // pcs->main = full (under this CPU's lock, which the task holds throughout).
            k.set_pcs(cache, cpu, PcsSlot::Main, Some(full));
            k.barn_unlock(cache, node).await;
            drop(step);
            return Some(full);
        }
        k.barn_unlock(cache, node).await;
        // Refill: the spare (empty) or an empty sheaf of the barn, else a new one.
        let step = k.call(
            "__pcs_replace_empty_main",
            "refill",
            "step.pcs_replace_empty_main",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        let empty = match pcs.spare {
            Some(spare) => {
                k.set_pcs(cache, cpu, PcsSlot::Spare, None);
                k.sheaf_hold(spare, true);
                Some(spare)
            }
            None => {
                k.barn_lock(cache, node).await;
                let e = k.barn_take(cache, node, false);
                if let Some(e) = e {
                    k.sheaf_hold(e, true);
                }
                k.barn_unlock(cache, node).await;
                e
            }
        };
        let sheaf = match empty {
            Some(e) => e,
            None => {
                let e = k.alloc_empty_sheaf(cache);
                k.sheaf_hold(e, true);
                e
            }
        };
        k.pcs_unlock(cache).await;
        drop(step);
        if !refill_sheaf(k, cache, sheaf).await {
            sheaf_flush_unused(k, cache, sheaf).await;
            free_empty_sheaf_step(k, cache, sheaf);
            return None;
        }
        install_full(k, cache, sheaf).await
    }

    /// `__pcs_replace_empty_main()` after the refill (v7.2.13; 6.18 as noted): relocks and
    /// installs the refilled `sheaf`. The task may run on another CPU now, whose sheaves may
    /// have changed meanwhile. The main sheaf, with the lock held.
    async fn install_full(k: Ctx<'_>, cache: CacheId, sheaf: SheafId) -> Option<SheafId> {
        k.pcs_lock(cache, false).await;
        let cpu = k.cpu();
        let node = k.cpu_to_node(cpu);
        let pcs = k.pcs(cache, cpu);
        let main = pcs.main?;
        let step = k.call(
            "__pcs_replace_empty_main",
            "install",
            "step.pcs_install_full",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        let spare_v6_18 = k.slub_version() < crate::geometry::SlubVersion::V7_2;
        if k.sheaf_size(main) == 0 {
            // The expected case: the emptied main is kept as the spare (7.x; 6.18 always puts
            // it in the barn), or goes to the barn when there is a spare already.
            if pcs.spare.is_none() && !spare_v6_18 {
                k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
                k.set_pcs(cache, cpu, PcsSlot::Main, Some(sheaf));
                k.sheaf_hold(sheaf, false);
            } else {
                k.barn_lock(cache, node).await;
                k.barn_put(cache, node, main, false);
                k.set_pcs(cache, cpu, PcsSlot::Main, Some(sheaf));
                k.sheaf_hold(sheaf, false);
                k.barn_unlock(cache, node).await;
            }
        } else if pcs.spare.is_none() {
            k.set_pcs(cache, cpu, PcsSlot::Spare, Some(sheaf));
            k.sheaf_hold(sheaf, false);
        } else if pcs.spare.is_some_and(|s| k.sheaf_size(s) == 0) {
            k.barn_lock(cache, node).await;
            k.barn_put(cache, node, pcs.spare?, false);
            k.set_pcs(cache, cpu, PcsSlot::Spare, Some(sheaf));
            k.sheaf_hold(sheaf, false);
            k.barn_unlock(cache, node).await;
        } else {
            k.barn_lock(cache, node).await;
            k.barn_put(cache, node, sheaf, true);
            k.sheaf_hold(sheaf, false);
            k.barn_unlock(cache, node).await;
        }
        drop(step);
        k.pcs(cache, k.cpu()).main
    }

    /// `refill_sheaf()`: the sheaf topped up to the cache's capacity from the slabs
    /// (`refill_objects()`, 7.x). False when memory ran out before.
    pub(crate) async fn refill_sheaf(k: Ctx<'_>, cache: CacheId, sheaf: SheafId) -> bool {
        let want = k.sheaf_capacity(cache) - k.sheaf_size(sheaf);
        if want == 0 {
            return true;
        }
        if k.slub_version().has_cpu_slab() {
            // 6.18 (v6.18.15): __kmem_cache_alloc_bulk() of the cpu-slab SLUB into the sheaf's
            // array: c->freelist, then ___slab_alloc() as often as it runs dry; all or none.
            let objects = Box::pin(crate::slub::bulk::asyn::__kmem_cache_alloc_bulk(
                k, cache, want,
            ))
            .await;
            if objects.is_empty() {
                return false;
            }
            let _step = k.call("refill_sheaf", "cpu slab bulk", "step.refill_sheaf");
            k.arg_cache("cache", cache);
            k.arg("cpu", k.cpu());
            k.arg("count", want);
            let cpu = k.cpu();
            for &o in &objects {
                k.sheaf_take_back(cache, cpu, sheaf, o);
            }
            return true;
        }
        refill_objects(k, cache, want, Dest::Sheaf(sheaf), &mut Vec::new()).await == want
    }

    /// `refill_objects()` (v7.2.13) with `min == max == want`: free objects of the local
    /// node's partial slabs, from the head of the list, each slab's whole freelist; then (NUMA)
    /// another node's, if it keeps more than `min_partial` partial slabs; then new slabs.
    /// The objects go to `dest` as they are taken (the kernel copies them into the array it
    /// was given). How many it got.
    pub(crate) async fn refill_objects(
        k: Ctx<'_>,
        cache: CacheId,
        want: u32,
        dest: Dest,
        out: &mut Vec<u64>,
    ) -> u32 {
        let local = k.cpu_to_node(k.cpu());
        let mut got = __refill_objects_node(k, cache, local, want, dest, out).await;
        if got < want {
            let from_node = async |k, n| {
                let more = __refill_objects_node(k, cache, n, want - got, dest, out).await;
                (more > 0).then_some(more)
            };
            got += get_any_partial(k, cache, local, true, from_node)
                .await
                .unwrap_or(0);
        }
        while got < want {
            k.at(Access::Work).await;
            let cpu = k.cpu();
            let new = k.new_slab(cache, cpu, Some(local), false);
            k.note(|| Micro::Work { cpu });
            let Some(new) = new else {
                let _ = k.slab_out_of_memory(cache);
                return got;
            };
            let step = allocate_slab_step(k, cache, &new);
            got += alloc_from_new_slab(k, cache, new.pfn, want - got, dest, out).await;
            drop(step);
        }
        got
    }

    /// Where taken objects go: onto a sheaf being refilled, or to the caller on this CPU.
    fn deliver(k: Ctx<'_>, cache: CacheId, dest: Dest, objects: &[u64], out: &mut Vec<u64>) {
        out.extend_from_slice(objects);
        match dest {
            Dest::Sheaf(sheaf) => k.sheaf_push(sheaf, objects),
            Dest::Caller => {
                let cpu = k.cpu();
                for &o in objects {
                    k.object_handed_out(cache, cpu, o);
                }
            }
        }
    }

    /// `alloc_from_new_slab()` (v7.2.13): the first `count` objects of a new slab (all of
    /// them when it has no more); a slab left with free objects goes to the head of its node's
    /// partial list.
    pub(crate) async fn alloc_from_new_slab(
        k: Ctx<'_>,
        cache: CacheId,
        pfn: Pfn,
        count: u32,
        dest: Dest,
        out: &mut Vec<u64>,
    ) -> u32 {
        let objects = k.slab_fields(pfn).objects;
        let taken = k.new_slab_take(cache, pfn, count);
        k.arg("taken", taken.len() as u32);
        let full = taken.len() as u32 == objects;
        deliver(k, cache, dest, &taken, out);
        if !full {
            let node = k.slab_fields(pfn).node;
            k.hold(pfn, 0);
            k.spin_lock_irqsave(cache, node).await;
            k.release(pfn);
            k.add_partial(cache, node, pfn, crate::trace::End::Head);
            k.spin_unlock_irqrestore(cache, node).await;
        }
        taken.len() as u32
    }

    /// `__refill_objects_node()` with `get_partial_node_bulk()` (v7.2.13): under the node's
    /// `list_lock`, slabs are isolated from the head of its partial list until their free
    /// objects (read without a lock) reach `want`; then, without the lock, each one's whole
    /// freelist is taken (`get_freelist_nofreeze()`, a cmpxchg) and copied into `p`. The
    /// objects one slab has beyond `want` go back to it, and the slab to the tail of the
    /// list (`__slab_try_return_freelist()`); slabs not needed go back to the tail.
    pub(crate) async fn __refill_objects_node(
        k: Ctx<'_>,
        cache: CacheId,
        node: NodeId,
        want: u32,
        dest: Dest,
        out: &mut Vec<u64>,
    ) -> u32 {
        k.at(Access::ReadNode).await;
        let nr_partial = k.nr_partial(cache, node);
        k.note(|| Micro::ReadNode {
            cache,
            node,
            cpu: k.cpu(),
            nr_partial: nr_partial as u32,
        });
        if nr_partial == 0 {
            return 0;
        }
        let min = want;
        let mut got = 0;
        let step = k.call(
            "__refill_objects_node",
            "node partial",
            "step.refill_objects_node",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.arg("node", node);
        // get_partial_node_bulk()
        k.spin_lock_irqsave(cache, node).await;
        let mut isolated = Vec::new();
        let mut total = 0;
        while let Some(pfn) = k.node_partial_first(cache, node) {
            let f = k.slab_fields(pfn);
            let free = f.objects - f.inuse;
            if total >= min && total + free > min {
                break;
            }
            k.remove_partial(cache, node, pfn);
            k.slab_isolated(pfn, true);
            isolated.push(pfn);
            total += free;
            if total >= min {
                break;
            }
        }
        k.spin_unlock_irqrestore(cache, node).await;
        k.arg("slabs", isolated.len() as u32);
        let mut rest = isolated.into_iter();
        for pfn in rest.by_ref() {
            // get_freelist_nofreeze()
            let (head, count) = loop {
                let old = read_slab(k, pfn).await;
                let new = SlabWord {
                    freelist: 0,
                    inuse: old.objects,
                    frozen: false,
                };
                if slab_update_freelist(k, pfn, &old, new, "get_freelist_nofreeze", false).await {
                    break (old.freelist, old.objects - old.inuse);
                }
            };
            let need = (want - got).min(count);
            let objects = k.freelist_objects(head, count);
            deliver(k, cache, dest, &objects[..need as usize], out);
            got += need;
            if need < count {
                // More than needed: give the rest back. Until then the task holds them, still
                // linked as they were on the slab.
                let back = &objects[need as usize..];
                k.objects_stacked(back);
                if !__slab_try_return_freelist(k, cache, node, pfn, back).await {
                    let objs: Vec<(u64, u32)> =
                        back.iter().map(|&o| (o, k.obj_to_index(pfn, o))).collect();
                    k.slab_isolated(pfn, false);
                    __slab_free_from(k, cache, pfn, &objs, FreeFrom::Stacked).await;
                }
                break;
            }
            k.slab_isolated(pfn, false); // full now, on no list
            if got >= want {
                break;
            }
        }
        // Isolated slabs not used (the free counts were a racy lower bound): back to the tail.
        let unused: Vec<Pfn> = rest.collect();
        if !unused.is_empty() {
            k.spin_lock_irqsave(cache, node).await;
            for pfn in unused {
                k.slab_isolated(pfn, false);
                k.add_partial(cache, node, pfn, crate::trace::End::Tail);
            }
            k.spin_unlock_irqrestore(cache, node).await;
        }
        k.arg("objects", got);
        drop(step);
        got
    }

    /// `__slab_try_return_freelist()` (v7.2.13): a slab whose freelist the task took whole
    /// gets back `cnt` objects from `head` (still linked as they were) and goes to the tail
    /// of the node's partial list; false when a free to it came in between (its freelist is
    /// not empty any more), and the caller frees them one list at a time.
    pub(crate) async fn __slab_try_return_freelist(
        k: Ctx<'_>,
        cache: CacheId,
        node: NodeId,
        pfn: Pfn,
        back: &[u64],
    ) -> bool {
        let old = read_slab(k, pfn).await;
        if old.freelist != 0 {
            return false;
        }
        let new = SlabWord {
            freelist: back[0],
            inuse: old.inuse - back.len() as u32,
            frozen: false,
        };
        k.spin_lock_irqsave(cache, node).await;
        if !slab_update_freelist(k, pfn, &old, new, "__slab_try_return_freelist", false).await {
            k.spin_unlock_irqrestore(cache, node).await;
            return false;
        }
        k.objects_unstacked(back);
        k.slab_isolated(pfn, false);
        k.add_partial(cache, node, pfn, crate::trace::End::Tail);
        k.spin_unlock_irqrestore(cache, node).await;
        true
    }

    /// `free_to_pcs()` (v7.2.13): the object goes on top of this CPU's main sheaf, after
    /// `__pcs_replace_full_main()` when it is full. False (the caller frees to the slab): the
    /// lock is held by code this CPU interrupted, or no sheaf with room can be had.
    pub(crate) async fn free_to_pcs(k: Ctx<'_>, cache: CacheId, object: u64) -> bool {
        let _f = k.frame("free_to_pcs");
        if !k.pcs_lock(cache, true).await {
            return false;
        }
        let cpu = k.cpu();
        let Some(mut main) = k.pcs(cache, cpu).main else {
            k.pcs_unlock(cache).await;
            return false;
        };
        if k.sheaf_size(main) == k.sheaf_capacity(cache) {
            match __pcs_replace_full_main(k, cache).await {
                Some(m) => main = m,
                None => return false,
            }
        }
        let cpu = k.cpu();
        let step = k.call("free_to_pcs", "main sheaf", "step.free_to_pcs");
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        k.sheaf_take_back(cache, cpu, main, object);
        k.arg("size", k.sheaf_size(main));
        k.pcs_unlock(cache).await;
        drop(step);
        true
    }

    /// `__pcs_replace_full_main()` (v7.2.13), entered with the lock held and a full main
    /// sheaf: an empty sheaf of the barn becomes main with the old main as spare; a spare
    /// with room is swapped in; else the full main goes to the barn for an empty sheaf; when
    /// the barn already holds `MAX_FULL_SHEAVES` full ones, the (full) spare is flushed to
    /// the slabs and becomes the empty main; when the barn has no empty sheaf, a new one is
    /// made. The new main with the lock held; `None` with it dropped.
    pub(crate) async fn __pcs_replace_full_main(k: Ctx<'_>, cache: CacheId) -> Option<SheafId> {
        let cpu = k.cpu();
        let node = k.cpu_to_node(cpu);
        let pcs = k.pcs(cache, cpu);
        let main = pcs.main?;
        let capacity = k.sheaf_capacity(cache);
        let Some(spare) = pcs.spare else {
            // barn_get_empty_sheaf()
            k.barn_lock(cache, node).await;
            if k.barn_counts(cache, node).1 > 0 {
                let _step = k.call(
                    "__pcs_replace_full_main",
                    "barn empty sheaf",
                    "step.pcs_replace_full_main",
                );
                k.arg_cache("cache", cache);
                k.arg("cpu", cpu);
                let e = k.barn_take(cache, node, false)?;
                k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
                k.set_pcs(cache, cpu, PcsSlot::Main, Some(e));
                k.barn_unlock(cache, node).await;
                return Some(e);
            }
            k.barn_unlock(cache, node).await;
            return new_empty_main(k, cache).await;
        };
        if k.sheaf_size(spare) < capacity {
            let _step = k.call(
                "__pcs_replace_full_main",
                "swap with spare",
                "step.pcs_replace_full_main",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.set_pcs(cache, cpu, PcsSlot::Main, Some(spare));
            k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
            return Some(spare);
        }
        // barn_replace_full_sheaf()
        k.barn_lock(cache, node).await;
        let (nr_full, nr_empty) = k.barn_counts(cache, node);
        if nr_full < MAX_FULL_SHEAVES && nr_empty > 0 {
            let step = k.call(
                "__pcs_replace_full_main",
                "full main to the barn",
                "step.pcs_replace_full_main",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.arg("node", node);
            let e = k.barn_take(cache, node, false)?;
            k.barn_put(cache, node, main, true);
            k.set_pcs(cache, cpu, PcsSlot::Main, Some(e));
            k.barn_unlock(cache, node).await;
            drop(step);
            return Some(e);
        }
        k.barn_unlock(cache, node).await;
        if nr_full >= MAX_FULL_SHEAVES {
            // E2BIG: the spare's objects go back to their slabs, and it is the empty main.
            let step = k.call(
                "__pcs_replace_full_main",
                "barn full: flush the spare",
                "step.pcs_replace_full_main",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.arg("node", node);
            k.set_pcs(cache, cpu, PcsSlot::Spare, None);
            k.sheaf_hold(spare, true);
            k.pcs_unlock(cache).await;
            drop(step);
            sheaf_flush_unused(k, cache, spare).await;
            return install_empty(k, cache, spare).await;
        }
        // ENOMEM (no empty sheaf in the barn): a new one.
        let _ = capacity;
        new_empty_main(k, cache).await
    }

    /// `__pcs_replace_full_main()`'s `alloc_empty:` (the lock held on entry): a new empty
    /// sheaf, then `got_empty:`.
    async fn new_empty_main(k: Ctx<'_>, cache: CacheId) -> Option<SheafId> {
        let step = k.call(
            "__pcs_replace_full_main",
            "new empty sheaf",
            "step.pcs_replace_full_main",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.pcs_unlock(cache).await;
        let e = k.alloc_empty_sheaf(cache);
        k.sheaf_hold(e, true);
        drop(step);
        install_empty(k, cache, e).await
    }

    /// `got_empty:` with `__pcs_install_empty_sheaf()` (v7.2.13): relocks and installs the
    /// empty sheaf `e` as main, the full main becoming the spare; if what the task finds now
    /// differs (it moved, or an interrupt changed the sheaves), `e` goes to the barn instead
    /// or the main is swapped, and in the last case the barn takes a full sheaf beyond its
    /// limit.
    async fn install_empty(k: Ctx<'_>, cache: CacheId, e: SheafId) -> Option<SheafId> {
        k.pcs_lock(cache, false).await;
        let cpu = k.cpu();
        let node = k.cpu_to_node(cpu);
        let pcs = k.pcs(cache, cpu);
        let main = pcs.main?;
        let capacity = k.sheaf_capacity(cache);
        let step = k.call(
            "__pcs_replace_full_main",
            "install",
            "step.pcs_install_empty",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        match pcs.spare {
            None => {
                k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
                k.set_pcs(cache, cpu, PcsSlot::Main, Some(e));
                k.sheaf_hold(e, false);
            }
            Some(_) if k.sheaf_size(main) < capacity => {
                k.barn_lock(cache, node).await;
                k.barn_put(cache, node, e, false);
                k.sheaf_hold(e, false);
                k.barn_unlock(cache, node).await;
            }
            Some(spare) if k.sheaf_size(spare) < capacity => {
                k.set_pcs(cache, cpu, PcsSlot::Main, Some(spare));
                k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
                k.barn_lock(cache, node).await;
                k.barn_put(cache, node, e, false);
                k.sheaf_hold(e, false);
                k.barn_unlock(cache, node).await;
            }
            Some(_) => {
                k.barn_lock(cache, node).await;
                k.barn_put(cache, node, main, true);
                k.set_pcs(cache, cpu, PcsSlot::Main, Some(e));
                k.sheaf_hold(e, false);
                k.barn_unlock(cache, node).await;
            }
        }
        drop(step);
        k.pcs(cache, k.cpu()).main
    }

    /// `sheaf_flush_unused()`: every object of a sheaf no CPU holds goes back to its slab,
    /// through `__kmem_cache_free_bulk()`.
    pub(crate) async fn sheaf_flush_unused(k: Ctx<'_>, cache: CacheId, sheaf: SheafId) {
        let size = k.sheaf_size(sheaf);
        if size == 0 {
            return;
        }
        // The sheaf's array is the bulk free's array: each slab's objects leave it as they
        // are freed, and its size is 0 at the end.
        let objects = k.sheaf_objects(sheaf);
        __kmem_cache_free_bulk(k, cache, objects, FreeFrom::Sheaf(sheaf)).await;
    }

    /// `sheaf_flush_main()` (the lock not held): the main sheaf's objects go back to their
    /// slabs `PCS_BATCH_MAX` at a time, each batch taken off the top under the lock and freed
    /// after it is dropped.
    pub(crate) async fn sheaf_flush_main(k: Ctx<'_>, cache: CacheId) {
        loop {
            k.pcs_lock(cache, false).await;
            let cpu = k.cpu();
            let Some(main) = k.pcs(cache, cpu).main else {
                k.pcs_unlock(cache).await;
                return;
            };
            let step = k.call("sheaf_flush_main", "batch", "step.sheaf_flush_main");
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            let batch = k.sheaf_size(main).min(PCS_BATCH_MAX);
            k.arg("count", batch);
            let objects = k.sheaf_take(main, batch);
            k.objects_stacked(&objects);
            let remaining = k.sheaf_size(main);
            k.pcs_unlock(cache).await;
            drop(step);
            __kmem_cache_free_bulk(k, cache, objects, FreeFrom::Stacked).await;
            if remaining == 0 {
                return;
            }
        }
    }

    /// `__kmem_cache_free_bulk()` (v7.2.13): `build_detached_freelist()` gathers the objects
    /// of one slab at a time, from the end of the array, and each list goes to the slab
    /// without the free hooks' pass (7.x: `__slab_free()`; 6.18: `do_slab_free()`, the cpu
    /// slab's fast path when it is this CPU's).
    pub(crate) async fn __kmem_cache_free_bulk(
        k: Ctx<'_>,
        cache: CacheId,
        mut p: Vec<u64>,
        from: FreeFrom,
    ) {
        let mut size = p.len();
        while size > 0 {
            let cpu = k.cpu();
            let (same, group) = k.bulk_detach(Some(cache), &mut p, size, cpu, false);
            size = same;
            let Some((df_cache, slab, group)) = group else {
                continue;
            };
            if k.slub_version().has_cpu_slab() {
                do_slab_free_from(k, df_cache, slab, &group, from).await;
            } else {
                __slab_free_from(k, df_cache, slab, &group, from).await;
            }
        }
    }

    /// `___slab_alloc()` of 7.x (v7.2.13): one object from the head partial slab of the node
    /// (`get_from_partial_node()`, under its `list_lock`), else from another node's partial
    /// list, else from a new slab, which goes to the head of its node's partial list. A
    /// request for a node first tries that node alone (`__GFP_THISNODE`), then any.
    pub(crate) async fn slab_alloc_7x(k: Ctx<'_>, cache: CacheId, node: Option<NodeId>) -> u64 {
        if k.cache_debug(cache) {
            return crate::slub::alloc::asyn::slab_alloc_debug(k, cache, node).await;
        }
        let _f = k.frame("___slab_alloc");
        let mut try_thisnode = node.is_some();
        loop {
            let cpu = k.cpu();
            let search = node.unwrap_or(k.cpu_to_node(cpu));
            if let Some(object) = get_from_partial_node(k, cache, search).await {
                return object;
            }
            if !try_thisnode {
                let from_node = async |k, n| get_from_partial_node(k, cache, n).await;
                if let Some(object) = get_any_partial(k, cache, search, false, from_node).await {
                    return object;
                }
            }
            k.at(Access::Work).await;
            let cpu = k.cpu();
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
            let object = k.slab_fields(new.pfn).freelist;
            alloc_from_new_slab(k, cache, new.pfn, 1, Dest::Caller, &mut Vec::new()).await;
            drop(step);
            return object;
        }
    }

    /// `get_from_partial_node()` (v7.2.13): under the node's `list_lock`, one object off the
    /// freelist of the first partial slab (a cmpxchg, as frees race with it); a slab left
    /// without free objects leaves the list. `None`, and no step, when the list is empty.
    pub(crate) async fn get_from_partial_node(
        k: Ctx<'_>,
        cache: CacheId,
        node: NodeId,
    ) -> Option<u64> {
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
        let step = k.call(
            "get_from_partial_node",
            "node partial",
            "step.get_from_partial_node",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.arg("node", node);
        k.spin_lock_irqsave(cache, node).await;
        let Some(pfn) = k.node_partial_first(cache, node) else {
            k.spin_unlock_irqrestore(cache, node).await;
            return None;
        };
        let object = loop {
            let old = read_slab(k, pfn).await;
            let next = k.get_freepointer_safe(old.freelist);
            let new = SlabWord {
                freelist: next,
                inuse: old.inuse + 1,
                frozen: false,
            };
            if slab_update_freelist(k, pfn, &old, new, "get_from_partial_node", false).await {
                if next == 0 {
                    k.remove_partial(cache, node, pfn);
                }
                break old.freelist;
            }
        };
        k.object_handed_out(cache, k.cpu(), object);
        k.spin_unlock_irqrestore(cache, node).await;
        drop(step);
        Some(object)
    }

    /// `pcs_flush_all()` (v7.2.13), run by `flush_cpu_sheaves()` on the CPU: the spare
    /// sheaf is flushed to the slabs and freed, the rcu_free sheaf submitted, the main sheaf
    /// flushed in batches. The barn keeps what it has.
    pub(crate) async fn pcs_flush_all(k: Ctx<'_>, cache: CacheId) {
        let _f = k.frame("pcs_flush_all");
        k.pin(true);
        let step = k.call("pcs_flush_all", "flush_cpu_sheaves", "step.pcs_flush_all");
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.pcs_lock(cache, false).await;
        let cpu = k.cpu();
        let pcs = k.pcs(cache, cpu);
        if let Some(spare) = pcs.spare {
            k.set_pcs(cache, cpu, PcsSlot::Spare, None);
            k.sheaf_hold(spare, true);
        }
        if let Some(rcu) = pcs.rcu_free {
            k.set_pcs(cache, cpu, PcsSlot::RcuFree, None);
            k.sheaf_hold(rcu, true);
        }
        k.pcs_unlock(cache).await;
        drop(step);
        if let Some(spare) = pcs.spare {
            sheaf_flush_unused(k, cache, spare).await;
            free_empty_sheaf_step(k, cache, spare);
        }
        if let Some(rcu) = pcs.rcu_free {
            // call_rcu(rcu_free_sheaf_nobarn): flushed to the slabs after the grace period.
            let cpu = k.cpu();
            let _step = k.call(
                "pcs_flush_all",
                "rcu_free submitted",
                "step.pcs_flush_rcu_free",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.sheaf_hold(rcu, false);
            k.call_rcu_sheaf(cpu, cache, rcu, k.cpu_to_node(cpu), false);
        }
        sheaf_flush_main(k, cache).await;
        k.pin(false);
    }

    /// `__kfree_rcu_sheaf()` (v7.2.13; v6.18.15 the same but for the node it records): a
    /// `kfree_rcu()` of an object of this CPU's node, in a cache with sheaves, puts it on the
    /// CPU's `rcu_free` sheaf. With none, an empty spare becomes it, else an empty sheaf of
    /// the barn, else a new one (allocated with the lock dropped). The object that fills the
    /// sheaf sends it whole to `call_rcu(rcu_free_sheaf)`, remembering this CPU's node; after
    /// the grace period its objects serve allocations again as one full sheaf.
    /// `false` (the caller queues the object on its `krc`): the lock is held by code this CPU
    /// interrupted.
    pub(crate) async fn __kfree_rcu_sheaf(k: Ctx<'_>, cache: CacheId, object: u64) -> bool {
        let _f = k.frame("__kfree_rcu_sheaf");
        if !k.pcs_lock(cache, true).await {
            return false;
        }
        let cpu = k.cpu();
        let rcu = match k.pcs(cache, cpu).rcu_free {
            Some(s) => s,
            None => match rcu_free_sheaf_of(k, cache).await {
                Some(s) => s,
                None => return false,
            },
        };
        let cpu = k.cpu();
        let node = k.cpu_to_node(cpu);
        let full = k.sheaf_size(rcu) + 1 >= k.sheaf_capacity(cache);
        let step = if full {
            k.call(
                "__kfree_rcu_sheaf",
                "rcu_free sheaf full: call_rcu",
                "step.kfree_rcu_sheaf_submit",
            )
        } else {
            k.call(
                "__kfree_rcu_sheaf",
                "rcu_free sheaf",
                "step.kfree_rcu_sheaf",
            )
        };
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        k.arg_addr("object", object);
        k.sheaf_take_back(cache, cpu, rcu, object);
        k.arg("size", k.sheaf_size(rcu));
        if full {
            // Submitted before the unlock, so that a racing flush cannot miss it.
            k.set_pcs(cache, cpu, PcsSlot::RcuFree, None);
            k.call_rcu_sheaf(cpu, cache, rcu, node, true);
        }
        k.pcs_unlock(cache).await;
        drop(step);
        true
    }

    /// `__kfree_rcu_sheaf()` without an `rcu_free` sheaf (the lock held): an empty spare, an
    /// empty sheaf of the barn, or a new one allocated with the lock dropped becomes it. The
    /// sheaf, with the lock held; `None` with it dropped.
    #[allow(
        dead_code,
        reason = "kfree_rcu() runs sequentially (its twin); no interleaved task runs it"
    )]
    async fn rcu_free_sheaf_of(k: Ctx<'_>, cache: CacheId) -> Option<SheafId> {
        let cpu = k.cpu();
        if let Some(spare) = k.pcs(cache, cpu).spare.filter(|&s| k.sheaf_size(s) == 0) {
            let _step = k.call(
                "__kfree_rcu_sheaf",
                "empty spare",
                "step.kfree_rcu_sheaf_spare",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.set_pcs(cache, cpu, PcsSlot::Spare, None);
            k.set_pcs(cache, cpu, PcsSlot::RcuFree, Some(spare));
            return Some(spare);
        }
        // barn_get_empty_sheaf()
        let node = k.cpu_to_node(cpu);
        k.barn_lock(cache, node).await;
        if k.barn_counts(cache, node).1 > 0 {
            let _step = k.call(
                "__kfree_rcu_sheaf",
                "barn empty sheaf",
                "step.kfree_rcu_sheaf_barn",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            let e = k.barn_take(cache, node, false);
            if let Some(e) = e {
                k.set_pcs(cache, cpu, PcsSlot::RcuFree, Some(e));
            }
            k.barn_unlock(cache, node).await;
            return e;
        }
        k.barn_unlock(cache, node).await;
        let step = k.call(
            "__kfree_rcu_sheaf",
            "new empty sheaf",
            "step.kfree_rcu_sheaf_new",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        k.pcs_unlock(cache).await;
        let e = k.alloc_empty_sheaf(cache);
        k.sheaf_hold(e, true);
        drop(step);
        let relocked = k.pcs_lock(cache, true).await;
        let cpu = k.cpu();
        let _step = k.call(
            "__kfree_rcu_sheaf",
            "install",
            "step.kfree_rcu_sheaf_install",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        k.sheaf_hold(e, false);
        if !relocked {
            k.free_empty_sheaf(e);
            return None;
        }
        // Another task of this CPU may have installed one meanwhile: the new sheaf is freed.
        if let Some(other) = k.pcs(cache, cpu).rcu_free {
            k.free_empty_sheaf(e);
            return Some(other);
        }
        k.set_pcs(cache, cpu, PcsSlot::RcuFree, Some(e));
        Some(e)
    }

    /// `rcu_free_sheaf()` (v7.2.13), after the grace period, on the CPU whose callback it is:
    /// the full sheaf goes to the barn of the node that submitted it while that barn holds
    /// fewer than `MAX_FULL_SHEAVES` full ones; else it is flushed to the slabs, then kept as
    /// an empty sheaf of the barn while it holds fewer than `MAX_EMPTY_SHEAVES`, else freed.
    /// `barn: false` is `rcu_free_sheaf_nobarn()`, for a sheaf a flush submitted: flushed and
    /// freed. (The free hooks' pass drops nothing here: no debug option is modelled that keeps
    /// an object back.)
    #[allow(
        dead_code,
        reason = "RCU callbacks run sequentially (their twin); no interleaved task runs one"
    )]
    pub(crate) async fn rcu_free_sheaf(
        k: Ctx<'_>,
        cache: CacheId,
        sheaf: SheafId,
        node: NodeId,
        barn: bool,
    ) {
        let cpu = k.cpu();
        let size = k.sheaf_size(sheaf);
        let to_barn = barn && size > 0 && k.barn_counts(cache, node).0 < MAX_FULL_SHEAVES;
        let step = match (barn, to_barn) {
            (true, true) => k.call("rcu_free_sheaf", "to the barn", "step.rcu_free_sheaf_barn"),
            (true, false) => k.call(
                "rcu_free_sheaf",
                "barn full: flush",
                "step.rcu_free_sheaf_flush",
            ),
            (false, _) => k.call(
                "rcu_free_sheaf_nobarn",
                "flush",
                "step.rcu_free_sheaf_nobarn",
            ),
        };
        k.arg_cache("cache", cache);
        k.arg("cpu", cpu);
        k.arg("node", node);
        k.arg("size", size);
        k.rcu_sheaf_invoked(cpu, cache, sheaf, node, barn);
        if to_barn {
            k.barn_lock(cache, node).await;
            k.barn_put(cache, node, sheaf, true);
            k.barn_unlock(cache, node).await;
            return;
        }
        k.sheaf_hold(sheaf, true);
        drop(step);
        sheaf_flush_unused(k, cache, sheaf).await;
        if barn && k.barn_counts(cache, node).1 < MAX_EMPTY_SHEAVES {
            let _step = k.call(
                "rcu_free_sheaf",
                "empty sheaf to the barn",
                "step.rcu_free_sheaf_empty",
            );
            k.arg_cache("cache", cache);
            k.arg("node", node);
            k.barn_lock(cache, node).await;
            k.barn_put(cache, node, sheaf, false);
            k.sheaf_hold(sheaf, false);
            k.barn_unlock(cache, node).await;
            return;
        }
        free_empty_sheaf_step(k, cache, sheaf);
    }

    /// `flush_rcu_sheaf()` (v7.2.13), on the CPU: its `rcu_free` sheaf, if any, is submitted
    /// with `call_rcu(rcu_free_sheaf_nobarn)`.
    #[allow(
        dead_code,
        reason = "destroy runs sequentially (its twin); no interleaved task runs it"
    )]
    pub(crate) async fn flush_rcu_sheaf(k: Ctx<'_>, cache: CacheId) {
        k.pcs_lock(cache, false).await;
        let cpu = k.cpu();
        if let Some(rcu) = k.pcs(cache, cpu).rcu_free {
            let _step = k.call(
                "flush_rcu_sheaf",
                "rcu_free submitted",
                "step.flush_rcu_sheaf",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            k.set_pcs(cache, cpu, PcsSlot::RcuFree, None);
            k.call_rcu_sheaf(cpu, cache, rcu, k.cpu_to_node(cpu), false);
        }
        k.pcs_unlock(cache).await;
    }

    /// `free_empty_sheaf()` of a sheaf just flushed, as a step.
    fn free_empty_sheaf_step(k: Ctx<'_>, cache: CacheId, sheaf: SheafId) {
        let _step = k.call("free_empty_sheaf", "", "step.free_empty_sheaf");
        k.arg_cache("cache", cache);
        k.free_empty_sheaf(sheaf);
    }

    /// `barn_shrink()` (v7.2.13): both lists are detached under the barn's lock; every full
    /// sheaf is flushed to the slabs, and every sheaf freed.
    #[allow(
        dead_code,
        reason = "shrink and destroy run sequentially (their twin); no interleaved task runs it"
    )]
    pub(crate) async fn barn_shrink(k: Ctx<'_>, cache: CacheId, node: NodeId) {
        let (nr_full, nr_empty) = k.barn_counts(cache, node);
        if nr_full + nr_empty == 0 {
            return;
        }
        let step = k.call("barn_shrink", "", "step.barn_shrink");
        k.arg_cache("cache", cache);
        k.arg("node", node);
        k.barn_lock(cache, node).await;
        let mut full = Vec::new();
        let mut empty = Vec::new();
        while let Some(s) = k.barn_take(cache, node, true) {
            k.sheaf_hold(s, true);
            full.push(s);
        }
        while let Some(s) = k.barn_take(cache, node, false) {
            k.sheaf_hold(s, true);
            empty.push(s);
        }
        k.barn_unlock(cache, node).await;
        drop(step);
        for s in full {
            sheaf_flush_unused(k, cache, s).await;
            free_empty_sheaf_step(k, cache, s);
        }
        for s in empty {
            free_empty_sheaf_step(k, cache, s);
        }
        let _ = MAX_EMPTY_SHEAVES;
    }

    /// `kmem_cache_alloc_bulk()` of a cache with sheaves, or of any cache in 7.x (v7.2.13): the
    /// top blocks of this CPU's sheaves first (`alloc_from_pcs_bulk()`), then the rest straight
    /// from the slabs, not through a sheaf (7.x `refill_objects()`, one object at a time for
    /// a cache without sheaves; 6.18 the cpu slab's bulk path). All or none.
    pub(crate) async fn alloc_bulk_pcs(k: Ctx<'_>, cache: CacheId, n: u32) -> Vec<u64> {
        let mut p = Vec::with_capacity(n as usize);
        if n == 0 {
            return p;
        }
        if k.sheaf_capacity(cache) > 0 {
            alloc_from_pcs_bulk(k, cache, n, &mut p).await;
        }
        let got = p.len() as u32;
        if got == n {
            return p;
        }
        if k.slub_version().has_cpu_slab() {
            let rest = Box::pin(crate::slub::bulk::asyn::__kmem_cache_alloc_bulk(
                k,
                cache,
                n - got,
            ))
            .await;
            if rest.is_empty() {
                __kmem_cache_free_bulk(k, cache, p, FreeFrom::Caller).await;
                return Vec::new();
            }
            p.extend(rest);
            return p;
        }
        let step = k.call(
            "kmem_cache_alloc_bulk",
            "from the slabs",
            "step.alloc_bulk_slabs",
        );
        k.arg_cache("cache", cache);
        k.arg("cpu", k.cpu());
        k.arg("count", n - got);
        let mut ok = true;
        if k.sheaf_capacity(cache) == 0 || k.cache_debug(cache) {
            for _ in got..n {
                let o = slab_alloc_7x(k, cache, None).await;
                if o == 0 {
                    ok = false;
                    break;
                }
                p.push(o);
            }
        } else {
            let more = refill_objects(k, cache, n - got, Dest::Caller, &mut p).await;
            ok = more == n - got;
        }
        drop(step);
        if !ok {
            __kmem_cache_free_bulk(k, cache, p, FreeFrom::Caller).await;
            return Vec::new();
        }
        p
    }

    /// `alloc_from_pcs_bulk()` (v7.2.13): under the lock, the top `min(left, size)` objects of
    /// the main sheaf, in their array order; an empty main is swapped for a non-empty spare or
    /// a full barn sheaf, else it stops (no refill here).
    pub(crate) async fn alloc_from_pcs_bulk(k: Ctx<'_>, cache: CacheId, n: u32, p: &mut Vec<u64>) {
        loop {
            if !k.pcs_lock(cache, true).await {
                return;
            }
            let cpu = k.cpu();
            let pcs = k.pcs(cache, cpu);
            let Some(mut main) = pcs.main else {
                k.pcs_unlock(cache).await;
                return;
            };
            let step = k.call(
                "alloc_from_pcs_bulk",
                "main sheaf",
                "step.alloc_from_pcs_bulk",
            );
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            if k.sheaf_size(main) == 0 {
                if let Some(spare) = pcs.spare.filter(|&s| k.sheaf_size(s) > 0) {
                    k.set_pcs(cache, cpu, PcsSlot::Main, Some(spare));
                    k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
                    main = spare;
                } else {
                    let node = k.cpu_to_node(cpu);
                    k.barn_lock(cache, node).await;
                    let full = k.barn_take(cache, node, true);
                    if let Some(f) = full {
                        k.barn_put(cache, node, main, false);
                        k.set_pcs(cache, cpu, PcsSlot::Main, Some(f));
                    }
                    k.barn_unlock(cache, node).await;
                    let Some(f) = full else {
                        k.arg("count", 0u32);
                        k.pcs_unlock(cache).await;
                        drop(step);
                        return;
                    };
                    main = f;
                }
            }
            let batch = (n - p.len() as u32).min(k.sheaf_size(main));
            k.arg("count", batch);
            let objects = k.sheaf_take(main, batch);
            for &o in &objects {
                k.object_handed_out(cache, cpu, o);
            }
            p.extend(objects);
            k.pcs_unlock(cache).await;
            drop(step);
            if p.len() as u32 >= n {
                return;
            }
        }
    }

    /// `free_to_pcs_bulk()` (v7.2.13): objects of another node are taken out of the array (the
    /// last entry moved into their place) and freed to their slabs; the rest go onto the main
    /// sheaf in array order, as much as it has room for, with an empty or non-full sheaf
    /// swapped in when it is full. When no sheaf with room can be had (no new one is made
    /// here), what is left goes to the slabs.
    pub(crate) async fn free_to_pcs_bulk(k: Ctx<'_>, cache: CacheId, objs: &[u64]) {
        let local = k.cpu_to_node(k.cpu());
        let mut p = objs.to_vec();
        let mut remote = Vec::new();
        let mut i = 0;
        while i < p.len() {
            if k.object_node(p[i]) == Some(local) {
                i += 1;
            } else {
                remote.push(p.swap_remove(i));
            }
        }
        let capacity = k.sheaf_capacity(cache);
        let mut at = 0;
        let mut give_up = false;
        while at < p.len() {
            if !k.pcs_lock(cache, true).await {
                give_up = true;
                break;
            }
            let cpu = k.cpu();
            let pcs = k.pcs(cache, cpu);
            let Some(mut main) = pcs.main else {
                k.pcs_unlock(cache).await;
                give_up = true;
                break;
            };
            let step = k.call("free_to_pcs_bulk", "main sheaf", "step.free_to_pcs_bulk");
            k.arg_cache("cache", cache);
            k.arg("cpu", cpu);
            if k.sheaf_size(main) >= capacity {
                let node = k.cpu_to_node(cpu);
                match pcs.spare {
                    None => {
                        k.barn_lock(cache, node).await;
                        let e = k.barn_take(cache, node, false);
                        if let Some(e) = e {
                            k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
                            k.set_pcs(cache, cpu, PcsSlot::Main, Some(e));
                        }
                        k.barn_unlock(cache, node).await;
                        let Some(e) = e else {
                            k.arg("count", 0u32);
                            k.pcs_unlock(cache).await;
                            drop(step);
                            give_up = true;
                            break;
                        };
                        main = e;
                    }
                    Some(spare) if k.sheaf_size(spare) < capacity => {
                        k.set_pcs(cache, cpu, PcsSlot::Main, Some(spare));
                        k.set_pcs(cache, cpu, PcsSlot::Spare, Some(main));
                        main = spare;
                    }
                    Some(_) => {
                        k.barn_lock(cache, node).await;
                        let (nr_full, nr_empty) = k.barn_counts(cache, node);
                        let e = if nr_full < MAX_FULL_SHEAVES && nr_empty > 0 {
                            let e = k.barn_take(cache, node, false);
                            k.barn_put(cache, node, main, true);
                            k.set_pcs(cache, cpu, PcsSlot::Main, e);
                            e
                        } else {
                            None
                        };
                        k.barn_unlock(cache, node).await;
                        let Some(e) = e else {
                            k.arg("count", 0u32);
                            k.pcs_unlock(cache).await;
                            drop(step);
                            give_up = true;
                            break;
                        };
                        main = e;
                    }
                }
            }
            let batch = (p.len() - at).min((capacity - k.sheaf_size(main)) as usize);
            k.arg("count", batch as u32);
            for &o in &p[at..at + batch] {
                k.sheaf_take_back(cache, cpu, main, o);
            }
            at += batch;
            k.pcs_unlock(cache).await;
            drop(step);
        }
        if give_up {
            __kmem_cache_free_bulk(k, cache, p[at..].to_vec(), FreeFrom::Caller).await;
        }
        for chunk in remote.chunks(PCS_BATCH_MAX as usize) {
            __kmem_cache_free_bulk(k, cache, chunk.to_vec(), FreeFrom::Caller).await;
        }
    }
}
