//! What a parsed scenario says, before anything runs, in the language's own terms: the names
//! a scenario writes (allocators, flags, gfp names, the machine's settings), never the
//! simulator's types. The runner translates each into the kernel-level value it stands for.

use crate::gfp::Gfp;
use crate::machine::MachineDecl;
use serde::Serialize;

/// A whole scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Scenario {
    /// Format version from the first line.
    pub version: u32,
    /// Kernel profile, e.g. `linux-6.6`.
    pub profile: String,
    pub allocator: Allocator,
    pub machine: MachineDecl,
    pub switches: Switches,
    pub seed: u64,
    pub caches: Vec<CacheDecl>,
    pub ops: Vec<OpLine>,
    /// The lines that run no kernel code (format 2): list building and `print`, each placed
    /// between two operation lines by `after_ops`.
    pub statements: Vec<StatementLine>,
    /// `concurrent` blocks (format 3): runs of `ops` whose lines run on their CPUs at once,
    /// interleaved by a schedule.
    pub blocks: Vec<Block>,
    /// `teaching no_tid` (format 3): not a kernel option; the fast paths' cmpxchg compares
    /// the freelist without the tid, to show the ABA problem the tid prevents.
    pub teaching_no_tid: bool,
}

/// A `concurrent` block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Block {
    /// The `concurrent` line and the `end` line.
    pub line: u32,
    pub end_line: u32,
    /// Its operation lines: `ops[first_op..end_op]`.
    pub first_op: usize,
    pub end_op: usize,
    pub schedule: ScheduleDecl,
}

/// How a block's micro-steps are shared out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScheduleDecl {
    /// `concurrent` or `concurrent round_robin`.
    RoundRobin,
    /// `concurrent random [seed=N] [preempt]`.
    Random { seed: u64, preempt: bool },
    /// `concurrent explicit` and its `schedule` lines, then round-robin.
    Explicit { steps: Vec<ScheduleStep> },
}

/// One word of a `schedule` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ScheduleStep {
    /// `cpuN` or `cpuN:K`: CPU N takes its next K micro-steps.
    Run { cpu: u32, times: u32 },
    /// `preempt(cpuN)` or `preempt(cpuN, cpuM)`: the task running on CPU N is preempted, to
    /// go on on CPU M (the same CPU when not given).
    Preempt { cpu: u32, to: u32 },
    /// `irq(cpuN)`: an interrupt on CPU N runs its next handler operation.
    Irq { cpu: u32 },
}

/// Which task of its CPU runs an operation line in a `concurrent` block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "n", rename_all = "snake_case")]
pub enum TaskSlot {
    /// `on cpuN`: the CPU's first task (outside blocks, the only one).
    #[default]
    Main,
    /// `on cpuN task K` (K ≥ 1): another task of the CPU, which runs when the first is
    /// preempted or done.
    Other(u32),
    /// `on cpuN irq`: the CPU's interrupt handlers, one operation per interrupt.
    Irq,
}

/// `allocator slub` or `allocator slab` (SLUB when the line is missing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
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
    /// `CONFIG_RANDOM_KMALLOC_CACHES` (SLUB only): 15 copies of every normal kmalloc cache,
    /// one of 16 picked per call site.
    pub random_kmalloc_caches: bool,
    /// `slub_debug=` letters (F, Z, P, U) applied to every cache.
    pub slub_debug: SlubDebug,
    /// `slub_min_objects=`; 0 when not given.
    pub slub_min_objects: u32,
    /// `slub_max_order=`; `None` when not given.
    pub slub_max_order: Option<u32>,
    /// `slub_min_order=`; 0 when not given.
    pub slub_min_order: u32,
    /// `slab_max_order=` (SLAB); `None` keeps the kernel's choice.
    pub slab_max_order: Option<u32>,
    /// SLAB's `cache_alloc_refill()` as before Linux 4.7 ("mm/slab: refill cpu cache through
    /// a new slab without holding a node lock" reverted).
    pub slab_legacy_refill: bool,
}

/// The letters of a `slub_debug` line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SlubDebug {
    /// `F`: consistency checks.
    pub consistency_checks: bool,
    /// `Z`: red zones.
    pub red_zone: bool,
    /// `P`: poisoning.
    pub poison: bool,
    /// `U`: user tracking.
    pub store_user: bool,
}

