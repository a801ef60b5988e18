//! SLUB (mm/slub.c, v6.6; spec section 2) over the simulated page allocator.
//!
//! Rules:
//! - Like the page allocator, every function here reads the machine and records what the
//!   kernel function it is named after would do, as events; the recorder applies them.
//! - Only one CPU runs at a time and nothing preempts it, so every cmpxchg succeeds first time;
//!   `tid` is still bumped wherever the kernel bumps it.
//! - Modelled so far: cache creation with merging, kmalloc caches, the allocation fast path and
//!   every branch of `___slab_alloc()` (with `get_any_partial()`), except pfmemalloc; the
//!   free fast path, `__slab_free()`, `put_cpu_partial()`, `__unfreeze_partials()`, `deactivate_slab()`, `flush_cpu_slab()`, `discard_slab()`.
//!   `kmem_cache_alloc_bulk()` and `kmem_cache_free_bulk()`/`kfree_bulk()` with
//!   `build_detached_freelist()` and `slab_free_freelist_hook()`'s reversal of each list.
//!   Frees to the wrong cache that `cache_from_obj()` does not check, which run the named
//!   cache's code on another cache's slab and leave known damage (`machine::damage`).
//!   `kmem_cache_shrink()` and `kmem_cache_destroy()`. `free_slab()` of a
//!   `SLAB_TYPESAFE_BY_RCU` cache through `call_rcu()` (`crate::rcu`).
//!   Freelist randomisation and pointer hardening (`random.rs`). Debug caches' locked
//!   single-object paths (`alloc_single_from_partial()`, `free_to_partial_list()`, `n->full`);
//!   object contents are not simulated, so poison and red-zone checks always pass.
//!
//! Lock order in the kernel (for the reader of the trace): `cpu_slab->lock` → `n->list_lock`
//! → `slab_lock` (bit spinlock, only without cmpxchg128).
//!
//! Lock accounting: every `spin_lock(&n->list_lock)` of 6.6 is an `Event::ListLockTaken` (in
//! `get_partial_node()`, `__slab_free()` when the slab empties or leaves the full state without
//! a cpu partial list, `__unfreeze_partials()` once per node run, `deactivate_slab()` adding to
//! the partial list, the debug caches' single-object paths, shrink and shutdown). The
//! `slab_lock()` fallback is never taken on x86_64 (it has `cmpxchg16b`), and with one CPU
//! running at a time no `cmpxchg` is ever retried, so neither appears in a trace.

pub(crate) mod alloc;
mod apply;
mod bulk;
pub mod check;
pub(crate) mod cmpxchg;
mod create;
pub(crate) mod free;
pub(crate) mod mem;
mod ops;
pub(crate) mod partial;
pub(crate) mod random;
pub mod sheaf;
pub(crate) mod sheaves;
mod shrink;
pub mod state;
pub mod task;

pub(crate) use alloc::NewSlabPages;
pub use alloc::{__do_kmalloc_node, kmalloc, slab_alloc_node};
pub use bulk::{kmem_cache_alloc_bulk, kmem_cache_free_bulk};
pub use create::{
    create_kmalloc_caches, kmalloc_cache_for, kmalloc_slab, kmem_cache_create,
    kmem_cache_create_usercopy,
};
pub use free::{kfree, FreeOutcome};
pub use ops::Slub;
pub use partial::flush_cpu_slab;
pub use shrink::{kmem_cache_destroy, kmem_cache_shrink};

use crate::ids::{CacheId, CpuId};
use crate::machine::{Machine, Pfn};
use crate::trace::{Event, Recorder};
use state::TID_STEP;

/// Where an address lies: the slab, the object index, and the byte offset inside the slot.
pub(crate) struct ObjectPlace {
    pub pfn: Pfn,
    pub index: u32,
    pub offset: u32,
}

/// `virt_to_slab()` plus the object index: `None` when `addr` is not in a slab.
#[inline]
#[doc(alias = "virt_to_slab")]
pub(crate) fn place_of(m: &Machine, addr: u64) -> Option<ObjectPlace> {
    let head = m.slub().slabs.head_of(m.addr_pfn(addr)?)?;
    let slab = m.slub().slabs.get(&head)?;
    let size = slab.size;
    // A slab spans at most 2^MAX_ORDER pages of 64 KiB (2^29 bytes): u32 arithmetic suffices.
    let delta = (addr - m.object_addr(head, size, 0)) as u32;
    let index = slab.reciprocal_size.divide(delta); // obj_to_index()
    if index >= slab.objects {
        return None; // in the slab's tail waste
    }
    Some(ObjectPlace {
        pfn: head,
        index,
        offset: delta - index * size,
    })
}

/// `get_freepointer()`: the next free object after the free object `obj`.
pub(crate) fn get_freepointer(m: &Machine, obj: u64) -> u64 {
    let place = place_of(m, obj).expect("free objects lie in slabs");
    freepointer_at(m, &place, obj)
}

