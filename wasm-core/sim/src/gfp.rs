//! Allocation flags (`gfp_t`, include/linux/gfp_types.h, v6.6) as far as a scenario can pass
//! them to `kmalloc()`.
//!
//! Rules:
//! - Bit values and the composite names (`GFP_KERNEL`, `GFP_KERNEL_ACCOUNT`, ...) are the
//!   kernel's, so a line can say what the kernel's code says.
//! - The only bits the simulator acts on are the three `kmalloc_type()` reads: `__GFP_DMA`,
//!   `__GFP_RECLAIMABLE` and `__GFP_ACCOUNT` (which kmalloc cache serves the request). The
//!   simulated machine never reclaims, never sleeps and never fails for want of a retry, so the
//!   reclaim, IO/FS, retry and warning bits are accepted and change nothing.
//! - Bits whose effect the simulator would have to fake are refused by name, with the reason:
//!   `__GFP_THISNODE` (no fallback to other nodes), and the zone bits `kmalloc()` must not be
//!   given (`GFP_SLAB_BUG_MASK`: `__GFP_DMA32`, `__GFP_HIGHMEM`) or that slab pages never use
//!   (`__GFP_MOVABLE`).

use serde::Serialize;

/// A `gfp_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Gfp(pub u32);

/// `___GFP_*` bits of v6.6 (without `CONFIG_LOCKDEP`), those a scenario may pass.
pub const __GFP_DMA: Gfp = Gfp(0x01);
pub const __GFP_RECLAIMABLE: Gfp = Gfp(0x10);
pub const __GFP_HIGH: Gfp = Gfp(0x20);
pub const __GFP_IO: Gfp = Gfp(0x40);
pub const __GFP_FS: Gfp = Gfp(0x80);
pub const __GFP_ZERO: Gfp = Gfp(0x100);
pub const __GFP_DIRECT_RECLAIM: Gfp = Gfp(0x400);
pub const __GFP_KSWAPD_RECLAIM: Gfp = Gfp(0x800);
pub const __GFP_NOWARN: Gfp = Gfp(0x2000);
pub const __GFP_RETRY_MAYFAIL: Gfp = Gfp(0x4000);
pub const __GFP_NOFAIL: Gfp = Gfp(0x8000);
pub const __GFP_NORETRY: Gfp = Gfp(0x10000);
pub const __GFP_MEMALLOC: Gfp = Gfp(0x20000);
pub const __GFP_COMP: Gfp = Gfp(0x40000);
pub const __GFP_NOMEMALLOC: Gfp = Gfp(0x80000);
pub const __GFP_HARDWALL: Gfp = Gfp(0x100000);
pub const __GFP_ACCOUNT: Gfp = Gfp(0x400000);
pub const __GFP_RECLAIM: Gfp = Gfp(__GFP_DIRECT_RECLAIM.0 | __GFP_KSWAPD_RECLAIM.0);

pub const GFP_ATOMIC: Gfp = Gfp(__GFP_HIGH.0 | __GFP_KSWAPD_RECLAIM.0);
pub const GFP_KERNEL: Gfp = Gfp(__GFP_RECLAIM.0 | __GFP_IO.0 | __GFP_FS.0);
pub const GFP_KERNEL_ACCOUNT: Gfp = Gfp(GFP_KERNEL.0 | __GFP_ACCOUNT.0);
pub const GFP_NOWAIT: Gfp = __GFP_KSWAPD_RECLAIM;
pub const GFP_NOIO: Gfp = __GFP_RECLAIM;
pub const GFP_NOFS: Gfp = Gfp(__GFP_RECLAIM.0 | __GFP_IO.0);
pub const GFP_USER: Gfp = Gfp(GFP_KERNEL.0 | __GFP_HARDWALL.0);
pub const GFP_DMA: Gfp = __GFP_DMA;

