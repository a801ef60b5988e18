//! Allocation under SLAB: `__do_cache_alloc()`, `____cache_alloc()` (the per-CPU array),
//! `cache_alloc_refill()`, `____cache_alloc_node()`, `fallback_alloc()` and growing a cache
//! (`cache_grow_begin()`/`cache_grow_end()`), mm/slab.c v6.6; spec 3.5, 3.6.

use super::create::kmalloc_slab;
use super::event::{SlabEvent, SlabNew};
use super::state::{AcRef, SlabList, BATCHREFILL_LIMIT};
use super::{cpu_ac, emit, lock, shared_ac};
use crate::geometry::slab::FreelistLayout;
use crate::gfp::{Gfp, GFP_KERNEL};
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::{Owner, Pfn};
use crate::page_alloc::{alloc_pages, alloc_pages_thisnode, free_pages, zonelist};
use crate::slab_common::random::draw_below;
use crate::slab_common::ZERO_SIZE_PTR;
use crate::trace::{End, Recorder};

/// `kmalloc(size, GFP_KERNEL)`/`kmalloc_node()` under SLAB: an object of at least `size`
/// bytes, or NULL (0).
pub fn kmalloc(rec: &mut Recorder, size: u64, cpu: CpuId, node: Option<NodeId>) -> u64 {
    __do_kmalloc_node(rec, size, GFP_KERNEL, cpu, node)
}

/// `__do_kmalloc_node()` under SLAB: the cache `kmalloc_slab()` picks for the size and the
/// gfp flags' type (reclaimable, DMA, cgroup or normal), or the page allocator above
/// `KMALLOC_MAX_CACHE_SIZE`.
pub fn __do_kmalloc_node(
    rec: &mut Recorder,
    size: u64,
    flags: Gfp,
    cpu: CpuId,
    node: Option<NodeId>,
) -> u64 {
    if size == 0 {
        rec.call("kmalloc", "size 0", "step.kmalloc_zero", |_| {});
        return ZERO_SIZE_PTR;
    }
    match kmalloc_slab(rec.machine(), size, flags) {
        Some(Ok(cache)) => slab_alloc_node(rec, cache, cpu, node),
        Some(Err(order)) => {
            // __kmalloc_large_node(): straight to the page allocator.
            match alloc_pages(rec, cpu, node, order, Owner::LargeKmalloc) {
                Ok(pfn) => rec.machine().object_addr(pfn, 1, 0),
                Err(_) => 0,
            }
        }
        None => {
            rec.call("kmalloc", "too large", "step.kmalloc_too_large", |rec| {
                rec.arg("size", size);
            });
            0
        }
    }
}

/// `kmem_cache_alloc()`/`kmem_cache_alloc_node()` → `slab_alloc_node()` → `__do_cache_alloc()`.
pub fn slab_alloc_node(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: Option<NodeId>,
) -> u64 {
    if rec.machine().slab().caches[cache].destroyed {
        rec.call(
            "kmem_cache_alloc",
            "destroyed cache",
            "step.use_destroyed_cache",
            |rec| {
                rec.arg_cache("cache", cache);
            },
        );
        return 0;
    }
    let obj = __do_cache_alloc(rec, cache, cpu, node);
    if obj == 0 {
        rec.call("slab_alloc_node", "out of memory", "step.slab_oom", |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
        });
    }
    obj
}

/// `__do_cache_alloc()`: the local array unless another node is asked for; then the node
/// lists of the wanted node; then any node.
fn __do_cache_alloc(rec: &mut Recorder, cache: CacheId, cpu: CpuId, node: Option<NodeId>) -> u64 {
    let local = rec.machine().cpu_node[cpu];
    let nodeid = node.unwrap_or(local);
    let mut obj = 0;
    if nodeid == local {
        obj = ____cache_alloc(rec, cache, cpu);
    }
    if obj == 0 {
        obj = ____cache_alloc_node(rec, cache, cpu, nodeid, false);
    }
    obj
}

