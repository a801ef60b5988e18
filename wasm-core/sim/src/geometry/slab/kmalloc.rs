//! SLAB's kmalloc caches (mm/slab_common.c and `kmem_cache_init()` in mm/slab.c, v6.6; spec
//! 1.1-1.3): `KMALLOC_MIN_SIZE` is 32, so there is no kmalloc-8 or kmalloc-16 but kmalloc-96
//! and kmalloc-192 remain; every kmalloc cache is created with `SLAB_HWCACHE_ALIGN`, which
//! turns kmalloc-96 into 128-byte slots. Their layout matters to every other cache, because an
//! `OFF_SLAB` index array is allocated from them.

use super::{
    layout_cache, FreelistCache, FreelistLayout, SlabCacheGeometry, SlabCacheRequest, SlabParams,
    KMALLOC_SHIFT_LOW,
};
use crate::geometry::kmalloc::KmallocClass;
use crate::geometry::layout::SlabFlags;
use crate::geometry::platform::{PageGeometry, ARCH_KMALLOC_MINALIGN};
use crate::kmalloc_caches::KmallocType;

/// `sizeof(struct kmem_cache_node)` with SLAB on a 64-bit machine without spinlock debugging:
/// lock 4 (+4 padding), three list heads 48, `total_slabs`/`free_slabs`/`free_objects` 24,
/// `free_limit`/`colour_next` 8, `shared`/`alien`/`next_reap` 24, `free_touched` 4 (+4).
const KMEM_CACHE_NODE_SIZE: u64 = 120;

/// `size_index[]` after `setup_kmalloc_cache_index_table()` with `KMALLOC_MIN_SIZE = 32`:
/// sizes 1..=24 are redirected to `KMALLOC_SHIFT_LOW`; kmalloc-96 and -192 stay.
const SIZE_INDEX: [u32; 24] = [
    5, 5, 5, 5, // 1..32
    6, 6, 6, 6, // 33..64
    1, 1, 1, 1, // 65..96
    7, 7, 7, 7, // 97..128
    2, 2, 2, 2, 2, 2, 2, 2, // 129..192
];

fn class(index: u32) -> KmallocClass {
    let size = match index {
        1 => 96,
        2 => 192,
        i => 1 << i,
    };
    KmallocClass { index, size }
}

/// `kmalloc_slab()` under SLAB (v6.6): the kmalloc cache that serves `size` bytes; `None`
/// for 0 (`ZERO_SIZE_PTR`, the caller's case) and above `KMALLOC_MAX_CACHE_SIZE` (large kmalloc).
pub fn slab_kmalloc_index(page: &PageGeometry, size: u64) -> Option<KmallocClass> {
    if size == 0 || size > u64::from(page.kmalloc_max_cache_size()) {
        return None;
    }
    let index = if size <= 192 {
        SIZE_INDEX[((size - 1) / 8) as usize]
    } else {
        u64::BITS - (size - 1).leading_zeros() // fls(size - 1)
    };
    Some(class(index))
}

/// The classes of one type in `create_kmalloc_caches()` order: `KMALLOC_SHIFT_LOW` up to
/// `KMALLOC_SHIFT_HIGH`, kmalloc-96 right after kmalloc-64 and kmalloc-192 after kmalloc-128
/// (`KMALLOC_MIN_SIZE` is 32, at most 32 and 64 as those need).
fn create_order(page: &PageGeometry) -> Vec<KmallocClass> {
    let mut out = Vec::new();
    for index in KMALLOC_SHIFT_LOW..=page.page_shift + 1 {
        out.push(class(index));
        if index == 6 {
            out.push(class(1));
        }
        if index == 7 {
            out.push(class(2));
        }
    }
    out
}

/// SLAB's normal kmalloc caches in creation order. `kmem_cache_init()` first makes the one
/// that holds `struct kmem_cache_node` (`INDEX_NODE`: kmalloc-128 on 64-bit), then
/// `create_kmalloc_caches()` makes the rest in [`create_order`].
pub fn slab_kmalloc_classes(page: &PageGeometry) -> Vec<KmallocClass> {
    let index_node = slab_kmalloc_index(page, KMEM_CACHE_NODE_SIZE)
        .expect("struct kmem_cache_node fits a kmalloc cache");
    let mut out = vec![index_node.clone()];
    out.extend(create_order(page).into_iter().filter(|c| *c != index_node));
    out
}

