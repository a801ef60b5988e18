//! SLAB's events (wrapped in `Event::Slab`). Like every event they are past-tense facts;
//! `Machine::apply_slab` is the only code that applies them.

use super::state::{AcRef, SlabList};
use crate::geometry::slab::SlabCacheGeometry;
use crate::geometry::SlabFlags;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::kmalloc_caches::KmallocSlot;
use crate::machine::Pfn;
use crate::trace::End;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "slab_event")]
pub enum SlabEvent {
    /// A cache was created (`__kmem_cache_create()` + `setup_cpu_cache()`): its arrays and
    /// node structures are set up empty.
    CacheCreated(Box<SlabNewCache>),
    /// A new name was merged into cache `id` (`__kmem_cache_alias()`); `object_size` is the
    /// widened object size.
    CacheAliased(Box<(CacheId, String, u32)>),
    /// A merged name let go of cache `id`.
    CacheUnaliased(Box<(CacheId, String)>),
    /// `kmem_cache_destroy()` finished.
    CacheDestroyed { id: CacheId },
    /// `cache_grow_begin()` set up a slab on fresh pages: not on a list, not counted.
    SlabCreated(Box<SlabNew>),
    /// `n->colour_next` changed.
    ColourNext {
        cache: CacheId,
        node: NodeId,
        colour: u32,
    },
    /// `slab_get_obj()`: the slab handed out `freelist[active]`; `active` grew by one.
    ObjGot { pfn: Pfn },
    /// `slab_put_obj()`: object `index` came back; `active` shrank by one and
    /// `freelist[active] = index` (a full OBJFREELIST slab stores its array in that object).
    ObjPut { pfn: Pfn, index: u32 },
    /// `slab->freelist` now points at `addr` (0: the OBJFREELIST array went out with the
    /// last object, `fixup_slab_list()`).
    FreelistAt { pfn: Pfn, addr: u64 },
    /// `list_add()`/`list_add_tail()` of the slab on one of its node's lists.
    SlabListed {
        cache: CacheId,
        pfn: Pfn,
        list: SlabList,
        end: End,
    },
    /// `list_del()` of the slab from whatever list holds it.
    SlabUnlisted { cache: CacheId, pfn: Pfn },
    /// The node's counters moved by these amounts.
    NodeCounts {
        cache: CacheId,
        node: NodeId,
        total_slabs: i32,
        free_slabs: i32,
        free_objects: i32,
    },
    /// `n->free_touched` set or cleared.
    FreeTouched {
        cache: CacheId,
        node: NodeId,
        touched: bool,
    },
    /// `n->next_reap` set.
    NextReap {
        cache: CacheId,
        node: NodeId,
        at: u64,
    },
    /// An object pointer went on top of an array.
    AcPushed {
        cache: CacheId,
        ac: AcRef,
        addr: u64,
    },
    /// The top pointer of an array was taken.
    AcPopped { cache: CacheId, ac: AcRef },
    /// `count` pointers moved from `from` to the top of `to`, keeping their order: the
    /// oldest ones (bottom of `from`) or the newest (its top).
    AcMoved {
        cache: CacheId,
        from: AcRef,
        to: AcRef,
        count: u32,
        oldest: bool,
    },
    /// The `count` oldest pointers left an array (given to `free_block()`); the rest moved
    /// down.
    AcDropped {
        cache: CacheId,
        ac: AcRef,
        count: u32,
    },
    /// `ac->touched` set or cleared.
    AcTouched {
        cache: CacheId,
        ac: AcRef,
        touched: bool,
    },
    /// An object went to a caller.
    ObjectAllocated {
        cache: CacheId,
        cpu: CpuId,
        pfn: Pfn,
        index: u32,
    },
    /// A caller gave an object back.
    ObjectFreed {
        cache: CacheId,
        cpu: CpuId,
        pfn: Pfn,
        index: u32,
    },
    /// `slab_destroy()`: the slab is gone; its pages are freed next, or, for a
    /// `SLAB_TYPESAFE_BY_RCU` cache, wait for a grace period (`RcuEvent::CallbackQueued`).
    SlabDestroyed { cache: CacheId, pfn: Pfn },
    /// `spin_lock(&alien->lock)` of node `node`'s alien cache for node `remote`.
    AlienLockTaken {
        cache: CacheId,
        node: NodeId,
        remote: NodeId,
    },
    /// `jiffies` moved on (a `cache_reap` operation: the timer's 2 s passed).
    Jiffies { now: u64 },
    /// A CPU's `slab_reap_node` moved on (`next_reap_node()`).
    ReapNode { cpu: CpuId, node: NodeId },
}

/// What `SlabEvent::CacheCreated` records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlabNewCache {
    pub id: CacheId,
    pub name: String,
    pub geometry: SlabCacheGeometry,
    pub flags: SlabFlags,
    pub ctor: bool,
    /// Its place in `kmalloc_caches[type][index]`, for a kmalloc cache.
    pub kmalloc: Option<KmallocSlot>,
    /// `cachep->usersize` and `cachep->useroffset`.
    pub usersize: u32,
    pub useroffset: u32,
    pub hardened: bool,
    pub random_seq: Option<Vec<u32>>,
    pub freelist_cache: Option<CacheId>,
    /// `n->next_reap` of every node.
    pub next_reap: u64,
}

/// What `SlabEvent::SlabCreated` records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlabNew {
    pub cache: CacheId,
    pub pfn: Pfn,
    pub order: u8,
    pub colour_off: u32,
    /// The index array as `cache_init_objs()` left it.
    pub freelist: Vec<u32>,
    /// `slab->freelist`: where the array is stored.
    pub freelist_addr: u64,
}

impl SlabEvent {
    /// Heap bytes the event holds beyond its own size.
    pub fn heap_bytes(&self) -> usize {
        match self {
            SlabEvent::CacheCreated(new) => {
                std::mem::size_of::<SlabNewCache>()
                    + new.name.capacity()
                    + new.random_seq.as_ref().map_or(0, |s| s.capacity() * 4)
            }
            SlabEvent::CacheAliased(a) => std::mem::size_of_val(&**a) + a.1.capacity(),
            SlabEvent::CacheUnaliased(a) => std::mem::size_of_val(&**a) + a.1.capacity(),
            SlabEvent::SlabCreated(new) => {
                std::mem::size_of::<SlabNew>() + new.freelist.capacity() * 4
            }
            _ => 0,
        }
    }
}
