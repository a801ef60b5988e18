//! Which SLUB a profile runs: the versions whose rules differ, and the questions those rules
//! answer differently (spec after 6.6, sections 1-4). A profile names one; the geometry and
//! SLUB's paths ask it rather than the profile's id.
//!
//! Rules:
//! - The versions are ordered: `>= V6_12` reads "since the change that 6.12 is the first
//!   profile to have" (the kernel release it landed in is in the comment where it is asked).
//! - A question is a method here when more than one place asks it; a one-off test of the
//!   version sits where the kernel's code differs, with the release named.

use super::kmalloc::{kmalloc_target, KmallocTarget};
use super::layout::SlabFlags;
use super::platform::{PageGeometry, WORD};
use super::{CacheRequest, GeometryError};
use serde::Serialize;

/// The SLUB of one profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum SlubVersion {
    /// Linux 6.6 (spec kernel-6.6).
    V6_6,
    /// Linux 6.12: the 6.7 order rule and PCP tuning, 6.8's delayed freezing and the end of
    /// SLAB, 6.11's kmalloc alignment and bucket caches, 6.12's `kmem_cache_args`.
    V6_12,
    /// Linux 6.18: 6.12 plus per-CPU sheaves and the per-node barn for caches that ask.
    V6_18,
    /// Linux 7.2: sheaves for every cache; no cpu slab, cpu partial list or tid (7.0).
    V7_2,
}

/// How a version's caches get per-CPU sheaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sheaves {
    /// No such thing (before 6.18).
    None,
    /// Only a cache created with `kmem_cache_args.sheaf_capacity` (6.18).
    OptIn,
    /// Every cache but the debug ones and the bootstrap caches (7.0+).
    Every,
}

/// sizeof(struct slab_sheaf) without its objects: a 16-byte union, `cache`, `size`, `node`.
pub const SLAB_SHEAF_HEADER: u32 = 32;

impl SlubVersion {
    /// The kernel release, as the profile id writes it.
    pub fn release(self) -> &'static str {
        match self {
            SlubVersion::V6_6 => "6.6",
            SlubVersion::V6_12 => "6.12",
            SlubVersion::V6_18 => "6.18",
            SlubVersion::V7_2 => "7.2",
        }
    }

    /// Whether SLUB has `struct kmem_cache_cpu`: a cpu slab, its lockless freelist and tid,
    /// and (with `CONFIG_SLUB_CPU_PARTIAL`) the cpu partial list. 7.0 removed them all.
    pub fn has_cpu_slab(self) -> bool {
        self < SlubVersion::V7_2
    }

    /// Whether a cache may have a cpu partial list (`kmem_cache_has_cpu_partial()` can be true).
    pub fn has_cpu_partial(self) -> bool {
        self.has_cpu_slab()
    }

    /// 6.8: only the cpu slab is frozen; a cpu partial slab is an unfrozen slab that is on no
    /// list (`freeze_slab()`, `__put_partials()`).
    pub fn delayed_freezing(self) -> bool {
        self >= SlubVersion::V6_12
    }

    /// 6.7: the per-CPU page lists tune themselves (`high` between `high_min` and `high_max`,
    /// refills of `batch << alloc_factor`, frees of as many pages as `free_count` says).
    pub fn pcp_auto_tuning(self) -> bool {
        self >= SlubVersion::V6_12
    }

    /// 6.15: a run of high-order frees flushes the list only once `free_count` reaches
    /// `batch + high_min / 2` (before: `batch`).
    pub fn pcp_free_high_half_min(self) -> bool {
        self >= SlubVersion::V6_18
    }

    /// How caches get sheaves.
    pub fn sheaves(self) -> Sheaves {
        match self {
            SlubVersion::V6_6 | SlubVersion::V6_12 => Sheaves::None,
            SlubVersion::V6_18 => Sheaves::OptIn,
            SlubVersion::V7_2 => Sheaves::Every,
        }
    }

    /// Refuses creation arguments this version does not have.
    pub(super) fn check_args(self, req: &CacheRequest) -> Result<(), GeometryError> {
        if req.freeptr_offset.is_some() && self < SlubVersion::V6_12 {
            return Err(GeometryError::NotInVersion {
                arg: "freeptr_offset",
                since: "6.12",
                version: self.release(),
            });
        }
        if req.sheaf_capacity.is_some() && self < SlubVersion::V6_18 {
            return Err(GeometryError::NotInVersion {
                arg: "sheaf_capacity",
                since: "6.18",
                version: self.release(),
            });
        }
        Ok(())
    }

    /// `create_cache()`'s check of `freeptr_offset` (mm/slab_common.c, v6.12.117 and
    /// v7.2.13): inside the object, word-aligned, and only for a `SLAB_TYPESAFE_BY_RCU` cache
    /// (7.0+: or one with a constructor); else `-EINVAL`.
    pub(super) fn check_freeptr_offset(
        self,
        offset: u32,
        object_size: u32,
        flags: &SlabFlags,
        ctor: bool,
    ) -> Result<(), GeometryError> {
        let kind_ok = flags.typesafe_by_rcu || (ctor && self >= SlubVersion::V7_2);
        if offset >= object_size || !kind_ok || offset % WORD != 0 {
            return Err(GeometryError::FreeptrOffset {
                offset,
                object_size,
                ctor_allowed: self >= SlubVersion::V7_2,
            });
        }
        Ok(())
    }

    /// `s->sheaf_capacity` of a cache laid out with slots of `size` bytes: `None` where
    /// `struct kmem_cache` has no such field (before 6.18).
    pub(super) fn sheaf_capacity(
        self,
        page: &PageGeometry,
        req: &CacheRequest,
        flags: &SlabFlags,
        size: u32,
    ) -> Option<u32> {
        match self.sheaves() {
            Sheaves::None => None,
            // do_kmem_cache_create(), v6.18.15: the capacity asked for, taken as it is,
            // unless the cache is a debug one.
            Sheaves::OptIn => Some(if flags.is_debug() {
                0
            } else {
                req.sheaf_capacity.unwrap_or(0)
            }),
            Sheaves::Every => Some(calculate_sheaf_capacity(
                page,
                flags,
                size,
                req.sheaf_capacity.unwrap_or(0),
            )),
        }
    }
}