/// The names a `cache` line's `flags=` may give, each standing for one `SLAB_*` flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheFlags {
    /// `hwcache_align`: `SLAB_HWCACHE_ALIGN`.
    pub hwcache_align: bool,
    /// `typesafe_by_rcu` (or `rcu`): `SLAB_TYPESAFE_BY_RCU`.
    pub typesafe_by_rcu: bool,
    /// `account` (format 2): `SLAB_ACCOUNT`.
    pub account: bool,
    /// `reclaim_account` (format 2): `SLAB_RECLAIM_ACCOUNT`.
    pub reclaim_account: bool,
    /// `cache_dma` (format 2): `SLAB_CACHE_DMA`.
    pub cache_dma: bool,
    /// `cache_dma32` (format 2): `SLAB_CACHE_DMA32`.
    pub cache_dma32: bool,
    /// `no_merge` (format 2): `SLAB_NO_MERGE`.
    pub no_merge: bool,
}

/// `kmem_cache_create_usercopy(name, size, align, flags, useroffset, usersize, ctor)`
/// (`kmem_cache_create()` when `usersize` is 0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CacheDecl {
    pub name: String,
    pub size: u32,
    pub align: u32,
    pub flags: CacheFlags,
    pub ctor: bool,
    /// The usercopy region (`CONFIG_HARDENED_USERCOPY`): `usersize` bytes from `useroffset`.
    /// A cache with one is never merged.
    pub useroffset: u32,
    pub usersize: u32,
    /// `kmem_cache_args.freeptr_offset` (linux-6.12 on): where a free object keeps its free
    /// pointer, inside the object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freeptr_offset: Option<u32>,
    /// `kmem_cache_args.sheaf_capacity` (linux-6.18 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sheaf_capacity: Option<u32>,
    pub line: u32,
}

/// One operation line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpLine {
    pub line: u32,
    /// How many times it runs (`repeat N`).
    pub repeat: u32,
    /// `for x in list:` — run once per element of `list`, with `x` naming it (format 1 takes a
    /// list name; format 2 also a slice, `reverse(…)`, `interleave(…)` or `[…]`).
    pub for_each: Option<(String, ListExpr)>,
    /// Where the result goes: `a = ...` or `a[] = ...` (appends to a list).
    pub target: Option<Target>,
    pub op: Op,
    /// `on cpuN`; operations that run on every CPU (`flush_all`) have none.
    pub cpu: Option<u32>,
    /// In a `concurrent` block, which task of the CPU runs it.
    pub task: TaskSlot,
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

/// A list built from earlier results (format 2), where a list is expected: after `for x in`,
/// and on the right of a list line. Not nested: each part names a list or an object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ListExpr {
    /// `t` or `t[2..5]`; after `l[] =` also one object (`a`, `t[3]`).
    Ref { of: Ref },
    /// `[a, t[0], u, u[1..3]]`: each object, and each element of each list, in order.
    Items { items: Vec<Ref> },
    /// `reverse(t)`: the last element first.
    Reverse { of: Ref },
    /// `interleave(a, b, …)`: the first element of each list, then the second of each, and
    /// so on; a list that runs out drops out.
    Interleave { lists: Vec<Ref> },
}

/// A line that runs no kernel code and records no step (format 2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StatementLine {
    pub line: u32,
    /// The operation lines before it: it runs after `ops[..after_ops]`, before the rest.
    pub after_ops: usize,
    pub statement: Statement,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "statement", rename_all = "snake_case")]
pub enum Statement {
    /// `l = LIST` names a list (replacing any list of that name); `l[] = …` appends one object
    /// or every element of a list.
    List { target: Target, list: ListExpr },
    /// `a = t[3]`, `a = b`: names one earlier object.
    Name { name: String, of: Ref },
    /// `print slabinfo`, `print buddyinfo`, `print sysfs CACHE`: the file as it reads at this
    /// point of the run, marked at the cursor (`RunSummary::prints`), not a step.
    Print { file: PrintFile },
}

/// A kernel file a `print` line shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PrintFile {
    /// `/proc/slabinfo`.
    Slabinfo,
    /// `/proc/buddyinfo`.
    Buddyinfo,
    /// `/sys/kernel/slab/<cache>/`, every attribute (the name may be a merged cache's alias).
    Sysfs { cache: String },
}

impl PrintFile {
    /// The file's path, as the kernel names it.
    pub fn path(&self) -> String {
        match self {
            PrintFile::Slabinfo => "/proc/slabinfo".to_string(),
            PrintFile::Buddyinfo => "/proc/buddyinfo".to_string(),
            PrintFile::Sysfs { cache } => format!("/sys/kernel/slab/{cache}/"),
        }
    }
}

/// An operation, as the kernel API names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// `kmalloc(size, gfp)` / `kmalloc_node(size, gfp, node)`, called from `site` (a name for
    /// the caller, whose address `kmalloc_type()` hashes with random kmalloc caches; `None` is
    /// the line's own site).
    Kmalloc {
        size: u64,
        node: Option<u32>,
        gfp: Gfp,
        site: Option<String>,
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
