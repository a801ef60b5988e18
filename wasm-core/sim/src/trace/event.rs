//! Events: the recorded facts of a run, in past-tense kernel terms. Applying a step's events,
//! in order, to the state before the step yields the state after it (`Machine::apply`).

use crate::geometry::{CacheGeometry, SlabFlags};
use crate::ids::{CacheId, CpuId, NodeId};
use crate::kmalloc_caches::KmallocSlot;
use crate::machine::{Damage, Owner, Pfn};
use crate::rcu::event::RcuEvent;
use crate::slab::event::SlabEvent;
use crate::slub::sheaf::SheafEvent;
use serde::Serialize;

/// Head or tail of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    Head,
    Tail,
}

/// One recorded fact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event")]
pub enum Event {
    /// A free block left `free_area[order]` of its node (`del_page_from_free_list()`).
    FreeBlockRemoved { node: NodeId, pfn: Pfn, order: u8 },
    /// A free block joined `free_area[order]` (`add_to_free_list[_tail]()`).
    FreeBlockAdded {
        node: NodeId,
        pfn: Pfn,
        order: u8,
        end: End,
    },
    /// Two buddies became one block of `order + 1` at the lower pfn (`__free_one_page()`).
    BuddiesMerged {
        node: NodeId,
        pfn: Pfn,
        buddy: Pfn,
        order: u8,
    },
    /// A block was split in two halves of `order` (`expand()`); the upper half is `upper`.
    BlockSplit {
        node: NodeId,
        pfn: Pfn,
        upper: Pfn,
        order: u8,
    },
    /// A block joined a CPU's pcp list of a node's zone.
    PcpBlockAdded {
        cpu: CpuId,
        node: NodeId,
        pfn: Pfn,
        order: u8,
        end: End,
    },
    /// A block left a CPU's pcp list.
    PcpBlockRemoved {
        cpu: CpuId,
        node: NodeId,
        pfn: Pfn,
        order: u8,
    },
    /// `pcp->free_factor` changed (halved by an allocation, raised by a bulk free).
    PcpFreeFactorSet {
        cpu: CpuId,
        node: NodeId,
        free_factor: u32,
    },
    /// 6.7+: a CPU's page list retuned itself: `pcp->high`, `alloc_factor`, `free_count` and
    /// `PCPF_PREV_FREE_HIGH_ORDER`, as they are after the step.
    PcpTuned {
        cpu: CpuId,
        node: NodeId,
        high: u32,
        alloc_factor: u32,
        free_count: u32,
        prev_free_high_order: bool,
    },
    /// A block was handed to its owner.
    PagesAllocated { pfn: Pfn, order: u8, owner: Owner },
    /// An owner gave a block back; it is off every list until the next event places it.
    PagesReleased { pfn: Pfn, order: u8 },

