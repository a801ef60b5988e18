//! `kmem_cache_geometry()`: one cache's layout and limits, as `kmem_cache_open()` would leave
//! them in v6.6 (`calculate_sizes()`, `calculate_order()`, the `min_partial` clamp,
//! `set_cpu_partial()` and `slub_set_cpu_partial()`); `kmem_cache_geometry_of()` answers the
//! same question for a later version (`do_kmem_cache_create()` from 6.8 on), whose
//! differences `SlubVersion` names.

use super::kmalloc::{kmalloc_target, KmallocTarget};
use super::layout::{
    calculate_alignment, calculate_sizes, calculate_sizes_args, FreePointerArgs, SlabFlags,
};
use super::order::{calculate_order, calculate_order_v6_7, initial_min_objects, order_objects};
use super::platform::{PageGeometry, SlubParams, ARCH_KMALLOC_MINALIGN, WORD};
use super::version::SlubVersion;
use super::GeometryError;
use serde::{Deserialize, Serialize};

/// `MIN_PARTIAL` and `MAX_PARTIAL` of mm/slub.c.
const MIN_PARTIAL: u32 = 5;
const MAX_PARTIAL: u32 = 10;

/// What cache to describe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CacheSource {
    /// `kmem_cache_create(name, object_size, align, flags, ctor)`.
    Object { object_size: u32 },
    /// The kmalloc cache that `kmalloc(request_size)` uses.
    Kmalloc { request_size: u32 },
}

/// A geometry question: the cache, its creation arguments and the machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(deny_unknown_fields)]
pub struct CacheRequest {
    pub source: CacheSource,
    /// `align` argument of `kmem_cache_create()`; 0 for none. Not allowed for kmalloc.
    #[serde(default)]
    pub align: u32,
    /// Creation flags; for kmalloc caches only the `slub_debug` ones apply.
    #[serde(default)]
    pub flags: SlabFlags,
    /// Whether the cache has a constructor. Not allowed for kmalloc.
    #[serde(default)]
    pub ctor: bool,
    /// `PAGE_SIZE`.
    pub page_size: u32,
    /// `num_present_cpus()`.
    pub cpus: u32,
    /// `slub_min_objects=` (0 = derived from the CPU count).
    #[serde(default)]
    pub slub_min_objects: u32,
    /// `slub_max_order=` (absent = `PAGE_ALLOC_COSTLY_ORDER`).
    #[serde(default)]
    pub slub_max_order: Option<u32>,
    /// `slub_min_order=`.
    #[serde(default)]
    pub slub_min_order: u32,
    /// `kmem_cache_args.freeptr_offset` with `use_freeptr_offset` (6.12+): where in a free
    /// object the free pointer may go. Absent in 6.6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts-export", ts(optional))]
    pub freeptr_offset: Option<u32>,
    /// `kmem_cache_args.sheaf_capacity` (6.18+): 6.18 gives the cache sheaves of exactly this
    /// capacity, 7.x takes it as the least capacity. Absent: none asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts-export", ts(optional))]
    pub sheaf_capacity: Option<u32>,
}

