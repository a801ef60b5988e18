//! What both slab allocators share from mm/slab_common.c and mm/slab.h (v6.6): the parts of
//! `kfree()` and `kmem_cache_free()` that come before the allocator's own free path
//! (`cache_from_obj()`), and the diagnostic steps of bad frees.

use crate::geometry::SlabFlags;
use crate::ids::{CacheId, CpuId};
use crate::machine::{Damage, FrameState, Machine, Owner, Pfn};
use crate::page_alloc::free_pages;
use crate::trace::{Event, Recorder};

pub mod random;

/// `ZERO_SIZE_PTR` (include/linux/slab.h): what `kmalloc(0)` returns, under either allocator.
pub const ZERO_SIZE_PTR: u64 = 16;

/// What a free did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeOutcome {
    /// The object (or large kmalloc) was freed.
    Freed,
    /// NULL or `ZERO_SIZE_PTR`: nothing to do.
    Ignored,
    /// A bad free: a diagnostic step was recorded and nothing changed.
    Refused,
}

/// Records a refused free of `addr` as a `kfree` step with this path and caption key.
pub(crate) fn diagnostic(
    rec: &mut Recorder,
    path: &'static str,
    key: &'static str,
    addr: u64,
) -> FreeOutcome {
    rec.call("kfree", path, key, |rec| {
        rec.arg_addr("addr", addr);
    });
    FreeOutcome::Refused
}

/// The checks `kfree()`/`kmem_cache_free()` make before the allocator sees the object:
/// `ZERO_OR_NULL_PTR()` returns at once, and a cache already destroyed is a use after free.
/// `Some` when the free ends here.
pub(crate) fn free_prologue(
    rec: &mut Recorder,
    addr: u64,
    destroyed_cache: Option<CacheId>,
) -> Option<FreeOutcome> {
    if addr == 0 || addr == ZERO_SIZE_PTR {
        rec.call("kfree", "NULL or ZERO_SIZE_PTR", "step.kfree_null", |_| {});
        return Some(FreeOutcome::Ignored);
    }
    let c = destroyed_cache?;
    rec.call(
        "kmem_cache_free",
        "destroyed cache",
        "step.use_destroyed_cache",
        |rec| {
            rec.arg_cache("cache", c);
        },
    );
    Some(FreeOutcome::Refused)
}

/// Whether `addr` is the start of a large kmalloc (`__kmalloc_large_node()`'s pages).
pub(crate) fn is_large_kmalloc(m: &Machine, addr: u64) -> bool {
    m.addr_pfn(addr).is_some_and(|pfn| {
        matches!(
            m.frame(pfn).map(|f| f.state),
            Some(FrameState::Allocated {
                owner: Owner::LargeKmalloc,
                ..
            })
        ) && m.object_addr(pfn, 1, 0) == addr
    })
}

/// A free of an address in no slab: the first page of a large kmalloc goes back to the page
/// allocator (`free_large_kmalloc()`, only through `kfree()`); anything else is recorded as the
/// bad free it is (the kernel would WARN in `free_large_kmalloc()` or oops).
pub(crate) fn free_outside_slabs(
    rec: &mut Recorder,
    addr: u64,
    cpu: CpuId,
    cache: Option<CacheId>,
) -> FreeOutcome {
    if cache.is_none() && is_large_kmalloc(rec.machine(), addr) {
        let pfn = rec
            .machine()
            .addr_pfn(addr)
            .expect("a large kmalloc is in memory");
        let _ = free_pages(rec, cpu, pfn);
        return FreeOutcome::Freed;
    }
    diagnostic(rec, "not an allocated object", "step.kfree_invalid", addr)
}

