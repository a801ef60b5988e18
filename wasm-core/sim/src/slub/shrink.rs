//! `kmem_cache_shrink()` and `kmem_cache_destroy()` (mm/slub.c and mm/slab_common.c, v6.6;
//! spec 2.9).

use super::partial::{discard_slab, flush_cpu_slab};
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::Pfn;
use crate::slab_common::DestroyOutcome;
use crate::smp::run_sync;
use crate::trace::{End, Event, Recorder};

/// `barn_shrink()` of every node's barn (6.18+), run on `cpu`.
fn barn_shrink_all(rec: &mut Recorder, cache: CacheId, cpu: CpuId) {
    if rec.machine().slub().caches[cache].sheaf_capacity() == 0 {
        return;
    }
    for node in NodeId::all(rec.machine().config.nodes) {
        run_sync!(rec, cpu, |k| crate::slub::sheaves::sync::barn_shrink(
            k, cache, node
        ));
    }
}

/// `kvfree_rcu_barrier_on_cache()` (mm/slab_common.c, v7.2.13) for a cache with sheaves:
/// `flush_rcu_sheaves_on_cache()` submits every CPU's `rcu_free` sheaf
/// (`rcu_free_sheaf_nobarn`), then `rcu_barrier()`. Nothing when no CPU has one and no
/// sheaf of the cache waits for RCU. (Its `__kvfree_rcu_barrier()` of the krc queues is left
/// to the scenario's own `rcu_barrier()`.)
fn kvfree_rcu_barrier_on_cache(rec: &mut Recorder, cache: CacheId) {
    let m = rec.machine();
    let s = &m.slub().caches[cache];
    if s.sheaf_capacity() == 0 {
        return;
    }
    let waiting = m.rcu.cblist.iter().flatten().any(|cb| {
        matches!(cb.func, crate::rcu::state::RcuFunc::RcuFreeSheaf { cache: c, .. } if c == cache)
    });
    let on_cpus: Vec<CpuId> = s
        .pcs
        .iter_enumerated()
        .filter(|(_, p)| p.rcu_free.is_some())
        .map(|(c, _)| c)
        .collect();
    if !waiting && on_cpus.is_empty() {
        return;
    }
    for c in on_cpus {
        run_sync!(rec, c, |k| crate::slub::sheaves::sync::flush_rcu_sheaf(
            k, cache
        ));
    }
    crate::rcu::rcu_barrier(rec);
}

/// `SHRINK_PROMOTE_MAX`: slabs with up to this many free objects are sorted to the front.
const SHRINK_PROMOTE_MAX: u32 = 32;

/// `__kmem_cache_shrink()`: `flush_all()`, then per node: empty partial slabs are freed (even
/// below `min_partial`), slabs with 1..=32 free objects move to the head of the list, fullest
/// first, the rest stay behind them in their order. `list_move()` adds at the head of each
/// bucket, so within one free count the order is reversed.
#[doc(alias = "__kmem_cache_shrink")]
///
/// With sheaves (6.18+), `flush_all()` also flushes each CPU's sheaves, and every node's barn
/// is emptied (`barn_shrink()`) before the lists are.
pub fn kmem_cache_shrink(rec: &mut Recorder, cache: CacheId, cpu: CpuId) {
    for c in CpuId::all(rec.machine().config.cpus) {
        flush_cpu_slab(rec, cache, c);
    }
    barn_shrink_all(rec, cache, cpu);
    for node in NodeId::all(rec.machine().config.nodes) {
        let list = rec.machine().slub().caches[cache].node[node]
            .partial
            .clone();
        let mut buckets: Vec<Vec<Pfn>> = vec![Vec::new(); SHRINK_PROMOTE_MAX as usize];
        let mut rest = Vec::new();
        let mut discard = Vec::new();
        for &pfn in &list {
            let slab = &rec.machine().slub().slabs[&pfn];
            let free = slab.objects - slab.inuse;
            if free == slab.objects {
                discard.push(pfn);
            } else if free <= SHRINK_PROMOTE_MAX {
                buckets[free as usize - 1].insert(0, pfn);
            } else {
                rest.push(pfn);
            }
        }
        rec.call(
            "__kmem_cache_do_shrink",
            "sort and free",
            "step.shrink",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("node", node);
                rec.arg("freed", discard.len() as u32);
                rec.emit(Event::ListLockTaken { cache, node });
                for &pfn in &list {
                    rec.emit(Event::NodePartialRemoved { cache, node, pfn });
                }
                for pfn in buckets.into_iter().flatten().chain(rest) {
                    rec.emit(Event::NodePartialAdded {
                        cache,
                        node,
                        pfn,
                        end: End::Tail,
                    });
                }
                // list_move() to the head of the discard list, freed from its head: the last first.
                for pfn in discard.into_iter().rev() {
                    discard_slab(rec, cache, cpu, pfn);
                }
            },
        );
    }
}

