//! Allocation: `slab_alloc_node()` (fast path) and `___slab_alloc()` (slow path), with
//! `get_partial_node()`, `acquire_slab()`, `new_slab()`/`allocate_slab()` and kmalloc
//! (mm/slub.c and mm/slab_common.c, v6.6; spec 2.5, 2.6).

use super::create::kmalloc_slab;
use super::partial::{flush_slab, put_cpu_partial};
use super::random::shuffle_freelist;
use super::{get_freepointer, object_allocated, set_cpu_freelist, take_object};
use crate::geometry::kmalloc::KmallocTarget;
use crate::gfp::{Gfp, GFP_KERNEL};
use crate::ids::{CacheId, CpuId, NodeId};
use crate::kmalloc_caches::KmallocType;
use crate::machine::{Owner, Pfn};
use crate::page_alloc::{alloc_pages, zonelist};
use crate::slab_common::random::draw_below;
use crate::slab_common::ZERO_SIZE_PTR;
use crate::trace::{End, Event, Recorder};

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
            slab_alloc_node(rec, cache, cpu, node)
        }
        Ok(Err(KmallocTarget::ZeroSizePtr)) => {
            rec.call("kmalloc", "size 0", "step.kmalloc_zero", |_| ZERO_SIZE_PTR)
        }
        Ok(Err(KmallocTarget::Large { order })) => {
            // __kmalloc_large_node(): straight to the page allocator.
            match alloc_pages(rec, cpu, node, order as u8, Owner::LargeKmalloc) {
                Ok(pfn) => rec.machine().object_addr(pfn, 1, 0),
                Err(_) => 0,
            }
        }
        Ok(Err(KmallocTarget::Cache(_))) | Err(_) => {
            rec.call("kmalloc", "too large", "step.kmalloc_too_large", |rec| {
                rec.arg("size", size);
                0
            })
        }
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
    let m = rec.machine();
    if m.slub().caches[cache].destroyed {
        // The kmem_cache structure is freed memory now: a use-after-free in the caller.
        return rec.call(
            "kmem_cache_alloc",
            "destroyed cache",
            "step.use_destroyed_cache",
            |rec| {
                rec.arg_cache("cache", cache);
                0
            },
        );
    }
    let c = &m.slub().caches[cache].cpu[cpu];
    let (object, slab) = (c.freelist, c.slab);
    let node_ok = match (node, slab) {
        (Some(n), Some(pfn)) => m.slub().slabs[&pfn].node == n,
        _ => true,
    };
    if object != 0 && slab.is_some() && node_ok {
        return rec.call("slab_alloc_node", "fast path", "step.alloc_fast", |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
            take_object(rec, cache, cpu, object);
            object
        });
    }
    ___slab_alloc(rec, cache, cpu, node)
}