/// `calculate_sheaf_capacity()` (mm/slub.c, v7.2.13): half of what 6.x's `set_cpu_partial()`
/// allowed a CPU in objects (two sheaves per CPU), grown until a sheaf exactly fills the
/// kmalloc bucket it is allocated from, and at least what the creator asked for. A debug cache
/// and a bootstrap cache (`SLAB_NO_SHEAVES`) have none. A kmalloc cache gets the same answer
/// from `bootstrap_kmalloc_sheaves()`, with nothing asked.
pub fn calculate_sheaf_capacity(
    page: &PageGeometry,
    flags: &SlabFlags,
    size: u32,
    asked: u32,
) -> u32 {
    if flags.is_debug() || flags.no_sheaves {
        return 0;
    }
    let base = if size >= page.page_size {
        4
    } else if size >= 1024 {
        12
    } else if size >= 256 {
        26
    } else {
        60
    };
    let bytes = SLAB_SHEAF_HEADER + WORD * base;
    // kmalloc_size_roundup(): the size of the kmalloc cache such a sheaf comes from.
    let rounded = match kmalloc_target(page, u64::from(bytes)) {
        Ok(KmallocTarget::Cache(class)) => class.size,
        _ => bytes,
    };
    ((rounded - SLAB_SHEAF_HEADER) / WORD).max(asked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sheaf_capacity_by_slot_size_as_in_spec_4_3() {
        let page = PageGeometry::new(4096).unwrap();
        let none = SlabFlags::default();
        for (size, cap) in [
            (8, 60),
            (192, 60),
            (256, 28),
            (1023, 28),
            (1024, 12),
            (4095, 12),
            (4096, 4),
            (8960, 4),
        ] {
            assert_eq!(
                calculate_sheaf_capacity(&page, &none, size, 0),
                cap,
                "{size}"
            );
        }
        assert_eq!(calculate_sheaf_capacity(&page, &none, 256, 32), 32);
        assert_eq!(calculate_sheaf_capacity(&page, &none, 192, 32), 60);
        let boot = SlabFlags {
            no_sheaves: true,
            ..none
        };
        assert_eq!(calculate_sheaf_capacity(&page, &boot, 64, 0), 0);
        let debug = SlabFlags {
            store_user: true,
            ..none
        };
        assert_eq!(calculate_sheaf_capacity(&page, &debug, 64, 32), 0);
    }

    #[test]
    fn versions_are_ordered_and_say_what_they_have() {
        assert!(SlubVersion::V6_6 < SlubVersion::V6_12);
        assert!(SlubVersion::V6_18.has_cpu_slab() && !SlubVersion::V7_2.has_cpu_slab());
        assert!(!SlubVersion::V6_6.delayed_freezing() && SlubVersion::V6_12.delayed_freezing());
        assert_eq!(SlubVersion::V6_18.sheaves(), Sheaves::OptIn);
    }
}
