//! SLAB cache geometry: how Linux 6.6's `mm/slab.c` lays out a cache when it is created —
//! slot size, where each slab keeps its index array, slab order, objects per slab, colours —
//! and the per-CPU, shared and alien array sizes `enable_cpucache()` gives it (spec 3.1-3.4,
//! 3.10, and 1.1-1.5 for the SLAB kmalloc caches).
//!
//! Rules, as `__kmem_cache_create()` applies them (v6.6):
//! - The slot (`size`) is the object rounded up to the word and then to `align`; with one-byte
//!   indices it is at least `SLAB_OBJ_MIN_SIZE` (16), so no slab can need more than 255.
//! - Each slab has an index array of `num` `freelist_idx_t` entries (1 byte on 4 KiB pages,
//!   2 bytes on 16/64 KiB pages). Three places for it are tried in this order: inside the last
//!   free object (`OBJFREELIST`), in a separate kmalloc allocation (`OFF_SLAB`), at the end of
//!   the slab (`ON_SLAB`). The first that yields a layout wins.
//! - `calculate_slab_order()` walks orders from 0 and keeps the last acceptable one; it stops
//!   at the first acceptable order whose waste is at most 1/8, at `slab_max_order`, or at once
//!   for `SLAB_RECLAIM_ACCOUNT` caches. Objects larger than a slab keep going until one fits.
//! - Left-over bytes become colours: `colour = left_over / colour_off`.
//! - `OFF_SLAB` needs a kmalloc cache for the array, so the kmalloc caches' own geometry is
//!   part of the answer. [`slab_cache_geometry`] describes a cache created after boot, when
//!   every kmalloc cache exists; [`slab_kmalloc_caches`] lays the kmalloc caches out in
//!   creation order, each seeing only those made before it, as `kmem_cache_init()` does.
//!
//! Not modelled: `CONFIG_DEBUG_SLAB` (off in the profile), so red zone, poison and store-user
//! flags are accepted and ignored — they change nothing without it; `init_on_free` (boot
//! option, off by default; it would rule out `OBJFREELIST`); `SLAB_NOLEAKTRACE` (kmemleak's
//! own caches); KASAN. Machines are 64-bit with 64-byte cache lines (see `platform`).

use super::layout::{align_up, calculate_alignment, SlabFlags};
use super::platform::{PageGeometry, CACHE_LINE, WORD};
use super::GeometryError;
use serde::{Deserialize, Serialize};

mod kmalloc;

use kmalloc::kmalloc_freelist_caches;
pub use kmalloc::{
    slab_kmalloc_boot, slab_kmalloc_caches, slab_kmalloc_classes, slab_kmalloc_index,
    slab_kmalloc_request, slab_kmalloc_type_request,
};

/// `SLAB_MAX_ORDER_LO`: the default `slab_max_order` on machines with 32 MiB of RAM or less.
pub const SLAB_MAX_ORDER_LO: u32 = 0;
/// `SLAB_MAX_ORDER_HI`: `kmem_cache_init()` raises `slab_max_order` to it above 32 MiB.
pub const SLAB_MAX_ORDER_HI: u32 = 1;
/// `KMALLOC_SHIFT_LOW` under SLAB (include/linux/slab.h, v6.6): no kmalloc-8 or kmalloc-16.
pub const KMALLOC_SHIFT_LOW: u32 = 5;
/// `KMALLOC_MIN_SIZE = 1 << KMALLOC_SHIFT_LOW`.
pub const KMALLOC_MIN_SIZE: u32 = 1 << KMALLOC_SHIFT_LOW;
/// `SLAB_OBJ_MIN_SIZE`: `min(KMALLOC_MIN_SIZE, 16)`.
pub const SLAB_OBJ_MIN_SIZE: u32 = 16;
/// Entries of an alien cache when the cache's limit is above 1 (`alloc_alien_cache()`).
const ALIEN_LIMIT: u32 = 12;
/// RAM above which `slab_max_order` becomes `SLAB_MAX_ORDER_HI`.
const SLAB_MAX_ORDER_HI_RAM: u64 = 32 << 20;

/// Where a slab keeps its index array of free objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FreelistLayout {
    /// `CFLGS_OBJFREELIST_SLAB`: inside the free object that will be handed out last.
    ObjFreelist,
    /// `CFLGS_OFF_SLAB`: in a separate `kmalloc()` allocation.
    OffSlab,
    /// Neither flag: in the last `freelist_size` bytes of the slab.
    OnSlab,
}

/// The machine-wide values SLAB's geometry depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlabParams {
    /// `slab_max_order`, already clamped to `MAX_ORDER`.
    pub slab_max_order: u32,
    /// `num_possible_cpus()`: more than one gives every small cache a shared array.
    pub cpus: u32,
    /// Possible NUMA nodes: alien caches exist only with more than one.
    pub nodes: u32,
}