/// Hands `obj`, just taken off an array or a slab, to the caller (inside the open step).
fn give(rec: &mut Recorder, cache: CacheId, cpu: CpuId, obj: u64) -> u64 {
    let place = super::place_of(rec.machine(), obj).expect("objects lie in slabs");
    emit(
        rec,
        SlabEvent::ObjectAllocated {
            cache,
            cpu,
            pfn: place.pfn,
            index: place.index,
        },
    );
    rec.arg_addr("object", obj);
    obj
}

/// `ac->touched = 1; return ac->entry[--ac->avail];` inside the open step.
fn pop(rec: &mut Recorder, cache: CacheId, cpu: CpuId) -> u64 {
    let ac = &rec.machine().slab().caches[cache].cpu[cpu];
    let (obj, touched) = (
        *ac.entry.last().expect("the array is not empty"),
        ac.touched,
    );
    if !touched {
        emit(
            rec,
            SlabEvent::AcTouched {
                cache,
                ac: cpu_ac(cpu),
                touched: true,
            },
        );
    }
    emit(
        rec,
        SlabEvent::AcPopped {
            cache,
            ac: cpu_ac(cpu),
        },
    );
    give(rec, cache, cpu, obj)
}

/// `____cache_alloc()`: the newest pointer of this CPU's array, else a refill.
fn ____cache_alloc(rec: &mut Recorder, cache: CacheId, cpu: CpuId) -> u64 {
    if rec.machine().slab().caches[cache].cpu[cpu].avail() > 0 {
        let obj = rec.call(
            "____cache_alloc",
            "array hit",
            "step.slab_array_hit",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                pop(rec, cache, cpu)
            },
        );
        return obj;
    }
    cache_alloc_refill(rec, cache, cpu)
}

/// `cache_alloc_refill()` (v6.6, or the pre-4.7 behaviour with `legacy_refill`).
fn cache_alloc_refill(rec: &mut Recorder, cache: CacheId, cpu: CpuId) -> u64 {
    let node = rec.machine().cpu_node[cpu];
    loop {
        let m = rec.machine();
        let s = &m.slab().caches[cache];
        let ac = &s.cpu[cpu];
        let mut batch = i64::from(ac.batchcount);
        if !ac.touched && batch > i64::from(BATCHREFILL_LIMIT) {
            batch = i64::from(BATCHREFILL_LIMIT);
        }
        let n = &s.node[node];
        let shared_avail = n.shared.as_ref().map(|sh| sh.avail());
        let room = ac.limit - ac.avail();
        let lists_have = !n.slabs_partial.is_empty() || !n.slabs_free.is_empty();
        // "mm/slab: lockless decision to grow cache" (also 4.7, merged after the refill change):
        // nothing free on the node, skip the lock. `legacy_refill` reverts only the refill
        // change, so both modes keep this check.
        let skip_lock = n.free_objects == 0 && shared_avail.unwrap_or(0) == 0;
        if !skip_lock {
            let from_shared =
                shared_avail.map_or(0, |a| (a as i64).min(batch).min(i64::from(room)));
            let path = if from_shared > 0 {
                "from the shared array"
            } else if lists_have {
                "from the node's slab lists"
            } else {
                "node lists empty"
            };
            let refilled = rec.call("cache_alloc_refill", path, "step.slab_refill", |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                rec.arg("node", node);
                rec.arg("batch", batch.max(0) as u64);
                lock(rec, cache, node);
                if from_shared > 0 {
                    transfer_objects(rec, cache, cpu_ac(cpu), shared_ac(node), batch as u32);
                    emit(
                        rec,
                        SlabEvent::AcTouched {
                            cache,
                            ac: shared_ac(node),
                            touched: true,
                        },
                    );
                } else {
                    while batch > 0 {
                        let Some(pfn) = get_first_slab(rec, cache, node) else {
                            break;
                        };
                        batch = alloc_block(rec, cache, cpu, pfn, batch);
                        fixup_slab_list(rec, cache, pfn);
                    }
                    // must_grow: n->free_objects -= ac->avail
                    let avail = rec.machine().slab().caches[cache].cpu[cpu].avail();
                    if avail > 0 {
                        node_counts(rec, cache, node, 0, 0, -(avail as i32));
                    }
                }
                (rec.machine().slab().caches[cache].cpu[cpu].avail() > 0)
                    .then(|| pop(rec, cache, cpu))
            });
            if let Some(obj) = refilled {
                return obj;
            }
        }
        // direct_grow
        let legacy = rec.machine().slab().legacy_refill;
        let slab = cache_grow_begin(rec, cache, cpu, node, true);
        if legacy {
            // Before 4.7: link the new slab first, then retry the refill under list_lock.
            let grew = slab.is_some();
            cache_grow_end(rec, cache, slab);
            if !grew {
                return 0;
            }
            continue;
        }
        if let Some(pfn) = slab {
            rec.call(
                "alloc_block",
                "fill the array from the new slab without list_lock",
                "step.slab_alloc_block_new",
                |rec| {
                    rec.arg_cache("cache", cache);
                    rec.arg("cpu", cpu);
                    rec.arg("pfn", pfn);
                    alloc_block(rec, cache, cpu, pfn, batch);
                },
            );
        }
        cache_grow_end(rec, cache, slab);
        if rec.machine().slab().caches[cache].cpu[cpu].avail() == 0 {
            return 0;
        }
        let obj = rec.call(
            "cache_alloc_refill",
            "hand out the newest object",
            "step.slab_refill_done",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                pop(rec, cache, cpu)
            },
        );
        return obj;
    }
}

