//! From the language to the kernel: each value a scenario names, as the simulator takes it.
//!
//! Rules: the scenario crate knows nothing of the simulator and the simulator nothing of the
//! language, so every crossing is written here, once, field by field; a name the language adds
//! must be given its kernel meaning here before a scenario can use it.

use slabscope_scenario::{
    Allocator as AllocatorLine, CacheFlags, Gfp as GfpNames, MachineDecl, SlubDebug, Switches,
};
use slabscope_sim::boot::{Allocator, BootOptions};
use slabscope_sim::geometry::SlabFlags;
use slabscope_sim::gfp::Gfp;
use slabscope_sim::ids::{CpuId, NodeId};
use slabscope_sim::machine::MachineConfig;
use slabscope_sim::profile::KernelProfile;

/// The allocator an `allocator` line chooses.
pub fn allocator(line: AllocatorLine) -> Allocator {
    match line {
        AllocatorLine::Slub => Allocator::Slub,
        AllocatorLine::Slab => Allocator::Slab,
    }
}

/// The `allocator` line that chooses `allocator` (`slabscope compare` runs a scenario under
/// both).
pub fn allocator_line(allocator: Allocator) -> AllocatorLine {
    match allocator {
        Allocator::Slub => AllocatorLine::Slub,
        Allocator::Slab => AllocatorLine::Slab,
    }
}

/// The kernel profile a scenario names. The parser accepts only the language's profile ids,
/// and every one of them is a simulator profile (tests/translate.rs checks both lists agree).
pub fn profile(id: &str) -> &'static KernelProfile {
    slabscope_sim::profile::by_id(id).expect("the parser accepts only known profiles")
}

/// The machine a `machine` line (and `pcp` line) describes.
pub fn machine_config(decl: &MachineDecl) -> MachineConfig {
    MachineConfig {
        cpus: decl.cpus,
        nodes: decl.nodes,
        cpu_node: decl.cpu_node.clone(),
        page_size: decl.page_size,
        pages_per_node: decl.pages_per_node,
        pcp_batch: decl.pcp_batch,
        pcp_high: decl.pcp_high,
    }
}

/// The build options and boot parameters the `switch`, `slub_debug` and `boot` lines set.
pub fn boot_options(switches: &Switches) -> BootOptions {
    BootOptions {
        freelist_random: switches.freelist_random,
        freelist_hardened: switches.freelist_hardened,
        slab_nomerge: switches.slab_nomerge,
        random_kmalloc_caches: switches.random_kmalloc_caches,
        slub_debug: slub_debug(switches.slub_debug),
        slub_min_objects: switches.slub_min_objects,
        slub_max_order: switches.slub_max_order,
        slub_min_order: switches.slub_min_order,
        slab_max_order: switches.slab_max_order,
        slab_legacy_refill: switches.slab_legacy_refill,
    }
}

/// `slub_debug=` letters as the `SLAB_*` debug flags they turn on.
fn slub_debug(letters: SlubDebug) -> SlabFlags {
    SlabFlags {
        consistency_checks: letters.consistency_checks,
        red_zone: letters.red_zone,
        poison: letters.poison,
        store_user: letters.store_user,
        ..SlabFlags::default()
    }
}

/// A `cache` line's `flags=` as `kmem_cache_create()`'s `SLAB_*` flags.
pub fn cache_flags(flags: CacheFlags) -> SlabFlags {
    SlabFlags {
        hwcache_align: flags.hwcache_align,
        typesafe_by_rcu: flags.typesafe_by_rcu,
        account: flags.account,
        reclaim_account: flags.reclaim_account,
        cache_dma: flags.cache_dma,
        cache_dma32: flags.cache_dma32,
        no_merge: flags.no_merge,
        ..SlabFlags::default()
    }
}

/// gfp names as the `gfp_t` they spell: the language gives every name the kernel's bits.
pub fn gfp(names: GfpNames) -> Gfp {
    Gfp(names.0)
}

/// The CPU a `cpuN` prefix names (the parser has checked it against the machine's CPUs).
pub fn cpu(cpu: u32) -> CpuId {
    CpuId::new(cpu)
}

/// The node a `node=N` argument names (checked against the machine's nodes by the parser).
pub fn node(node: u32) -> NodeId {
    NodeId::new(node)
}