impl SlabParams {
    /// `slab_max_order` as `kmem_cache_init()` and `slab_max_order_setup()` (v6.6) leave it:
    /// the `slab_max_order=` value clamped to `MAX_ORDER` when given, else `SLAB_MAX_ORDER_HI`
    /// when the machine has more than 32 MiB of RAM and `SLAB_MAX_ORDER_LO` otherwise.
    pub fn new(
        page: &PageGeometry,
        cpus: u32,
        nodes: u32,
        memory_bytes: u64,
        slab_max_order: Option<u32>,
    ) -> Self {
        let slab_max_order = match slab_max_order {
            Some(order) => order.min(page.max_order),
            // totalram_pages() > (32 << 20) >> PAGE_SHIFT
            None if memory_bytes >> page.page_shift > SLAB_MAX_ORDER_HI_RAM >> page.page_shift => {
                SLAB_MAX_ORDER_HI
            }
            None => SLAB_MAX_ORDER_LO,
        };
        SlabParams {
            slab_max_order,
            cpus,
            nodes,
        }
    }
}

/// `kmem_cache_create(name, object_size, align, flags, ctor)` under SLAB.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlabCacheRequest {
    /// The name slabinfo prints.
    pub name: String,
    /// `object_size`.
    pub object_size: u32,
    /// The `align` argument; 0 for none.
    pub align: u32,
    /// Creation flags; only `hwcache_align`, `typesafe_by_rcu` and `reclaim_account`
    /// (`SLAB_RECLAIM_ACCOUNT`: stay at the lowest acceptable order) matter to SLAB's layout.
    pub flags: SlabFlags,
    /// Whether the cache has a constructor (rules out `OBJFREELIST`).
    pub ctor: bool,
}

impl SlabCacheRequest {
    /// A plain cache: no alignment, flags or constructor.
    pub fn new(name: &str, object_size: u32) -> Self {
        SlabCacheRequest {
            name: name.to_string(),
            object_size,
            align: 0,
            flags: SlabFlags::default(),
            ctor: false,
        }
    }
}

/// Everything `__kmem_cache_create()` and `enable_cpucache()` fix about a SLAB cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlabCacheGeometry {
    /// The cache's name.
    pub name: String,
    /// `cachep->object_size`.
    pub object_size: u32,
    /// `cachep->align`: at least a word.
    pub align: u32,
    /// `cachep->size`: the slot, the stride between objects (slabinfo's objsize).
    pub size: u32,
    /// `cachep->num`: objects per slab (slabinfo's objperslab).
    pub num: u32,
    /// `cachep->gfporder`: each slab is `2^gfporder` pages.
    pub gfporder: u32,
    /// `cachep->colour`: how many colour offsets successive slabs cycle through.
    pub colour: u32,
    /// `cachep->colour_off`: one colour step, `max(cache line, align)`.
    pub colour_off: u32,
    /// Bytes of a slab holding neither objects nor (on-slab) the index array.
    pub left_over: u32,
    /// Where each slab keeps its index array.
    pub layout: FreelistLayout,
    /// `sizeof(freelist_idx_t)`: 1 byte on 4 KiB pages, 2 on 16 and 64 KiB pages.
    pub idx_size: u32,
    /// `cachep->freelist_size = num * sizeof(freelist_idx_t)`.
    pub freelist_size: u32,
    /// For `OffSlab`: the size of the kmalloc cache each slab's index array is allocated from
    /// (a large kmalloc's `PAGE_SIZE << order` above `KMALLOC_MAX_CACHE_SIZE`).
    pub off_slab_kmalloc_size: Option<u32>,
    /// `cachep->limit`: capacity of each per-CPU array.
    pub limit: u32,
    /// `cachep->batchcount`: objects moved per refill or flush.
    pub batchcount: u32,
    /// `cachep->shared`: the per-node shared array holds `shared * batchcount` objects.
    pub shared: u32,
    /// Capacity of each alien cache (`alloc_alien_cache()`); used only with several nodes.
    pub alien_limit: u32,
}

impl SlabCacheGeometry {
    /// `1 << gfporder` (slabinfo's pagesperslab).
    pub fn pages_per_slab(&self) -> u32 {
        1 << self.gfporder
    }

    /// Capacity of a node's shared array (`setup_kmem_cache_node()`): 0 when there is none.
    pub fn shared_capacity(&self) -> u32 {
        self.shared * self.batchcount
    }
}

/// One slab order's outcome in `calculate_slab_order()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlabOrder {
    /// `cachep->gfporder`.
    pub gfporder: u32,
    /// `cachep->num`.
    pub num: u32,
    /// The returned left-over bytes.
    pub left_over: u32,
    /// For `OffSlab`: the size of the kmalloc cache that holds the index array.
    pub freelist_cache_size: Option<u32>,
}

