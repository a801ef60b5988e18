//! The memory SLUB's racing paths read and write (`SlubMem`): every word of the per-CPU
//! structures, the slabs, the node lists and the page allocator that a `#[dual]` path touches
//! goes through one of these methods, so that the same path runs over two memories:
//!
//! - the `Machine` of a run, through its recorder (`RecMem`: `Ctx` for the interleaving
//!   executor and `SyncCtx` for a sequential run), where every change is an event of the
//!   trace;
//! - the shared memory of a live run (`crate::live`), where each CPU is a thread and the shared
//!   words are real atomics.
//!
//! A method reads or changes one thing the kernel names. Which of them are shared between CPUs
//! and which a CPU owns is said where the live memory implements them. A few methods also add
//! a caption argument to the open step (`rec.arg`), as the code they came from did; a live
//! run has no steps and ignores them.

use super::alloc::{
    new_slab, object_handed_out, slab_out_of_memory, take_new_slab_freelist, NewSlabPages,
};
use super::bulk::{detach, first_bad};
use super::cmpxchg::{SlabRead, SlabWord};
use super::random::shuffle_freelist;
use super::sheaf::{FreeFrom, PcsSlot, PercpuSheaves, SheafEvent};
use super::state::{KmemCacheCpu, SlabFields, TID_STEP};
use super::{
    freelist_len, freepointer_at, get_freepointer, obj_to_index, object_allocated, object_freed,
    place_of, set_cpu_freelist, set_freepointer_at, take_object,
};
use crate::geometry::SlubVersion;
use crate::ids::{CacheId, CpuId, NodeId, Pfn, SheafId};
use crate::machine::Damage;
use crate::rcu::event::RcuEvent;
use crate::rcu::state::RcuFunc;
use crate::trace::{End, Event, Recorder};

/// A context whose memory is a recorder's machine.
pub(crate) trait RecMem: Copy {
    /// Runs `f` on the recorder (never across a boundary).
    fn rec<R>(self, f: impl FnOnce(&mut Recorder) -> R) -> R;
}

/// What `detach` hands `do_slab_free()`: how many entries are left, and the group of one slab.
pub(crate) type Detached = (usize, Option<(CacheId, Pfn, Vec<(u64, u32)>)>);

/// See the module documentation.
pub(crate) trait SlubMem: Copy {
    // The cache (set when it was created; never changes during a run).

    /// Which SLUB runs (the machine's profile): where a path differs between versions.
    fn slub_version(self) -> SlubVersion;
    /// `kmem_cache_debug(s)`.
    fn cache_debug(self, cache: CacheId) -> bool;
    /// `kmem_cache_has_cpu_partial(s)`.
    fn has_cpu_partial(self, cache: CacheId) -> bool;
    /// `s->cpu_partial_slabs`.
    fn cpu_partial_slabs(self, cache: CacheId) -> u32;
    /// `s->min_partial`.
    fn min_partial(self, cache: CacheId) -> u64;
    /// `oo_order(s->oo)`.
    fn cache_order(self, cache: CacheId) -> u32;
    /// `s->flags & SLAB_STORE_USER`.
    fn store_user(self, cache: CacheId) -> bool;
    /// `nr_node_ids`.
    fn nr_nodes(self) -> u32;
    /// `cpu_to_node(cpu)`.
    fn cpu_to_node(self, cpu: CpuId) -> NodeId;

    // `struct kmem_cache_cpu` of CPU `c`.

    /// The whole of it (read by the CPU itself, or under its local lock).
    fn cpu_slab(self, cache: CacheId, c: CpuId) -> KmemCacheCpu;
    /// `c->freelist = freelist; c->tid = tid`.
    fn set_cpu_freelist_tid(self, cache: CacheId, c: CpuId, freelist: u64, tid: u64);
    /// `this_cpu_try_cmpxchg_freelist()` on CPU `c`'s (freelist, tid): when the pair is
    /// (`old`, `tid`) (without `tid` in the compare under the teaching switch `no_tid`), it
    /// becomes (`new`, `next_tid()` of the tid found). Returns whether it did, and the pair
    /// found.
    fn cpu_cmpxchg(
        self,
        cache: CacheId,
        c: CpuId,
        old: u64,
        tid: u64,
        new: u64,
        no_tid: bool,
    ) -> (bool, u64, u64);
    /// `c->freelist = freelist; c->tid = next_tid(c->tid)`.
    fn set_cpu_freelist(self, cache: CacheId, c: CpuId, freelist: u64);
    /// `c->slab = slab`.
    fn set_cpu_slab_ptr(self, cache: CacheId, c: CpuId, slab: Option<Pfn>);
    /// `c->partial = top`.
    fn set_cpu_partial(self, cache: CacheId, c: CpuId, top: Option<Pfn>);
    /// `load_freelist:` the first object of `freelist` goes to the caller, the rest become
    /// `c->freelist` (bumping the tid); adds the caption argument `object`.
    fn load_freelist(self, cache: CacheId, c: CpuId, freelist: u64);
    /// The object the fast path took from `cpu`'s freelist is the caller's now.
    fn object_handed_out(self, cache: CacheId, cpu: CpuId, object: u64);
    /// The fast path's cmpxchg under the teaching switch `no_tid` succeeded on a stale read and
    /// installed `new`: when `new` is an allocated object, the damage is recorded (true).
    fn stale_cpu_freelist(self, cache: CacheId, cpu: CpuId, new: u64) -> bool;

