//! Giving memory back under SLAB: `cache_reap()` (the 2 s per-CPU timer, run when a scenario
//! says so), `drain_array()`, `drain_freelist()`, `kmem_cache_shrink()` and
//! `kmem_cache_destroy()` (mm/slab.c and mm/slab_common.c v6.6; spec 3.8).

use super::alloc::node_counts;
use super::event::SlabEvent;
use super::free::{__drain_alien_cache, free_block, slabs_destroy};
use super::state::{AcRef, REAPTIMEOUT_AC, REAPTIMEOUT_NODE};
use super::{ac_entries, alien_ac, cpu_ac, emit, lock, lock_alien, shared_ac};
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::Pfn;
use crate::slab_common::DestroyOutcome;
use crate::trace::Recorder;

/// `cache_reap` on `cpu` (or on every CPU in turn): the timer's 2 s have passed, then each
/// CPU's `cache_reap()` walks every cache, newest first.
pub fn cache_reap(rec: &mut Recorder, cpu: Option<CpuId>) {
    let now = rec.machine().slab().jiffies + REAPTIMEOUT_AC;
    rec.call(
        "cache_reap",
        "2 seconds later",
        "step.slab_reap_tick",
        |rec| {
            rec.arg("jiffies", now);
            emit(rec, SlabEvent::Jiffies { now });
        },
    );
    let cpus: Vec<CpuId> = match cpu {
        Some(c) => vec![c],
        None => CpuId::all(rec.machine().config.cpus).collect(),
    };
    for cpu in cpus {
        cache_reap_cpu(rec, cpu);
    }
}

fn cache_reap_cpu(rec: &mut Recorder, cpu: CpuId) {
    let m = rec.machine();
    let node = m.cpu_node[cpu];
    let now = m.slab().jiffies;
    let reap_node = m.slab().reap_node.get(cpu).copied().unwrap_or(node);
    let ids: Vec<CacheId> = m
        .slab()
        .caches
        .iter()
        .rev()
        .filter(|s| !s.destroyed)
        .map(|s| s.id)
        .collect();
    for cache in ids {
        // reap_alien(): this CPU's turn of one remote node's alien cache.
        let alien = alien_ac(node, reap_node);
        if !ac_entries(rec.machine(), cache, alien).is_empty() {
            let list = rec.call(
                "reap_alien",
                "drain one alien cache",
                "step.slab_reap_alien",
                |rec| {
                    rec.arg_cache("cache", cache);
                    rec.arg("cpu", cpu);
                    rec.arg("node", reap_node);
                    lock_alien(rec, cache, node, reap_node);
                    __drain_alien_cache(rec, cache, node, reap_node)
                },
            );
            slabs_destroy(rec, cache, cpu, list);
        }
        drain_array(rec, cache, cpu, node, cpu_ac(cpu));
        let n = &rec.machine().slab().caches[cache].node[node];
        if n.next_reap > now {
            continue;
        }
        rec.call("cache_reap", "node part", "step.slab_reap_node", |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("node", node);
            emit(
                rec,
                SlabEvent::NextReap {
                    cache,
                    node,
                    at: now + REAPTIMEOUT_NODE,
                },
            );
        });
        drain_array(rec, cache, cpu, node, shared_ac(node));
        let s = &rec.machine().slab().caches[cache];
        let n = &s.node[node];
        if n.free_touched {
            rec.call(
                "cache_reap",
                "free slabs were used: keep them",
                "step.slab_reap_keep",
                |rec| {
                    rec.arg_cache("cache", cache);
                    emit(
                        rec,
                        SlabEvent::FreeTouched {
                            cache,
                            node,
                            touched: false,
                        },
                    );
                },
            );
        } else {
            let per = 5 * s.geometry.num;
            let tofree = n.free_limit.div_ceil(per);
            drain_freelist(rec, cache, cpu, node, tofree);
        }
    }
    // next_reap_node()
    let nodes = rec.machine().config.nodes;
    rec.call(
        "next_reap_node",
        "round robin",
        "step.slab_reap_next",
        |rec| {
            emit(
                rec,
                SlabEvent::ReapNode {
                    cpu,
                    node: reap_node.next_node_in(nodes),
                },
            );
        },
    );
}

/// `drain_array()`: a recently used array is only marked unused; an unused one gives its
/// oldest fifth of `limit` (or half of what it holds, if less) back to the slabs.
fn drain_array(rec: &mut Recorder, cache: CacheId, cpu: CpuId, node: NodeId, ac: AcRef) {
    let Some(a) = rec.machine().slab().caches[cache].ac(ac) else {
        return;
    };
    if a.avail() == 0 {
        return;
    }
    if a.touched {
        rec.call(
            "drain_array",
            "recently used: clear touched",
            "step.slab_drain_touched",
            |rec| {
                rec.arg_cache("cache", cache);
                emit(
                    rec,
                    SlabEvent::AcTouched {
                        cache,
                        ac,
                        touched: false,
                    },
                );
            },
        );
        return;
    }
    let mut tofree = a.limit.div_ceil(5); // (limit + 4) / 5
    if tofree > a.avail() {
        tofree = a.avail().div_ceil(2);
    }
    let objs = a.entry[..tofree as usize].to_vec();
    let list = rec.call(
        "drain_array",
        "unused: free the oldest",
        "step.slab_drain_array",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("count", tofree);
            drain_locked(rec, cache, node, ac, &objs)
        },
    );
    slabs_destroy(rec, cache, cpu, list);
}

