//! Allocation flags (`gfp_t`, include/linux/gfp_types.h, v6.6): the bits `kmalloc()` may be
//! given, with the kernel's values and composite names.
//!
//! Rules:
//! - Bit values and the composite names (`GFP_KERNEL`, `GFP_KERNEL_ACCOUNT`, ...) are the
//!   kernel's, so a caller can say what the kernel's code says.
//! - The only bits the simulator acts on are the three `kmalloc_type()` reads: `__GFP_DMA`,
//!   `__GFP_RECLAIMABLE` and `__GFP_ACCOUNT` (which kmalloc cache serves the request). The
//!   simulated machine never reclaims, never sleeps and never fails for want of a retry, so the
//!   reclaim, IO/FS, retry and warning bits are accepted and change nothing.
//! - Bits whose effect the simulator would have to fake (`__GFP_THISNODE`, `__GFP_DMA32`,
//!   `__GFP_HIGHMEM`, `__GFP_MOVABLE`) are not defined here; the scenario language refuses
//!   them by name.

use serde::Serialize;

/// A `gfp_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Gfp(pub u32);

/// `___GFP_*` bits of v6.6 (without `CONFIG_LOCKDEP`), those the simulator takes.
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

impl Gfp {
    /// Whether every bit of `other` is set.
    pub fn contains(self, other: Gfp) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether any bit of `other` is set.
    pub fn intersects(self, other: Gfp) -> bool {
        self.0 & other.0 != 0
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
        assert_eq!(__GFP_RECLAIMABLE.0, 0x10);
        assert!(GFP_KERNEL_ACCOUNT.contains(__GFP_ACCOUNT));
        assert!(!GFP_KERNEL.intersects(__GFP_ACCOUNT | __GFP_DMA));
    }
}
