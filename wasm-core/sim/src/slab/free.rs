//! Freeing under SLAB: `kfree()`/`kmem_cache_free()` → `___cache_free()`, the alien path
//! (`cache_free_alien()`, `__drain_alien_cache()`), `cache_flusharray()`, `free_block()` and
//! `slabs_destroy()` (mm/slab.c v6.6; spec 3.7), with the same bad-free diagnostics as SLUB.

use super::alloc::{node_counts, transfer_objects};
use super::event::SlabEvent;
use super::state::{AcRef, SlabList};
use super::{alien_ac, cpu_ac, emit, lock, lock_alien, place_of, shared_ac};
use crate::geometry::slab::FreelistLayout;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::Damage;
use crate::machine::Pfn;
use crate::page_alloc::free_pages;
use crate::slab_common::{
    cache_from_obj_checks, diagnostic, free_outside_slabs, free_prologue, wrong_cache,
    wrong_cache_unchecked, FreeOutcome,
};
use crate::trace::{End, Event, Recorder};

/// `kfree()` of `addr` on `cpu`; with `cache`, `kmem_cache_free(cache, addr)`.
pub fn kfree(rec: &mut Recorder, addr: u64, cpu: CpuId, cache: Option<CacheId>) -> FreeOutcome {
    let m = rec.machine();
    let destroyed = cache.filter(|&c| m.slab().caches[c].destroyed);
    if let Some(outcome) = free_prologue(rec, addr, destroyed) {
        return outcome;
    }
    let m = rec.machine();
    let Some(place) = place_of(m, addr) else {
        return free_outside_slabs(rec, addr, cpu, cache);
    };
    if place.offset != 0 {
        // Without DEBUG_SLAB, obj_to_index() rounds down and the slab's index array gets a
        // duplicate entry: two callers would later share one object.
        return diagnostic(
            rec,
            "pointer inside an object",
            "step.kfree_inside_object",
            addr,
        );
    }
    let slab = &m.slab().slabs[&place.pfn];
    let slab_cache = slab.cache;
    if !slab.allocated[place.index as usize] {
        // A double free. With CONFIG_SLAB_FREELIST_HARDENED, __free_one() refuses (WARN_ON_ONCE)
        // an object equal to the newest pointer of the array it would join; any other double
        // free goes unnoticed without DEBUG_SLAB: the pointer sits in an array twice and the
        // object is later handed to two callers.
        let s = &m.slab().caches[slab_cache];
        let local = m.cpu_node[cpu];
        let target = if m.config.nodes > 1 && slab.node != local {
            alien_ac(local, slab.node)
        } else {
            cpu_ac(cpu)
        };
        let ac = s.ac(target).expect("the array exists");
        // The array as __free_one() sees it, after a flush of a full array.
        let flushed = if ac.avail() < ac.limit {
            0
        } else if matches!(target, AcRef::Alien { .. }) {
            ac.avail()
        } else {
            let room = s.node[local]
                .shared
                .as_ref()
                .map_or(0, |sh| sh.limit - sh.avail());
            if room > 0 {
                ac.batchcount.min(room)
            } else {
                ac.batchcount
            }
        };
        let top = (ac.avail() > flushed).then(|| *ac.entry.last().expect("not empty"));
        if s.hardened && top == Some(addr) {
            return diagnostic(
                rec,
                "double free caught by WARN_ON_ONCE in __free_one",
                "step.kfree_double_free_warn",
                addr,
            );
        }
        return diagnostic(rec, "double free", "step.kfree_double_free", addr);
    }
    let mut s = slab_cache;
    if let Some(named) = cache.filter(|&c| c != slab_cache) {
        // SLAB has no SLAB_CONSISTENCY_CHECKS: only hardening makes cache_from_obj() look.
        if cache_from_obj_checks(m.slab().caches[named].hardened, false) {
            wrong_cache(rec, named, slab_cache);
        } else {
            // __cache_free(cachep, objp): the pointer joins the named cache's per-CPU array
            // (or its alien cache for the slab's node).
            wrong_cache_unchecked(
                rec,
                "wrong cache, not checked: to its array",
                "step.slab_wrong_cache_unchecked",
                named,
                slab_cache,
                addr,
                place.pfn,
                None,
            );
            s = named;
        }
    }
    ___cache_free(rec, s, place.pfn, place.index, addr, cpu);
    FreeOutcome::Freed
}

