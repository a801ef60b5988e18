//! SLAB (mm/slab.c, v6.6; spec section 3), the allocator SLUB replaced, over the same
//! simulated page allocator. A scenario picks it with `allocator slab`.
//!
//! Rules:
//! - As everywhere in the simulator, these functions read the machine and record what the
//!   kernel function they are named after does, as events (`SlabEvent`); the recorder applies
//!   them.
//! - Only one CPU runs at a time and interrupts never arrive, so the kernel's "objects
//!   refilled by interrupt?" rechecks always find what this CPU left.
//! - Every `spin_lock(&n->list_lock)` is an event (`Event::ListLockTaken`), so a run counts
//!   lock acquisitions per node. An alien cache's own lock is an event of its own
//!   (`SlabEvent::AlienLockTaken`), not part of that count.
//! - Modelled: per-CPU arrays, the per-node shared array, alien caches on NUMA machines, the
//!   three slab lists with their counters, colouring, the OBJFREELIST/OFF_SLAB/on-slab index
//!   array, freelist randomisation, `cache_alloc_refill()` (6.6, and the pre-4.7 refill under
//!   a switch), `____cache_alloc_node()`, `fallback_alloc()`, `cache_flusharray()`,
//!   `free_block()`, `__drain_alien_cache()`, `cache_reap()` as an explicit operation,
//!   `kmem_cache_shrink()`, `kmem_cache_destroy()`, kmalloc caches and large kmalloc, bulk
//!   allocation and free, frees to the wrong cache that `cache_from_obj()` does not check (the
//!   pointer joins the named cache's array; its `free_block()` is where the simulator stops
//!   following the kernel, see `free.rs`), and the RCU delay of `SLAB_TYPESAFE_BY_RCU` slab
//!   freeing (`crate::rcu`). Not modelled: `DEBUG_SLAB` (red zones, poisoning and the statistics
//!   columns), pfmemalloc slabs, memory policies and cpusets (`alternate_node_alloc()`), CPU
//!   hotplug.

mod alloc;
mod apply;
pub mod check;
mod create;
pub mod event;
mod free;
mod ops;
mod reap;
pub mod state;

pub use alloc::{__do_kmalloc_node, kmalloc, kmem_cache_alloc_bulk, slab_alloc_node};
pub use create::{create_kmalloc_caches, kmem_cache_create, kmem_cache_create_usercopy};
pub use free::{kfree, kmem_cache_free_bulk};
pub use ops::Slab;
pub use reap::{cache_reap, kmem_cache_destroy, kmem_cache_shrink};

use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::DIRECT_MAP_BASE;
use crate::machine::{FrameState, Machine, Pfn};
use crate::trace::{Event, Recorder};
use event::SlabEvent;
use state::AcRef;

/// Where an address lies in a SLAB slab.
pub(crate) struct ObjectPlace {
    pub pfn: Pfn,
    pub index: u32,
    /// Byte offset inside the object's slot.
    pub offset: u32,
}

/// `virt_to_slab()` plus `obj_to_index()`: `None` when `addr` is not inside an object slot of
/// a slab (outside slabs, in the colour area, or in the tail with the index array).
#[doc(alias = "virt_to_slab")]
pub(crate) fn place_of(m: &Machine, addr: u64) -> Option<ObjectPlace> {
    let pfn = m.addr_pfn(addr)?;
    let head = match m.frame(pfn)?.state {
        FrameState::Tail { head } => head,
        _ => pfn,
    };
    let slab = m.slab().slabs.get(&head)?;
    let size = u64::from(m.slab().caches[slab.cache].geometry.size);
    let s_mem = m.object_addr(head, 1, 0) + u64::from(slab.colour_off);
    let delta = addr.checked_sub(s_mem)?;
    let index = delta / size;
    if index >= slab.allocated.len() as u64 {
        return None;
    }
    Some(ObjectPlace {
        pfn: head,
        index: index as u32,
        offset: (delta % size) as u32,
    })
}

impl Machine {
    /// The address of object `index` of the SLAB slab at `pfn` (`index_to_obj()`).
    pub fn slab_obj_addr(&self, pfn: Pfn, index: u32) -> u64 {
        let slab = &self.slab().slabs[&pfn];
        let size = self.slab().caches[slab.cache].geometry.size;
        DIRECT_MAP_BASE
            + (u64::from(pfn) << self.page.page_shift)
            + u64::from(slab.colour_off)
            + u64::from(index) * u64::from(size)
    }
}

/// `spin_lock(&n->list_lock)`.
pub(crate) fn lock(rec: &mut Recorder, cache: CacheId, node: NodeId) {
    rec.emit(Event::ListLockTaken { cache, node });
}

/// `spin_lock(&alien->lock)` of node `node`'s alien cache for objects of `remote`.
pub(crate) fn lock_alien(rec: &mut Recorder, cache: CacheId, node: NodeId, remote: NodeId) {
    emit(
        rec,
        SlabEvent::AlienLockTaken {
            cache,
            node,
            remote,
        },
    );
}

/// Records a SLAB event.
pub(crate) fn emit(rec: &mut Recorder, e: SlabEvent) {
    rec.emit(Event::Slab(e));
}

/// The per-CPU array of `cpu`.
pub(crate) fn cpu_ac(cpu: CpuId) -> AcRef {
    AcRef::Cpu { cpu }
}

/// The shared array of `node`.
pub(crate) fn shared_ac(node: NodeId) -> AcRef {
    AcRef::Shared { node }
}

/// Node `node`'s alien cache for objects of `remote`.
pub(crate) fn alien_ac(node: NodeId, remote: NodeId) -> AcRef {
    AcRef::Alien { node, remote }
}

/// The pointers an array holds (oldest first).
pub(crate) fn ac_entries(m: &Machine, cache: CacheId, ac: AcRef) -> Vec<u64> {
    m.slab().caches[cache]
        .ac(ac)
        .map(|a| a.entry.clone())
        .unwrap_or_default()
}

#[cfg(test)]
mod fidelity_tests;
#[cfg(test)]
mod tests;