/// `transfer_objects(to, from, max)`: moves the newest `min(from.avail, max, room in to)`
/// pointers of `from` onto `to`. Returns how many moved.
pub(crate) fn transfer_objects(
    rec: &mut Recorder,
    cache: CacheId,
    to: AcRef,
    from: AcRef,
    max: u32,
) -> u32 {
    let s = &rec.machine().slab().caches[cache];
    let (Some(t), Some(f)) = (s.ac(to), s.ac(from)) else {
        return 0;
    };
    let nr = f.avail().min(max).min(t.limit - t.avail());
    if nr > 0 {
        emit(
            rec,
            SlabEvent::AcMoved {
                cache,
                from,
                to,
                count: nr,
                oldest: false,
            },
        );
    }
    nr
}

/// Moves a node's counters.
pub(crate) fn node_counts(
    rec: &mut Recorder,
    cache: CacheId,
    node: NodeId,
    total_slabs: i32,
    free_slabs: i32,
    free_objects: i32,
) {
    emit(
        rec,
        SlabEvent::NodeCounts {
            cache,
            node,
            total_slabs,
            free_slabs,
            free_objects,
        },
    );
}

/// `get_first_slab()`: the first partial slab, else the first free one (noting that free
/// slabs were touched).
fn get_first_slab(rec: &mut Recorder, cache: CacheId, node: NodeId) -> Option<Pfn> {
    let n = &rec.machine().slab().caches[cache].node[node];
    if let Some(&pfn) = n.slabs_partial.front() {
        return Some(pfn);
    }
    let (free, touched) = (n.slabs_free.front().copied(), n.free_touched);
    if !touched {
        emit(
            rec,
            SlabEvent::FreeTouched {
                cache,
                node,
                touched: true,
            },
        );
    }
    let pfn = free?;
    node_counts(rec, cache, node, 0, -1, 0);
    Some(pfn)
}

/// `slab_get_obj()`: the slab's next free object, `active` one more.
fn slab_get_obj(rec: &mut Recorder, pfn: Pfn) -> u64 {
    let slab = &rec.machine().slab().slabs[&pfn];
    let index = slab.freelist[slab.active as usize];
    let obj = rec.machine().slab_obj_addr(pfn, index);
    emit(rec, SlabEvent::ObjGot { pfn });
    obj
}

/// `alloc_block()`: pushes objects of the slab onto this CPU's array until the slab is full
/// or `batch` is used up; returns what is left of `batch` (as the kernel's post-decrement
/// loop leaves it, possibly -1).
fn alloc_block(rec: &mut Recorder, cache: CacheId, cpu: CpuId, pfn: Pfn, mut batch: i64) -> i64 {
    let num = rec.machine().slab().caches[cache].geometry.num;
    loop {
        if rec.machine().slab().slabs[&pfn].active >= num {
            break;
        }
        let before = batch;
        batch -= 1;
        if before == 0 {
            break;
        }
        let obj = slab_get_obj(rec, pfn);
        emit(
            rec,
            SlabEvent::AcPushed {
                cache,
                ac: cpu_ac(cpu),
                addr: obj,
            },
        );
    }
    batch
}