/// `___cache_free()`: a remote node's object goes to the alien cache; a local one onto this
/// CPU's array, flushing a batch first if the array is full.
#[allow(
    clippy::too_many_lines,
    reason = "mirrors ___cache_free() and cache_free_alien() of mm/slab.c in the kernel's order"
)]
fn ___cache_free(rec: &mut Recorder, cache: CacheId, pfn: Pfn, index: u32, addr: u64, cpu: CpuId) {
    let m = rec.machine();
    let local = m.cpu_node[cpu];
    let slab_node = m.slab().slabs[&pfn].node;
    let freed = SlabEvent::ObjectFreed {
        cache,
        cpu,
        pfn,
        index,
    };
    if m.config.nodes > 1 && slab_node != local {
        // __cache_free_alien(): use_alien_caches is on, so every node has an alien cache for
        // every other node; the kernel's fallback without one (free_block() of the single
        // object under the remote node's lock) is never taken here.
        let alien = alien_ac(local, slab_node);
        let ac = m.slab().caches[cache]
            .ac(alien)
            .expect("NUMA caches have alien caches");
        let full = ac.avail() >= ac.limit;
        let list = rec.call(
            "cache_free_alien",
            if full {
                "alien cache full: drain it to its node first"
            } else {
                "to the alien cache"
            },
            "step.slab_free_alien",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                rec.arg("node", slab_node);
                rec.arg_addr("object", addr);
                emit(rec, freed);
                lock_alien(rec, cache, local, slab_node);
                let mut list = Vec::new();
                if full {
                    list = __drain_alien_cache(rec, cache, local, slab_node);
                }
                emit(
                    rec,
                    SlabEvent::AcPushed {
                        cache,
                        ac: alien,
                        addr,
                    },
                );
                list
            },
        );
        slabs_destroy(rec, cache, cpu, list);
        return;
    }
    let ac = &m.slab().caches[cache].cpu[cpu];
    if ac.avail() < ac.limit {
        rec.call(
            "___cache_free",
            "to the per-CPU array",
            "step.slab_free_array",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                rec.arg_addr("object", addr);
                emit(rec, freed);
                emit(
                    rec,
                    SlabEvent::AcPushed {
                        cache,
                        ac: cpu_ac(cpu),
                        addr,
                    },
                );
            },
        );
        return;
    }
    let shared_room = m.slab().caches[cache].node[local]
        .shared
        .as_ref()
        .map_or(0, |sh| sh.limit - sh.avail());
    let list = rec.call(
        "cache_flusharray",
        if shared_room > 0 {
            "array full: oldest batch to the shared array"
        } else {
            "array full: oldest batch back to the slabs"
        },
        "step.slab_flusharray",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
            rec.arg_addr("object", addr);
            emit(rec, freed);
            let list = cache_flusharray(rec, cache, cpu);
            emit(
                rec,
                SlabEvent::AcPushed {
                    cache,
                    ac: cpu_ac(cpu),
                    addr,
                },
            );
            list
        },
    );
    slabs_destroy(rec, cache, cpu, list);
}

/// `cache_flusharray()`: the oldest `batchcount` pointers of a full array go to the node's
/// shared array if it has room (as many as fit), else back to their slabs by `free_block()`.
/// Returns the slabs to destroy.
fn cache_flusharray(rec: &mut Recorder, cache: CacheId, cpu: CpuId) -> Vec<Pfn> {
    let m = rec.machine();
    let node = m.cpu_node[cpu];
    let s = &m.slab().caches[cache];
    let ac = &s.cpu[cpu];
    let batch = ac.batchcount.min(ac.avail());
    let room = s.node[node]
        .shared
        .as_ref()
        .map_or(0, |sh| sh.limit - sh.avail());
    let objs: Vec<u64> = ac.entry[..batch as usize].to_vec();
    lock(rec, cache, node);
    if room > 0 {
        emit(
            rec,
            SlabEvent::AcMoved {
                cache,
                from: cpu_ac(cpu),
                to: shared_ac(node),
                count: batch.min(room),
                oldest: true,
            },
        );
        return Vec::new();
    }
    let list = free_block(rec, cache, &objs, node);
    emit(
        rec,
        SlabEvent::AcDropped {
            cache,
            ac: cpu_ac(cpu),
            count: batch,
        },
    );
    list
}

