//! The kmalloc cache table both allocators share (mm/slab_common.c and include/linux/slab.h,
//! v6.6): `kmalloc_caches[type][index]`, the cache types and their names (`kmalloc_info[]`),
//! the flags `new_kmalloc_cache()` gives each type, and `kmalloc_type()`, which picks the type
//! of a request from its gfp flags and, with `CONFIG_RANDOM_KMALLOC_CACHES`, its caller.
//!
//! Rules:
//! - The profile is a distro build of 6.6 (Debian 12's configuration of that era):
//!   `CONFIG_MEMCG_KMEM=y` (the kmalloc-cg-* caches, and `SLAB_NO_MERGE` on the normal ones),
//!   `CONFIG_ZONE_DMA=y` (dma-kmalloc-*), `CONFIG_SLUB_TINY=n` (kmalloc-rcl-*) and
//!   `CONFIG_HARDENED_USERCOPY=y` (every kmalloc cache has a usercopy region the size of its
//!   objects, so none is ever a merge target). `CONFIG_RANDOM_KMALLOC_CACHES` is a scenario
//!   switch (`switch random_kmalloc_caches on`), SLUB only, as its Kconfig entry requires.
//! - Types are numbered as the kernel numbers them with `CONFIG_RANDOM_KMALLOC_CACHES=y`:
//!   `KMALLOC_NORMAL` 0, the 15 random copies 1..=15, `KMALLOC_RECLAIM` 16, `KMALLOC_DMA` 17,
//!   `KMALLOC_CGROUP` 18. Without the switch the random rows stay empty (the kernel then
//!   numbers the other types 1..=3; only the order matters, and it is the same).
//! - `create_kmalloc_caches()` creates the types in that order, each from the smallest index
//!   up (96 right after 64, 192 right after 128), so `/proc/slabinfo`, newest first, lists
//!   kmalloc-cg-* first and kmalloc-* last.

use crate::geometry::kmalloc::KmallocClass;
use crate::geometry::SlabFlags;
use crate::gfp::{Gfp, __GFP_ACCOUNT, __GFP_DMA, __GFP_RECLAIMABLE};
use crate::ids::CacheId;
use serde::Serialize;

/// `RANDOM_KMALLOC_CACHES_NR`: copies of the normal caches with the switch on.
pub const RANDOM_KMALLOC_CACHES_NR: u8 = 15;
/// `NR_KMALLOC_TYPES` with `CONFIG_RANDOM_KMALLOC_CACHES=y`.
pub const NR_KMALLOC_TYPES: usize = RANDOM_KMALLOC_CACHES_NR as usize + 4;
/// `GOLDEN_RATIO_64` (include/linux/hash.h).
pub const GOLDEN_RATIO_64: u64 = 0x61C8_8646_80B5_83EB;

/// `enum kmalloc_cache_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum KmallocType {
    /// `KMALLOC_NORMAL`: kmalloc-*.
    Normal,
    /// `KMALLOC_RANDOM_START + n`, n in 1..=15: kmalloc-rnd-NN-*.
    Random(u8),
    /// `KMALLOC_RECLAIM`: kmalloc-rcl-*, for `__GFP_RECLAIMABLE`.
    Reclaim,
    /// `KMALLOC_DMA`: dma-kmalloc-*, for `__GFP_DMA`.
    Dma,
    /// `KMALLOC_CGROUP`: kmalloc-cg-*, for `__GFP_ACCOUNT`.
    Cgroup,
}

impl KmallocType {
    /// The type's number (see the module rules).
    pub fn slot(self) -> usize {
        let random = RANDOM_KMALLOC_CACHES_NR as usize;
        match self {
            KmallocType::Normal => 0,
            KmallocType::Random(n) => n as usize,
            KmallocType::Reclaim => random + 1,
            KmallocType::Dma => random + 2,
            KmallocType::Cgroup => random + 3,
        }
    }