/// `___slab_alloc()`.
#[allow(
    clippy::too_many_lines,
    reason = "mirrors ___slab_alloc()'s labels (reread_slab, load_freelist, new_slab, ...) in the kernel's order"
)]
pub(crate) fn ___slab_alloc(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: Option<NodeId>,
) -> u64 {
    if rec.machine().slub().caches[cache].debug() {
        return slab_alloc_debug(rec, cache, cpu, node);
    }
    loop {
        // reread_slab / redo
        let c = rec.machine().slub().caches[cache].cpu[cpu].clone();
        if let Some(pfn) = c.slab {
            let slab_node = rec.machine().slub().slabs[&pfn].node;
            if node.is_some_and(|n| n != slab_node) {
                // ALLOC_NODE_MISMATCH: give the cpu slab back and look elsewhere.
                rec.call(
                    "___slab_alloc",
                    "node mismatch: deactivate",
                    "step.node_mismatch",
                    |rec| {
                        rec.arg_cache("cache", cache);
                        rec.arg("cpu", cpu);
                        rec.arg("slab_node", slab_node);
                        flush_slab(rec, cache, cpu, pfn, c.freelist);
                    },
                );
            } else if c.freelist != 0 {
                return rec.call(
                    "___slab_alloc",
                    "load c->freelist",
                    "step.load_freelist",
                    |rec| {
                        rec.arg_cache("cache", cache);
                        rec.arg("cpu", cpu);
                        load_freelist(rec, cache, cpu, c.freelist)
                    },
                );
            } else {
                // get_freelist(): take what other CPUs freed to this slab.
                let slab = &rec.machine().slub().slabs[&pfn];
                let (taken, objects) = (slab.freelist, slab.objects);
                let path = if taken != 0 {
                    "remote frees"
                } else {
                    "cpu slab exhausted"
                };
                let refilled = rec.call("get_freelist", path, "step.get_freelist", |rec| {
                    rec.arg_cache("cache", cache);
                    rec.arg("cpu", cpu);
                    rec.emit(Event::SlabStateSet {
                        pfn,
                        freelist: 0,
                        inuse: objects,
                        frozen: taken != 0,
                    });
                    if taken != 0 {
                        return Some(load_freelist(rec, cache, cpu, taken)); // ALLOC_REFILL
                    }
                    // DEACTIVATE_BYPASS: the slab is full and on no list now.
                    rec.emit(Event::CpuSlabSet {
                        cache,
                        cpu,
                        slab: None,
                    });
                    set_cpu_freelist(rec, cache, cpu, 0);
                    None
                });
                if let Some(object) = refilled {
                    return object;
                }
            }
            if rec.machine().slub().caches[cache].cpu[cpu].slab.is_some() {
                continue;
            }
        }
        // new_slab: no cpu slab now; the per-CPU partial stack first (read afresh: the branches
        // above may have changed this CPU's state).
        let partial = rec.machine().slub().caches[cache].cpu[cpu].partial;
        if let Some(top) = partial {
            let next = rec.machine().slub().slabs[&top].next;
            rec.call(
                "___slab_alloc",
                "cpu partial pop",
                "step.cpu_partial_pop",
                |rec| {
                    rec.arg_cache("cache", cache);
                    rec.arg("cpu", cpu);
                    rec.emit(Event::CpuPartialSet {
                        cache,
                        cpu,
                        top: next,
                    });
                    rec.emit(Event::CpuSlabSet {
                        cache,
                        cpu,
                        slab: Some(top),
                    });
                },
            );
            continue; // redo: c->freelist is NULL, so get_freelist() runs on it
        }
        // new_objects
        let search = node.unwrap_or(rec.machine().cpu_node[cpu]);
        // get_partial_node(), then the slab it returns is installed in the same step.
        let from_node = |rec: &mut Recorder, n: NodeId| {
            get_partial_node(rec, cache, cpu, n, |rec, pfn, freelist| {
                install(rec, cache, cpu, pfn, freelist)
            })
        };
        if let Some(object) = from_node(rec, search) {
            return object;
        }
        // get_partial(), v6.6: other nodes only when the caller named none.
        if node.is_none() {
            let found = get_any_partial(rec, cache, cpu, search, |rec, n| from_node(rec, n));
            if let Some(object) = found.flatten() {
                return object;
            }
        }
        let Some(new) = new_slab(rec, cache, cpu, node) else {
            return slab_out_of_memory(rec, cache);
        };
        let freelist = rec.machine().slub().caches[cache].cpu[cpu].freelist;
        debug_assert_eq!(freelist, 0);
        return allocate_slab(rec, cache, cpu, new, |rec, pfn| {
            let freelist = take_new_slab_freelist(rec, cache, pfn);
            install(rec, cache, cpu, pfn, freelist)
        });
    }
}

/// `___slab_alloc()` with no slab to be had: `slab_out_of_memory()`, and NULL.
fn slab_out_of_memory(rec: &mut Recorder, cache: CacheId) -> u64 {
    rec.call("___slab_alloc", "out of memory", "step.slab_oom", |rec| {
        rec.arg_cache("cache", cache);
        0
    })
}