/// `free_block()` (node lock held): each object back into its slab, the slab to the head of
/// `slabs_free` if now empty, else to the tail of `slabs_partial`; then free slabs beyond
/// `free_limit` are taken off for destruction (last free slab first). Returns them in the
/// order `slabs_destroy()` will destroy them.
///
/// An object of another cache, there since a free to the wrong cache that was not checked, is
/// where the simulator stops following the kernel: `slab_put_obj()` would store an index
/// computed with this cache's object size in the other cache's slab and the slab would move
/// onto this cache's lists, which the simulator's slabs cannot hold. It goes back to its own
/// slab, lists and counts instead, and the damage is recorded (`machine::damage`).
pub(crate) fn free_block(
    rec: &mut Recorder,
    cache: CacheId,
    objs: &[u64],
    node: NodeId,
) -> Vec<Pfn> {
    let m = rec.machine();
    let own = |obj: u64| {
        let pfn = place_of(m, obj).expect("array entries are objects").pfn;
        m.slab().slabs[&pfn].cache == cache
    };
    let count = objs.iter().filter(|&&obj| own(obj)).count();
    node_counts(rec, cache, node, 0, 0, count as i32);
    for &obj in objs {
        let place = place_of(rec.machine(), obj).expect("array entries are objects");
        let pfn = place.pfn;
        if rec.machine().slab().slabs[&pfn].cache != cache {
            free_foreign_object(rec, cache, obj, node);
            continue;
        }
        if rec.machine().slab().slabs[&pfn].list.is_some() {
            emit(rec, SlabEvent::SlabUnlisted { cache, pfn });
        }
        emit(
            rec,
            SlabEvent::ObjPut {
                pfn,
                index: place.index,
            },
        );
        if rec.machine().slab().slabs[&pfn].active == 0 {
            emit(
                rec,
                SlabEvent::SlabListed {
                    cache,
                    pfn,
                    list: SlabList::Free,
                    end: End::Head,
                },
            );
            node_counts(rec, cache, node, 0, 1, 0);
        } else {
            emit(
                rec,
                SlabEvent::SlabListed {
                    cache,
                    pfn,
                    list: SlabList::Partial,
                    end: End::Tail,
                },
            );
        }
    }
    let mut list = Vec::new();
    loop {
        let s = &rec.machine().slab().caches[cache];
        let n = &s.node[node];
        let num = s.geometry.num;
        if n.free_objects <= u64::from(n.free_limit) {
            break;
        }
        let Some(&pfn) = n.slabs_free.back() else {
            break;
        };
        node_counts(rec, cache, node, -1, -1, -(num as i32));
        emit(rec, SlabEvent::SlabUnlisted { cache, pfn });
        // list_move() to the head of the local list.
        list.insert(0, pfn);
    }
    list
}

/// `free_block()` of `cache` meeting `obj`, an object of another cache: it goes back to its
/// own slab as that cache's `free_block()` would put it, and the damage the kernel does
/// instead is recorded (see `free_block`).
fn free_foreign_object(rec: &mut Recorder, cache: CacheId, obj: u64, node: NodeId) {
    let place = place_of(rec.machine(), obj).expect("array entries are objects");
    let pfn = place.pfn;
    let slab = &rec.machine().slab().slabs[&pfn];
    let (owner, slab_node, listed) = (slab.cache, slab.node, slab.list.is_some());
    rec.emit(Event::DamageRecorded(Box::new(
        Damage::ForeignObjectFreed {
            cache,
            slab_cache: owner,
            addr: obj,
            pfn,
            node,
        },
    )));
    node_counts(rec, owner, slab_node, 0, 0, 1);
    if listed {
        emit(rec, SlabEvent::SlabUnlisted { cache: owner, pfn });
    }
    emit(
        rec,
        SlabEvent::ObjPut {
            pfn,
            index: place.index,
        },
    );
    let (list, end) = if rec.machine().slab().slabs[&pfn].active == 0 {
        node_counts(rec, owner, slab_node, 0, 1, 0);
        (SlabList::Free, End::Head)
    } else {
        (SlabList::Partial, End::Tail)
    };
    emit(
        rec,
        SlabEvent::SlabListed {
            cache: owner,
            pfn,
            list,
            end,
        },
    );
}