/// `fixup_slab_list()`: a full slab to the head of `slabs_full` (an OBJFREELIST slab's index
/// array went out with its last object), else to the head of `slabs_partial`.
fn fixup_slab_list(rec: &mut Recorder, cache: CacheId, pfn: Pfn) {
    let m = rec.machine();
    let s = &m.slab().caches[cache];
    let slab = &m.slab().slabs[&pfn];
    let full = slab.active == s.geometry.num;
    let objfreelist = s.geometry.layout == FreelistLayout::ObjFreelist;
    if slab.list.is_some() {
        emit(rec, SlabEvent::SlabUnlisted { cache, pfn });
    }
    emit(
        rec,
        SlabEvent::SlabListed {
            cache,
            pfn,
            list: if full {
                SlabList::Full
            } else {
                SlabList::Partial
            },
            end: End::Head,
        },
    );
    if full && objfreelist {
        emit(rec, SlabEvent::FreelistAt { pfn, addr: 0 });
    }
}

/// `____cache_alloc_node()`: one object straight from node `nodeid`'s lists under its lock,
/// else from a new slab there, else (unless `this_node`) `fallback_alloc()`.
fn ____cache_alloc_node(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    nodeid: NodeId,
    this_node: bool,
) -> u64 {
    loop {
        let n = &rec.machine().slab().caches[cache].node[nodeid];
        let has = !n.slabs_partial.is_empty() || !n.slabs_free.is_empty();
        let path = if has {
            "one object from the node's lists"
        } else {
            "node lists empty"
        };
        let got = rec.call(
            "____cache_alloc_node",
            path,
            "step.slab_alloc_node",
            |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                rec.arg("node", nodeid);
                lock(rec, cache, nodeid);
                let pfn = get_first_slab(rec, cache, nodeid)?;
                let obj = slab_get_obj(rec, pfn);
                node_counts(rec, cache, nodeid, 0, 0, -1);
                fixup_slab_list(rec, cache, pfn);
                give(rec, cache, cpu, obj);
                Some(obj)
            },
        );
        if let Some(obj) = got {
            return obj;
        }
        // must_grow
        let slab = cache_grow_begin(rec, cache, cpu, nodeid, true);
        if rec.machine().slab().legacy_refill {
            let grew = slab.is_some();
            cache_grow_end(rec, cache, slab);
            if grew {
                continue; // retry under the lock
            }
            return if this_node {
                0
            } else {
                fallback_alloc(rec, cache, cpu)
            };
        }
        let mut obj = 0;
        if let Some(pfn) = slab {
            rec.call(
                "____cache_alloc_node",
                "one object from the new slab (not yet counted)",
                "step.slab_alloc_node_new",
                |rec| {
                    rec.arg_cache("cache", cache);
                    rec.arg("cpu", cpu);
                    obj = slab_get_obj(rec, pfn);
                    give(rec, cache, cpu, obj);
                },
            );
        }
        cache_grow_end(rec, cache, slab);
        return if obj != 0 || this_node {
            obj
        } else {
            fallback_alloc(rec, cache, cpu)
        };
    }
}