/// The answer: everything `kmem_cache_open()` fixes about a cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct CacheGeometry {
    /// The kmalloc cache's name when the source was a kmalloc request.
    pub cache: Option<String>,
    /// The kmalloc class a `kmalloc()` of `object_size` bytes would use (null above
    /// `KMALLOC_MAX_CACHE_SIZE`).
    pub kmalloc_class: Option<u32>,
    /// The requested size for a kmalloc source.
    pub request_size: Option<u32>,
    /// `s->object_size`.
    pub object_size: u32,
    /// `s->size`: bytes per object slot (slabinfo's objsize, sysfs `slab_size`).
    pub size: u32,
    /// `s->align`.
    pub align: u32,
    /// `s->inuse`.
    pub inuse: u32,
    /// `s->offset`: where a free object stores its free pointer.
    pub offset: u32,
    /// `s->red_left_pad`.
    pub red_left_pad: u32,
    /// `oo_order(s->oo)`.
    pub order: u32,
    /// `oo_objects(s->oo)`.
    pub objs_per_slab: u32,
    /// Bytes of one slab, `PAGE_SIZE << order` (not sysfs `slab_size`, which is `s->size`).
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub slab_size: u64,
    /// `1 << order` (slabinfo's pagesperslab).
    pub pages_per_slab: u32,
    /// Bytes at the end of each slab that hold no object.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub waste: u64,
    /// `oo_order(s->min)`: the fallback order when the preferred one cannot be had.
    pub min_order: u32,
    /// `oo_objects(s->min)`.
    pub min_objs_per_slab: u32,
    /// The `min_objects` `calculate_order()` started from (before clamping).
    pub min_objects: u32,
    /// `s->min_partial`.
    pub min_partial: u32,
    /// `s->cpu_partial`, in objects.
    pub cpu_partial: u32,
    /// `s->cpu_partial_slabs`.
    pub cpu_partial_slabs: u32,
    /// `s->sheaf_capacity` (6.18+; absent before): objects per per-CPU sheaf, 0 for a cache
    /// without sheaves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts-export", ts(optional))]
    pub sheaf_capacity: Option<u32>,
    /// `kmem_cache_debug()`: true when any debug flag is set (no cpu partial list then).
    pub debug: bool,
    /// The machine the answer is for.
    pub page_size: u32,
    pub cpus: u32,
}

/// Computes one cache's geometry in v6.6, or says why the kernel would refuse it.
pub fn kmem_cache_geometry(req: &CacheRequest) -> Result<CacheGeometry, GeometryError> {
    kmem_cache_geometry_of(req, SlubVersion::V6_6)
}

