//! How the simulated kernel is built and booted: the slab allocator its configuration chose
//! (`CONFIG_SLUB` or `CONFIG_SLAB`), and the `CONFIG_*` options and command-line parameters
//! the slab allocators read (mm/slub.c, mm/slab.c, mm/slab_common.c, v6.6).
//!
//! Rules: these are the kernel's own knobs, named as the kernel names them; whoever drives the
//! simulator (the scenario runner, the standard workload, tests) fills them in. They are fixed
//! before the first cache exists and never change during a run.

use crate::geometry::SlabFlags;
use serde::Serialize;

/// The slab allocator the kernel is built with: the `Choose SLAB allocator` choice of
/// init/Kconfig (`CONFIG_SLUB` or `CONFIG_SLAB`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Allocator {
    /// `CONFIG_SLUB` (mm/slub.c).
    Slub,
    /// `CONFIG_SLAB` (mm/slab.c).
    Slab,
}

/// The build options and boot parameters the slab allocators read; the default is a distro
/// kernel booted with an empty command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BootOptions {
    /// `CONFIG_SLAB_FREELIST_RANDOM`: each cache's free objects in a shuffled order.
    pub freelist_random: bool,
    /// `CONFIG_SLAB_FREELIST_HARDENED`: free pointers stored XOR-ed with `s->random`.
    pub freelist_hardened: bool,
    /// `slab_nomerge`: no cache is merged into another.
    pub slab_nomerge: bool,
    /// `CONFIG_RANDOM_KMALLOC_CACHES` (SLUB only): 15 copies of every normal kmalloc cache,
    /// one of 16 picked per call site.
    pub random_kmalloc_caches: bool,
    /// `slub_debug=` (F, Z, P, U): the debug flags every cache gets.
    pub slub_debug: SlabFlags,
    /// `slub_min_objects=`; 0 lets `calculate_order()` derive it from the CPU count.
    pub slub_min_objects: u32,
    /// `slub_max_order=`; `None` keeps `PAGE_ALLOC_COSTLY_ORDER`.
    pub slub_max_order: Option<u32>,
    /// `slub_min_order=`.
    pub slub_min_order: u32,
    /// `slab_max_order=` (SLAB); `None` keeps the kernel's choice.
    pub slab_max_order: Option<u32>,
    /// SLAB's `cache_alloc_refill()` as before Linux 4.7 ("mm/slab: refill cpu cache through
    /// a new slab without holding a node lock" reverted): a kernel of another version, not a
    /// boot parameter.
    pub slab_legacy_refill: bool,
}
