//! Object layout: `calculate_alignment()` (mm/slab_common.c) and `calculate_sizes()`
//! (mm/slub.c), v6.6 — spec 1.5 and 2.2.
//!
//! A SLUB object slot is, in order: [left red zone] object [right red zone / word padding]
//! [free pointer, when it cannot live inside the object] [two `struct track`s + orig size]
//! [alignment padding]. Without debug flags only the object, maybe an external free pointer,
//! and padding remain.

use super::platform::{ARCH_KMALLOC_MINALIGN, CACHE_LINE, WORD};
use serde::{Deserialize, Serialize};

/// `sizeof(struct track)` in v6.6 with `CONFIG_STACKDEPOT` (selected by `CONFIG_SLUB_DEBUG`):
/// `addr` 8 + `handle` 4 + `cpu` 4 + `pid` 4 + padding 4 + `when` 8. Sample 6's debug
/// `kmalloc-1k` (objsize 3072) confirms it.
pub const TRACK_SIZE: u32 = 32;

/// The `SLAB_*` creation flags that change layout or the per-CPU limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(default, deny_unknown_fields)]
pub struct SlabFlags {
    /// `SLAB_HWCACHE_ALIGN`: align objects to a (possibly halved) cache line.
    pub hwcache_align: bool,
    /// `SLAB_TYPESAFE_BY_RCU`: the free pointer must not overlay the object.
    pub typesafe_by_rcu: bool,
    /// `SLAB_POISON` (`slub_debug=P`).
    pub poison: bool,
    /// `SLAB_RED_ZONE` (`slub_debug=Z`).
    pub red_zone: bool,
    /// `SLAB_STORE_USER` (`slub_debug=U`).
    pub store_user: bool,
    /// `SLAB_CONSISTENCY_CHECKS` (`slub_debug=F`): no layout change, but a debug cache.
    pub consistency_checks: bool,
    /// `SLAB_ACCOUNT`: objects are charged to the allocating memory cgroup (the kmalloc-cg-*
    /// caches have it). Memory cgroups are not modelled; the flag matters to merging and to
    /// the sysfs id (`A`).
    pub account: bool,
    /// `SLAB_RECLAIM_ACCOUNT`: objects count as reclaimable (the kmalloc-rcl-* caches have
    /// it). Under SLAB it also keeps the slab order at the lowest acceptable one.
    pub reclaim_account: bool,
    /// `SLAB_CACHE_DMA`: slabs from `ZONE_DMA` (the dma-kmalloc-* caches have it). The machine
    /// has one zone per node, so such slabs come from the same pages as any other.
    pub cache_dma: bool,
    /// `SLAB_CACHE_DMA32`: slabs from `ZONE_DMA32`; modelled like `cache_dma`.
    pub cache_dma32: bool,
    /// `SLAB_NO_MERGE` (v6.5+): never merge this cache with another. The normal and random
    /// kmalloc caches have it (`new_kmalloc_cache()` with `CONFIG_MEMCG_KMEM`).
    pub no_merge: bool,
    /// `SLAB_NO_SHEAVES` (7.2): no per-CPU sheaves, as the bootstrap caches `kmem_cache` and
    /// `kmem_cache_node` are created. Not a flag a scenario sets.
    #[serde(skip_serializing_if = "is_false")]
    #[cfg_attr(feature = "ts-export", ts(skip))]
    pub no_sheaves: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SlabFlags {
    /// `kmem_cache_debug()`: any of `SLAB_DEBUG_FLAGS`. Such caches have no cpu partial list.
    pub fn is_debug(&self) -> bool {
        self.poison || self.red_zone || self.store_user || self.consistency_checks
    }

    /// The flags of `SLAB_NEVER_MERGE` (mm/slab_common.c, v6.6) this model has: red zones,
    /// poisoning, user tracking, `SLAB_TYPESAFE_BY_RCU` and `SLAB_NO_MERGE`.
    /// `SLAB_CONSISTENCY_CHECKS` is not among them, so `slub_debug=F` alone does not stop
    /// `find_mergeable()`.
    pub fn never_merge(&self) -> bool {
        self.red_zone || self.poison || self.store_user || self.typesafe_by_rcu || self.no_merge
    }

    /// The flags of `SLAB_MERGE_SAME`, which two caches must share to merge: reclaim-account,
    /// DMA, DMA32 and account.
    pub fn merge_same(&self) -> (bool, bool, bool, bool) {
        (
            self.reclaim_account,
            self.cache_dma,
            self.cache_dma32,
            self.account,
        )
    }
}

/// `calculate_alignment(flags, align, size)`.
pub fn calculate_alignment(flags: &SlabFlags, align: u32, size: u32) -> u32 {
    let mut align = align;
    if flags.hwcache_align {
        // Small objects get a smaller "cache line" so that several share one line.
        let mut ralign = CACHE_LINE;
        while size <= ralign / 2 {
            ralign /= 2;
        }
        align = align.max(ralign);
    }
    // arch_slab_minalign() is ARCH_KMALLOC_MINALIGN's neighbour: 8 on the machines we model.
    align = align.max(ARCH_KMALLOC_MINALIGN);
    align_up(align, WORD)
}

/// The sizes and offsets `calculate_sizes()` settles before `calculate_order()` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectLayout {
    /// `s->object_size`.
    pub object_size: u32,
    /// `s->size`: the whole slot, the stride between objects.
    pub size: u32,
    /// `s->inuse`: where metadata after the object starts.
    pub inuse: u32,
    /// `s->offset`: where a free object keeps its free pointer.
    pub offset: u32,
    /// `s->red_left_pad`.
    pub red_left_pad: u32,
    /// `s->align`.
    pub align: u32,
}

