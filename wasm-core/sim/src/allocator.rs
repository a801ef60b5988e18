//! The slab allocator interface: what the rest of the kernel (and the simulator's readers) ask
//! of whichever slab allocator the kernel was built with, in the shape of the hooks
//! mm/slab_common.c calls through mm/slab.h (v6.6): cache creation at boot and on demand
//! (`create_kmalloc_caches()`, `__kmem_cache_create()`/`__kmem_cache_alias()`), allocation
//! (`__do_kmalloc_node()`, `slab_alloc_node()`, `kmem_cache_alloc_bulk()`), freeing
//! (`kfree()`/`kmem_cache_free()`, `kmem_cache_free_bulk()`), shrinking, flushing and destroying
//! (`__kmem_cache_shrink()`, `flush_cpu_slab()`, `cache_reap()`, `__kmem_cache_shutdown()`),
//! and what `/proc/slabinfo`, snapshots and the invariant checks read.
//!
//! Rules:
//! - SLUB (`slub::Slub`) and SLAB (`slab::Slab`) each implement the trait in their own module;
//!   `ops(m)` picks the one the machine was built with. Code outside the two allocators calls
//!   them through here, never by matching on the allocator.
//! - An operation the allocator does not have (SLAB has no `flush_cpu_slab()`, SLUB no
//!   `cache_reap()`) answers `Err(Missing)`; the caller says so to the person, the kernel
//!   itself has no such call to make.
//! - A later kernel's allocator (a profile's) is a new implementation beside these, never a
//!   change to them.

use crate::boot::{Allocator, BootOptions};
use crate::geometry::{GeometryError, SlabFlags};
use crate::gfp::Gfp;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::check::{Problem, SlabShare, Totals, Touched};
use crate::machine::{Machine, Pfn};
use crate::slab_common::{DestroyOutcome, FreeOutcome};
use crate::snapshot::{CacheBrief, CacheView, View};
use crate::trace::Recorder;

/// The arguments of `kmem_cache_create_usercopy()`, in the kernel's order.
#[derive(Clone, Copy, Debug)]
pub struct CacheArgs<'a> {
    pub name: &'a str,
    pub size: u32,
    pub align: u32,
    pub flags: SlabFlags,
    pub useroffset: u32,
    pub usersize: u32,
    /// Whether a constructor is given (its code is not modelled, only that it exists).
    pub ctor: bool,
    /// `kmem_cache_args.freeptr_offset` (6.12+) and `.sheaf_capacity` (6.18+).
    pub freeptr_offset: Option<u32>,
    pub sheaf_capacity: Option<u32>,
}

/// The allocator has no such operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missing;

/// A slab allocator, as the rest of the kernel and the simulator's readers see it.
pub trait SlabAllocator: Sync {
    /// Which `CONFIG_` choice this is.
    fn kind(&self) -> Allocator;

    /// `create_kmalloc_caches()`: the kmalloc caches, at boot.
    fn create_kmalloc_caches(
        &self,
        rec: &mut Recorder,
        boot: &BootOptions,
    ) -> Result<(), GeometryError>;

    /// `kmem_cache_create_usercopy()`: a new cache, or an alias of a mergeable one; its id.
    fn kmem_cache_create(
        &self,
        rec: &mut Recorder,
        args: &CacheArgs,
        boot: &BootOptions,
    ) -> Result<CacheId, GeometryError>;

    /// The first cache created with the name `name` (destroyed or not; aliases are not
    /// looked at): how a scenario finds a cache it did not declare, such as `kmalloc-64`.
    fn find_cache(&self, m: &Machine, name: &str) -> Option<CacheId>;

    /// `__do_kmalloc_node()`: an object of at least `size` bytes for `caller` (its address
    /// picks a random kmalloc cache where those exist), or NULL (0).
    fn kmalloc(
        &self,
        rec: &mut Recorder,
        size: u64,
        flags: Gfp,
        caller: u64,
        cpu: CpuId,
        node: Option<NodeId>,
    ) -> u64;

