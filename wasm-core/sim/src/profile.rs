//! Kernel profiles: which kernel a run reproduces. A profile is a stable id (`linux-6.6`)
//! plus what that version's source does: the slab allocators it can be built with and their
//! implementations, and how it lays out a cache. The distro defaults a run starts from are
//! `BootOptions::default()` (every option off, as 6.6's defaults are); a later version whose
//! defaults differ gets a field for them here when it is added, not before.
//!
//! Rules:
//! - A shared link names a profile and replays the same way forever, so a profile, once
//!   published, never changes what it does (the one exception is a fix that makes it more
//!   faithful to its kernel: docs/changes.md says which and why).
//! - A later kernel is a new profile beside the others, written from that version's source:
//!   its own implementations and rules, touching no other profile's code. `PROFILES` lists
//!   them, oldest first.
//! - The machine holds its profile from boot; `allocator::ops` asks it for the implementation.

use crate::allocator::SlabAllocator;
use crate::boot::Allocator;
use crate::geometry::SlubVersion;
use crate::geometry::{kmem_cache_geometry_of, CacheGeometry, CacheRequest, GeometryError};
use std::fmt;

/// One kernel version's behaviour.
pub struct KernelProfile {
    /// The id a scenario names (`profile linux-6.6`).
    pub id: &'static str,
    /// The slab allocators the version can be built with (`Choose SLAB allocator` in
    /// init/Kconfig), the distro default first, each with its implementation.
    pub allocators: &'static [(Allocator, &'static dyn SlabAllocator)],
    /// Which SLUB the version has: how it lays out a cache (`calculate_sizes()`,
    /// `calculate_order()`, sheaf capacity) and which of its paths it runs.
    pub slub: SlubVersion,
    /// The kernel release that removed an allocator this version lacks (SLAB: 6.8).
    pub removed: &'static [(Allocator, &'static str)],
}

impl KernelProfile {
    /// The implementation of `allocator` in this version, if the version has it.
    pub fn implementation(&self, allocator: Allocator) -> Option<&'static dyn SlabAllocator> {
        self.allocators
            .iter()
            .find(|(a, _)| *a == allocator)
            .map(|(_, ops)| *ops)
    }

    /// How the version lays out a SLUB cache.
    pub fn slub_geometry(&self, req: &CacheRequest) -> Result<CacheGeometry, GeometryError> {
        kmem_cache_geometry_of(req, self.slub)
    }

    /// The release that removed `allocator` from the kernel, when this version lacks it.
    pub fn removed_in(&self, allocator: Allocator) -> Option<&'static str> {
        self.removed
            .iter()
            .find(|(a, _)| *a == allocator)
            .map(|(_, release)| *release)
    }
}

// A profile is its id: two machines of the same profile run the same code.
impl PartialEq for KernelProfile {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for KernelProfile {}

impl fmt::Debug for KernelProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

/// Linux 6.6 LTS: SLUB (the default) or SLAB, as `spec/kernel-6.6.md` describes them.
pub static LINUX_6_6: KernelProfile = KernelProfile {
    id: crate::PROFILE,
    allocators: &[
        (Allocator::Slub, &crate::slub::Slub),
        (Allocator::Slab, &crate::slab::Slab),
    ],
    slub: SlubVersion::V6_6,
    removed: &[],
};

/// SLAB and its Kconfig choice were removed in 6.8 (mm/slab.c is gone from the tree).
const NO_SLAB: &[(Allocator, &str)] = &[(Allocator::Slab, "6.8")];

/// Linux 6.12 LTS (read in 6.12.117): SLUB only, with delayed freezing (spec after 6.6, 2).
pub static LINUX_6_12: KernelProfile = KernelProfile {
    id: "linux-6.12",
    allocators: &[(Allocator::Slub, &crate::slub::Slub)],
    slub: SlubVersion::V6_12,
    removed: NO_SLAB,
};

/// Linux 6.18 LTS (read in 6.18.15): 6.12 plus opt-in per-CPU sheaves and the per-node barn
/// (spec after 6.6, 3).
pub static LINUX_6_18: KernelProfile = KernelProfile {
    id: "linux-6.18",
    allocators: &[(Allocator::Slub, &crate::slub::Slub)],
    slub: SlubVersion::V6_18,
    removed: NO_SLAB,
};

/// Linux 7.2 (read in 7.2.13): sheaves for every cache, no `kmem_cache_cpu` (spec after 6.6,
/// 4).
pub static LINUX_7_2: KernelProfile = KernelProfile {
    id: "linux-7.2",
    allocators: &[(Allocator::Slub, &crate::slub::Slub)],
    slub: SlubVersion::V7_2,
    removed: NO_SLAB,
};

/// Every profile a scenario may name, oldest first. A profile joins when its kernel's paths
/// are all written; until then its static exists for the geometry and its tests.
pub static PROFILES: &[&KernelProfile] = &[&LINUX_6_6, &LINUX_6_12, &LINUX_6_18, &LINUX_7_2];

/// The profile with this id.
pub fn by_id(id: &str) -> Option<&'static KernelProfile> {
    PROFILES.iter().copied().find(|p| p.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_found_by_its_id_and_has_a_default_allocator() {
        for p in PROFILES {
            assert_eq!(by_id(p.id), Some(*p));
            let (default, ops) = p.allocators[0];
            assert_eq!(ops.kind(), default);
            for (a, ops) in p.allocators {
                assert_eq!(
                    ops.kind(),
                    *a,
                    "{}: {a:?} implemented by another allocator",
                    p.id
                );
            }
        }
        assert_eq!(by_id("linux-2.4"), None);
        assert_eq!(LINUX_6_12.removed_in(Allocator::Slab), Some("6.8"));
        assert!(LINUX_7_2.implementation(Allocator::Slab).is_none());
    }
}