/// `fallback_alloc()`: the first node of the local node's zonelist (`mempolicy_slab_node()`
/// without a memory policy is `numa_mem_id()`) with free objects in its lists, else a new
/// slab wherever the page allocator finds memory along that zonelist.
fn fallback_alloc(rec: &mut Recorder, cache: CacheId, cpu: CpuId) -> u64 {
    let local = rec.machine().cpu_node[cpu];
    let zonelist = rec.machine().zonelists[local].clone();
    rec.call(
        "fallback_alloc",
        "walk the zonelist",
        "step.slab_fallback_alloc",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("cpu", cpu);
            rec.arg("node", local);
            rec.arg("zonelist", zonelist::zonelist_text(&zonelist));
        },
    );
    loop {
        for &nid in &zonelist {
            if rec.machine().slab().caches[cache].node[nid].free_objects > 0 {
                let obj = ____cache_alloc_node(rec, cache, cpu, nid, true);
                if obj != 0 {
                    return obj;
                }
            }
        }
        let slab = cache_grow_begin(rec, cache, cpu, local, false);
        cache_grow_end(rec, cache, slab);
        let pfn = match slab {
            Some(pfn) => pfn,
            None => return 0,
        };
        let nid = rec.machine().node_of(pfn);
        let obj = ____cache_alloc_node(rec, cache, cpu, nid, true);
        if obj != 0 {
            return obj;
        }
    }
}

/// `cache_grow_begin()`: pages for one slab (only from `node` with `this_node`), its colour
/// and index array. The slab is on no list and not counted yet.
///
/// As in v6.6, `n->colour_next` moves on as soon as the pages are there, before
/// `alloc_slabmgmt()`: a slab whose OFF_SLAB index array cannot be had gives its pages back
/// but leaves the colour advanced, while a failed `kmem_getpages()` leaves it untouched.
#[allow(
    clippy::too_many_lines,
    reason = "mirrors cache_grow_begin() of mm/slab.c step by step, with its failure exits"
)]
pub(crate) fn cache_grow_begin(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    node: NodeId,
    this_node: bool,
) -> Option<Pfn> {
    let g = rec.machine().slab().caches[cache].geometry.clone();
    let order = g.gfporder as u8;
    let owner = Owner::Slab { cache };
    // kmem_getpages()
    let pages = if this_node {
        alloc_pages_thisnode(rec, cpu, node, order, owner)
    } else {
        alloc_pages(rec, cpu, Some(node), order, owner)
    };
    let pfn = pages.ok()?;
    let slab_node = rec.machine().node_of(pfn);
    let page_addr = rec.machine().object_addr(pfn, 1, 0);
    // The colour of the node the pages came from: colour_next is advanced (wrapping at
    // cachep->colour), then used.
    let mut colour = rec.machine().slab().caches[cache].node[slab_node].colour_next + 1;
    if colour >= g.colour {
        colour = 0;
    }
    let colour_off = colour * g.colour_off;
    let colour_next = SlabEvent::ColourNext {
        cache,
        node: slab_node,
        colour,
    };
    // alloc_slabmgmt(): an OFF_SLAB index array comes from its kmalloc cache, after the
    // colour is taken; the colour gets its own step so that it comes before the allocation's.
    let mut freelist_addr = match g.layout {
        FreelistLayout::ObjFreelist => 0,
        FreelistLayout::OnSlab => {
            page_addr + (u64::from(rec.machine().page.page_size) << order)
                - u64::from(g.freelist_size)
        }
        FreelistLayout::OffSlab => {
            rec.call(
                "cache_grow_begin",
                "colour, then the OFF_SLAB index array",
                "step.slab_grow_colour",
                |rec| {
                    rec.arg_cache("cache", cache);
                    rec.arg("node", slab_node);
                    rec.arg("pfn", pfn);
                    rec.arg("colour_off", colour_off);
                    emit(rec, colour_next.clone());
                },
            );
            let fc = rec.machine().slab().caches[cache]
                .freelist_cache
                .expect("OFF_SLAB caches have a freelist cache");
            let mgmt = slab_alloc_node(rec, fc, cpu, Some(slab_node));
            if mgmt == 0 {
                // opps1: kmem_freepages(); colour_next stays where it is now.
                rec.call(
                    "cache_grow_begin",
                    "no memory for the index array",
                    "step.slab_grow_failed",
                    |rec| {
                        rec.arg_cache("cache", cache);
                        emit(rec, SlabEvent::SlabDestroyed { cache, pfn });
                        let _ = free_pages(rec, cpu, pfn);
                    },
                );
                return None;
            }
            mgmt
        }
    };
    rec.call(
        "cache_grow_begin",
        "new slab",
        "step.slab_grow_begin",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("node", slab_node);
            rec.arg("pfn", pfn);
            if g.layout != FreelistLayout::OffSlab {
                emit(rec, colour_next);
            }
            rec.arg("colour_off", colour_off);
            // cache_init_objs(): identity, or shuffle_freelist() from the precomputed sequence.
            let num = g.num;
            let obj_addr =
                |i: u32| page_addr + u64::from(colour_off) + u64::from(i) * u64::from(g.size);
            let seq = rec.machine().slab().caches[cache].random_seq.clone();
            let freelist: Vec<u32> = match seq {
                Some(seq) if num >= 2 => {
                    let mut pos = draw_below(rec, num) as usize;
                    let mut next = || {
                        if pos >= seq.len() {
                            pos = 0;
                        }
                        pos += 1;
                        seq[pos - 1]
                    };
                    let mut list = Vec::with_capacity(num as usize);
                    let objfreelist = (g.layout == FreelistLayout::ObjFreelist).then(|| {
                        let o = next();
                        freelist_addr = obj_addr(o);
                        o
                    });
                    let count = num - u32::from(objfreelist.is_some());
                    for _ in 0..count {
                        list.push(next());
                    }
                    if let Some(o) = objfreelist {
                        list.push(o);
                    }
                    list
                }
                _ => {
                    if g.layout == FreelistLayout::ObjFreelist {
                        freelist_addr = obj_addr(num - 1);
                    }
                    (0..num).collect()
                }
            };
            emit(
                rec,
                SlabEvent::SlabCreated(Box::new(SlabNew {
                    cache,
                    pfn,
                    order,
                    colour_off,
                    freelist,
                    freelist_addr,
                })),
            );
        },
    );
    Some(pfn)
}