/// `calculate_sizes()` without the order step. `kmalloc` is `SLAB_KMALLOC`, which with
/// `SLAB_STORE_USER` makes SLUB also record the requested size (`slub_debug_orig_size()`).
pub fn calculate_sizes(
    object_size: u32,
    align: u32,
    flags: &SlabFlags,
    has_ctor: bool,
    kmalloc: bool,
) -> ObjectLayout {
    layout(
        object_size,
        align,
        flags,
        kmalloc,
        FreePointer::V6_6 { ctor: has_ctor },
    )
}

/// Where a later kernel's `calculate_sizes()` may keep the free pointer: the arguments of
/// `struct kmem_cache_args` that decide it (6.12+).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreePointerArgs {
    /// Whether the cache has a constructor.
    pub ctor: bool,
    /// `args->use_freeptr_offset` with `args->freeptr_offset`: a word inside the object the
    /// cache's user leaves alone, for the free pointer.
    pub freeptr_offset: Option<u32>,
    /// 7.0+: a constructor cache may use `freeptr_offset` too (6.12-6.19: only
    /// `SLAB_TYPESAFE_BY_RCU` caches).
    pub ctor_may_use_offset: bool,
    /// `sizeof` the `orig_size` field `SLAB_STORE_USER` adds to a kmalloc cache's slot:
    /// `unsigned long` in 6.12 and 7.2, `unsigned int` in 6.18 (as in 6.6).
    pub orig_size_bytes: u32,
}

/// `calculate_sizes()` of 6.12 and later (mm/slub.c, v6.12.117 / v6.18.15 / v7.2.13): the free
/// pointer goes after the object for `SLAB_TYPESAFE_BY_RCU` without `freeptr_offset`, poison,
/// a constructor (7.0+: one without `freeptr_offset`), or a red zone on an object smaller
/// than a word or on one whose kmalloc size is recorded; to `freeptr_offset` when the cache
/// may use one; else near the middle. (6.6 moved it out for any recorded kmalloc size, with
/// or without a red zone.)
pub fn calculate_sizes_args(
    object_size: u32,
    align: u32,
    flags: &SlabFlags,
    kmalloc: bool,
    args: &FreePointerArgs,
) -> ObjectLayout {
    layout(
        object_size,
        align,
        flags,
        kmalloc,
        FreePointer::Later(*args),
    )
}

/// The free-pointer rule of one kernel version.
#[derive(Clone, Copy)]
enum FreePointer {
    V6_6 { ctor: bool },
    Later(FreePointerArgs),
}

