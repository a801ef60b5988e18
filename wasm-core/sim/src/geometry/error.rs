//! Why a geometry request cannot be answered, worded for the person who asked.

use std::fmt;

/// A request the kernel would refuse, or one outside what Slabscope models.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GeometryError {
    /// Not one of 4096, 16384, 65536.
    PageSize { page_size: u32 },
    /// Outside 1..=64.
    Cpus { cpus: u32 },
    /// `slub_min_order` above `MAX_ORDER`: every cache creation would fail.
    MinOrder { slub_min_order: u32, max_order: u32 },
    /// Object size 0.
    ZeroObjectSize,
    /// Alignment that is not a power of two (`ALIGN()` assumes one) or exceeds the largest slab.
    Align { align: u32 },
    /// No order up to `MAX_ORDER` holds one object: `calculate_order()` returns `-ENOSYS`.
    ObjectTooLarge { size: u32, max_slab_bytes: u64 },
    /// `--align`, `--ctor`, `--hwcache-align` or `--rcu` given for a kmalloc cache.
    KmallocFixedFlags,
    /// `kmalloc(0)` returns `ZERO_SIZE_PTR`; there is no cache to describe.
    KmallocZero,
    /// Above `KMALLOC_MAX_CACHE_SIZE`: served by the page allocator, not by a slab cache.
    KmallocLarge {
        size: u64,
        order: u32,
        max_cache_size: u32,
    },
    /// Above `KMALLOC_MAX_SIZE`: kmalloc fails.
    KmallocTooLarge { size: u64, max: u64 },
    /// A creation argument the profile's kernel does not have yet.
    NotInVersion {
        arg: &'static str,
        since: &'static str,
        version: &'static str,
    },
    /// `freeptr_offset` that `create_cache()` refuses with `-EINVAL`.
    FreeptrOffset {
        offset: u32,
        object_size: u32,
        /// 7.0+: a constructor cache may use one too.
        ctor_allowed: bool,
    },
    /// A sweep grid with more points than a sweep may hold.
    SweepTooLarge { points: u64, max: u64 },
    /// A sweep grid with an empty axis or a zero step.
    SweepEmpty { axis: &'static str },
    /// A sweep grid naming a kernel profile there is none of.
    UnknownProfile { id: String },
}

impl fmt::Display for GeometryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeometryError::PageSize { page_size } => write!(
                f,
                "page size {page_size} is not modelled: use 4096, 16384 or 65536"
            ),
            GeometryError::Cpus { cpus } => {
                write!(f, "CPU count {cpus} is out of range: use 1 to 64")
            }
            GeometryError::MinOrder {
                slub_min_order,
                max_order,
            } => write!(
                f,
                "slub_min_order={slub_min_order} is above MAX_ORDER ({max_order}): every cache \
                 creation would fail and the kernel would not boot"
            ),
            GeometryError::ZeroObjectSize => write!(f, "object size must be at least 1 byte"),
            GeometryError::Align { align } => {
                write!(
                    f,
                    "alignment {align} is not a power of two no larger than the largest slab"
                )
            }
            GeometryError::ObjectTooLarge {
                size,
                max_slab_bytes,
            } => write!(
                f,
                "object too large: a {size}-byte slot does not fit in the largest slab \
                 ({max_slab_bytes} bytes, order MAX_ORDER); kmem_cache_create fails"
            ),
            GeometryError::KmallocFixedFlags => write!(
                f,
                "kmalloc caches are created by the kernel with fixed arguments: alignment, \
                 constructor, SLAB_HWCACHE_ALIGN and SLAB_TYPESAFE_BY_RCU cannot be chosen \
                 (only slub_debug flags apply)"
            ),
            GeometryError::NotInVersion {
                arg,
                since,
                version,
            } => write!(
                f,
                "{arg} is a kmem_cache_args field from Linux {since} on; Linux {version} has \
                 no such argument"
            ),
            GeometryError::FreeptrOffset {
                offset,
                object_size,
                ctor_allowed,
            } => write!(
                f,
                "freeptr_offset={offset} is refused (-EINVAL): it must be a multiple of 8 below \
                 the object size ({object_size}), and only a SLAB_TYPESAFE_BY_RCU cache{} may \
                 use one",
                if *ctor_allowed {
                    " or one with a constructor"
                } else {
                    ""
                }
            ),
            GeometryError::KmallocZero => write!(
                f,
                "kmalloc(0) returns ZERO_SIZE_PTR without touching any cache"
            ),
            GeometryError::KmallocLarge {
                size,
                order,
                max_cache_size,
            } => write!(
                f,
                "kmalloc({size}) is above KMALLOC_MAX_CACHE_SIZE ({max_cache_size}): the kernel \
                 takes an order-{order} compound page from the page allocator, not a slab cache"
            ),
            GeometryError::KmallocTooLarge { size, max } => write!(
                f,
                "kmalloc({size}) is above KMALLOC_MAX_SIZE ({max}) and fails"
            ),
            GeometryError::SweepTooLarge { points, max } => write!(
                f,
                "the sweep has {points} points; at most {max} are allowed (narrow the size range \
                 or raise the step)"
            ),
            GeometryError::SweepEmpty { axis } => {
                write!(f, "the sweep's {axis} axis is empty")
            }
            GeometryError::UnknownProfile { id } => {
                let known: Vec<&str> = crate::profile::PROFILES.iter().map(|p| p.id).collect();
                write!(
                    f,
                    "unknown kernel profile '{id}' (known: {})",
                    known.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for GeometryError {}
