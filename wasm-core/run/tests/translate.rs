//! The language and the simulator agree: the scenario crate states its limits, its gfp values
//! and its machine checks without seeing the simulator, so these tests, which see both, check
//! that each statement is the simulator's, and that every name the language has reaches the
//! kernel value it stands for.

use slabscope_run::translate;
use slabscope_scenario::gfp::GFP_NAMES;
use slabscope_scenario::{limits, CacheFlags, MachineDecl, SlubDebug, Switches};
use slabscope_sim::boot::{Allocator, BootOptions};
use slabscope_sim::geometry::platform::{PageGeometry, MAX_CPUS, MAX_OBJS_PER_PAGE};
use slabscope_sim::geometry::SlabFlags;
use slabscope_sim::gfp::*;
use slabscope_sim::machine::config::{MAX_NODES, MAX_PAGES_PER_NODE};

#[test]
fn the_languages_machine_limits_are_the_simulators() {
    assert_eq!(limits::MAX_CPUS, MAX_CPUS);
    assert_eq!(limits::MAX_NODES, MAX_NODES);
    assert_eq!(limits::MAX_PAGES_PER_NODE, MAX_PAGES_PER_NODE);
    assert_eq!(limits::MAX_MIN_OBJECTS, u64::from(MAX_OBJS_PER_PAGE));
    // The page sizes: every power of two up to 1 MiB, and a few that are not.
    for page_size in (0..=20).map(|s| 1u32 << s).chain([0, 3, 4095, 12288]) {
        assert_eq!(
            limits::PAGE_SIZES.contains(&page_size),
            PageGeometry::new(page_size).is_ok(),
            "page size {page_size}"
        );
    }
    let max_order = limits::PAGE_SIZES
        .iter()
        .map(|&p| PageGeometry::new(p).unwrap().max_order)
        .max();
    assert_eq!(Some(limits::MAX_ORDER), max_order.map(u64::from));
}

#[test]
fn a_machine_is_refused_by_the_parser_exactly_when_the_simulator_refuses_it() {
    let mut accepted = 0;
    let mut reasons = std::collections::BTreeSet::new();
    for cpus in [0, 1, 2, 3, 4, 64, 65] {
        for nodes in [0, 1, 2, 3, 4, 5] {
            for page_size in [0, 4096, 8192, 16384, 65536] {
                for pages_per_node in [0, 1, 1 << 20, (1 << 20) + 1] {
                    for cpu_node in [&[][..], &[0], &[0, 1], &[0, 0, 1, 1], &[0, 5], &[1, 1]] {
                        let decl = MachineDecl {
                            cpus,
                            nodes,
                            cpu_node: cpu_node.to_vec(),
                            page_size,
                            pages_per_node,
                            pcp_batch: None,
                            pcp_high: None,
                        };
                        let ours = decl.validate().map_err(|e| {
                            // The variant's name, e.g. `CpuNode` of `CpuNode { .. }`.
                            let kind = format!("{e:?}");
                            let end = kind.find([' ', '(']).unwrap_or(kind.len());
                            reasons.insert(kind[..end].to_string());
                            e.to_string()
                        });
                        let sims = translate::machine_config(&decl)
                            .validate()
                            .map(|_| ())
                            .map_err(|e| e.to_string());
                        assert_eq!(ours, sims, "{decl:?}");
                        accepted += usize::from(ours.is_ok());
                    }
                }
            }
        }
    }
    // Machines both accepted and refused were seen, and every reason for a refusal.
    assert!(accepted > 0, "no machine was accepted");
    assert_eq!(
        reasons,
        [
            "Cpus",
            "Nodes",
            "PageSize",
            "Pages",
            "CpuNodeLength",
            "CpuNode",
            "NodeWithoutCpu"
        ]
        .map(str::to_string)
        .into(),
        "the refusals seen"
    );
}