    // A slab (`struct slab`) and its objects.

    /// `slab->freelist` and `slab->counters`, with `objects` and the node (`None`: no slab).
    fn slab_word(self, pfn: Pfn) -> Option<SlabRead>;
    /// The cmpxchg of `slab_update_freelist()`: when the slab still holds `old`, it takes
    /// `new` and this returns true. With `unlink`, the same moment also clears the slab's
    /// cpu partial link (`slab->next`, `slab->slabs`), as `__unfreeze_partials()` does.
    fn slab_cmpxchg(self, pfn: Pfn, old: &SlabRead, new: SlabWord, unlink: bool) -> bool;
    /// `slab_nid(slab)`.
    fn slab_node(self, pfn: Pfn) -> Option<NodeId>;
    /// The slab's fields.
    fn slab_fields(self, pfn: Pfn) -> SlabFields;
    /// `slab->next` (`None` also when there is no slab).
    fn slab_next(self, pfn: Pfn) -> Option<Pfn>;
    /// `slab->next` and `slab->slabs` (the per-CPU partial stack's link and depth).
    fn set_slab_partial_link(self, pfn: Pfn, next: Option<Pfn>, slabs: u32);
    /// `get_freepointer_safe(s, object)`: 0 when `object` is not in a slab.
    fn get_freepointer_safe(self, object: u64) -> u64;
    /// `set_freepointer()` of object `index` of the slab at `pfn`.
    fn set_freepointer_at(self, pfn: Pfn, index: u32, value: u64);
    /// The address of object `index` of the slab at `pfn` (0: no slab).
    fn object_addr(self, pfn: Pfn, index: u32) -> u64;
    /// `obj_to_index()`.
    fn obj_to_index(self, pfn: Pfn, addr: u64) -> u32;
    /// How many objects the free list from `head` has, and its last object.
    fn freelist_count_tail(self, head: u64) -> (u32, u64);
    /// The callers gave back `objs` (address, index) of the slab at `pfn`.
    fn objects_freed(self, cache: CacheId, cpu: CpuId, pfn: Pfn, objs: &[(u64, u32)]);

    // `struct kmem_cache_node`, its lists under `n->list_lock`.

    /// `n->nr_partial`.
    fn nr_partial(self, cache: CacheId, node: NodeId) -> usize;
    /// The first slab of `n->partial`.
    fn node_partial_first(self, cache: CacheId, node: NodeId) -> Option<Pfn>;
    /// `add_partial(n, slab, end)`.
    fn add_partial(self, cache: CacheId, node: NodeId, pfn: Pfn, end: End);
    /// `remove_partial(n, slab)`.
    fn remove_partial(self, cache: CacheId, node: NodeId, pfn: Pfn);
    /// `slab_test_node_partial()` (6.8+): the slab is on its node's partial list (the kernel
    /// keeps a page flag, `PG_workingset`, that `__add_partial()` sets and `remove_partial()`
    /// clears, in step with the list). Under the node's lock.
    fn on_node_partial(self, cache: CacheId, node: NodeId, pfn: Pfn) -> bool;
    /// `get_any_partial()`'s look: `s->remote_node_defrag_ratio`, and the first node of
    /// `local`'s zonelist whose partial list holds more than `min_partial` slabs.
    fn any_partial_candidate(self, cache: CacheId, local: NodeId) -> (u32, Option<NodeId>);
    /// `get_cycles() % n`, the kernel's cheap random number (the machine's generator).
    fn draw_below(self, n: u32) -> u32;

    // New and discarded slabs (the page allocator).

    /// `new_slab()` → `allocate_slab()`, first half: the pages (`None`: out of memory).
    /// With `thisnode` (`__GFP_THISNODE`), from `node` only.
    fn new_slab(
        self,
        cache: CacheId,
        cpu: CpuId,
        node: Option<NodeId>,
        thisnode: bool,
    ) -> Option<NewSlabPages>;
    /// `allocate_slab()`, second half: the new slab's objects linked (shuffled with a random
    /// sequence), the slab made.
    fn init_slab_objects(self, cache: CacheId, new: &NewSlabPages);
    /// The new slab becomes the cpu slab's: its whole freelist is taken (frozen, every object in
    /// use) and `inc_slabs_node()` counts it; returns the freelist.
    fn take_new_slab_freelist(self, cache: CacheId, pfn: Pfn) -> u64;
    /// `slab_out_of_memory()`; NULL.
    fn slab_out_of_memory(self, cache: CacheId) -> u64;
    /// `discard_slab()`.
    fn discard_slab(self, cache: CacheId, cpu: CpuId, pfn: Pfn);

    // Debug caches (`kmem_cache_debug()`): every change under the node's `list_lock`.

