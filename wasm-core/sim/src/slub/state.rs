//! SLUB's structures as the simulator keeps them (spec 2.1): `struct kmem_cache` with its
//! per-CPU `kmem_cache_cpu` and per-node `kmem_cache_node`, and `struct slab`.
//!
//! Objects are addresses in the direct map (`DIRECT_MAP_BASE + pfn * PAGE_SIZE + i * size`),
//! as on x86_64, so a kernel engineer reads them as they would in a crash dump. NULL is 0.

use super::sheaf::{NodeBarn, PercpuSheaves, SheafTable};
use crate::geometry::{CacheGeometry, SlabFlags};
use crate::ids::{CacheId, CpuId, NodeId, SheafId, TiVec};
use crate::kmalloc_caches::KmallocSlot;
use crate::machine::{Pfn, SlabTable};
use serde::Serialize;

/// `TID_STEP` on a preemptible kernel is `roundup_pow_of_two(CONFIG_NR_CPUS)`; the simulator's
/// CONFIG_NR_CPUS is its 64-CPU limit.
pub const TID_STEP: u64 = 64;

/// SLUB's part of the machine when the kernel is built with `CONFIG_SLUB`: every cache and
/// every slab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlubState {
    /// `slab_caches`, oldest first (slabinfo prints newest first).
    pub caches: TiVec<CacheId, KmemCache>,
    /// Every slab, by its first page.
    pub slabs: SlabTable,
    /// Slabs a task holds between two micro-steps of an interleaved run (off every list and
    /// CPU: just frozen for the task, being unfrozen, or about to be discarded); always empty
    /// between the steps of a sequential run.
    pub held: Vec<HeldSlab>,
    /// Every sheaf (6.18+), by id.
    pub sheaves: SheafTable,
    /// Sheaves on no CPU and in no barn: one an operation is filling or flushing outside the
    /// lock. Empty between the steps of a sequential run except for such a sheaf.
    pub held_sheaves: Vec<SheafId>,
    /// Objects an operation holds in an array of its own, off every sheaf and freelist
    /// (`SheafEvent::Stacked`).
    pub stacked: Vec<u64>,
    /// Slabs refills took off their node list (7.x), once per refill holding one.
    pub isolated: Vec<Pfn>,
}

/// A slab in a task's hands (`SlubState::held`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeldSlab {
    pub pfn: Pfn,
    /// The CPU the holding task runs on.
    pub cpu: CpuId,
    /// The freelist the task took from the slab or its CPU and holds (0: none), and how many
    /// objects of it are the task's (its tail may already be linked to the slab's freelist).
    pub freelist: u64,
    pub count: u32,
}

/// `struct kmem_cache`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KmemCache {
    pub id: CacheId,
    pub name: String,
    /// Layout and limits fixed at creation (`calculate_sizes()` and friends).
    pub geometry: CacheGeometry,
    /// `s->reciprocal_size`: divides by `geometry.size` without a division (`obj_to_index()`).
    pub reciprocal_size: ReciprocalValue,
    /// Creation flags (with the `slub_debug` ones added).
    pub flags: SlabFlags,
    /// Whether the cache has a constructor.
    pub ctor: bool,
    /// Its place in `kmalloc_caches[type][index]`, for a kmalloc cache.
    pub kmalloc: Option<KmallocSlot>,
    /// `s->usersize` and `s->useroffset`: the region `CONFIG_HARDENED_USERCOPY` lets
    /// `copy_to_user()`/`copy_from_user()` touch (`kmem_cache_create_usercopy()`; a kmalloc
    /// cache's is the whole object).
    pub usersize: u32,
    pub useroffset: u32,
    /// `CONFIG_SLAB_FREELIST_HARDENED`: stored free pointers are encoded.
    pub hardened: bool,
    /// `s->random`: the hardening key (0 without hardening).
    pub random: u64,
    /// `s->random_seq` as object indices (`CONFIG_SLAB_FREELIST_RANDOM`), or `None`.
    pub random_seq: Option<Vec<u32>>,
    /// `s->remote_node_defrag_ratio` (sysfs shows a tenth of it): how often, out of 1024, an
    /// allocation with no local partial slab may take one from another node.
    pub remote_node_defrag_ratio: u32,
    /// Names of caches merged into this one (sysfs `aliases`).
    pub aliases: Vec<String>,
    /// `kmem_cache_destroy()` has run.
    pub destroyed: bool,
    /// Index: CPU.
    pub cpu: TiVec<CpuId, KmemCacheCpu>,
    /// Index: node.
    pub node: TiVec<NodeId, KmemCacheNode>,
    /// `s->cpu_sheaves` (6.18+), index: CPU; empty for a cache without sheaves.
    #[serde(skip_serializing_if = "TiVec::is_empty")]
    pub pcs: TiVec<CpuId, PercpuSheaves>,
}