/// Every kmalloc cache SLAB's boot makes, in order, with its geometry: the normal ones of
/// [`slab_kmalloc_classes`], then `create_kmalloc_caches()`'s other types (reclaimable, DMA,
/// cgroup), each in [`create_order`]. Each is laid out while only the caches before it exist;
/// an `OFF_SLAB` index array always comes from a normal cache (`kmalloc_slab(size, 0, ...)`).
pub fn slab_kmalloc_boot(
    page: &PageGeometry,
    params: &SlabParams,
) -> Vec<(KmallocType, KmallocClass, SlabCacheGeometry)> {
    let mut order: Vec<(KmallocType, KmallocClass)> = slab_kmalloc_classes(page)
        .into_iter()
        .map(|c| (KmallocType::Normal, c))
        .collect();
    for ty in KmallocType::all(false).into_iter().skip(1) {
        order.extend(create_order(page).into_iter().map(|c| (ty, c)));
    }
    let mut made: Vec<FreelistCache> = Vec::new();
    let mut out = Vec::new();
    for (ty, class) in order {
        let g = layout_cache(page, params, &slab_kmalloc_type_request(&class, ty), &made)
            .expect("every kmalloc class fits a slab");
        if ty == KmallocType::Normal {
            made.push(FreelistCache {
                index: class.index,
                size: g.size,
                off_slab: g.layout == FreelistLayout::OffSlab,
            });
        }
        out.push((ty, class, g));
    }
    out
}

/// The arguments `create_kmalloc_cache()` passes for `class` under SLAB: natural alignment
/// for power-of-two sizes (`create_boot_cache()`), `ARCH_KMALLOC_FLAGS = SLAB_HWCACHE_ALIGN`,
/// and `SLAB_RECLAIM_ACCOUNT` for the kmalloc-rcl-* copy.
pub fn slab_kmalloc_request(class: &KmallocClass, reclaim_account: bool) -> SlabCacheRequest {
    let ty = if reclaim_account {
        KmallocType::Reclaim
    } else {
        KmallocType::Normal
    };
    slab_kmalloc_type_request(class, ty)
}

/// [`slab_kmalloc_request`] for a cache of any type: its name and its type's flags
/// (`new_kmalloc_cache()`).
pub fn slab_kmalloc_type_request(class: &KmallocClass, ty: KmallocType) -> SlabCacheRequest {
    let align = if class.size.is_power_of_two() {
        class.size
    } else {
        ARCH_KMALLOC_MINALIGN
    };
    SlabCacheRequest {
        name: ty.cache_name(class),
        object_size: class.size,
        align,
        flags: SlabFlags {
            hwcache_align: true,
            ..ty.flags()
        },
        ctor: false,
    }
}

/// The normal kmalloc caches' geometry in creation order, each laid out while only the
/// caches before it exist (so an `OFF_SLAB` index array can only come from those).
pub fn slab_kmalloc_caches(page: &PageGeometry, params: &SlabParams) -> Vec<SlabCacheGeometry> {
    let mut made: Vec<FreelistCache> = Vec::new();
    let mut out = Vec::new();
    for class in slab_kmalloc_classes(page) {
        let g = layout_cache(page, params, &slab_kmalloc_request(&class, false), &made)
            .expect("every kmalloc class fits a slab");
        made.push(FreelistCache {
            index: class.index,
            size: g.size,
            off_slab: g.layout == FreelistLayout::OffSlab,
        });
        out.push(g);
    }
    out
}

/// What the `OFF_SLAB` check needs of every normal kmalloc cache, after boot.
pub(super) fn kmalloc_freelist_caches(
    page: &PageGeometry,
    params: &SlabParams,
) -> Vec<FreelistCache> {
    slab_kmalloc_classes(page)
        .into_iter()
        .zip(slab_kmalloc_caches(page, params))
        .map(|(class, g)| FreelistCache {
            index: class.index,
            size: g.size,
            off_slab: g.layout == FreelistLayout::OffSlab,
        })
        .collect()
}