    /// `alloc_single_from_new_slab()`'s first object: taken off the new slab's freelist
    /// (`inuse` 1); returns it with the slab's fields from before.
    fn debug_take_first(self, pfn: Pfn) -> (u64, SlabFields);
    /// `alloc_single_from_new_slab()` under the lock: the slab goes on the node's lists and is
    /// counted, and `object` is the caller's.
    fn debug_list_new_slab(
        self,
        cache: CacheId,
        cpu: CpuId,
        slab: &SlabFields,
        pfn: Pfn,
        object: u64,
    );
    /// `alloc_single_from_partial()` under the lock: an object from the first partial slab.
    fn debug_alloc_from_partial(self, cache: CacheId, node: NodeId, cpu: CpuId) -> Option<u64>;
    /// `free_to_partial_list()` under the lock: the objects freed to their slab and the lists
    /// changed; returns the slab's `inuse` before and its freelist before.
    #[allow(clippy::too_many_arguments, reason = "the function's own arguments")]
    fn debug_free_to_partial(
        self,
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
        pfn: Pfn,
        objs: &[(u64, u32)],
        prior: u64,
        inuse: u32,
        discard: bool,
    );

    /// A caption argument of the open step, kept in an interleaved run too (where the step
    /// is the micro-step's).
    fn arg_always(self, name: &'static str, value: u32);

    // Bulk.

    /// `kmem_cache_free_bulk()`'s check of its array: the first bad entry (a step says so).
    fn bulk_first_bad(self, cache: Option<CacheId>, objs: &[u64]) -> Option<u64>;
    /// `build_detached_freelist()`: the group of one slab from the end of `p[..size]`.
    /// Without `hook`, no `slab_free_freelist_hook()` pass (a sheaf flush's
    /// `__kmem_cache_free_bulk()`, 6.18+, frees the groups as gathered).
    fn bulk_detach(
        self,
        cache: Option<CacheId>,
        p: &mut [u64],
        size: usize,
        cpu: CpuId,
        hook: bool,
    ) -> Detached;
    /// `__kmem_cache_alloc_bulk()`'s take of the object at the head of `c->freelist` without a
    /// tid bump; returns it.
    fn bulk_take_object(self, cache: CacheId, c: CpuId, object: u64, tid: u64) -> u64;

    // Per-CPU sheaves and barns (6.18+; `slub::sheaf`). A CPU's sheaves are changed under
    // its `s->cpu_sheaves->lock`, a barn's lists under the barn's lock.

    /// `s->sheaf_capacity` (0: `!cache_has_sheaves(s)`).
    fn sheaf_capacity(self, cache: CacheId) -> u32;
    /// `this_cpu_ptr(s->cpu_sheaves)` of `cpu`.
    fn pcs(self, cache: CacheId, cpu: CpuId) -> PercpuSheaves;
    /// `sheaf->size`.
    fn sheaf_size(self, sheaf: SheafId) -> u32;
    /// `sheaf->objects[sheaf->size - 1]` (0 when empty).
    fn sheaf_top(self, sheaf: SheafId) -> u64;
    /// `pcs->main`, `pcs->spare` or `pcs->rcu_free` of `cpu` := `sheaf`.
    fn set_pcs(self, cache: CacheId, cpu: CpuId, slot: PcsSlot, sheaf: Option<SheafId>);
    /// `alloc_empty_sheaf()`: a new sheaf of the cache's capacity.
    fn alloc_empty_sheaf(self, cache: CacheId) -> SheafId;
    /// `free_empty_sheaf()`.
    fn free_empty_sheaf(self, sheaf: SheafId);
    /// The operation holds `sheaf` on no CPU and in no barn (`held`), or puts it somewhere.
    fn sheaf_hold(self, sheaf: SheafId, held: bool);
    /// `call_rcu(&sheaf->rcu_head, rcu_free_sheaf)` on `cpu` (`barn: false`:
    /// `rcu_free_sheaf_nobarn`): the sheaf waits in the callback for a grace period.
    fn call_rcu_sheaf(self, cpu: CpuId, cache: CacheId, sheaf: SheafId, node: NodeId, barn: bool);
    /// The `rcu_free_sheaf()` callback of `sheaf` on `cpu` runs: it leaves `cpu`'s callback list.
    fn rcu_sheaf_invoked(
        self,
        cpu: CpuId,
        cache: CacheId,
        sheaf: SheafId,
        node: NodeId,
        barn: bool,
    );
    /// `objects`, given back to their slab, leave where they came from (see `FreeFrom`).
    fn objects_given_back(
        self,
        cache: CacheId,
        cpu: CpuId,
        pfn: Pfn,
        objs: &[(u64, u32)],
        from: FreeFrom,
    );
    /// The operation holds `objects` in an array of its own (a flush batch, a refill's
    /// leftovers), or (`held` false) gave them back to their slab's freelist.
    fn objects_stacked(self, objects: &[u64]);
    fn objects_unstacked(self, objects: &[u64]);
    /// A refill isolated the slab (took it off its node list), or let it go.
    fn slab_isolated(self, pfn: Pfn, isolated: bool);
    /// `sheaf->objects[--sheaf->size]` goes to the caller on `cpu`; the object.
    fn sheaf_hand_out(self, cache: CacheId, cpu: CpuId, sheaf: SheafId) -> u64;
    /// The caller on `cpu` gives `object` back onto the top of `sheaf`.
    fn sheaf_take_back(self, cache: CacheId, cpu: CpuId, sheaf: SheafId, object: u64);
    /// The objects of `sheaf`, bottom first.
    fn sheaf_objects(self, sheaf: SheafId) -> Vec<u64>;
    /// The top `n` objects leave `sheaf`; they come back bottom first.
    fn sheaf_take(self, sheaf: SheafId, n: u32) -> Vec<u64>;
    /// `objects` go on top of `sheaf`, in order.
    fn sheaf_push(self, sheaf: SheafId, objects: &[u64]);
    /// A barn's `(nr_full, nr_empty)`.
    fn barn_counts(self, cache: CacheId, node: NodeId) -> (usize, usize);
    /// The head of the barn's full (or empty) list, taken off it.
    fn barn_take(self, cache: CacheId, node: NodeId, full: bool) -> Option<SheafId>;
    /// `sheaf` onto the head of the barn's full (or empty) list.
    fn barn_put(self, cache: CacheId, node: NodeId, sheaf: SheafId, full: bool);
    /// Up to `max` objects of the freelist from `head`, in its order.
    fn freelist_objects(self, head: u64, max: u32) -> Vec<u64>;
    /// The node of the slab `object` lies in (`None`: not in a slab).
    fn object_node(self, object: u64) -> Option<NodeId>;
    /// `alloc_from_new_slab()` (7.x), on a slab no one else can see yet: its first `count`
    /// objects in allocation order go to the caller's array, the rest stay its freelist,
    /// `inuse = count`, and `inc_slabs_node()` counts it. The objects.
    fn new_slab_take(self, cache: CacheId, pfn: Pfn, count: u32) -> Vec<u64>;
}

impl<T: RecMem> SlubMem for T {
    #[inline(always)]
    fn slub_version(self) -> SlubVersion {
        self.rec(|rec| rec.machine().profile.slub)
    }