fn layout(
    object_size: u32,
    align: u32,
    flags: &SlabFlags,
    kmalloc: bool,
    rule: FreePointer,
) -> ObjectLayout {
    let mut size = align_up(object_size, WORD);
    // Room for the right red zone when the object has no word padding of its own.
    if flags.red_zone && size == object_size {
        size += WORD;
    }
    let inuse = size;
    let orig_size = flags.store_user && kmalloc;
    let (outside, inside) = match rule {
        FreePointer::V6_6 { ctor } => (
            orig_size
                || flags.typesafe_by_rcu
                || flags.poison
                || (flags.red_zone && object_size < WORD)
                || ctor,
            None,
        ),
        FreePointer::Later(a) => {
            let ctor_out = a.ctor && !(a.ctor_may_use_offset && a.freeptr_offset.is_some());
            let outside = (flags.typesafe_by_rcu && a.freeptr_offset.is_none())
                || flags.poison
                || ctor_out
                || (flags.red_zone && (object_size < WORD || orig_size));
            let may_use = flags.typesafe_by_rcu || (a.ctor && a.ctor_may_use_offset);
            (outside, a.freeptr_offset.filter(|_| may_use))
        }
    };
    let offset = if outside {
        // The object's bytes must stay intact while free: keep the pointer after it.
        let offset = size;
        size += WORD;
        offset
    } else if let Some(offset) = inside {
        // A word the cache's user promised not to need while the object is free.
        offset
    } else {
        // Inside the object, near the middle, so that small overflows off either end do
        // not hit it.
        align_down(object_size / 2, WORD)
    };
    if flags.store_user {
        size += 2 * TRACK_SIZE;
        if kmalloc {
            size += match rule {
                FreePointer::V6_6 { .. } => 4, // the unsigned int orig_size
                FreePointer::Later(a) => a.orig_size_bytes,
            };
        }
    }
    let mut red_left_pad = 0;
    if flags.red_zone {
        size += WORD;
        red_left_pad = align_up(WORD, align);
        size += red_left_pad;
    }
    ObjectLayout {
        object_size,
        size: align_up(size, align),
        inuse,
        offset,
        red_left_pad,
        align,
    }
}

/// `ALIGN(x, a)` for a power-of-two `a`.
pub fn align_up(x: u32, a: u32) -> u32 {
    (x + a - 1) & !(a - 1)
}

/// `ALIGN_DOWN(x, a)` for a power-of-two `a`.
pub fn align_down(x: u32, a: u32) -> u32 {
    x & !(a - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hw() -> SlabFlags {
        SlabFlags {
            hwcache_align: true,
            ..SlabFlags::default()
        }
    }

    #[test]
    fn alignment_examples_of_spec_1_5() {
        assert_eq!(calculate_alignment(&hw(), 0, 24), 32);
        assert_eq!(calculate_alignment(&hw(), 0, 100), 64);
        assert_eq!(calculate_alignment(&SlabFlags::default(), 0, 100), 8);
        assert_eq!(calculate_alignment(&SlabFlags::default(), 4, 100), 8);
        assert_eq!(calculate_alignment(&SlabFlags::default(), 256, 100), 256);
        assert_eq!(calculate_alignment(&hw(), 0, 8), 8);
    }

    #[test]
    fn free_pointer_placement_examples_of_spec_2_2() {
        let plain = calculate_sizes(100, 8, &SlabFlags::default(), false, false);
        assert_eq!((plain.size, plain.offset, plain.inuse), (104, 48, 104));
        let ctor = calculate_sizes(100, 8, &SlabFlags::default(), true, false);
        assert_eq!((ctor.size, ctor.offset), (112, 104));
        let aligned = calculate_sizes(100, 64, &hw(), false, false);
        assert_eq!((aligned.size, aligned.offset), (128, 48));
        let rcu = SlabFlags {
            typesafe_by_rcu: true,
            ..SlabFlags::default()
        };
        assert_eq!(calculate_sizes(64, 64, &rcu, false, false).offset, 64);
    }

    #[test]
    fn debug_kmalloc_1k_matches_sample_6() {
        // slub_debug=FZPU on a kmalloc-1k cache (natural alignment 1024): 3072 bytes a slot.
        let debug = SlabFlags {
            poison: true,
            red_zone: true,
            store_user: true,
            consistency_checks: true,
            ..SlabFlags::default()
        };
        let l = calculate_sizes(1024, 1024, &debug, false, true);
        assert_eq!(l.size, 3072);
        assert_eq!(l.red_left_pad, 1024);
        assert_eq!(l.inuse, 1032);
        assert_eq!(l.offset, 1032);
    }

    #[test]
    fn red_zone_on_tiny_objects_moves_the_pointer_out() {
        let rz = SlabFlags {
            red_zone: true,
            ..SlabFlags::default()
        };
        let l = calculate_sizes(4, 8, &rz, false, false);
        // 4 -> 8 (word), pointer after it at 8, +8 right red zone, +8 left pad = 32
        assert_eq!((l.offset, l.size, l.red_left_pad), (8, 32, 8));
    }
}