    /// Every type `create_kmalloc_caches()` creates, in its order.
    pub fn all(random_kmalloc_caches: bool) -> Vec<KmallocType> {
        let mut out = vec![KmallocType::Normal];
        if random_kmalloc_caches {
            out.extend((1..=RANDOM_KMALLOC_CACHES_NR).map(KmallocType::Random));
        }
        out.extend([KmallocType::Reclaim, KmallocType::Dma, KmallocType::Cgroup]);
        out
    }

    /// `kmalloc_info[index].name[type]`: e.g. `kmalloc-cg-1k`, `dma-kmalloc-96`,
    /// `kmalloc-rnd-07-64`.
    pub fn cache_name(self, class: &KmallocClass) -> String {
        let size = class.short_size();
        match self {
            KmallocType::Normal => format!("kmalloc-{size}"),
            KmallocType::Random(n) => format!("kmalloc-rnd-{n:02}-{size}"),
            KmallocType::Reclaim => format!("kmalloc-rcl-{size}"),
            KmallocType::Dma => format!("dma-kmalloc-{size}"),
            KmallocType::Cgroup => format!("kmalloc-cg-{size}"),
        }
    }

    /// The flags `new_kmalloc_cache()` adds for the type, on top of the allocator's own
    /// (`SLAB_HWCACHE_ALIGN` under SLAB).
    pub fn flags(self) -> SlabFlags {
        let mut flags = SlabFlags::default();
        match self {
            KmallocType::Reclaim => flags.reclaim_account = true,
            KmallocType::Cgroup => flags.account = true,
            KmallocType::Dma => flags.cache_dma = true,
            // CONFIG_RANDOM_KMALLOC_CACHES and CONFIG_MEMCG_KMEM respectively.
            KmallocType::Random(_) | KmallocType::Normal => flags.no_merge = true,
        }
        flags
    }
}

/// A kmalloc cache's place in `kmalloc_caches[type][index]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KmallocSlot {
    #[serde(rename = "type")]
    pub ty: KmallocType,
    pub index: u32,
}

/// `hash_64()` on a 64-bit kernel (`hash_64_generic()`): the top `bits` bits of
/// `val * GOLDEN_RATIO_64`.
pub fn hash_64(val: u64, bits: u32) -> u32 {
    (val.wrapping_mul(GOLDEN_RATIO_64) >> (64 - bits)) as u32
}

/// `kmalloc_type(flags, caller)`, v6.6: a request with none of `__GFP_DMA`,
/// `__GFP_RECLAIMABLE` and `__GFP_ACCOUNT` is normal — with random kmalloc caches one of 16
/// (the normal cache and its 15 copies) picked by `hash_64(caller ^ random_kmalloc_seed, 4)`;
/// otherwise DMA wins over reclaimable, which wins over accounted.
pub fn kmalloc_type(flags: Gfp, caller: u64, random_kmalloc_seed: Option<u64>) -> KmallocType {
    if !flags.intersects(__GFP_RECLAIMABLE | __GFP_DMA | __GFP_ACCOUNT) {
        let Some(seed) = random_kmalloc_seed else {
            return KmallocType::Normal;
        };
        // ilog2(RANDOM_KMALLOC_CACHES_NR + 1) = 4
        return match hash_64(caller ^ seed, 4) {
            0 => KmallocType::Normal,
            n => KmallocType::Random(n as u8),
        };
    }
    if flags.intersects(__GFP_DMA) {
        KmallocType::Dma
    } else if flags.intersects(__GFP_RECLAIMABLE) {
        KmallocType::Reclaim
    } else {
        KmallocType::Cgroup
    }
}

/// `kmalloc_caches[type][index]`: the cache id of each kmalloc cache, `None` where there is
/// none (an index below `KMALLOC_SHIFT_LOW`, a random row without the switch, a destroyed
/// cache).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KmallocCaches {
    table: Vec<Vec<Option<CacheId>>>,
}

impl KmallocCaches {
    /// The cache at `[ty][index]`.
    pub fn get(&self, ty: KmallocType, index: u32) -> Option<CacheId> {
        self.table.get(ty.slot())?.get(index as usize).copied()?
    }