    #[inline(always)]
    fn cache_debug(self, cache: CacheId) -> bool {
        self.rec(|rec| rec.machine().slub().caches[cache].debug())
    }

    #[inline(always)]
    fn has_cpu_partial(self, cache: CacheId) -> bool {
        self.rec(|rec| rec.machine().slub().caches[cache].has_cpu_partial())
    }

    #[inline(always)]
    fn cpu_partial_slabs(self, cache: CacheId) -> u32 {
        self.rec(|rec| {
            rec.machine().slub().caches[cache]
                .geometry
                .cpu_partial_slabs
        })
    }

    #[inline(always)]
    fn min_partial(self, cache: CacheId) -> u64 {
        self.rec(|rec| u64::from(rec.machine().slub().caches[cache].geometry.min_partial))
    }

    #[inline(always)]
    fn cache_order(self, cache: CacheId) -> u32 {
        self.rec(|rec| rec.machine().slub().caches[cache].geometry.order)
    }

    #[inline(always)]
    fn store_user(self, cache: CacheId) -> bool {
        self.rec(|rec| rec.machine().slub().caches[cache].flags.store_user)
    }

    #[inline(always)]
    fn nr_nodes(self) -> u32 {
        self.rec(|rec| rec.machine().config.nodes)
    }

    #[inline(always)]
    fn cpu_to_node(self, cpu: CpuId) -> NodeId {
        self.rec(|rec| rec.machine().cpu_node[cpu])
    }

    #[inline(always)]
    fn cpu_slab(self, cache: CacheId, c: CpuId) -> KmemCacheCpu {
        self.rec(|rec| rec.machine().slub().caches[cache].cpu[c].clone())
    }

    #[inline(always)]
    fn cpu_cmpxchg(
        self,
        cache: CacheId,
        c: CpuId,
        old: u64,
        tid: u64,
        new: u64,
        no_tid: bool,
    ) -> (bool, u64, u64) {
        self.rec(|rec| {
            let cc = &rec.machine().slub().caches[cache].cpu[c];
            let (found, found_tid) = (cc.freelist, cc.tid);
            let ok = found == old && (no_tid || found_tid == tid);
            if ok {
                // The kernel stores next_tid(tid), which is found_tid + TID_STEP when they match;
                // without the tid in the compare, the CPU's own tid moves on.
                rec.emit(Event::CpuFreelistSet {
                    cache,
                    cpu: c,
                    freelist: new,
                    tid: found_tid + TID_STEP,
                });
            }
            (ok, found, found_tid)
        })
    }

    #[inline(always)]
    fn set_cpu_freelist_tid(self, cache: CacheId, c: CpuId, freelist: u64, tid: u64) {
        self.rec(|rec| {
            rec.emit(Event::CpuFreelistSet {
                cache,
                cpu: c,
                freelist,
                tid,
            });
        });
    }