/// `get_freepointer()` for an object whose place is known.
#[inline]
#[doc(alias = "get_freepointer")]
pub(crate) fn freepointer_at(m: &Machine, place: &ObjectPlace, obj: u64) -> u64 {
    let slab = &m.slub().slabs[&place.pfn];
    let s = &m.slub().caches[slab.cache];
    s.freelist_ptr_decode(slab.words[place.index as usize], s.freeptr_addr(obj))
}

/// The index of object `addr` in the slab at `pfn` (`obj_to_index()`).
#[inline]
pub(crate) fn obj_to_index(m: &Machine, pfn: Pfn, addr: u64) -> u32 {
    let slab = &m.slub().slabs[&pfn];
    let delta = (addr - m.object_addr(pfn, slab.size, 0)) as u32;
    slab.reciprocal_size.divide(delta)
}

/// Hands the free object at the head of `c->freelist` (or of a freelist about to become it)
/// to the caller: `c->freelist` moves to the next free object (bumping the tid) and the object
/// is allocated. Returns the object.
#[inline(always)]
pub(crate) fn take_object(rec: &mut Recorder, cache: CacheId, cpu: CpuId, object: u64) -> u64 {
    let place = place_of(rec.machine(), object).expect("free objects lie in slabs");
    let next = freepointer_at(rec.machine(), &place, object);
    set_cpu_freelist(rec, cache, cpu, next);
    hand_out(rec, cache, cpu, place.pfn, object, place.index);
    object
}

/// Records that object `addr`, object `index` of the slab at `pfn`, went to a caller, or,
/// when a caller already holds it (only after a damaged freelist: `Damage::StaleCpuFreelist`),
/// that it was handed out twice.
#[inline(always)]
pub(crate) fn hand_out(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    pfn: Pfn,
    addr: u64,
    index: u32,
) {
    let held = rec
        .machine()
        .slub()
        .slabs
        .get(&pfn)
        .is_some_and(|s| s.allocated[index as usize]);
    if held {
        let damage = crate::machine::Damage::HandedOutTwice {
            cache,
            cpu,
            object: addr,
        };
        rec.emit(Event::DamageRecorded(Box::new(damage)));
        return;
    }
    rec.emit(Event::ObjectAllocated {
        cache,
        cpu,
        addr,
        pfn,
        index,
    });
}

/// Records that object `addr` of the slab at `pfn` went to a caller.
pub(crate) fn object_allocated(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    pfn: Pfn,
    addr: u64,
) {
    let index = obj_to_index(rec.machine(), pfn, addr);
    rec.emit(Event::ObjectAllocated {
        cache,
        cpu,
        addr,
        pfn,
        index,
    });
}

/// Records that a caller gave back object `addr`, object `index` of the slab at `pfn`.
#[inline]
pub(crate) fn object_freed(
    rec: &mut Recorder,
    cache: CacheId,
    cpu: CpuId,
    pfn: Pfn,
    addr: u64,
    index: u32,
) {
    rec.emit(Event::ObjectFreed {
        cache,
        cpu,
        addr,
        pfn,
        index,
    });
}

/// `set_freepointer()`.
pub(crate) fn set_freepointer(rec: &mut Recorder, obj: u64, next: u64) {
    let place = place_of(rec.machine(), obj).expect("free objects lie in slabs");
    rec.emit(Event::FreePointerSet {
        pfn: place.pfn,
        index: place.index,
        value: next,
    });
}

/// `set_freepointer()` of object `index` of the slab at `pfn`.
#[inline]
#[doc(alias = "set_freepointer")]
pub(crate) fn set_freepointer_at(rec: &mut Recorder, pfn: Pfn, index: u32, next: u64) {
    rec.emit(Event::FreePointerSet {
        pfn,
        index,
        value: next,
    });
}

/// Sets `c->freelist` and bumps `c->tid` (`next_tid()`).
#[inline]
pub(crate) fn set_cpu_freelist(rec: &mut Recorder, cache: CacheId, cpu: CpuId, freelist: u64) {
    let tid = rec.machine().slub().caches[cache].cpu[cpu].tid + TID_STEP;
    rec.emit(Event::CpuFreelistSet {
        cache,
        cpu,
        freelist,
        tid,
    });
}

/// Number of objects on a freelist starting at `head`.
pub fn freelist_len(m: &Machine, head: u64) -> u32 {
    let mut n = 0;
    let mut at = head;
    while at != 0 {
        n += 1;
        at = get_freepointer(m, at);
    }
    n
}

#[cfg(test)]
mod fidelity_tests;
#[cfg(test)]
mod sheaves_tests;
#[cfg(test)]
mod smp_tests;
#[cfg(test)]
mod tests;
