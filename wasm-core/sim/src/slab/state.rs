//! SLAB's structures as the simulator keeps them (mm/slab.c and include/linux/slab_def.h,
//! v6.6; spec 3.1): `struct kmem_cache` with its per-CPU `array_cache`, the per-node
//! `kmem_cache_node` (three slab lists, the shared array, alien caches), and SLAB's view of
//! `struct slab` (the index array, `active`, `s_mem`).
//!
//! Objects are direct-map addresses, as under SLUB (`crate::machine::DIRECT_MAP_BASE`);
//! object `i` of a slab is at `s_mem + i * size`, where `s_mem` is the slab's first byte plus
//! its colour offset.

use crate::geometry::slab::SlabCacheGeometry;
use crate::geometry::SlabFlags;
use crate::ids::{CacheId, CpuId, NodeId, TiVec};
use crate::kmalloc_caches::{KmallocCaches, KmallocSlot};
use crate::machine::Pfn;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// `REAPTIMEOUT_AC`: each CPU's `cache_reap()` runs every 2 s (`2 * HZ`).
pub const REAPTIMEOUT_AC: u64 = 2 * HZ;
/// `REAPTIMEOUT_NODE`: the node part of `cache_reap()` runs at most every 4 s.
pub const REAPTIMEOUT_NODE: u64 = 4 * HZ;
/// `CONFIG_HZ` of the profile (a distro x86_64 kernel: 250).
pub const HZ: u64 = 250;
/// `BATCHREFILL_LIMIT`: a cold (untouched) array refills at most this many objects.
pub const BATCHREFILL_LIMIT: u32 = 16;

/// Everything SLAB keeps, beside the page allocator: the machine's allocator state when the
/// kernel is built with `CONFIG_SLAB`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SlabState {
    /// `slab_caches`, oldest first (slabinfo prints newest first).
    pub caches: TiVec<CacheId, KmemCache>,
    /// `kmalloc_caches[type][index]`: the cache id of each kmalloc cache.
    pub kmalloc_caches: KmallocCaches,
    /// Every slab by its first page.
    pub slabs: BTreeMap<Pfn, Slab>,
    /// `jiffies`: advanced only by `cache_reap` operations (the 2 s timer is not simulated).
    pub jiffies: u64,
    /// Per CPU, `slab_reap_node`: whose alien cache the next `cache_reap()` drains.
    pub reap_node: TiVec<CpuId, NodeId>,
    /// The behaviour before "mm/slab: refill cpu cache through a new slab without holding a
    /// node lock" (Linux 4.7): a refill that grows the cache links the new slab first and then
    /// goes back to take objects from the node lists under `list_lock`.
    pub legacy_refill: bool,
}

/// `struct kmem_cache` under SLAB.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KmemCache {
    pub id: CacheId,
    pub name: String,
    /// Layout and tunables fixed at creation.
    pub geometry: SlabCacheGeometry,
    /// `object_size`; merging widens it (`__kmem_cache_alias()`).
    pub object_size: u32,
    pub flags: SlabFlags,
    pub ctor: bool,
    /// Its place in `kmalloc_caches[type][index]`, for a kmalloc cache.
    pub kmalloc: Option<KmallocSlot>,
    /// `cachep->usersize` and `cachep->useroffset` (`CONFIG_HARDENED_USERCOPY`).
    pub usersize: u32,
    pub useroffset: u32,
    /// `CONFIG_SLAB_FREELIST_HARDENED`: `__free_one()` refuses an object equal to the top of
    /// the array.
    pub hardened: bool,
    /// `cachep->random_seq` (`CONFIG_SLAB_FREELIST_RANDOM`), object indices.
    pub random_seq: Option<Vec<u32>>,
    /// `cachep->freelist_cache`: the kmalloc cache that holds OFF_SLAB index arrays.
    pub freelist_cache: Option<CacheId>,
    /// Names merged into this cache.
    pub aliases: Vec<String>,
    /// `kmem_cache_destroy()` has run.
    pub destroyed: bool,
    /// `cpu_cache`, index: CPU.
    pub cpu: TiVec<CpuId, ArrayCache>,
    /// `node[]`, index: node.
    pub node: TiVec<NodeId, KmemCacheNode>,
}

/// `struct array_cache`: a stack of free object pointers; `entry.len()` is `avail`, the last
/// entry is the hottest.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ArrayCache {
    pub limit: u32,
    pub batchcount: u32,
    pub touched: bool,
    pub entry: Vec<u64>,
}

impl ArrayCache {
    pub fn new(limit: u32, batchcount: u32) -> Self {
        ArrayCache {
            limit,
            batchcount,
            touched: false,
            entry: Vec::with_capacity(limit as usize),
        }
    }

    /// `avail`.
    pub fn avail(&self) -> u32 {
        self.entry.len() as u32
    }
}

/// Which slab list a slab is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlabList {
    Partial,
    Full,
    Free,
}