    #[inline(always)]
    fn set_cpu_freelist(self, cache: CacheId, c: CpuId, freelist: u64) {
        self.rec(|rec| set_cpu_freelist(rec, cache, c, freelist));
    }

    #[inline(always)]
    fn set_cpu_slab_ptr(self, cache: CacheId, c: CpuId, slab: Option<Pfn>) {
        self.rec(|rec| {
            rec.emit(Event::CpuSlabSet {
                cache,
                cpu: c,
                slab,
            })
        });
    }

    #[inline(always)]
    fn set_cpu_partial(self, cache: CacheId, c: CpuId, top: Option<Pfn>) {
        self.rec(|rec| rec.emit(Event::CpuPartialSet { cache, cpu: c, top }));
    }

    #[inline(always)]
    fn load_freelist(self, cache: CacheId, c: CpuId, freelist: u64) {
        self.rec(|rec| {
            take_object(rec, cache, c, freelist);
            rec.arg_addr("object", freelist);
        });
    }

    #[inline(always)]
    fn object_handed_out(self, cache: CacheId, cpu: CpuId, object: u64) {
        self.rec(|rec| object_handed_out(rec, cache, cpu, object));
    }

    #[inline]
    fn stale_cpu_freelist(self, cache: CacheId, cpu: CpuId, new: u64) -> bool {
        self.rec(|rec| {
            let live = new != 0 && rec.machine().is_live(new);
            if live {
                // The ABA problem, done: the freelist now starts with a live object.
                let damage = Damage::StaleCpuFreelist {
                    cache,
                    cpu,
                    object: new,
                };
                rec.emit(Event::DamageRecorded(Box::new(damage)));
            }
            live
        })
    }

    #[inline(always)]
    fn slab_word(self, pfn: Pfn) -> Option<SlabRead> {
        self.rec(|rec| rec.machine().slub().slabs.get(&pfn).map(SlabRead::of))
    }

    #[inline(always)]
    fn slab_cmpxchg(self, pfn: Pfn, old: &SlabRead, new: SlabWord, unlink: bool) -> bool {
        self.rec(|rec| {
            let now = rec.machine().slub().slabs.get(&pfn).map(SlabRead::of);
            let ok = now.is_some_and(|w| {
                w.freelist == old.freelist && w.inuse == old.inuse && w.frozen == old.frozen
            });
            if ok {
                if unlink {
                    rec.emit(Event::SlabPartialLinked {
                        pfn,
                        next: None,
                        slabs: 0,
                    });
                }
                rec.emit(Event::SlabStateSet {
                    pfn,
                    freelist: new.freelist,
                    inuse: new.inuse,
                    frozen: new.frozen,
                });
            }
            ok
        })
    }

    #[inline(always)]
    fn slab_node(self, pfn: Pfn) -> Option<NodeId> {
        self.rec(|rec| rec.machine().slub().slabs.get(&pfn).map(|s| s.node))
    }

    #[inline(always)]
    fn slab_fields(self, pfn: Pfn) -> SlabFields {
        self.rec(|rec| rec.machine().slub().slabs[&pfn].fields())
    }

    #[inline(always)]
    fn slab_next(self, pfn: Pfn) -> Option<Pfn> {
        self.rec(|rec| rec.machine().slub().slabs.get(&pfn).and_then(|s| s.next))
    }

    #[inline(always)]
    fn set_slab_partial_link(self, pfn: Pfn, next: Option<Pfn>, slabs: u32) {
        self.rec(|rec| rec.emit(Event::SlabPartialLinked { pfn, next, slabs }));
    }

    #[inline(always)]
    fn get_freepointer_safe(self, object: u64) -> u64 {
        self.rec(|rec| {
            let m = rec.machine();
            place_of(m, object).map_or(0, |place| freepointer_at(m, &place, object))
        })
    }

    #[inline(always)]
    fn set_freepointer_at(self, pfn: Pfn, index: u32, value: u64) {
        self.rec(|rec| set_freepointer_at(rec, pfn, index, value));
    }

    #[inline(always)]
    fn object_addr(self, pfn: Pfn, index: u32) -> u64 {
        self.rec(|rec| {
            let m = rec.machine();
            let size = m.slub().slabs.get(&pfn).map_or(0, |s| s.size);
            m.object_addr(pfn, size, index)
        })
    }

    #[inline(always)]
    fn obj_to_index(self, pfn: Pfn, addr: u64) -> u32 {
        self.rec(|rec| obj_to_index(rec.machine(), pfn, addr))
    }

    #[inline]
    fn freelist_count_tail(self, head: u64) -> (u32, u64) {
        self.rec(|rec| {
            let m = rec.machine();
            let mut tail = head;
            while tail != 0 && get_freepointer(m, tail) != 0 {
                tail = get_freepointer(m, tail);
            }
            (freelist_len(m, head), tail)
        })
    }

    #[inline(always)]
    fn objects_freed(self, cache: CacheId, cpu: CpuId, pfn: Pfn, objs: &[(u64, u32)]) {
        self.rec(|rec| {
            for &(addr, index) in objs {
                object_freed(rec, cache, cpu, pfn, addr, index);
            }
        });
    }