/// `kmem_cache_destroy()`: drops a reference; the last one shuts the cache down
/// (`__kmem_cache_shutdown()`: flush every CPU, then `free_partial()` node by node). If a node
/// keeps slabs, the kernel stops there (later nodes are not looked at), prints
/// "kmem_cache_destroy %s: Slab cache still has objects" and keeps the cache.
pub fn kmem_cache_destroy(
    rec: &mut Recorder,
    cache: CacheId,
    alias: Option<&str>,
    cpu: CpuId,
) -> DestroyOutcome {
    if let Some(alias) = alias.filter(|a| {
        rec.machine().slub().caches[cache]
            .aliases
            .iter()
            .any(|x| x == a)
    }) {
        rec.call(
            "kmem_cache_destroy",
            "refcount",
            "step.cache_unreferenced",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.emit(Event::CacheUnaliased {
                    id: cache,
                    alias: alias.to_string(),
                });
            },
        );
        return DestroyOutcome::Unreferenced;
    }
    if !rec.machine().slub().caches[cache].aliases.is_empty() {
        // The creator's name goes first but the cache lives on for its aliases.
        let alias = rec.machine().slub().caches[cache].aliases[0].clone();
        rec.call(
            "kmem_cache_destroy",
            "refcount",
            "step.cache_unreferenced",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.emit(Event::CacheUnaliased { id: cache, alias });
            },
        );
        return DestroyOutcome::Unreferenced;
    }
    // 6.18+: kvfree_rcu_barrier_on_cache(): each CPU's rcu_free sheaf submitted, and an
    // rcu_barrier() that runs them (and every other callback queued so far).
    kvfree_rcu_barrier_on_cache(rec, cache);
    for c in CpuId::all(rec.machine().config.cpus) {
        flush_cpu_slab(rec, cache, c);
    }
    // 6.18+: every barn emptied.
    barn_shrink_all(rec, cache, cpu);
    // The slabs still counted when shutdown stops at a node that keeps some.
    let busy = rec.call(
        "__kmem_cache_shutdown",
        "free empty slabs",
        "step.cache_shutdown",
        |rec| {
            rec.arg_cache("cache", cache);
            for node in NodeId::all(rec.machine().config.nodes) {
                free_partial(rec, cache, cpu, node);
                let n = &rec.machine().slub().caches[cache].node[node];
                if !n.partial.is_empty() || n.nr_slabs > 0 {
                    let left: u64 = rec.machine().slub().caches[cache]
                        .node
                        .iter()
                        .map(|n| n.nr_slabs)
                        .sum();
                    return Some(left);
                }
            }
            rec.emit(Event::CacheDestroyed { id: cache });
            None
        },
    );
    if let Some(left) = busy {
        rec.call(
            "kmem_cache_destroy",
            "still has objects",
            "step.destroy_busy",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("slabs", left);
            },
        );
        return DestroyOutcome::StillHasObjects;
    }
    if rec.machine().slub().caches[cache].flags.typesafe_by_rcu {
        // shutdown_cache(): released by slab_caches_to_rcu_destroy_workfn() after rcu_barrier().
        crate::rcu::slab_caches_to_rcu_destroy_workfn(rec, cache);
    }
    DestroyOutcome::Destroyed
}

/// `free_partial()`: under the node's `list_lock`, every empty slab of the partial list moves
/// with `list_add()` to the head of a local discard list; after the unlock that list is freed
/// from its head, so the last empty slab of the partial list is discarded first (mm/slub.c,
/// v6.6). Slabs with objects stay (the kernel prints them: "Objects remaining in %s on
/// __kmem_cache_shutdown()").
fn free_partial(rec: &mut Recorder, cache: CacheId, cpu: CpuId, node: NodeId) {
    let list = rec.machine().slub().caches[cache].node[node]
        .partial
        .clone();
    rec.emit(Event::ListLockTaken { cache, node });
    let mut discard = Vec::new();
    for pfn in list {
        if rec.machine().slub().slabs[&pfn].inuse == 0 {
            rec.emit(Event::NodePartialRemoved { cache, node, pfn });
            discard.push(pfn);
        }
    }
    // Pushed on the head of the discard list, freed from its head: the last one first.
    for pfn in discard.into_iter().rev() {
        discard_slab(rec, cache, cpu, pfn);
    }
}
