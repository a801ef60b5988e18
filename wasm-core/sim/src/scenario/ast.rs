//! What a parsed scenario says, before anything runs.

use crate::geometry::SlabFlags;
use crate::machine::MachineConfig;
use serde::Serialize;

/// A whole scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// Format version from the first line.
    pub version: u32,
    /// Kernel profile, e.g. `linux-6.6`.
    pub profile: String,
    pub allocator: Allocator,
    pub machine: MachineConfig,
    pub switches: Switches,
    pub seed: u64,
    pub caches: Vec<CacheDecl>,
    pub ops: Vec<OpLine>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Allocator {
    Slub,
    Slab,
}

/// Kernel configuration and boot parameters the scenario turns on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Switches {
    /// `CONFIG_SLAB_FREELIST_RANDOM`.
    pub freelist_random: bool,
    /// `CONFIG_SLAB_FREELIST_HARDENED`.
    pub freelist_hardened: bool,
    /// `slab_nomerge`.
    pub slab_nomerge: bool,
    /// `slub_debug=` letters (F, Z, P, U) applied to every cache.
    pub slub_debug: SlabFlags,
    pub slub_min_objects: u32,
    pub slub_max_order: Option<u32>,
    pub slub_min_order: u32,
    /// `slab_max_order=` (SLAB); `None` keeps the kernel's choice.
    pub slab_max_order: Option<u32>,
    /// SLAB's `cache_alloc_refill()` as before Linux 4.7 ("mm/slab: refill cpu cache through
    /// a new slab without holding a node lock" reverted).
    pub slab_legacy_refill: bool,
}

/// `kmem_cache_create(name, size, align, flags, ctor)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CacheDecl {
    pub name: String,
    pub size: u32,
    pub align: u32,
    pub flags: SlabFlags,
    pub ctor: bool,
    pub line: u32,
}

/// One operation line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpLine {
    pub line: u32,
    /// How many times it runs (`repeat N`).
    pub repeat: u32,
    /// `for x in list:` — run once per element of `list`, with `x` naming it.
    pub for_each: Option<(String, String)>,
    /// Where the result goes: `a = ...` or `a[] = ...` (appends to a list).
    pub target: Option<Target>,
    pub op: Op,
    /// `on cpuN`; operations that run on every CPU (`flush_all`) have none.
    pub cpu: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum Target {
    Name(String),
    Append(String),
}

/// A reference to named results.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ref {
    /// `a`, or a whole list `t` where a list is expected.
    Name { name: String },
    /// `t[3]`.
    Index { name: String, index: u32 },
    /// `t[2..5]` (end excluded).
    Slice { name: String, start: u32, end: u32 },
}

/// An operation, as the kernel API names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    Kmalloc {
        size: u64,
        node: Option<u32>,
    },
    Kfree {
        obj: Ref,
    },
    KmemCacheAlloc {
        cache: String,
        node: Option<u32>,
    },
    KmemCacheFree {
        cache: String,
        obj: Ref,
    },
    KmemCacheAllocBulk {
        cache: String,
        count: u32,
    },
    KmemCacheFreeBulk {
        cache: String,
        objs: Ref,
    },
    KfreeBulk {
        objs: Ref,
    },
    AllocPages {
        order: u8,
        node: Option<u32>,
    },
    FreePages {
        pages: Ref,
    },
    DrainPages,
    FlushCpuSlab {
        cache: String,
    },
    FlushAll {
        cache: String,
    },
    KmemCacheShrink {
        cache: String,
    },
    KmemCacheDestroy {
        cache: String,
    },
    /// SLAB's `cache_reap()`: 2 s pass and the reap timer runs, on one CPU or on all.
    CacheReap,
    /// `kfree_rcu(obj, rhf)`, or `kfree_rcu_mightsleep(obj)`: queued on the CPU's `krc`.
    KfreeRcu {
        obj: Ref,
        mightsleep: bool,
    },
    /// `kfree_rcu_monitor()`: the monitor's delayed work expires, on one CPU or on all.
    KfreeRcuMonitor,
    /// `synchronize_rcu()`: a grace period ends; no callback runs.
    SynchronizeRcu,
    /// `rcu_barrier()`: every callback queued so far runs, on the CPU that queued it.
    RcuBarrier,
}

impl Op {
    /// The kernel function name, as written in scenarios.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Kmalloc { node: None, .. } => "kmalloc",
            Op::Kmalloc { node: Some(_), .. } => "kmalloc_node",
            Op::Kfree { .. } => "kfree",
            Op::KmemCacheAlloc { node: None, .. } => "kmem_cache_alloc",
            Op::KmemCacheAlloc { node: Some(_), .. } => "kmem_cache_alloc_node",
            Op::KmemCacheFree { .. } => "kmem_cache_free",
            Op::KmemCacheAllocBulk { .. } => "kmem_cache_alloc_bulk",
            Op::KmemCacheFreeBulk { .. } => "kmem_cache_free_bulk",
            Op::KfreeBulk { .. } => "kfree_bulk",
            Op::AllocPages { .. } => "alloc_pages",
            Op::FreePages { .. } => "free_pages",
            Op::DrainPages => "drain_pages",
            Op::FlushCpuSlab { .. } => "flush_cpu_slab",
            Op::FlushAll { .. } => "flush_all",
            Op::KmemCacheShrink { .. } => "kmem_cache_shrink",
            Op::KmemCacheDestroy { .. } => "kmem_cache_destroy",
            Op::CacheReap => "cache_reap",
            Op::KfreeRcu {
                mightsleep: false, ..
            } => "kfree_rcu",
            Op::KfreeRcu {
                mightsleep: true, ..
            } => "kfree_rcu_mightsleep",
            Op::KfreeRcuMonitor => "kfree_rcu_monitor",
            Op::SynchronizeRcu => "synchronize_rcu",
            Op::RcuBarrier => "rcu_barrier",
        }
    }
}