/// `retry_load_slab`: the slab becomes the cpu slab, then `load_freelist`. Continues the step
/// that found the slab, so no step ends with a frozen slab that belongs to nobody.
fn install(rec: &mut Recorder, cache: CacheId, cpu: CpuId, pfn: Pfn, freelist: u64) -> u64 {
    rec.emit(Event::CpuSlabSet {
        cache,
        cpu,
        slab: Some(pfn),
    });
    load_freelist(rec, cache, cpu, freelist)
}

/// `load_freelist`: the first object goes to the caller, the rest become `c->freelist`; the
/// last thing the step that found them does.
#[inline(always)]
fn load_freelist(rec: &mut Recorder, cache: CacheId, cpu: CpuId, freelist: u64) -> u64 {
    take_object(rec, cache, cpu, freelist);
    rec.arg_addr("object", freelist);
    freelist
}

/// `get_partial_node()`: the first slab of the node's partial list becomes the cpu slab and up
/// to `cpu_partial_slabs / 2 + 1` more go to the cpu partial stack. The first slab and its
/// freelist go to `then`, which the caller uses to install it in the same step (so no step
/// ends with a frozen slab that belongs to nobody). `None`, and no step, when the list is
/// empty.
fn get_partial_node<R>(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: NodeId,
    then: impl FnOnce(&mut Recorder, Pfn, u64) -> R,
) -> Option<R> {
    let s = &rec.machine().slub().caches[cache];
    if s.node[node].partial.is_empty() {
        return None;
    }
    let (limit, has_cpu_partial) = (s.geometry.cpu_partial_slabs, s.has_cpu_partial());
    rec.call(
        "get_partial_node",
        "node partial",
        "step.get_partial_node",
        |rec| {
            let (pfn, freelist) = take_partial_slabs(rec, cache, cpu, node, limit, has_cpu_partial);
            Some(then(rec, pfn, freelist))
        },
    )
}

/// The body of `get_partial_node()` on a list that is not empty: `acquire_slab()` on the
/// first slab (its freelist is returned) and `put_cpu_partial()` on the ones after it.
fn take_partial_slabs(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: NodeId,
    limit: u32,
    has_cpu_partial: bool,
) -> (Pfn, u64) {
    rec.arg_cache("cache", cache);
    rec.arg("node", node);
    rec.emit(Event::ListLockTaken { cache, node }); // spin_lock_irqsave(&n->list_lock)
    let mut object = None;
    let mut partial_slabs = 0u32;
    // The list in order, without a copy: each pass removes the slab at its head, and nothing
    // else here adds to or takes from this node's list.
    let head = |rec: &Recorder| {
        let list = &rec.machine().slub().caches[cache].node[node].partial;
        list.first().copied()
    };
    while let Some(pfn) = head(rec) {
        // acquire_slab(): freeze it, take the freelist only for the first one.
        let slab = &rec.machine().slub().slabs[&pfn];
        let (freelist, inuse, objects) = (slab.freelist, slab.inuse, slab.objects);
        rec.emit(Event::NodePartialRemoved { cache, node, pfn });
        if object.is_none() {
            rec.emit(Event::SlabStateSet {
                pfn,
                freelist: 0,
                inuse: objects,
                frozen: true,
            });
            object = Some((pfn, freelist));
        } else {
            rec.emit(Event::SlabStateSet {
                pfn,
                freelist,
                inuse,
                frozen: true,
            });
            put_cpu_partial(rec, cache, cpu, pfn, false);
            partial_slabs += 1;
        }
        if !has_cpu_partial || partial_slabs > limit / 2 {
            break;
        }
    }
    rec.arg("to_cpu_partial", partial_slabs);
    object.expect("the node's partial list is not empty")
}