    // --- SLUB ---------------------------------------------------------------------------
    /// A cache was created (`kmem_cache_create()`, `create_kmalloc_caches()`).
    CacheCreated(Box<NewCache>),
    /// A new cache was merged into an existing one (`__kmem_cache_alias()`).
    CacheAliased { id: CacheId, alias: String },
    /// A merged name let go of its cache (`kmem_cache_destroy()` with references left).
    CacheUnaliased { id: CacheId, alias: String },
    /// `kmem_cache_destroy()` finished.
    CacheDestroyed { id: CacheId },
    /// A slab was set up on freshly allocated pages (`allocate_slab()`): all its objects free,
    /// linked in the order of `freelist` (object indices; its length is `slab->objects`). Its
    /// node is the node of `pfn`.
    SlabCreated {
        cache: CacheId,
        pfn: Pfn,
        order: u8,
        freelist: Box<[u32]>,
    },
    /// `inc_slabs_node()`.
    SlabCounted {
        cache: CacheId,
        node: NodeId,
        objects: u32,
    },
    /// `dec_slabs_node()`.
    SlabUncounted {
        cache: CacheId,
        node: NodeId,
        objects: u32,
    },
    /// The machine's random generator gave `draws` 32-bit numbers (`get_random_u32()`).
    RandomDrawn { draws: u32 },
    /// `random_kmalloc_seed` was set at the end of `create_kmalloc_caches()`
    /// (`CONFIG_RANDOM_KMALLOC_CACHES`).
    RandomKmallocSeedSet { seed: u64 },
    /// The slab's `freelist` and counters changed together (`slab_update_freelist()`,
    /// `acquire_slab()`, `get_freelist()`).
    SlabStateSet {
        pfn: Pfn,
        freelist: u64,
        inuse: u32,
        frozen: bool,
    },
    /// `set_freepointer()`: the word at `s->offset` of object `index` now holds `value`.
    FreePointerSet { pfn: Pfn, index: u32, value: u64 },
    /// `c->freelist` and `c->tid` changed.
    CpuFreelistSet {
        cache: CacheId,
        cpu: CpuId,
        freelist: u64,
        tid: u64,
    },
    /// `c->slab` changed.
    CpuSlabSet {
        cache: CacheId,
        cpu: CpuId,
        slab: Option<Pfn>,
    },
    /// `c->partial` changed.
    CpuPartialSet {
        cache: CacheId,
        cpu: CpuId,
        top: Option<Pfn>,
    },
    /// Interleaved runs only: a task on `cpu` holds the slab between two micro-steps, with
    /// the first `count` objects of the freelist `freelist` taken off it or its CPU (0:
    /// none); `cpu` `None`: no longer.
    SlabHeld {
        pfn: Pfn,
        cpu: Option<CpuId>,
        freelist: u64,
        /// Objects on that freelist (its tail may be linked on, ahead of a cmpxchg).
        count: u32,
    },
    /// A slab's per-CPU partial stack link (`slab->next`, `slab->slabs`).
    SlabPartialLinked {
        pfn: Pfn,
        next: Option<Pfn>,
        slabs: u32,
    },
    /// `add_partial()`.
    NodePartialAdded {
        cache: CacheId,
        node: NodeId,
        pfn: Pfn,
        end: End,
    },
    /// `remove_partial()`.
    NodePartialRemoved {
        cache: CacheId,
        node: NodeId,
        pfn: Pfn,
    },
    /// `add_full()` (debug caches with `SLAB_STORE_USER`).
    NodeFullAdded {
        cache: CacheId,
        node: NodeId,
        pfn: Pfn,
    },
    /// `remove_full()`.
    NodeFullRemoved {
        cache: CacheId,
        node: NodeId,
        pfn: Pfn,
    },
    /// The slab is gone from its cache (`discard_slab()` → `free_slab()`). Its pages are
    /// ordinary pages again (`__free_slab()`: `__folio_clear_slab()`), freed next; or, for a
    /// `SLAB_TYPESAFE_BY_RCU` cache, they wait for a grace period (`RcuEvent::CallbackQueued`).
    SlabDiscarded { cache: CacheId, pfn: Pfn },
    /// `build_detached_freelist()` gathered `objects` (head first) of one slab from the array
    /// of a bulk free, scanning `scanned` entries with `lookahead_left` misses to spare; the
    /// array after its swaps is `array`, of which entries from `done_from` on are finished.
    DetachedFreelistBuilt(Box<DetachedFreelist>),
    /// `slab_free_freelist_hook()` relinked a detached freelist of two or more objects by
    /// pushing each onto a new list: `objects` (head first) is the reversed list
    /// `do_slab_free()` frees next; the other fields are those of its `DetachedFreelistBuilt`.
    DetachedFreelistReversed(Box<DetachedFreelist>),
    /// An object went to a caller.
    /// It is object `index` of the slab at `pfn`.
    ObjectAllocated {
        cache: CacheId,
        cpu: CpuId,
        addr: u64,
        pfn: Pfn,
        index: u32,
    },
    /// A caller gave an object back.
    ObjectFreed {
        cache: CacheId,
        cpu: CpuId,
        addr: u64,
        pfn: Pfn,
        index: u32,
    },

    // --- both allocators --------------------------------------------------------------
    /// `spin_lock(&n->list_lock)` of cache `cache` on node `node`.
    ListLockTaken { cache: CacheId, node: NodeId },
    /// An unchecked bad operation damaged the kernel's structures (see `machine::damage`).
    DamageRecorded(Box<Damage>),

    // --- SLAB -----------------------------------------------------------------------------
    /// A SLAB fact (mm/slab.c).
    Slab(SlabEvent),

    // --- SLUB's sheaves (6.18+) ----------------------------------------------------------
    /// A fact about per-CPU sheaves or a barn (`slub::sheaf`).
    Sheaf(SheafEvent),