#[test]
fn every_gfp_name_has_the_kernels_bits() {
    let kernel = [
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
    let ours: Vec<(&str, Gfp)> = GFP_NAMES
        .iter()
        .map(|&(name, g)| (name, translate::gfp(g)))
        .collect();
    assert_eq!(ours, kernel);
    assert_eq!(
        translate::gfp(slabscope_scenario::gfp::GFP_KERNEL),
        GFP_KERNEL
    );
}

#[test]
fn every_flag_name_sets_its_own_slab_flag() {
    let one = |set: fn(&mut CacheFlags)| {
        let mut f = CacheFlags::default();
        set(&mut f);
        translate::cache_flags(f)
    };
    let only = |set: fn(&mut SlabFlags)| {
        let mut f = SlabFlags::default();
        set(&mut f);
        f
    };
    assert_eq!(
        translate::cache_flags(CacheFlags::default()),
        SlabFlags::default()
    );
    assert_eq!(
        one(|f| f.hwcache_align = true),
        only(|f| f.hwcache_align = true)
    );
    assert_eq!(
        one(|f| f.typesafe_by_rcu = true),
        only(|f| f.typesafe_by_rcu = true)
    );
    assert_eq!(one(|f| f.account = true), only(|f| f.account = true));
    assert_eq!(
        one(|f| f.reclaim_account = true),
        only(|f| f.reclaim_account = true)
    );
    assert_eq!(one(|f| f.cache_dma = true), only(|f| f.cache_dma = true));
    assert_eq!(
        one(|f| f.cache_dma32 = true),
        only(|f| f.cache_dma32 = true)
    );
    assert_eq!(one(|f| f.no_merge = true), only(|f| f.no_merge = true));
}

#[test]
fn switches_become_the_boot_options_of_the_same_names() {
    let letters = |f: fn(&mut SlubDebug)| {
        let mut d = SlubDebug::default();
        f(&mut d);
        let switches = Switches {
            slub_debug: d,
            ..Switches::default()
        };
        translate::boot_options(&switches).slub_debug
    };
    let flag = |set: fn(&mut SlabFlags)| {
        let mut f = SlabFlags::default();
        set(&mut f);
        f
    };
    assert_eq!(
        letters(|d| d.consistency_checks = true),
        flag(|f| f.consistency_checks = true)
    );
    assert_eq!(letters(|d| d.red_zone = true), flag(|f| f.red_zone = true));
    assert_eq!(letters(|d| d.poison = true), flag(|f| f.poison = true));
    assert_eq!(
        letters(|d| d.store_user = true),
        flag(|f| f.store_user = true)
    );

    assert_eq!(
        translate::boot_options(&Switches::default()),
        BootOptions::default()
    );
    let every = Switches {
        freelist_random: true,
        freelist_hardened: true,
        slab_nomerge: true,
        random_kmalloc_caches: true,
        slub_debug: SlubDebug::default(),
        slub_min_objects: 7,
        slub_max_order: Some(2),
        slub_min_order: 1,
        slab_max_order: Some(3),
        slab_legacy_refill: true,
    };
    let boot = translate::boot_options(&every);
    assert_eq!(
        boot,
        BootOptions {
            freelist_random: true,
            freelist_hardened: true,
            slab_nomerge: true,
            random_kmalloc_caches: true,
            slub_debug: SlabFlags::default(),
            slub_min_objects: 7,
            slub_max_order: Some(2),
            slub_min_order: 1,
            slab_max_order: Some(3),
            slab_legacy_refill: true,
        }
    );
}

#[test]
fn allocator_lines_choose_the_allocator_and_back() {
    for allocator in [Allocator::Slub, Allocator::Slab] {
        assert_eq!(
            translate::allocator(translate::allocator_line(allocator)),
            allocator
        );
    }
    assert_eq!(
        translate::allocator(slabscope_scenario::Allocator::Slab),
        Allocator::Slab
    );
}

#[test]
fn the_languages_profiles_are_the_simulators() {
    let sim: Vec<&str> = slabscope_sim::profile::PROFILES
        .iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(slabscope_scenario::PROFILES, sim.as_slice());
    for id in slabscope_scenario::PROFILES {
        let profile = translate::profile(id);
        assert_eq!(profile.id, *id);
        // The language refuses SLAB exactly where the profile lacks it, naming the release.
        let removed = slabscope_scenario::SLAB_REMOVED
            .iter()
            .find(|(p, _)| p == id)
            .map(|(_, r)| *r);
        assert_eq!(removed, profile.removed_in(Allocator::Slab), "{id}");
        assert_eq!(
            removed.is_none(),
            profile.implementation(Allocator::Slab).is_some(),
            "{id}"
        );
    }
}