    /// Records cache `id` at `slot` (`new_kmalloc_cache()`).
    pub fn set(&mut self, slot: KmallocSlot, id: CacheId) {
        if self.table.len() < NR_KMALLOC_TYPES {
            self.table.resize(NR_KMALLOC_TYPES, Vec::new());
        }
        let row = &mut self.table[slot.ty.slot()];
        let i = slot.index as usize;
        if row.len() <= i {
            row.resize(i + 1, None);
        }
        row[i] = Some(id);
    }

    /// Empties `slot`.
    pub fn clear(&mut self, slot: KmallocSlot) {
        if let Some(entry) = self
            .table
            .get_mut(slot.ty.slot())
            .and_then(|row| row.get_mut(slot.index as usize))
        {
            *entry = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfp::{GFP_ATOMIC, GFP_DMA, GFP_KERNEL, GFP_KERNEL_ACCOUNT};

    #[test]
    fn gfp_bits_pick_the_type_in_the_kernels_priority() {
        let t = |g| kmalloc_type(g, 0, None);
        assert_eq!(t(GFP_KERNEL), KmallocType::Normal);
        assert_eq!(t(GFP_ATOMIC), KmallocType::Normal);
        assert_eq!(t(GFP_KERNEL_ACCOUNT), KmallocType::Cgroup);
        assert_eq!(t(GFP_KERNEL | __GFP_RECLAIMABLE), KmallocType::Reclaim);
        assert_eq!(
            t(GFP_KERNEL_ACCOUNT | __GFP_RECLAIMABLE),
            KmallocType::Reclaim
        );
        assert_eq!(
            t(GFP_DMA | __GFP_RECLAIMABLE | __GFP_ACCOUNT),
            KmallocType::Dma
        );
        // Only normal requests are spread over the random copies.
        let seed = Some(0x1234_5678_9abc_def0);
        assert_eq!(
            kmalloc_type(GFP_KERNEL_ACCOUNT, 7, seed),
            KmallocType::Cgroup
        );
    }

    #[test]
    fn hash_64_is_the_multiplicative_hash() {
        // The top four bits of GOLDEN_RATIO_64 itself (0x61c8...) are 6.
        assert_eq!(hash_64(1, 4), 6);
        assert_eq!(hash_64(0, 4), 0);
        // 2 * 0x61c8.. = 0xc390..: top nibble 0xc.
        assert_eq!(hash_64(2, 4), 0xc);
        assert_eq!(hash_64(2, 8), 0xc3);
    }

    #[test]
    fn names_follow_kmalloc_info() {
        let c = KmallocClass::from_index;
        assert_eq!(KmallocType::Normal.cache_name(&c(1)), "kmalloc-96");
        assert_eq!(KmallocType::Cgroup.cache_name(&c(10)), "kmalloc-cg-1k");
        assert_eq!(KmallocType::Reclaim.cache_name(&c(3)), "kmalloc-rcl-8");
        assert_eq!(KmallocType::Dma.cache_name(&c(13)), "dma-kmalloc-8k");
        assert_eq!(
            KmallocType::Random(7).cache_name(&c(6)),
            "kmalloc-rnd-07-64"
        );
        assert_eq!(KmallocType::all(false).len(), 4);
        let all = KmallocType::all(true);
        assert_eq!(all.len(), NR_KMALLOC_TYPES);
        let slots: Vec<usize> = all.iter().map(|t| t.slot()).collect();
        assert_eq!(slots, (0..NR_KMALLOC_TYPES).collect::<Vec<_>>());
    }

    #[test]
    fn the_table_finds_what_was_set() {
        let mut t = KmallocCaches::default();
        let slot = KmallocSlot {
            ty: KmallocType::Cgroup,
            index: 6,
        };
        assert_eq!(t.get(KmallocType::Cgroup, 6), None);
        t.set(slot, CacheId(42));
        assert_eq!(t.get(KmallocType::Cgroup, 6), Some(CacheId(42)));
        assert_eq!(t.get(KmallocType::Normal, 6), None);
        t.clear(slot);
        assert_eq!(t.get(KmallocType::Cgroup, 6), None);
    }
}