/// Whether `cache_from_obj()` (mm/slab.h, v6.6) looks at the object's own cache at all: only
/// with `CONFIG_SLAB_FREELIST_HARDENED` or with `SLAB_CONSISTENCY_CHECKS` on the cache the
/// caller named (`slub_debug=F`; SLAB has no such flag). Otherwise it returns the named cache
/// as it is, and the free goes on with that cache's code whatever the object is.
///
/// memcg plays no part in v6.6: the condition has no memcg term (it had one while memcg kept a
/// copy of each cache per cgroup, copies that are gone), so with `CONFIG_MEMCG_KMEM=y` and
/// kmem accounting online the named cache is still returned unchecked. `memcg_slab_free_hook()`
/// then uncharges through the slab's own obj_cgroup vector at an index computed with the named
/// cache's size; nothing is charged in the scenarios the simulator runs, so it changes nothing.
pub(crate) fn cache_from_obj_checks(hardened: bool, consistency_checks: bool) -> bool {
    hardened || consistency_checks
}

/// `cache_from_obj()` when the object is not of the cache the caller named: "Wrong slab cache.
/// %s but object is from %s" (with hardening or `slub_debug=F`, see `cache_from_obj_checks`),
/// then the object's own cache is used.
pub(crate) fn wrong_cache(rec: &mut Recorder, expected: CacheId, actual: CacheId) {
    rec.call("cache_from_obj", "wrong cache", "step.wrong_cache", |rec| {
        rec.arg_cache("expected", expected);
        rec.arg_cache("actual", actual);
    });
}

/// `cache_from_obj()` that does not look: the object `addr` of `actual` (slab `pfn`) is freed
/// with `expected`'s code, and nothing warns. The step (`path`, caption `key`) records the
/// damage the free does; the caller then runs the named cache's free path.
#[allow(clippy::too_many_arguments)] // the step's two texts and the damage record's five facts
pub(crate) fn wrong_cache_unchecked(
    rec: &mut Recorder,
    path: &'static str,
    key: &'static str,
    expected: CacheId,
    actual: CacheId,
    addr: u64,
    pfn: Pfn,
    offsets: Option<(u32, u32)>,
) {
    rec.call("cache_from_obj", path, key, |rec| {
        rec.arg_cache("expected", expected);
        rec.arg_cache("actual", actual);
        rec.arg_addr("addr", addr);
        rec.emit(Event::DamageRecorded(Box::new(Damage::WrongCacheFree {
            cache: expected,
            slab_cache: actual,
            addr,
            pfn,
            offsets,
        })));
    });
}

/// `slab_unmergeable()` (mm/slab_common.c, v6.6, `CONFIG_HARDENED_USERCOPY`), for both
/// allocators: nothing merges into a cache when merging is off (`slab_nomerge`), or the cache
/// has a `SLAB_NEVER_MERGE` flag, a constructor or a usercopy region (every kmalloc cache has
/// one). `find_mergeable()` refuses a new request by the same test (its usersize is 0: a
/// request with one is never offered for merging). The kernel's `s->refcount < 0` test
/// (a boot cache not yet set up) has nothing to match here.
pub(crate) fn slab_unmergeable(
    flags: &SlabFlags,
    ctor: bool,
    usersize: u32,
    slab_nomerge: bool,
) -> bool {
    slab_nomerge || flags.never_merge() || ctor || usersize != 0
}

/// `kfree()` (or, with `cache`, `kmem_cache_free()`) of `addr` on `cpu`, under the slab
/// allocator the machine was built with.
pub fn kfree(rec: &mut Recorder, addr: u64, cpu: CpuId, cache: Option<CacheId>) -> FreeOutcome {
    crate::allocator::ops(rec.machine()).kfree(rec, addr, cpu, cache)
}

/// `kmem_cache_free_bulk()` (or, without `cache`, `kfree_bulk()`) of `objs` on `cpu`, under the
/// slab allocator the machine was built with.
pub fn kmem_cache_free_bulk(rec: &mut Recorder, cache: Option<CacheId>, objs: &[u64], cpu: CpuId) {
    crate::allocator::ops(rec.machine()).kmem_cache_free_bulk(rec, cache, objs, cpu);
}

/// What `kmem_cache_destroy()` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DestroyOutcome {
    /// The last reference went and the cache is gone.
    Destroyed,
    /// Other names still use the merged cache; only a reference went.
    Unreferenced,
    /// Objects are still allocated: the kernel warns and leaks the cache.
    StillHasObjects,
}