/// `get_any_partial()`: with no partial slab on the local node, a slab from the partial list
/// of another node that keeps more than `min_partial`, searched in zonelist order, unless the
/// defrag ratio says to stay local this time. The node found goes to `then` (the nested
/// `get_partial_node()` and what the caller does with its slab), inside this step. `None`
/// when no node was found (with a step saying why, if it searched at all).
fn get_any_partial<R>(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    local: NodeId,
    then: impl FnOnce(&mut Recorder, NodeId) -> R,
) -> Option<R> {
    let nodes = rec.machine().config.nodes;
    if nodes == 1 {
        return None; // the zonelist holds the local node only: nothing more to find
    }
    let m = rec.machine();
    let s = &m.slub().caches[cache];
    let (ratio, min_partial) = (s.remote_node_defrag_ratio, s.geometry.min_partial as usize);
    // The zonelist of mempolicy_slab_node(), the local node without a memory policy, as
    // build_zonelists() ordered it at boot. It starts with the local node itself, whose
    // partial list get_partial_node() has just found empty.
    let candidate = m.zonelists[local]
        .iter()
        .copied()
        .find(|&n| s.node[n].partial.len() > min_partial);
    let order = zonelist::zonelist_text(&m.zonelists[local]);
    rec.call(
        "get_any_partial",
        "remote node partial",
        "step.get_any_partial",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
            rec.arg("zonelist", order);
            // The kernel uses the cycle counter as a cheap random number: get_cycles() % 1024.
            let cycles = draw_below(rec, 1024);
            if ratio == 0 || cycles > ratio {
                rec.arg("outcome", "defrag ratio: stay local");
                return None;
            }
            let Some(n) = candidate else {
                rec.arg("outcome", "no other node has partial slabs to spare");
                return None;
            };
            rec.arg("node", n);
            Some(then(rec, n))
        },
    )
}

/// `___slab_alloc()` for a debug cache (`kmem_cache_debug()`): no cpu slab and no per-CPU
/// partial stack; each object is taken under the node's `list_lock` from a node partial slab
/// (`alloc_single_from_partial()`) or from a new slab (`alloc_single_from_new_slab()`).
#[doc(alias = "___slab_alloc")]
fn slab_alloc_debug(rec: &mut Recorder, cache: CacheId, cpu: CpuId, node: Option<NodeId>) -> u64 {
    let search = node.unwrap_or(rec.machine().cpu_node[cpu]);
    let local = &rec.machine().slub().caches[cache].node[search].partial;
    if let Some(&pfn) = local.first() {
        return alloc_single_from_partial(rec, cache, cpu, search, pfn);
    }
    if node.is_none() {
        let found = get_any_partial(rec, cache, cpu, search, |rec, n| {
            let pfn = rec.machine().slub().caches[cache].node[n].partial[0];
            alloc_single_from_partial(rec, cache, cpu, n, pfn)
        });
        if let Some(object) = found {
            return object;
        }
    }
    let Some(new) = new_slab(rec, cache, cpu, node) else {
        return slab_out_of_memory(rec, cache);
    };
    allocate_slab(rec, cache, cpu, new, |rec, pfn| {
        alloc_single_from_new_slab(rec, cache, cpu, pfn)
    })
}

/// `alloc_single_from_new_slab()`, in the `allocate_slab` step: the first object of a new
/// slab of a debug cache goes to the caller, and the slab onto the node's lists.
fn alloc_single_from_new_slab(rec: &mut Recorder, cache: CacheId, cpu: CpuId, pfn: Pfn) -> u64 {
    let s = &rec.machine().slub().caches[cache];
    let store_user = s.flags.store_user;
    let slab = rec.machine().slub().slabs[&pfn].fields();
    let object = slab.freelist;
    let next = get_freepointer(rec.machine(), object);
    rec.emit(Event::SlabStateSet {
        pfn,
        freelist: next,
        inuse: 1,
        frozen: false,
    });
    // alloc_single_from_new_slab(): add_full()/add_partial() under the node's list_lock.
    rec.emit(Event::ListLockTaken {
        cache,
        node: slab.node,
    });
    if slab.objects == 1 {
        if store_user {
            rec.emit(Event::NodeFullAdded {
                cache,
                node: slab.node,
                pfn,
            });
        }
    } else {
        rec.emit(Event::NodePartialAdded {
            cache,
            node: slab.node,
            pfn,
            end: End::Head,
        });
    }
    rec.emit(Event::SlabCounted {
        cache,
        node: slab.node,
        objects: slab.objects,
    });
    object_allocated(rec, cache, cpu, pfn, object);
    rec.arg_addr("object", object);
    object
}