/// `struct kmem_cache_node`, SLAB part.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KmemCacheNode {
    /// Head first.
    pub slabs_partial: VecDeque<Pfn>,
    pub slabs_full: VecDeque<Pfn>,
    pub slabs_free: VecDeque<Pfn>,
    pub total_slabs: u64,
    pub free_slabs: u64,
    /// Free objects in slabs on the three lists (objects parked in arrays are not counted).
    pub free_objects: u64,
    pub free_limit: u32,
    pub colour_next: u32,
    /// The per-node shared array (none when `shared` is 0).
    pub shared: Option<ArrayCache>,
    /// `alien[remote]`: objects of node `remote` freed on this node (NUMA only).
    pub alien: TiVec<NodeId, Option<ArrayCache>>,
    pub next_reap: u64,
    pub free_touched: bool,
}

impl KmemCacheNode {
    pub fn list_mut(&mut self, which: SlabList) -> &mut VecDeque<Pfn> {
        match which {
            SlabList::Partial => &mut self.slabs_partial,
            SlabList::Full => &mut self.slabs_full,
            SlabList::Free => &mut self.slabs_free,
        }
    }
}

/// `struct slab` as SLAB uses it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Slab {
    pub cache: CacheId,
    pub order: u8,
    pub node: NodeId,
    /// Colour offset in bytes: `s_mem` is the slab's address plus this.
    pub colour_off: u32,
    /// `active`: objects handed out of the slab (to callers or to arrays).
    pub active: u32,
    /// The index array (`freelist_idx_t[num]`): entries from `active` on are the free
    /// objects, next to hand out first.
    pub freelist: Vec<u32>,
    /// `slab->freelist`: where the index array is stored (0 = NULL: a full OBJFREELIST slab,
    /// whose array lived in the object handed out last).
    pub freelist_addr: u64,
    /// The list the slab is on, if any (`slab_list`).
    pub list: Option<SlabList>,
    /// Which objects a caller holds (allocated and not freed). Objects in array caches are
    /// not held: they are free to the caller, `active` to the slab.
    pub allocated: Vec<bool>,
}

/// Which array cache an event names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AcRef {
    /// `cpu_cache` of a CPU.
    Cpu { cpu: CpuId },
    /// `n->shared` of a node.
    Shared { node: NodeId },
    /// `n->alien[remote]` of a node.
    Alien { node: NodeId, remote: NodeId },
}

impl std::fmt::Display for AcRef {
    /// The array as the kernel names it, for the checker's messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            AcRef::Cpu { cpu } => write!(f, "cpu{cpu}'s cpu_cache"),
            AcRef::Shared { node } => write!(f, "node {node}'s shared array"),
            AcRef::Alien { node, remote } => {
                write!(f, "node {node}'s alien array for node {remote}")
            }
        }
    }
}

impl KmemCache {
    /// The array an `AcRef` names.
    pub fn ac(&self, r: AcRef) -> Option<&ArrayCache> {
        match r {
            AcRef::Cpu { cpu } => self.cpu.get(cpu),
            AcRef::Shared { node } => self.node.get(node)?.shared.as_ref(),
            AcRef::Alien { node, remote } => self.node.get(node)?.alien.get(remote)?.as_ref(),
        }
    }

    pub fn ac_mut(&mut self, r: AcRef) -> &mut ArrayCache {
        match r {
            AcRef::Cpu { cpu } => &mut self.cpu[cpu],
            AcRef::Shared { node } => self.node[node]
                .shared
                .as_mut()
                .expect("the node has a shared array"),
            AcRef::Alien { node, remote } => self.node[node].alien[remote]
                .as_mut()
                .expect("the node has this alien cache"),
        }
    }
}

impl SlabState {
    /// Heap bytes held (for the trace's memory account).
    pub fn heap_bytes(&self) -> usize {
        let ac = |a: &ArrayCache| a.entry.capacity() * 8;
        let caches: usize = self
            .caches
            .iter()
            .map(|c| {
                std::mem::size_of::<KmemCache>()
                    + c.name.capacity()
                    + c.cpu.iter().map(ac).sum::<usize>()
                    + c.node
                        .iter()
                        .map(|n| {
                            std::mem::size_of::<KmemCacheNode>()
                                + (n.slabs_partial.capacity()
                                    + n.slabs_full.capacity()
                                    + n.slabs_free.capacity())
                                    * 4
                                + n.shared.as_ref().map_or(0, ac)
                                + n.alien.iter().flatten().map(ac).sum::<usize>()
                        })
                        .sum::<usize>()
            })
            .sum();
        let slabs: usize = self
            .slabs
            .values()
            .map(|s| {
                std::mem::size_of::<Slab>() + s.freelist.capacity() * 4 + s.allocated.capacity()
            })
            .sum();
        caches + slabs + self.reap_node.capacity() * 4
    }
}
