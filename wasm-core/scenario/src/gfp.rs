//! Allocation flags as the language spells them: the kernel's `gfp_t` names
//! (include/linux/gfp_types.h, v6.6), joined with `|`, with the kernel's bit values.
//!
//! Rules:
//! - A name a scenario may write means what it means in the kernel's source, so its value here
//!   is the kernel's (without `CONFIG_LOCKDEP`); the runner hands the bits to the simulator
//!   unchanged, and a test of the runner checks every value against the simulator's constants.
//! - Names whose effect the simulator would have to fake are refused by name, with the reason
//!   (`GFP_REFUSED`): `__GFP_THISNODE` (no fallback to other nodes), the zone bits `kmalloc()`
//!   must not be given (`GFP_SLAB_BUG_MASK`) and `__GFP_MOVABLE`, which slab pages never use.

use serde::Serialize;

/// The flags of one call, as a `gfp_t` bit set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Gfp(pub u32);

impl std::ops::BitOr for Gfp {
    type Output = Gfp;
    fn bitor(self, rhs: Gfp) -> Gfp {
        Gfp(self.0 | rhs.0)
    }
}

const DMA: u32 = 0x01;
const RECLAIMABLE: u32 = 0x10;
const HIGH: u32 = 0x20;
const IO: u32 = 0x40;
const FS: u32 = 0x80;
const ZERO: u32 = 0x100;
const DIRECT_RECLAIM: u32 = 0x400;
const KSWAPD_RECLAIM: u32 = 0x800;
const NOWARN: u32 = 0x2000;
const RETRY_MAYFAIL: u32 = 0x4000;
const NOFAIL: u32 = 0x8000;
const NORETRY: u32 = 0x10000;
const MEMALLOC: u32 = 0x20000;
const COMP: u32 = 0x40000;
const NOMEMALLOC: u32 = 0x80000;
const HARDWALL: u32 = 0x100000;
const ACCOUNT: u32 = 0x400000;
const RECLAIM: u32 = DIRECT_RECLAIM | KSWAPD_RECLAIM;
const KERNEL: u32 = RECLAIM | IO | FS;

/// What a kmalloc call without flags passes.
pub const GFP_KERNEL: Gfp = Gfp(KERNEL);

/// Every name a scenario may write, with its value, composite names first (the order the
/// editor offers them in).
pub const GFP_NAMES: &[(&str, Gfp)] = &[
    ("GFP_KERNEL", GFP_KERNEL),
    ("GFP_KERNEL_ACCOUNT", Gfp(KERNEL | ACCOUNT)),
    ("GFP_ATOMIC", Gfp(HIGH | KSWAPD_RECLAIM)),
    ("GFP_NOWAIT", Gfp(KSWAPD_RECLAIM)),
    ("GFP_NOIO", Gfp(RECLAIM)),
    ("GFP_NOFS", Gfp(RECLAIM | IO)),
    ("GFP_USER", Gfp(KERNEL | HARDWALL)),
    ("GFP_DMA", Gfp(DMA)),
    ("__GFP_DMA", Gfp(DMA)),
    ("__GFP_RECLAIMABLE", Gfp(RECLAIMABLE)),
    ("__GFP_ACCOUNT", Gfp(ACCOUNT)),
    ("__GFP_HIGH", Gfp(HIGH)),
    ("__GFP_IO", Gfp(IO)),
    ("__GFP_FS", Gfp(FS)),
    ("__GFP_ZERO", Gfp(ZERO)),
    ("__GFP_DIRECT_RECLAIM", Gfp(DIRECT_RECLAIM)),
    ("__GFP_KSWAPD_RECLAIM", Gfp(KSWAPD_RECLAIM)),
    ("__GFP_RECLAIM", Gfp(RECLAIM)),
    ("__GFP_NOWARN", Gfp(NOWARN)),
    ("__GFP_RETRY_MAYFAIL", Gfp(RETRY_MAYFAIL)),
    ("__GFP_NOFAIL", Gfp(NOFAIL)),
    ("__GFP_NORETRY", Gfp(NORETRY)),
    ("__GFP_MEMALLOC", Gfp(MEMALLOC)),
    ("__GFP_NOMEMALLOC", Gfp(NOMEMALLOC)),
    ("__GFP_COMP", Gfp(COMP)),
    ("__GFP_HARDWALL", Gfp(HARDWALL)),
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
    /// The value of a name a scenario may write.
    pub fn from_name(name: &str) -> Option<Gfp> {
        GFP_NAMES.iter().find(|(n, _)| *n == name).map(|(_, g)| *g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn composite_names_have_the_kernels_values() {
        // gfp_types.h, v6.6: GFP_KERNEL is 0xcc0 and GFP_KERNEL_ACCOUNT 0x400cc0, the values
        // the kernel's tracepoints print.
        assert_eq!(GFP_KERNEL.0, 0xcc0);
        assert_eq!(Gfp::from_name("GFP_KERNEL_ACCOUNT"), Some(Gfp(0x400cc0)));
        assert_eq!(Gfp::from_name("GFP_ATOMIC"), Some(Gfp(0x820)));
        assert_eq!(Gfp::from_name("GFP_NOWAIT"), Some(Gfp(0x800)));
        assert_eq!(Gfp::from_name("__GFP_RECLAIMABLE"), Some(Gfp(0x10)));
        assert_eq!(Gfp::from_name("GFP_DMA32"), None);
    }
}