    #[inline(always)]
    fn nr_partial(self, cache: CacheId, node: NodeId) -> usize {
        self.rec(|rec| rec.machine().slub().caches[cache].node[node].partial.len())
    }

    #[inline(always)]
    fn node_partial_first(self, cache: CacheId, node: NodeId) -> Option<Pfn> {
        self.rec(|rec| {
            rec.machine().slub().caches[cache].node[node]
                .partial
                .first()
                .copied()
        })
    }

    #[inline(always)]
    fn add_partial(self, cache: CacheId, node: NodeId, pfn: Pfn, end: End) {
        self.rec(|rec| {
            rec.emit(Event::NodePartialAdded {
                cache,
                node,
                pfn,
                end,
            });
        });
    }

    #[inline(always)]
    fn remove_partial(self, cache: CacheId, node: NodeId, pfn: Pfn) {
        self.rec(|rec| rec.emit(Event::NodePartialRemoved { cache, node, pfn }));
    }

    #[inline]
    fn on_node_partial(self, cache: CacheId, node: NodeId, pfn: Pfn) -> bool {
        self.rec(|rec| {
            rec.machine().slub().caches[cache].node[node]
                .partial
                .contains(&pfn)
        })
    }

    #[inline]
    fn any_partial_candidate(self, cache: CacheId, local: NodeId) -> (u32, Option<NodeId>) {
        self.rec(|rec| {
            let m = rec.machine();
            let s = &m.slub().caches[cache];
            let min_partial = s.geometry.min_partial as usize;
            // The zonelist of mempolicy_slab_node(), the local node without a memory policy, as
            // build_zonelists() ordered it at boot. It starts with the local node itself, whose
            // partial list get_partial_node() has just found empty.
            let candidate = m.zonelists[local]
                .iter()
                .copied()
                .find(|&n| s.node[n].partial.len() > min_partial);
            (s.remote_node_defrag_ratio, candidate)
        })
    }

    #[inline]
    fn draw_below(self, n: u32) -> u32 {
        self.rec(|rec| crate::slab_common::random::draw_below(rec, n))
    }

    #[inline]
    fn new_slab(
        self,
        cache: CacheId,
        cpu: CpuId,
        node: Option<NodeId>,
        thisnode: bool,
    ) -> Option<NewSlabPages> {
        self.rec(|rec| new_slab(rec, cache, cpu, node, thisnode))
    }

    #[inline]
    fn init_slab_objects(self, cache: CacheId, new: &NewSlabPages) {
        self.rec(|rec| {
            let freelist = shuffle_freelist(rec, cache, new.objects)
                .unwrap_or_else(|| (0..new.objects).collect())
                .into_boxed_slice();
            rec.emit(Event::SlabCreated {
                cache,
                pfn: new.pfn,
                order: new.order,
                freelist,
            });
        });
    }

    #[inline]
    fn take_new_slab_freelist(self, cache: CacheId, pfn: Pfn) -> u64 {
        self.rec(|rec| take_new_slab_freelist(rec, cache, pfn))
    }

    fn slab_out_of_memory(self, cache: CacheId) -> u64 {
        self.rec(|rec| slab_out_of_memory(rec, cache))
    }

    #[inline]
    fn discard_slab(self, cache: CacheId, cpu: CpuId, pfn: Pfn) {
        self.rec(|rec| super::partial::discard_slab(rec, cache, cpu, pfn));
    }

    fn debug_take_first(self, pfn: Pfn) -> (u64, SlabFields) {
        self.rec(|rec| {
            let slab = rec.machine().slub().slabs[&pfn].fields();
            let object = slab.freelist;
            let next = get_freepointer(rec.machine(), object);
            rec.emit(Event::SlabStateSet {
                pfn,
                freelist: next,
                inuse: 1,
                frozen: false,
            });
            (object, slab)
        })
    }

    fn debug_list_new_slab(
        self,
        cache: CacheId,
        cpu: CpuId,
        slab: &SlabFields,
        pfn: Pfn,
        object: u64,
    ) {
        let store_user = self.store_user(cache);
        self.rec(|rec| {
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
        });
    }

    fn debug_alloc_from_partial(self, cache: CacheId, node: NodeId, cpu: CpuId) -> Option<u64> {
        let store_user = self.store_user(cache);
        self.rec(|rec| {
            let pfn = *rec.machine().slub().caches[cache].node[node]
                .partial
                .first()?;
            let slab = rec.machine().slub().slabs[&pfn].fields();
            let object = slab.freelist;
            let next = get_freepointer(rec.machine(), object);
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
            Some(object)
        })
    }

    fn debug_free_to_partial(
        self,
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
        pfn: Pfn,
        objs: &[(u64, u32)],
        prior: u64,
        inuse: u32,
        discard: bool,
    ) {
        let store_user = self.store_user(cache);
        let (head, (_, tail_index)) = (objs[0].0, objs[objs.len() - 1]);
        self.rec(|rec| {
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
        });
    }

    fn arg_always(self, name: &'static str, value: u32) {
        self.rec(|rec| crate::smp::pass_arg(rec, name, value));
    }