/// `sizeof(freelist_idx_t)`: one byte when `(PAGE_SIZE >> 8) <= SLAB_OBJ_MIN_SIZE`
/// (`FREELIST_BYTE_INDEX`), i.e. on 4 KiB pages; two bytes otherwise.
pub fn freelist_idx_size(page: &PageGeometry) -> u32 {
    if page.page_size >> 8 <= SLAB_OBJ_MIN_SIZE {
        1
    } else {
        2
    }
}

/// `SLAB_OBJ_MAX_NUM`: the most objects an index of `freelist_idx_t` can number.
pub fn slab_obj_max_num(page: &PageGeometry) -> u32 {
    (1 << (8 * freelist_idx_size(page))) - 1
}

/// `cache_estimate()`: objects and left-over bytes of an order-`order` slab of `size`-byte
/// slots; an on-slab index array costs one index per object.
pub fn cache_estimate(
    page: &PageGeometry,
    order: u32,
    size: u32,
    layout: FreelistLayout,
) -> (u64, u64) {
    let bytes = page.bytes(order);
    let per_object = match layout {
        FreelistLayout::ObjFreelist | FreelistLayout::OffSlab => u64::from(size),
        FreelistLayout::OnSlab => u64::from(size + freelist_idx_size(page)),
    };
    (bytes / per_object, bytes % per_object)
}

/// A kmalloc cache as the `OFF_SLAB` check sees it.
#[derive(Clone, Copy, Debug)]
struct FreelistCache {
    index: u32,
    size: u32,
    off_slab: bool,
}

/// `calculate_slab_order()` (mm/slab.c, v6.6) for a cache whose `cachep->size` is still its
/// `object_size`, with `size` the slot, against the kmalloc caches that already exist.
fn order_search(
    page: &PageGeometry,
    params: &SlabParams,
    object_size: u32,
    size: u32,
    layout: FreelistLayout,
    reclaim_account: bool,
    kmalloc: &[FreelistCache],
) -> Option<SlabOrder> {
    let idx = u64::from(freelist_idx_size(page));
    let mut found = None;
    // KMALLOC_MAX_ORDER = KMALLOC_SHIFT_MAX - PAGE_SHIFT = MAX_ORDER (inclusive) in v6.6.
    for order in 0..=page.max_order {
        let (num, left) = cache_estimate(page, order, size, layout);
        if num == 0 {
            continue;
        }
        if num > u64::from(slab_obj_max_num(page)) {
            break;
        }
        let mut freelist_cache_size = None;
        if layout == FreelistLayout::OffSlab {
            let freelist_size = num * idx;
            let cache_size = if freelist_size > u64::from(page.kmalloc_max_cache_size()) {
                page.bytes(page.get_order(freelist_size))
            } else {
                // kmalloc_slab(freelist_size, 0, _RET_IP_): a cache not created yet cannot
                // be used, and an off-slab one could recurse in cache_grow_begin().
                let class = slab_kmalloc_index(page, freelist_size);
                let cache = kmalloc
                    .iter()
                    .find(|c| class.as_ref().is_some_and(|k| k.index == c.index));
                match cache {
                    Some(c) if !c.off_slab => u64::from(c.size),
                    _ => continue,
                }
            };
            // "check if off slab has enough benefit": cachep->size is still the object size
            // here; __kmem_cache_create() stores the slot size only once the layout is chosen.
            if cache_size > u64::from(object_size / 2) {
                continue;
            }
            freelist_cache_size = Some(cache_size as u32);
        }
        found = Some(SlabOrder {
            gfporder: order,
            num: num as u32,
            left_over: left as u32,
            freelist_cache_size,
        });
        if reclaim_account || order >= params.slab_max_order || left * 8 <= page.bytes(order) {
            break;
        }
    }
    found
}

/// `calculate_slab_order()` for a cache created after boot (every kmalloc cache exists):
/// the order, objects and left-over bytes `size`-byte slots get with the index array in
/// `layout`, or `None` when no order is acceptable. `object_size` only matters for `OffSlab`.
pub fn calculate_slab_order(
    page: &PageGeometry,
    params: &SlabParams,
    object_size: u32,
    size: u32,
    layout: FreelistLayout,
    reclaim_account: bool,
) -> Option<SlabOrder> {
    let kmalloc = kmalloc_freelist_caches(page, params);
    order_search(
        page,
        params,
        object_size,
        size,
        layout,
        reclaim_account,
        &kmalloc,
    )
}