/// Every name a scenario may write, with its value, composite names first (the order the
/// editor offers them in).
pub const GFP_NAMES: &[(&str, Gfp)] = &[
    ("GFP_KERNEL", GFP_KERNEL),
    ("GFP_KERNEL_ACCOUNT", GFP_KERNEL_ACCOUNT),
    ("GFP_ATOMIC", GFP_ATOMIC),
    ("GFP_NOWAIT", GFP_NOWAIT),
    ("GFP_NOIO", GFP_NOIO),
    ("GFP_NOFS", GFP_NOFS),
    ("GFP_USER", GFP_USER),
    ("GFP_DMA", GFP_DMA),
    ("__GFP_DMA", __GFP_DMA),
    ("__GFP_RECLAIMABLE", __GFP_RECLAIMABLE),
    ("__GFP_ACCOUNT", __GFP_ACCOUNT),
    ("__GFP_HIGH", __GFP_HIGH),
    ("__GFP_IO", __GFP_IO),
    ("__GFP_FS", __GFP_FS),
    ("__GFP_ZERO", __GFP_ZERO),
    ("__GFP_DIRECT_RECLAIM", __GFP_DIRECT_RECLAIM),
    ("__GFP_KSWAPD_RECLAIM", __GFP_KSWAPD_RECLAIM),
    ("__GFP_RECLAIM", __GFP_RECLAIM),
    ("__GFP_NOWARN", __GFP_NOWARN),
    ("__GFP_RETRY_MAYFAIL", __GFP_RETRY_MAYFAIL),
    ("__GFP_NOFAIL", __GFP_NOFAIL),
    ("__GFP_NORETRY", __GFP_NORETRY),
    ("__GFP_MEMALLOC", __GFP_MEMALLOC),
    ("__GFP_NOMEMALLOC", __GFP_NOMEMALLOC),
    ("__GFP_COMP", __GFP_COMP),
    ("__GFP_HARDWALL", __GFP_HARDWALL),
];

/// Why a flag the kernel has is refused in a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GfpRefusal {
    /// In `GFP_SLAB_BUG_MASK` (`__GFP_DMA32`, `__GFP_HIGHMEM`): `kmalloc()` must not be given
    /// it (the kernel warns in `kmalloc_fix_flags()` and drops it).
    SlabBugMask,
    /// `__GFP_MOVABLE`: slab pages are never movable, and one migrate type is modelled.
    Movable,
    /// `__GFP_THISNODE`: the simulator would still fall back to other nodes.
    ThisNode,
}

/// Names the kernel has that a scenario may not pass to `kmalloc()`, and why.
pub const GFP_REFUSED: &[(&str, GfpRefusal)] = &[
    ("GFP_DMA32", GfpRefusal::SlabBugMask),
    ("__GFP_DMA32", GfpRefusal::SlabBugMask),
    ("__GFP_HIGHMEM", GfpRefusal::SlabBugMask),
    ("GFP_HIGHUSER", GfpRefusal::SlabBugMask),
    ("GFP_HIGHUSER_MOVABLE", GfpRefusal::SlabBugMask),
    ("__GFP_MOVABLE", GfpRefusal::Movable),
    ("__GFP_THISNODE", GfpRefusal::ThisNode),
];

impl Gfp {
    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Gfp) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any bit of `other` is set.
    pub fn intersects(self, other: Gfp) -> bool {
        self.0 & other.0 != 0
    }

    /// The value of a name a scenario may write.
    pub fn from_name(name: &str) -> Option<Gfp> {
        GFP_NAMES.iter().find(|(n, _)| *n == name).map(|(_, g)| *g)
    }
}

impl std::ops::BitOr for Gfp {
    type Output = Gfp;
    fn bitor(self, rhs: Gfp) -> Gfp {
        Gfp(self.0 | rhs.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_flags_are_the_kernels() {
        // gfp_types.h, v6.6: GFP_KERNEL is 0xcc0 and GFP_KERNEL_ACCOUNT 0x400cc0, the values
        // the kernel's tracepoints print.
        assert_eq!(GFP_KERNEL.0, 0xcc0);
        assert_eq!(GFP_KERNEL_ACCOUNT.0, 0x400cc0);
        assert_eq!(GFP_ATOMIC.0, 0x820);
        assert_eq!(GFP_NOWAIT.0, 0x800);
        assert_eq!(Gfp::from_name("__GFP_RECLAIMABLE"), Some(Gfp(0x10)));
        assert_eq!(Gfp::from_name("GFP_DMA32"), None);
        assert!(GFP_KERNEL_ACCOUNT.contains(__GFP_ACCOUNT));
        assert!(!GFP_KERNEL.intersects(__GFP_ACCOUNT | __GFP_DMA));
    }
}