    fn bulk_first_bad(self, cache: Option<CacheId>, objs: &[u64]) -> Option<u64> {
        self.rec(|rec| {
            let bad = first_bad(rec, cache, objs)?;
            rec.call(
                "kmem_cache_free_bulk",
                "bad array entry",
                "step.free_bulk_invalid",
                |rec| {
                    rec.arg_addr("addr", bad);
                },
            );
            Some(bad)
        })
    }

    fn bulk_detach(
        self,
        cache: Option<CacheId>,
        p: &mut [u64],
        size: usize,
        cpu: CpuId,
        hook: bool,
    ) -> Detached {
        self.rec(|rec| {
            let (same, df_cache, slab, group) = detach(rec, cache, p, size, cpu, hook);
            (
                same,
                df_cache.zip(slab).zip(group).map(|((a, b), c)| (a, b, c)),
            )
        })
    }

    fn bulk_take_object(self, cache: CacheId, c: CpuId, object: u64, tid: u64) -> u64 {
        self.rec(|rec| {
            let next = get_freepointer(rec.machine(), object);
            rec.emit(Event::CpuFreelistSet {
                cache,
                cpu: c,
                freelist: next,
                tid,
            });
            let place = place_of(rec.machine(), object).expect("free objects lie in slabs");
            crate::slub::hand_out(rec, cache, c, place.pfn, object, place.index);
        });
        object
    }

    #[inline(always)]
    fn sheaf_capacity(self, cache: CacheId) -> u32 {
        self.rec(|rec| rec.machine().slub().caches[cache].sheaf_capacity())
    }

    #[inline(always)]
    fn pcs(self, cache: CacheId, cpu: CpuId) -> PercpuSheaves {
        self.rec(|rec| rec.machine().slub().caches[cache].pcs[cpu])
    }

    #[inline(always)]
    fn sheaf_size(self, sheaf: SheafId) -> u32 {
        self.rec(|rec| rec.machine().slub().sheaves[&sheaf].objects.len() as u32)
    }

    #[inline(always)]
    fn sheaf_top(self, sheaf: SheafId) -> u64 {
        self.rec(|rec| {
            let s = &rec.machine().slub().sheaves[&sheaf];
            s.objects.last().copied().unwrap_or(0)
        })
    }

    fn set_pcs(self, cache: CacheId, cpu: CpuId, slot: PcsSlot, sheaf: Option<SheafId>) {
        self.rec(|rec| {
            rec.emit(Event::Sheaf(SheafEvent::PcsSet {
                cache,
                cpu,
                slot,
                sheaf,
            }));
        });
    }

    fn alloc_empty_sheaf(self, cache: CacheId) -> SheafId {
        self.rec(|rec| {
            let st = rec.machine().slub();
            let sheaf = st.sheaves.next_id();
            let capacity = st.caches[cache].sheaf_capacity();
            rec.emit(Event::Sheaf(SheafEvent::Allocated {
                cache,
                sheaf,
                capacity,
            }));
            sheaf
        })
    }

    fn free_empty_sheaf(self, sheaf: SheafId) {
        self.rec(|rec| rec.emit(Event::Sheaf(SheafEvent::Freed { sheaf })));
    }

    fn sheaf_hold(self, sheaf: SheafId, held: bool) {
        self.rec(|rec| rec.emit(Event::Sheaf(SheafEvent::Held { sheaf, held })));
    }

    fn call_rcu_sheaf(self, cpu: CpuId, cache: CacheId, sheaf: SheafId, node: NodeId, barn: bool) {
        let func = RcuFunc::RcuFreeSheaf {
            cache,
            sheaf,
            node,
            barn,
        };
        self.rec(|rec| crate::rcu::call_rcu(rec, cpu, func));
    }

    fn rcu_sheaf_invoked(
        self,
        cpu: CpuId,
        cache: CacheId,
        sheaf: SheafId,
        node: NodeId,
        barn: bool,
    ) {
        let func = RcuFunc::RcuFreeSheaf {
            cache,
            sheaf,
            node,
            barn,
        };
        self.rec(|rec| rec.emit(Event::Rcu(RcuEvent::CallbackInvoked { cpu, func })));
    }

    fn objects_given_back(
        self,
        cache: CacheId,
        cpu: CpuId,
        pfn: Pfn,
        objs: &[(u64, u32)],
        from: FreeFrom,
    ) {
        match from {
            FreeFrom::Caller => self.objects_freed(cache, cpu, pfn, objs),
            FreeFrom::Sheaf(sheaf) => self.rec(|rec| {
                let objects = objs.iter().map(|&(o, _)| o).collect();
                rec.emit(Event::Sheaf(SheafEvent::Removed { sheaf, objects }));
            }),
            FreeFrom::Stacked => self.rec(|rec| {
                let objects = objs.iter().map(|&(o, _)| o).collect();
                rec.emit(Event::Sheaf(SheafEvent::Stacked {
                    objects,
                    held: false,
                }));
            }),
        }
    }