    /// `kmem_cache_alloc()`/`kmem_cache_alloc_node()`: `slab_alloc_node()` of cache `cache`.
    fn kmem_cache_alloc(
        &self,
        rec: &mut Recorder,
        cache: CacheId,
        cpu: CpuId,
        node: Option<NodeId>,
    ) -> u64;

    /// `kmem_cache_alloc_bulk()`: `n` objects or none.
    fn kmem_cache_alloc_bulk(
        &self,
        rec: &mut Recorder,
        cache: CacheId,
        n: u32,
        cpu: CpuId,
    ) -> Vec<u64>;

    /// `kfree(addr)`, or `kmem_cache_free(cache, addr)` with `cache`.
    fn kfree(
        &self,
        rec: &mut Recorder,
        addr: u64,
        cpu: CpuId,
        cache: Option<CacheId>,
    ) -> FreeOutcome;

    /// `kmem_cache_free_bulk(cache, objs)`, or `kfree_bulk(objs)` without `cache`.
    fn kmem_cache_free_bulk(
        &self,
        rec: &mut Recorder,
        cache: Option<CacheId>,
        objs: &[u64],
        cpu: CpuId,
    );

    /// `kmem_cache_shrink()` → `__kmem_cache_shrink()`.
    fn kmem_cache_shrink(&self, rec: &mut Recorder, cache: CacheId, cpu: CpuId);

    /// `kmem_cache_destroy()` of `cache` under the name `alias` (another name of a merged
    /// cache), on `cpu`.
    fn kmem_cache_destroy(
        &self,
        rec: &mut Recorder,
        cache: CacheId,
        alias: Option<&str>,
        cpu: CpuId,
    ) -> DestroyOutcome;

    /// Whether each CPU has a cpu slab of each cache (`struct kmem_cache_cpu`): what
    /// `flush_cpu_slab()` flushes.
    fn has_cpu_slabs(&self) -> bool;

    /// `flush_cpu_slab()` of `cache` on `cpu` (SLUB).
    fn flush_cpu_slab(&self, rec: &mut Recorder, cache: CacheId, cpu: CpuId)
        -> Result<(), Missing>;

    /// `cache_reap()` on `cpu`, or on every CPU (SLAB).
    fn cache_reap(&self, rec: &mut Recorder, cpu: Option<CpuId>) -> Result<(), Missing>;

    /// Whether `addr` is the start of a slab object a caller holds.
    fn is_live_object(&self, m: &Machine, addr: u64) -> bool;

    /// The cache and node of the slab whose first page is `pfn`, if there is one.
    fn slab_of(&self, m: &Machine, pfn: Pfn) -> Option<(CacheId, NodeId)>;

    /// Every slab's first page, in address order.
    fn slab_pfns(&self, m: &Machine) -> Vec<Pfn>;

    /// The share of the slab at `pfn` (if there is one) in the sums its cache's node
    /// counters and the machine's live objects must equal.
    fn slab_share(&self, m: &Machine, pfn: Pfn) -> Option<SlabShare>;

    /// The RCU callback that frees a `SLAB_TYPESAFE_BY_RCU` slab's pages.
    fn rcu_free_slab_fn(&self) -> &'static str;

    /// `/proc/slabinfo`.
    fn slabinfo(&self, m: &Machine) -> String;

    /// The caches as the snapshot lists them.
    fn briefs(&self, m: &Machine) -> Vec<CacheBrief>;

    /// Cache `id` in detail, for the snapshot (the slab `wanted` shown, if it exists).
    fn cache_view(&self, v: &View, id: CacheId, wanted: Option<Pfn>) -> CacheView;

    /// Every invariant of the allocator's structures, with the machine's sums.
    fn check_all(&self, m: &Machine, totals: &Totals, bad: &mut Vec<Problem>);

    /// The invariants of what a step touched (`t`), with the machine's sums.
    fn check_touched(&self, m: &Machine, t: &mut Touched, totals: &Totals, bad: &mut Vec<Problem>);
}

/// The allocator the machine was built with, as its kernel profile implements it.
#[inline]
pub fn ops(m: &Machine) -> &'static dyn SlabAllocator {
    m.profile
        .implementation(m.allocator())
        .expect("a machine is built only with an allocator its profile has")
}