/// `alloc_single_from_partial()`: one object from a node partial slab of a debug cache; a
/// slab that becomes full leaves the partial list (for `n->full` with `SLAB_STORE_USER`).
fn alloc_single_from_partial(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: NodeId,
    pfn: Pfn,
) -> u64 {
    let store_user = rec.machine().slub().caches[cache].flags.store_user;
    let slab = rec.machine().slub().slabs[&pfn].fields();
    let object = slab.freelist;
    let next = get_freepointer(rec.machine(), object);
    rec.call(
        "alloc_single_from_partial",
        "debug cache: node partial",
        "step.alloc_single_from_partial",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
            rec.arg("node", node);
            // get_partial_node() calls it under the node's list_lock.
            rec.emit(Event::ListLockTaken { cache, node });
            rec.emit(Event::SlabStateSet {
                pfn,
                freelist: next,
                inuse: slab.inuse + 1,
                frozen: false,
            });
            if slab.inuse + 1 == slab.objects {
                rec.emit(Event::NodePartialRemoved { cache, node, pfn });
                if store_user {
                    rec.emit(Event::NodeFullAdded { cache, node, pfn });
                }
            }
            object_allocated(rec, cache, cpu, pfn, object);
            rec.arg_addr("object", object);
            object
        },
    )
}

/// The pages `new_slab()` → `allocate_slab()` got: where, of which order, for how many objects.
struct NewSlabPages {
    pfn: Pfn,
    order: u8,
    objects: u32,
}

/// `new_slab()` → `allocate_slab()`, first half: pages of the preferred order, else of the
/// minimum order (their page allocator steps come before the `allocate_slab` step).
fn new_slab(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: Option<NodeId>,
) -> Option<NewSlabPages> {
    let g = rec.machine().slub().caches[cache].geometry.clone();
    let mut order = g.order as u8;
    let mut objects = g.objs_per_slab;
    let pfn = match alloc_pages(rec, cpu, node, order, Owner::Slab { cache }) {
        Ok(pfn) => pfn,
        Err(_) if g.min_order < g.order => {
            // ORDER_FALLBACK
            order = g.min_order as u8;
            objects = g.min_objs_per_slab;
            alloc_pages(rec, cpu, node, order, Owner::Slab { cache }).ok()?
        }
        Err(_) => return None,
    };
    Some(NewSlabPages {
        pfn,
        order,
        objects,
    })
}

/// `allocate_slab()`, second half, as a step: the free objects are linked (shuffled when the
/// cache has a random sequence, else in address order), and `then` takes the new slab in the
/// same step (the caller's use of it: `___slab_alloc()` freezes it as the cpu slab).
fn allocate_slab<R>(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    new: NewSlabPages,
    then: impl FnOnce(&mut Recorder, Pfn) -> R,
) -> R {
    let NewSlabPages {
        pfn,
        order,
        objects,
    } = new;
    let path = if u32::from(order) == rec.machine().slub().caches[cache].geometry.order {
        "preferred order"
    } else {
        "order fallback"
    };
    rec.call("allocate_slab", path, "step.allocate_slab", |rec| {
        rec.arg_cache("cache", cache);
        rec.arg("cpu", cpu);
        rec.arg("order", order);
        rec.arg("objects", objects);
        let freelist = shuffle_freelist(rec, cache, objects)
            .unwrap_or_else(|| (0..objects).collect())
            .into_boxed_slice();
        rec.emit(Event::SlabCreated {
            cache,
            pfn,
            order,
            freelist,
        });
        then(rec, pfn)
    })
}

/// The rest of `___slab_alloc()`'s new-slab branch, in the same step as `allocate_slab()`: the
/// slab's whole freelist goes to the CPU, the slab is frozen with every object in use, and
/// `inc_slabs_node()` counts it.
fn take_new_slab_freelist(rec: &mut Recorder, cache: CacheId, pfn: Pfn) -> u64 {
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