    fn objects_unstacked(self, objects: &[u64]) {
        self.rec(|rec| {
            rec.emit(Event::Sheaf(SheafEvent::Stacked {
                objects: objects.into(),
                held: false,
            }));
        });
    }

    fn slab_isolated(self, pfn: Pfn, isolated: bool) {
        self.rec(|rec| rec.emit(Event::Sheaf(SheafEvent::Isolated { pfn, isolated })));
    }

    fn objects_stacked(self, objects: &[u64]) {
        if objects.is_empty() {
            return;
        }
        self.rec(|rec| {
            rec.emit(Event::Sheaf(SheafEvent::Stacked {
                objects: objects.into(),
                held: true,
            }));
        });
    }

    fn sheaf_hand_out(self, cache: CacheId, cpu: CpuId, sheaf: SheafId) -> u64 {
        self.rec(|rec| {
            let object = rec.machine().slub().sheaves[&sheaf]
                .objects
                .last()
                .copied()
                .unwrap_or(0);
            rec.emit(Event::Sheaf(SheafEvent::Taken { sheaf, count: 1 }));
            if let Some(place) = place_of(rec.machine(), object) {
                crate::slub::hand_out(rec, cache, cpu, place.pfn, object, place.index);
            }
            object
        })
    }

    fn sheaf_take_back(self, cache: CacheId, cpu: CpuId, sheaf: SheafId, object: u64) {
        self.rec(|rec| {
            if let Some(place) = place_of(rec.machine(), object) {
                object_freed(rec, cache, cpu, place.pfn, object, place.index);
            }
            rec.emit(Event::Sheaf(SheafEvent::Pushed {
                sheaf,
                objects: Box::new([object]),
            }));
        });
    }

    fn sheaf_objects(self, sheaf: SheafId) -> Vec<u64> {
        self.rec(|rec| rec.machine().slub().sheaves[&sheaf].objects.clone())
    }

    fn sheaf_take(self, sheaf: SheafId, n: u32) -> Vec<u64> {
        self.rec(|rec| {
            let objects = &rec.machine().slub().sheaves[&sheaf].objects;
            let taken = objects[objects.len() - n as usize..].to_vec();
            rec.emit(Event::Sheaf(SheafEvent::Taken { sheaf, count: n }));
            taken
        })
    }

    fn sheaf_push(self, sheaf: SheafId, objects: &[u64]) {
        if objects.is_empty() {
            return;
        }
        self.rec(|rec| {
            rec.emit(Event::Sheaf(SheafEvent::Pushed {
                sheaf,
                objects: objects.into(),
            }));
        });
    }

    fn barn_counts(self, cache: CacheId, node: NodeId) -> (usize, usize) {
        self.rec(|rec| {
            rec.machine().slub().caches[cache].node[node]
                .barn
                .as_ref()
                .map_or((0, 0), |b| (b.full.len(), b.empty.len()))
        })
    }

    fn barn_take(self, cache: CacheId, node: NodeId, full: bool) -> Option<SheafId> {
        self.rec(|rec| {
            let barn = rec.machine().slub().caches[cache].node[node]
                .barn
                .as_ref()?;
            let sheaf = *if full { &barn.full } else { &barn.empty }.first()?;
            rec.emit(Event::Sheaf(SheafEvent::BarnRemoved {
                cache,
                node,
                sheaf,
                full,
            }));
            Some(sheaf)
        })
    }

    fn barn_put(self, cache: CacheId, node: NodeId, sheaf: SheafId, full: bool) {
        self.rec(|rec| {
            rec.emit(Event::Sheaf(SheafEvent::BarnAdded {
                cache,
                node,
                sheaf,
                full,
            }));
        });
    }

    fn freelist_objects(self, head: u64, max: u32) -> Vec<u64> {
        self.rec(|rec| {
            let m = rec.machine();
            let mut out = Vec::new();
            let mut at = head;
            while at != 0 && (out.len() as u32) < max {
                out.push(at);
                let Some(place) = place_of(m, at) else { break };
                at = freepointer_at(m, &place, at);
            }
            out
        })
    }

    fn object_node(self, object: u64) -> Option<NodeId> {
        self.rec(|rec| {
            let m = rec.machine();
            place_of(m, object).map(|p| m.slub().slabs[&p.pfn].node)
        })
    }

    fn new_slab_take(self, cache: CacheId, pfn: Pfn, count: u32) -> Vec<u64> {
        self.rec(|rec| {
            let slab = &rec.machine().slub().slabs[&pfn];
            let (head, objects, node) = (slab.freelist, slab.objects, slab.node);
            let count = count.min(objects);
            let m = rec.machine();
            let mut taken = Vec::with_capacity(count as usize);
            let mut at = head;
            while (taken.len() as u32) < count && at != 0 {
                taken.push(at);
                let Some(place) = place_of(m, at) else { break };
                at = freepointer_at(m, &place, at);
            }
            rec.emit(Event::SlabStateSet {
                pfn,
                freelist: at,
                inuse: taken.len() as u32,
                frozen: false,
            });
            rec.emit(Event::SlabCounted {
                cache,
                node,
                objects,
            });
            taken
        })
    }
}