    // --- RCU ------------------------------------------------------------------------------
    /// An RCU fact (kernel/rcu/tree.c): callbacks, grace periods, `kfree_rcu()`.
    Rcu(RcuEvent),
}

/// What `CacheCreated` records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NewCache {
    pub id: CacheId,
    pub name: String,
    pub geometry: CacheGeometry,
    pub flags: SlabFlags,
    pub ctor: bool,
    /// Its place in `kmalloc_caches[type][index]`, for a kmalloc cache.
    pub kmalloc: Option<KmallocSlot>,
    /// `s->usersize` and `s->useroffset` (`CONFIG_HARDENED_USERCOPY`).
    pub usersize: u32,
    pub useroffset: u32,
    /// `CONFIG_SLAB_FREELIST_HARDENED` and `s->random`.
    pub hardened: bool,
    pub random: u64,
    /// `s->random_seq` (object indices) with `CONFIG_SLAB_FREELIST_RANDOM`.
    pub random_seq: Option<Vec<u32>>,
}

/// Where `do_slab_free()` puts a detached freelist (mm/slub.c, v6.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Splice {
    /// The slab is the calling CPU's `c->slab`: the fast path, one cmpxchg of `c->freelist`
    /// with `c->tid` (`__update_cpu_freelist_fast()`).
    CpuFreelist,
    /// Any other slab: `__slab_free()`, one cmpxchg of `slab->freelist` with the slab's counters
    /// (`slab_update_freelist()`).
    SlabFreelist,
    /// A debug cache: `free_to_partial_list()` under `n->list_lock`, no cmpxchg.
    ListLock,
}

/// What `DetachedFreelistBuilt` records (see there).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DetachedFreelist {
    pub cache: CacheId,
    pub slab: Pfn,
    /// The CPU running the bulk free, and where its `do_slab_free()` puts the list.
    pub cpu: CpuId,
    pub splice: Splice,
    pub objects: Vec<u64>,
    pub scanned: u32,
    pub lookahead_left: u32,
    pub array: Vec<u64>,
    pub done_from: u32,
}

impl Event {
    /// Whether the event owns heap memory (so dropping it frees something). Exhaustive, so a
    /// new variant must say.
    #[inline(always)]
    pub(crate) fn owns_heap(&self) -> bool {
        match self {
            Event::CacheCreated(_)
            | Event::CacheAliased { .. }
            | Event::CacheUnaliased { .. }
            | Event::SlabCreated { .. }
            | Event::DetachedFreelistBuilt(_)
            | Event::DetachedFreelistReversed(_)
            | Event::DamageRecorded(_) => true,
            Event::Sheaf(e) => matches!(
                e,
                SheafEvent::Pushed { .. } | SheafEvent::Removed { .. } | SheafEvent::Stacked { .. }
            ),
            Event::FreeBlockRemoved { .. }
            | Event::FreeBlockAdded { .. }
            | Event::BuddiesMerged { .. }
            | Event::BlockSplit { .. }
            | Event::PcpBlockAdded { .. }
            | Event::PcpBlockRemoved { .. }
            | Event::PcpFreeFactorSet { .. }
            | Event::PcpTuned { .. }
            | Event::PagesAllocated { .. }
            | Event::PagesReleased { .. }
            | Event::CacheDestroyed { .. }
            | Event::SlabCounted { .. }
            | Event::SlabUncounted { .. }
            | Event::RandomDrawn { .. }
            | Event::RandomKmallocSeedSet { .. }
            | Event::SlabStateSet { .. }
            | Event::FreePointerSet { .. }
            | Event::CpuFreelistSet { .. }
            | Event::CpuSlabSet { .. }
            | Event::CpuPartialSet { .. }
            | Event::SlabPartialLinked { .. }
            | Event::SlabHeld { .. }
            | Event::NodePartialAdded { .. }
            | Event::NodePartialRemoved { .. }
            | Event::NodeFullAdded { .. }
            | Event::NodeFullRemoved { .. }
            | Event::SlabDiscarded { .. }
            | Event::ObjectAllocated { .. }
            | Event::ObjectFreed { .. }
            | Event::ListLockTaken { .. }
            | Event::Rcu(_) => false,
            Event::Slab(e) => matches!(
                e,
                SlabEvent::CacheCreated(_)
                    | SlabEvent::CacheAliased(_)
                    | SlabEvent::CacheUnaliased(_)
                    | SlabEvent::SlabCreated(_)
            ),
        }
    }
}