/// Lays out one cache, given the kmalloc caches that exist when it is created.
fn layout_cache(
    page: &PageGeometry,
    params: &SlabParams,
    req: &SlabCacheRequest,
    kmalloc: &[FreelistCache],
) -> Result<SlabCacheGeometry, GeometryError> {
    let max_slab_bytes = page.kmalloc_max_size();
    if req.object_size == 0 {
        return Err(GeometryError::ZeroObjectSize);
    }
    if req.align != 0 && (!req.align.is_power_of_two() || u64::from(req.align) > max_slab_bytes) {
        return Err(GeometryError::Align { align: req.align });
    }
    // No slab holds more than the largest order; refusing here also keeps sums inside u32.
    if u64::from(req.object_size) > max_slab_bytes {
        return Err(GeometryError::ObjectTooLarge {
            size: req.object_size,
            max_slab_bytes,
        });
    }
    let idx = freelist_idx_size(page);
    // kmem_cache_create_usercopy() -> calculate_alignment(); then __kmem_cache_create().
    let align = calculate_alignment(&req.flags, req.align, req.object_size).max(WORD);
    let colour_off = CACHE_LINE.max(align);
    let mut size = align_up(align_up(req.object_size, WORD), align);
    if idx == 1 && size < SLAB_OBJ_MIN_SIZE {
        size = align_up(SLAB_OBJ_MIN_SIZE, align);
    }
    let search = |layout| {
        order_search(
            page,
            params,
            req.object_size,
            size,
            layout,
            req.flags.reclaim_account,
            kmalloc,
        )
    };

    // set_objfreelist_slab_cache(): the array must fit in one object, which must not be
    // touched by a constructor or by RCU readers while free.
    let objfreelist = if req.ctor || req.flags.typesafe_by_rcu {
        None
    } else {
        search(FreelistLayout::ObjFreelist).filter(|o| o.num * idx <= req.object_size)
    };
    // set_off_slab_cache(): not worth it when the left-over space could hold the array.
    let off_slab = || search(FreelistLayout::OffSlab).filter(|o| o.left_over < o.num * idx);
    let (layout, order) = if let Some(o) = objfreelist {
        (FreelistLayout::ObjFreelist, o)
    } else if let Some(o) = off_slab() {
        (FreelistLayout::OffSlab, o)
    } else {
        // set_on_slab_cache(); failing that, __kmem_cache_create() returns -E2BIG.
        let o = search(FreelistLayout::OnSlab).ok_or(GeometryError::ObjectTooLarge {
            size,
            max_slab_bytes,
        })?;
        (FreelistLayout::OnSlab, o)
    };

    let (limit, batchcount, shared) = enable_cpucache(page, params, size);
    Ok(SlabCacheGeometry {
        name: req.name.clone(),
        object_size: req.object_size,
        align,
        size,
        num: order.num,
        gfporder: order.gfporder,
        colour: order.left_over / colour_off,
        colour_off,
        left_over: order.left_over,
        layout,
        idx_size: idx,
        freelist_size: order.num * idx,
        off_slab_kmalloc_size: order.freelist_cache_size,
        limit,
        batchcount,
        shared,
        // alloc_alien_cache(): `if (limit > 1) limit = 12;`
        alien_limit: if limit > 1 { ALIEN_LIMIT } else { limit },
    })
}

/// `enable_cpucache()` (v6.6, no `DEBUG_SLAB`) for a `size`-byte slot: `(limit, batchcount,
/// shared)` — per-CPU array limit by slot size, a shared array on SMP for caches of
/// page-sized objects or smaller, and half the limit per batch.
pub fn enable_cpucache(page: &PageGeometry, params: &SlabParams, size: u32) -> (u32, u32, u32) {
    let limit = if size > 131072 {
        1
    } else if size > page.page_size {
        8
    } else if size > 1024 {
        24
    } else if size > 256 {
        54
    } else {
        120
    };
    let shared = if size <= page.page_size && params.cpus > 1 {
        8
    } else {
        0
    };
    // batchcount = (limit + 1) / 2
    (limit, limit.div_ceil(2), shared)
}

/// One SLAB cache's geometry, created after boot with `kmem_cache_create()`, or why the
/// kernel would refuse it.
pub fn slab_cache_geometry(
    page: &PageGeometry,
    params: &SlabParams,
    req: &SlabCacheRequest,
) -> Result<SlabCacheGeometry, GeometryError> {
    layout_cache(page, params, req, &kmalloc_freelist_caches(page, params))
}

/// `init_cache_node()`: free objects a node keeps in its slabs before `free_block()` starts
/// destroying free slabs, `(1 + cpus on the node) * batchcount + num`.
pub fn free_limit(g: &SlabCacheGeometry, cpus_on_node: u32) -> u32 {
    (1 + cpus_on_node) * g.batchcount + g.num
}

#[cfg(test)]
mod tests;