/// Computes one cache's geometry in `version`, or says why the kernel would refuse it.
#[allow(
    clippy::too_many_lines,
    reason = "kmem_cache_open()'s sequence in the kernel's order (alignment, calculate_sizes(), calculate_order(), min_partial, set_cpu_partial()), read against mm/slub.c top to bottom"
)]
pub fn kmem_cache_geometry_of(
    req: &CacheRequest,
    version: SlubVersion,
) -> Result<CacheGeometry, GeometryError> {
    version.check_args(req)?;
    let page = PageGeometry::new(req.page_size)?;
    let params = SlubParams::new(
        &page,
        req.cpus,
        req.slub_min_objects,
        req.slub_max_order,
        req.slub_min_order,
    )?;
    // Bounds that keep every later sum inside u32: kmem_cache_sanity_check() (DEBUG_VM)
    // refuses sizes above KMALLOC_MAX_SIZE, and no slab can honour a larger alignment.
    if req.align != 0
        && (!req.align.is_power_of_two() || u64::from(req.align) > page.kmalloc_max_size())
    {
        return Err(GeometryError::Align { align: req.align });
    }
    let (object_size, align, flags, ctor, kmalloc, cache, request_size) = match req.source {
        CacheSource::Object { object_size } => {
            if object_size == 0 {
                return Err(GeometryError::ZeroObjectSize);
            }
            if u64::from(object_size) > page.kmalloc_max_size() {
                return Err(GeometryError::ObjectTooLarge {
                    size: object_size,
                    max_slab_bytes: page.kmalloc_max_size(),
                });
            }
            let align = calculate_alignment(&req.flags, req.align, object_size);
            (object_size, align, req.flags, req.ctor, false, None, None)
        }
        CacheSource::Kmalloc { request_size } => {
            if req.align != 0 || req.ctor || req.flags.hwcache_align || req.flags.typesafe_by_rcu {
                return Err(GeometryError::KmallocFixedFlags);
            }
            let class = match kmalloc_target(&page, u64::from(request_size))? {
                KmallocTarget::Cache(class) => class,
                KmallocTarget::ZeroSizePtr => return Err(GeometryError::KmallocZero),
                KmallocTarget::Large { order } => {
                    return Err(GeometryError::KmallocLarge {
                        size: u64::from(request_size),
                        order,
                        max_cache_size: page.kmalloc_max_cache_size(),
                    })
                }
            };
            // create_boot_cache(): natural alignment for power-of-two sizes (6.6); from 6.11
            // the largest power of two dividing the size, so kmalloc-96 is 32-aligned and
            // kmalloc-192 64-aligned. SLUB passes no creation flags, so only the slub_debug
            // ones reach calculate_sizes().
            let mut align = ARCH_KMALLOC_MINALIGN;
            if version >= SlubVersion::V6_12 {
                align = align.max(1 << class.size.trailing_zeros());
            } else if class.size.is_power_of_two() {
                align = align.max(class.size);
            }
            let flags = SlabFlags {
                hwcache_align: false,
                typesafe_by_rcu: false,
                ..req.flags
            };
            let align = calculate_alignment(&flags, align, class.size);
            (
                class.size,
                align,
                flags,
                false,
                true,
                Some(class.name()),
                Some(request_size),
            )
        }
    };

    let layout = if version >= SlubVersion::V6_12 {
        if let Some(offset) = req.freeptr_offset {
            version.check_freeptr_offset(offset, object_size, &flags, ctor)?;
        }
        let args = FreePointerArgs {
            ctor,
            freeptr_offset: req.freeptr_offset,
            ctor_may_use_offset: version >= SlubVersion::V7_2,
            orig_size_bytes: if version == SlubVersion::V6_18 {
                4
            } else {
                WORD
            },
        };
        calculate_sizes_args(object_size, align, &flags, kmalloc, &args)
    } else {
        calculate_sizes(object_size, align, &flags, ctor, kmalloc)
    };
    let order = if version >= SlubVersion::V6_12 {
        calculate_order_v6_7(&page, &params, layout.size)
    } else {
        calculate_order(&page, &params, layout.size)
    }
    .ok_or(GeometryError::ObjectTooLarge {
        size: layout.size,
        max_slab_bytes: page.kmalloc_max_size(),
    })?;
    let objs_per_slab = order_objects(&page, order, layout.size) as u32;
    let slab_size = page.bytes(order);
    let min_order = page.get_order(u64::from(layout.size));
    let min_objs_per_slab = order_objects(&page, min_order, layout.size) as u32;

    // kmem_cache_open(): min_partial = clamp(ilog2(size) / 2, MIN_PARTIAL, MAX_PARTIAL).
    let ilog2 = u32::BITS - 1 - layout.size.leading_zeros();
    let min_partial = (ilog2 / 2).clamp(MIN_PARTIAL, MAX_PARTIAL);

    // set_cpu_partial(): an object budget by slot size; debug caches have no cpu partial list,
    // and from 7.0 no cache has one.
    let debug = flags.is_debug();
    let cpu_partial: u32 = if debug || !version.has_cpu_partial() {
        0
    } else if layout.size >= page.page_size {
        6
    } else if layout.size >= 1024 {
        24
    } else if layout.size >= 256 {
        52
    } else {
        120
    };
    // slub_set_cpu_partial(): assume cpu partial slabs are half full.
    let cpu_partial_slabs = (cpu_partial * 2).div_ceil(objs_per_slab);

    let kmalloc_class = match kmalloc_target(&page, u64::from(object_size)) {
        Ok(KmallocTarget::Cache(class)) => Some(class.size),
        _ => None,
    };

    Ok(CacheGeometry {
        cache,
        kmalloc_class,
        request_size,
        object_size,
        size: layout.size,
        align: layout.align,
        inuse: layout.inuse,
        offset: layout.offset,
        red_left_pad: layout.red_left_pad,
        order,
        objs_per_slab,
        slab_size,
        pages_per_slab: 1 << order,
        waste: slab_size - u64::from(objs_per_slab) * u64::from(layout.size),
        min_order,
        min_objs_per_slab,
        min_objects: initial_min_objects(&params),
        min_partial,
        cpu_partial,
        cpu_partial_slabs,
        sheaf_capacity: version.sheaf_capacity(&page, req, &flags, layout.size),
        debug,
        page_size: page.page_size,
        cpus: params.cpus,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(size: u32, page_size: u32, cpus: u32) -> CacheRequest {
        CacheRequest {
            source: CacheSource::Object { object_size: size },
            align: 0,
            flags: SlabFlags::default(),
            ctor: false,
            page_size,
            cpus,
            slub_min_objects: 0,
            slub_max_order: None,
            slub_min_order: 0,
            freeptr_offset: None,
            sheaf_capacity: None,
        }
    }

    #[test]
    fn worked_example_5_1() {
        let g = kmem_cache_geometry(&object(144, 16384, 4)).unwrap();
        assert_eq!((g.order, g.objs_per_slab, g.waste), (0, 113, 112));
        assert_eq!((g.offset, g.size, g.min_partial), (72, 144, 5));
        assert_eq!((g.cpu_partial, g.cpu_partial_slabs), (120, 3));
        let g4 = kmem_cache_geometry(&object(144, 4096, 4)).unwrap();
        assert_eq!(
            (g4.objs_per_slab, g4.waste, g4.cpu_partial_slabs),
            (28, 64, 9)
        );
    }

    #[test]
    fn min_partial_grows_with_log_size() {
        let g = kmem_cache_geometry(&object(4096, 4096, 2)).unwrap();
        assert_eq!(g.min_partial, 6);
        assert_eq!(g.cpu_partial, 6);
        let g = kmem_cache_geometry(&object(1 << 20, 4096, 2)).unwrap();
        assert_eq!(g.min_partial, 10);
    }

    #[test]
    fn kmalloc_sources_use_the_class_and_natural_alignment() {
        let mut req = object(0, 4096, 2);
        req.source = CacheSource::Kmalloc { request_size: 100 };
        let g = kmem_cache_geometry(&req).unwrap();
        assert_eq!(g.cache.as_deref(), Some("kmalloc-128"));
        assert_eq!((g.size, g.align, g.objs_per_slab), (128, 128, 32));
        req.source = CacheSource::Kmalloc { request_size: 96 };
        let g = kmem_cache_geometry(&req).unwrap();
        assert_eq!((g.size, g.align, g.objs_per_slab), (96, 8, 42));
        req.source = CacheSource::Kmalloc { request_size: 9000 };
        assert!(matches!(
            kmem_cache_geometry(&req),
            Err(GeometryError::KmallocLarge { order: 2, .. })
        ));
        req.source = CacheSource::Kmalloc { request_size: 0 };
        assert_eq!(kmem_cache_geometry(&req), Err(GeometryError::KmallocZero));
        req.source = CacheSource::Kmalloc { request_size: 64 };
        req.ctor = true;
        assert_eq!(
            kmem_cache_geometry(&req),
            Err(GeometryError::KmallocFixedFlags)
        );
    }

    #[test]
    fn debug_caches_have_no_cpu_partial_list() {
        let mut req = object(256, 4096, 4);
        req.flags.consistency_checks = true;
        let g = kmem_cache_geometry(&req).unwrap();
        assert!(g.debug);
        assert_eq!((g.cpu_partial, g.cpu_partial_slabs), (0, 0));
        assert_eq!(g.size, 256);
    }

    #[test]
    fn bad_requests_are_errors_not_panics() {
        assert_eq!(
            kmem_cache_geometry(&object(0, 4096, 1)),
            Err(GeometryError::ZeroObjectSize)
        );
        assert!(matches!(
            kmem_cache_geometry(&object(5 << 20, 4096, 1)),
            Err(GeometryError::ObjectTooLarge { .. })
        ));
        let mut req = object(64, 4096, 1);
        req.align = 24;
        assert_eq!(
            kmem_cache_geometry(&req),
            Err(GeometryError::Align { align: 24 })
        );
        assert!(kmem_cache_geometry(&object(u32::MAX, 65536, 64)).is_err());
    }
}