/// `__drain_alien_cache()` of node `node`'s alien cache for `remote`: under the remote node's
/// lock, as many of its newest pointers as fit go to the remote shared array, the rest back
/// to their slabs. Returns the slabs to destroy.
pub(crate) fn __drain_alien_cache(
    rec: &mut Recorder,
    cache: CacheId,
    node: NodeId,
    remote: NodeId,
) -> Vec<Pfn> {
    let alien = alien_ac(node, remote);
    if super::ac_entries(rec.machine(), cache, alien).is_empty() {
        return Vec::new();
    }
    lock(rec, cache, remote);
    let limit = rec.machine().slab().caches[cache]
        .ac(alien)
        .expect("alien cache")
        .limit;
    transfer_objects(rec, cache, shared_ac(remote), alien, limit);
    let rest = super::ac_entries(rec.machine(), cache, alien);
    let list = free_block(rec, cache, &rest, remote);
    if !rest.is_empty() {
        emit(
            rec,
            SlabEvent::AcDropped {
                cache,
                ac: alien,
                count: rest.len() as u32,
            },
        );
    }
    list
}

/// `slabs_destroy()` → `slab_destroy()`: each slab's pages go back to the page allocator, or,
/// for a `SLAB_TYPESAFE_BY_RCU` cache, wait for a grace period (`call_rcu(&slab->rcu_head,
/// kmem_rcu_free)`); an OFF_SLAB index array is freed to its kmalloc cache at once either way.
pub(crate) fn slabs_destroy(rec: &mut Recorder, cache: CacheId, cpu: CpuId, list: Vec<Pfn>) {
    for pfn in list {
        let slab = &rec.machine().slab().slabs[&pfn];
        let (mgmt, order) = (slab.freelist_addr, slab.order);
        let s = &rec.machine().slab().caches[cache];
        let off_slab = s.geometry.layout == FreelistLayout::OffSlab;
        let rcu = s.flags.typesafe_by_rcu;
        // What slab_destroy() does either way.
        let body = |rec: &mut Recorder| {
            rec.arg_cache("cache", cache);
            rec.arg("pfn", pfn);
            emit(rec, SlabEvent::SlabDestroyed { cache, pfn });
            if rcu {
                crate::rcu::free_slab_rcu(rec, cpu, cache, pfn, order);
            } else {
                let _ = free_pages(rec, cpu, pfn);
            }
        };
        if rcu {
            rec.call(
                "slab_destroy",
                "SLAB_TYPESAFE_BY_RCU: call_rcu",
                "step.slab_destroy_rcu",
                body,
            );
        } else {
            rec.call("slab_destroy", "free slab", "step.slab_destroy", body);
        }
        if off_slab {
            kfree(rec, mgmt, cpu, None);
        }
    }
}

/// `kmem_cache_free_bulk()`/`kfree_bulk()`: SLAB frees the objects one by one.
pub fn kmem_cache_free_bulk(rec: &mut Recorder, cache: Option<CacheId>, objs: &[u64], cpu: CpuId) {
    rec.call(
        "kmem_cache_free_bulk",
        "one by one",
        "step.slab_free_bulk",
        |rec| {
            if let Some(c) = cache {
                rec.arg_cache("cache", c);
            }
            rec.arg("count", objs.len() as u64);
        },
    );
    for &obj in objs {
        kfree(rec, obj, cpu, cache);
    }
}