/// The locked part of draining `objs` (the oldest entries of `ac`) back to node `node`.
fn drain_locked(
    rec: &mut Recorder,
    cache: CacheId,
    node: NodeId,
    ac: AcRef,
    objs: &[u64],
) -> Vec<Pfn> {
    lock(rec, cache, node);
    let list = free_block(rec, cache, objs, node);
    if !objs.is_empty() {
        emit(
            rec,
            SlabEvent::AcDropped {
                cache,
                ac,
                count: objs.len() as u32,
            },
        );
    }
    list
}

/// `drain_freelist()`: destroys up to `tofree` free slabs, the last one first, taking the node
/// lock for each.
fn drain_freelist(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: NodeId,
    tofree: u32,
) -> u32 {
    let mut freed = 0;
    while freed < tofree {
        let s = &rec.machine().slab().caches[cache];
        let num = s.geometry.num;
        let Some(&pfn) = s.node[node].slabs_free.back() else {
            break;
        };
        rec.call(
            "drain_freelist",
            "free slab",
            "step.slab_drain_freelist",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("node", node);
                lock(rec, cache, node);
                emit(rec, SlabEvent::SlabUnlisted { cache, pfn });
                node_counts(rec, cache, node, -1, -1, -(num as i32));
            },
        );
        slabs_destroy(rec, cache, cpu, vec![pfn]);
        freed += 1;
    }
    freed
}

/// `drain_cpu_caches()`: every CPU array (`do_drain()` on each CPU), every alien cache and
/// every shared array, completely.
fn drain_cpu_caches(rec: &mut Recorder, cache: CacheId, cpu: CpuId) {
    let cpus = rec.machine().config.cpus;
    let nodes = rec.machine().config.nodes;
    for c in CpuId::all(cpus) {
        let node = rec.machine().cpu_node[c];
        let objs = ac_entries(rec.machine(), cache, cpu_ac(c));
        let list = rec.call(
            "do_drain",
            "empty the per-CPU array",
            "step.slab_do_drain",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", c);
                drain_locked(rec, cache, node, cpu_ac(c), &objs)
            },
        );
        slabs_destroy(rec, cache, c, list);
    }
    for node in NodeId::all(nodes) {
        for remote in NodeId::all(nodes).filter(|&r| r != node && nodes > 1) {
            let list = rec.call(
                "drain_alien_cache",
                "empty an alien cache",
                "step.slab_drain_alien",
                |rec| {
                    rec.arg_cache("cache", cache);
                    rec.arg("node", node);
                    rec.arg("remote", remote);
                    lock_alien(rec, cache, node, remote);
                    __drain_alien_cache(rec, cache, node, remote)
                },
            );
            slabs_destroy(rec, cache, cpu, list);
        }
    }
    for node in NodeId::all(nodes) {
        if rec.machine().slab().caches[cache].node[node]
            .shared
            .is_none()
        {
            continue;
        }
        let objs = ac_entries(rec.machine(), cache, shared_ac(node));
        let list = rec.call(
            "drain_cpu_caches",
            "empty the shared array",
            "step.slab_drain_shared",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("node", node);
                drain_locked(rec, cache, node, shared_ac(node), &objs)
            },
        );
        slabs_destroy(rec, cache, cpu, list);
    }
}

/// `__kmem_cache_shrink()`: drain every array, then destroy every free slab. Returns whether
/// slabs with objects remain.
#[doc(alias = "__kmem_cache_shrink")]
pub fn kmem_cache_shrink(rec: &mut Recorder, cache: CacheId, cpu: CpuId) -> bool {
    drain_cpu_caches(rec, cache, cpu);
    let mut busy = false;
    for node in NodeId::all(rec.machine().config.nodes) {
        drain_freelist(rec, cache, cpu, node, u32::MAX);
        let n = &rec.machine().slab().caches[cache].node[node];
        busy |= !n.slabs_full.is_empty() || !n.slabs_partial.is_empty();
    }
    busy
}

/// `kmem_cache_destroy()`: drops a reference; the last one shuts the cache down
/// (`__kmem_cache_shutdown()` = `__kmem_cache_shrink()`). If slabs with objects remain the
/// kernel warns "Slab cache still has objects" and keeps the cache.
pub fn kmem_cache_destroy(
    rec: &mut Recorder,
    cache: CacheId,
    alias: Option<&str>,
    cpu: CpuId,
) -> DestroyOutcome {
    let aliases = rec.machine().slab().caches[cache].aliases.clone();
    let dropped = match alias {
        Some(a) if aliases.iter().any(|x| x == a) => Some(a.to_string()),
        // The creator's name goes first but the cache lives on for its aliases.
        _ => aliases.first().cloned(),
    };
    if let Some(name) = dropped {
        rec.call(
            "kmem_cache_destroy",
            "refcount",
            "step.cache_unreferenced",
            |rec| {
                rec.arg_cache("cache", cache);
                emit(rec, SlabEvent::CacheUnaliased(Box::new((cache, name))));
            },
        );
        return DestroyOutcome::Unreferenced;
    }
    if kmem_cache_shrink(rec, cache, cpu) {
        let left: u64 = rec.machine().slab().caches[cache]
            .node
            .iter()
            .map(|n| n.total_slabs)
            .sum();
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
    rec.call(
        "__kmem_cache_shutdown",
        "release the cache",
        "step.cache_shutdown",
        |rec| {
            rec.arg_cache("cache", cache);
            emit(rec, SlabEvent::CacheDestroyed { id: cache });
        },
    );
    if rec.machine().slab().caches[cache].flags.typesafe_by_rcu {
        // shutdown_cache(): released by slab_caches_to_rcu_destroy_workfn() after rcu_barrier().
        crate::rcu::slab_caches_to_rcu_destroy_workfn(rec, cache);
    }
    DestroyOutcome::Destroyed
}