/// `cache_grow_end()`: links a new slab on its node under `list_lock` and counts it; its
/// free objects (those not already taken) join `free_objects`.
pub(crate) fn cache_grow_end(rec: &mut Recorder, cache: CacheId, slab: Option<Pfn>) {
    let Some(pfn) = slab else {
        return;
    };
    let m = rec.machine();
    let (node, active) = (m.slab().slabs[&pfn].node, m.slab().slabs[&pfn].active);
    let num = m.slab().caches[cache].geometry.num;
    rec.call(
        "cache_grow_end",
        if active == 0 {
            "link the new slab on slabs_free"
        } else {
            "link the new slab on its list"
        },
        "step.slab_grow_end",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("node", node);
            rec.arg("pfn", pfn);
            lock(rec, cache, node);
            if active == 0 {
                emit(
                    rec,
                    SlabEvent::SlabListed {
                        cache,
                        pfn,
                        list: SlabList::Free,
                        end: End::Tail,
                    },
                );
                node_counts(rec, cache, node, 1, 1, (num - active) as i32);
            } else {
                fixup_slab_list(rec, cache, pfn);
                node_counts(rec, cache, node, 1, 0, (num - active) as i32);
            }
        },
    );
}

/// `kmem_cache_alloc_bulk()`: `count` objects by `__do_cache_alloc()` one by one; on failure
/// the ones obtained are freed and none is returned.
pub fn kmem_cache_alloc_bulk(
    rec: &mut Recorder,
    cache: CacheId,
    count: u32,
    cpu: CpuId,
) -> Vec<u64> {
    rec.call(
        "kmem_cache_alloc_bulk",
        "one by one",
        "step.alloc_bulk",
        |rec| {
            rec.arg_cache("cache", cache);
            rec.arg("count", count);
        },
    );
    if rec.machine().slab().caches[cache].destroyed {
        slab_alloc_node(rec, cache, cpu, None);
        return Vec::new();
    }
    let mut got = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let obj = __do_cache_alloc(rec, cache, cpu, None);
        if obj == 0 {
            rec.call(
                "kmem_cache_alloc_bulk",
                "out of memory",
                "step.slab_oom",
                |rec| {
                    rec.arg_cache("cache", cache);
                },
            );
            super::kmem_cache_free_bulk(rec, Some(cache), &got, cpu);
            return Vec::new();
        }
        got.push(obj);
    }
    got
}