/// `struct kmem_cache_cpu`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KmemCacheCpu {
    /// First free object of the cpu slab that this CPU may take without a lock (0 = NULL).
    pub freelist: u64,
    /// Transaction id, bumped with every change of `freelist` or `slab`.
    pub tid: u64,
    /// The cpu slab (frozen).
    pub slab: Option<Pfn>,
    /// Top of the per-CPU partial stack (frozen slabs linked through `Slab::next`).
    pub partial: Option<Pfn>,
}

/// `struct kmem_cache_node` (SLUB part).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KmemCacheNode {
    /// `n->partial`, head first; its length is `nr_partial`.
    pub partial: Vec<Pfn>,
    /// `n->full`: full slabs of a debug cache with `SLAB_STORE_USER` (`add_full()`).
    pub full: Vec<Pfn>,
    /// `nr_slabs`: every slab of the cache on this node, wherever it is.
    pub nr_slabs: u64,
    /// `total_objects`: sum of `slab->objects` of those slabs.
    pub total_objects: u64,
    /// The node's barn (6.18: `n->barn`; 7.x: `s->per_node[node].barn`), for a cache with
    /// sheaves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub barn: Option<NodeBarn>,
}

/// `struct slab` (SLUB's view of the first page).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Slab {
    pub cache: CacheId,
    pub order: u8,
    pub node: NodeId,
    /// `objects`.
    pub objects: u32,
    /// The cache's slot size and its reciprocal, copied here so that finding an object's
    /// index reads only the slab (the kernel reads them from `struct kmem_cache`).
    pub size: u32,
    pub reciprocal_size: ReciprocalValue,
    /// `inuse`.
    pub inuse: u32,
    /// `frozen`.
    pub frozen: bool,
    /// `slab->freelist`: first free object owned by the slab (0 = NULL).
    pub freelist: u64,
    /// Next slab on a per-CPU partial stack.
    pub next: Option<Pfn>,
    /// On a per-CPU partial stack: slabs from this one to the bottom.
    pub slabs: u32,
    /// The word at `s->offset` in each object slot: the stored free pointer of a free object.
    pub words: Vec<u64>,
    /// Which slots a caller holds (allocated and not yet freed). The kernel keeps no such
    /// record; the simulator needs it to name bad frees and to draw the slab.
    pub allocated: Vec<bool>,
}

/// A slab's scalar fields, copied out (reading them without cloning the slot vectors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlabFields {
    pub cache: CacheId,
    pub order: u8,
    pub node: NodeId,
    pub objects: u32,
    pub inuse: u32,
    pub frozen: bool,
    pub freelist: u64,
    pub next: Option<Pfn>,
    pub slabs: u32,
}

impl Slab {
    /// The scalar fields.
    pub fn fields(&self) -> SlabFields {
        SlabFields {
            cache: self.cache,
            order: self.order,
            node: self.node,
            objects: self.objects,
            inuse: self.inuse,
            frozen: self.frozen,
            freelist: self.freelist,
            next: self.next,
            slabs: self.slabs,
        }
    }

    /// Heap bytes held beyond `size_of::<Slab>()`.
    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * 8 + self.allocated.capacity()
    }
}

impl KmemCache {
    /// `kmem_cache_debug()`: any of the `slub_debug` flags, which route every allocation and
    /// free through the node's `list_lock` one object at a time.
    pub fn debug(&self) -> bool {
        self.geometry.debug
    }

    /// `kmem_cache_has_cpu_partial()`: not for a debug cache, nor from 7.0 (no such list; its
    /// geometry then has `cpu_partial` 0, as for a debug cache).
    pub fn has_cpu_partial(&self) -> bool {
        !self.geometry.debug && self.geometry.cpu_partial > 0
    }

    /// `s->sheaf_capacity`: objects per sheaf, 0 without sheaves (`cache_has_sheaves()`).
    pub fn sheaf_capacity(&self) -> u32 {
        self.geometry.sheaf_capacity.unwrap_or(0)
    }
}

/// `struct reciprocal_value` (lib/reciprocal_div.c): `a / d` as a multiply and two shifts, exact
/// for every 32-bit `a`. SLUB keeps one per cache to turn an object's offset into its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ReciprocalValue {
    pub m: u32,
    pub sh1: u8,
    pub sh2: u8,
}

impl ReciprocalValue {
    /// `reciprocal_value(d)`, `d >= 1`.
    pub fn new(d: u32) -> Self {
        let l = 32 - (d - 1).leading_zeros(); // fls(d - 1)
        let m = ((1u64 << 32) * ((1u64 << l) - u64::from(d))) / u64::from(d) + 1;
        ReciprocalValue {
            m: m as u32,
            sh1: l.min(1) as u8,
            sh2: l.saturating_sub(1) as u8,
        }
    }

    /// `reciprocal_divide(a, R)`.
    pub fn divide(self, a: u32) -> u32 {
        let t = ((u64::from(a) * u64::from(self.m)) >> 32) as u32;
        (t + ((a - t) >> self.sh1)) >> self.sh2
    }
}
