//! SLAB geometry against the spec's worked examples (5.6, 5.8), the v6.6 layout rules one by
//! one, and the kmalloc class table.

use super::*;
use crate::geometry::kmalloc::KmallocClass;

fn page(size: u32) -> PageGeometry {
    PageGeometry::new(size).unwrap()
}

/// A 2-CPU, 1-node machine with 1 GiB of RAM: `slab_max_order` = 1.
fn params(page: &PageGeometry) -> SlabParams {
    SlabParams::new(page, 2, 1, 1 << 30, None)
}

fn kmalloc(page_size: u32, name: &str) -> SlabCacheGeometry {
    let p = page(page_size);
    slab_kmalloc_caches(&p, &params(&p))
        .into_iter()
        .find(|g| g.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

fn cache(page_size: u32, req: &SlabCacheRequest) -> SlabCacheGeometry {
    let p = page(page_size);
    slab_cache_geometry(&p, &params(&p), req).unwrap()
}

fn with_ctor(object_size: u32) -> SlabCacheRequest {
    SlabCacheRequest {
        ctor: true,
        ..SlabCacheRequest::new("ctor", object_size)
    }
}

#[test]
fn kmalloc_32_is_on_slab_with_124_objects() {
    // Spec 5.6: the 128-byte array fits no 32-byte object and kmalloc-128 is more than half
    // of 32, so the array goes at the end of the slab: 4096 / (32 + 1) = 124, 4 bytes left.
    let g = kmalloc(4096, "kmalloc-32");
    assert_eq!((g.size, g.align), (32, 32));
    assert_eq!(g.layout, FreelistLayout::OnSlab);
    assert_eq!((g.num, g.gfporder, g.left_over), (124, 0, 4));
    assert_eq!((g.colour, g.colour_off), (0, 64));
    assert_eq!((g.idx_size, g.freelist_size), (1, 124));
    assert_eq!(g.off_slab_kmalloc_size, None);
    assert_eq!((g.limit, g.batchcount, g.shared), (120, 60, 8));
    assert_eq!(g.alien_limit, 12);
    assert_eq!(g.shared_capacity(), 480);
}

#[test]
fn kmalloc_64_keeps_its_array_in_an_object() {
    let g = kmalloc(4096, "kmalloc-64");
    assert_eq!(g.layout, FreelistLayout::ObjFreelist);
    assert_eq!((g.size, g.num, g.gfporder, g.left_over), (64, 64, 0, 0));
}

#[test]
fn kmalloc_96_gets_128_byte_slots_from_hwcache_alignment() {
    // Spec 1.3 and 5.6: SLAB's kmalloc caches are SLAB_HWCACHE_ALIGN, so 96 -> 128 (SLUB: 96).
    let g = kmalloc(4096, "kmalloc-96");
    assert_eq!((g.object_size, g.align, g.size), (96, 64, 128));
    assert_eq!(g.layout, FreelistLayout::ObjFreelist);
    assert_eq!((g.num, g.gfporder), (32, 0));
    let g = kmalloc(4096, "kmalloc-192");
    assert_eq!((g.size, g.num, g.left_over), (192, 21, 64));
}

#[test]
fn free_limit_of_kmalloc_32_on_a_two_cpu_node() {
    // Spec 5.6: (1 + 2) * 60 + 124.
    assert_eq!(free_limit(&kmalloc(4096, "kmalloc-32"), 2), 304);
    assert_eq!(free_limit(&kmalloc(4096, "kmalloc-32"), 1), 244);
}

#[test]
fn waste_above_an_eighth_moves_to_order_1_and_gives_colours() {
    // Spec 5.8: 704-byte slots; order 0 wastes 576 > 512, order 1 keeps 11 and 448 left.
    let req = SlabCacheRequest {
        align: 8,
        ..SlabCacheRequest::new("obj700", 700)
    };
    let g = cache(4096, &req);
    assert_eq!(g.size, 704);
    assert_eq!(g.layout, FreelistLayout::ObjFreelist);
    assert_eq!((g.gfporder, g.num, g.left_over), (1, 11, 448));
    assert_eq!((g.colour, g.colour_off), (7, 64));
    assert_eq!((g.limit, g.batchcount, g.shared), (54, 27, 8));

    // With slab_max_order 0 (32 MiB of RAM or less) the first order is final.
    let p = page(4096);
    let small = SlabParams::new(&p, 2, 1, 32 << 20, None);
    let g = slab_cache_geometry(&p, &small, &req).unwrap();
    assert_eq!((g.gfporder, g.num, g.left_over, g.colour), (0, 5, 576, 9));

    // SLAB_RECLAIM_ACCOUNT caches stay at the lowest acceptable order.
    let rcl = SlabCacheRequest {
        flags: SlabFlags {
            reclaim_account: true,
            ..req.flags
        },
        ..req
    };
    assert_eq!(cache(4096, &rcl).gfporder, 0);
}

#[test]
fn objects_bigger_than_a_slab_go_to_the_first_order_that_holds_one() {
    let g = cache(4096, &SlabCacheRequest::new("big", 1 << 20));
    assert_eq!((g.gfporder, g.num, g.left_over), (8, 1, 0));
    assert_eq!(g.layout, FreelistLayout::ObjFreelist);
    // Above 128 KiB: one object per CPU array, no shared array, 1-entry alien caches.
    assert_eq!(
        (g.limit, g.batchcount, g.shared, g.alien_limit),
        (1, 1, 0, 1)
    );
    // The 4 MiB objects of an old kmalloc-4194304 (sample 7) need order 10 = MAX_ORDER.
    let req = SlabCacheRequest {
        flags: SlabFlags {
            hwcache_align: true,
            ..SlabFlags::default()
        },
        ..SlabCacheRequest::new("kmalloc-4194304", 4 << 20)
    };
    let g = cache(4096, &req);
    assert_eq!((g.gfporder, g.pages_per_slab(), g.num), (10, 1024, 1));
}

#[test]
fn sixteen_k_pages_use_two_byte_indices() {
    let p = page(16384);
    assert_eq!((freelist_idx_size(&p), slab_obj_max_num(&p)), (2, 65535));
    // 512 two-byte indices fit no 32-byte object; on-slab: 16384 / (32 + 2) = 481.
    let g = kmalloc(16384, "kmalloc-32");
    assert_eq!(g.layout, FreelistLayout::OnSlab);
    assert_eq!((g.num, g.left_over, g.freelist_size), (481, 30, 962));
    // Sizes below SLAB_OBJ_MIN_SIZE are not padded without byte indices.
    let g = cache(16384, &SlabCacheRequest::new("tiny", 8));
    assert_eq!(
        (g.size, g.layout, g.num, g.left_over),
        (8, FreelistLayout::OnSlab, 1638, 4)
    );
    // ... but they are with them: 8 -> 16, and 256 objects would overflow a byte index.
    let g = cache(4096, &SlabCacheRequest::new("tiny", 8));
    assert_eq!((g.size, g.layout, g.num), (16, FreelistLayout::OnSlab, 240));
    let g = kmalloc(16384, "kmalloc-192");
    assert_eq!(
        (g.layout, g.num, g.left_over),
        (FreelistLayout::ObjFreelist, 85, 64)
    );
}

#[test]
fn a_constructor_sends_a_large_objects_array_off_slab() {
    // No OBJFREELIST with a ctor; 8 indices come from kmalloc-32, which is <= 512 / 2, and
    // the slab has no room left to hold them.
    let g = cache(4096, &with_ctor(512));
    assert_eq!(g.layout, FreelistLayout::OffSlab);
    assert_eq!((g.num, g.gfporder, g.left_over), (8, 0, 0));
    assert_eq!((g.freelist_size, g.off_slab_kmalloc_size), (8, Some(32)));
    // SLAB_TYPESAFE_BY_RCU rules out OBJFREELIST the same way.
    let rcu = SlabCacheRequest {
        flags: SlabFlags {
            typesafe_by_rcu: true,
            ..SlabFlags::default()
        },
        ..SlabCacheRequest::new("rcu", 512)
    };
    assert_eq!(cache(4096, &rcu).layout, FreelistLayout::OffSlab);
    // Without them the array lives in an object.
    assert_eq!(
        cache(4096, &SlabCacheRequest::new("plain", 512)).layout,
        FreelistLayout::ObjFreelist
    );
}

#[test]
fn off_slab_is_refused_when_the_left_over_bytes_hold_the_array() {
    // 4 objects of 1000 leave 96 bytes, room for the 4 indices: on-slab, 4096 / 1001 = 4.
    let g = cache(4096, &with_ctor(1000));
    assert_eq!(g.layout, FreelistLayout::OnSlab);
    assert_eq!((g.num, g.left_over, g.colour), (4, 92, 1));
}

#[test]
fn off_slab_is_refused_when_the_array_cache_is_more_than_half_the_object() {
    // 39 indices need kmalloc-64 (> 100 / 2), 78 need kmalloc-96 (128 bytes), and so on.
    let g = cache(4096, &with_ctor(100));
    assert_eq!(
        (g.size, g.layout, g.num, g.left_over),
        (104, FreelistLayout::OnSlab, 39, 1)
    );
}

#[test]
fn the_half_size_test_uses_the_object_size_not_the_slot() {
    // 60-byte objects aligned to 128: kmalloc-32 for 32 indices is <= 128 / 2 but > 60 / 2.
    // create_cache() leaves cachep->size = object_size until the layout is chosen.
    let req = SlabCacheRequest {
        align: 128,
        ..with_ctor(60)
    };
    let g = cache(4096, &req);
    assert_eq!(g.size, 128);
    assert_eq!(
        (g.layout, g.num, g.left_over),
        (FreelistLayout::OnSlab, 31, 97)
    );
    assert_eq!(g.colour_off, 128);
}

#[test]
fn debug_flags_change_nothing_without_debug_slab() {
    let plain = SlabCacheRequest::new("x", 200);
    let debug = SlabCacheRequest {
        flags: SlabFlags {
            red_zone: true,
            poison: true,
            store_user: true,
            consistency_checks: true,
            ..SlabFlags::default()
        },
        ..plain.clone()
    };
    assert_eq!(cache(4096, &plain), cache(4096, &debug));
}

#[test]
fn tunables_follow_the_enable_cpucache_table() {
    let expect = [
        (256, (120, 60, 8)),
        (264, (54, 27, 8)),
        (1024, (54, 27, 8)),
        (1032, (24, 12, 8)),
        (4096, (24, 12, 8)),
        (4104, (8, 4, 0)),
        (131072, (8, 4, 0)),
        (131080, (1, 1, 0)),
    ];
    for (size, tunables) in expect {
        let g = cache(4096, &SlabCacheRequest::new("t", size));
        assert_eq!((g.limit, g.batchcount, g.shared), tunables, "size {size}");
    }
    // A uniprocessor has no shared arrays; 16 KiB pages move the PAGE_SIZE boundary.
    let p = page(4096);
    let up = SlabParams::new(&p, 1, 1, 1 << 30, None);
    let g = slab_cache_geometry(&p, &up, &SlabCacheRequest::new("t", 64)).unwrap();
    assert_eq!(g.shared, 0);
    assert_eq!(cache(16384, &SlabCacheRequest::new("t", 8192)).limit, 24);
}

#[test]
fn slab_max_order_follows_ram_and_the_boot_parameter() {
    let p = page(4096);
    assert_eq!(SlabParams::new(&p, 2, 1, 32 << 20, None).slab_max_order, 0);
    assert_eq!(
        SlabParams::new(&p, 2, 1, (32 << 20) + 4096, None).slab_max_order,
        1
    );
    assert_eq!(
        SlabParams::new(&p, 2, 1, 1 << 30, Some(0)).slab_max_order,
        0
    );
    assert_eq!(
        SlabParams::new(&p, 2, 1, 1 << 30, Some(99)).slab_max_order,
        10
    );
    let p = page(65536);
    assert_eq!(
        SlabParams::new(&p, 2, 1, 1 << 30, Some(99)).slab_max_order,
        13
    );
}

#[test]
fn requests_the_kernel_refuses() {
    let p = page(4096);
    let pr = params(&p);
    let get = |req: SlabCacheRequest| slab_cache_geometry(&p, &pr, &req);
    assert_eq!(
        get(SlabCacheRequest::new("z", 0)),
        Err(GeometryError::ZeroObjectSize)
    );
    let odd = SlabCacheRequest {
        align: 24,
        ..SlabCacheRequest::new("a", 64)
    };
    assert_eq!(get(odd), Err(GeometryError::Align { align: 24 }));
    assert!(matches!(
        get(SlabCacheRequest::new("huge", (4 << 20) + 1)),
        Err(GeometryError::ObjectTooLarge { .. })
    ));
}

#[test]
fn kmalloc_index_under_slab() {
    let p = page(4096);
    let name = |size| slab_kmalloc_index(&p, size).map(|c| c.name());
    for (size, cache) in [
        (1, "kmalloc-32"),
        (8, "kmalloc-32"),
        (16, "kmalloc-32"),
        (32, "kmalloc-32"),
        (33, "kmalloc-64"),
        (65, "kmalloc-96"),
        (96, "kmalloc-96"),
        (97, "kmalloc-128"),
        (129, "kmalloc-192"),
        (193, "kmalloc-256"),
        (1000, "kmalloc-1k"),
        (8192, "kmalloc-8k"),
    ] {
        assert_eq!(name(size).as_deref(), Some(cache), "kmalloc({size})");
    }
    assert_eq!(name(0), None);
    assert_eq!(name(8193), None);
    assert_eq!(
        slab_kmalloc_index(&page(65536), 131072).unwrap().size,
        131072
    );
}

#[test]
fn kmalloc_caches_in_creation_order() {
    // kmem_cache_init() creates the kmem_cache_node cache (kmalloc-128) before the rest.
    let names: Vec<String> = slab_kmalloc_classes(&page(4096))
        .iter()
        .map(KmallocClass::name)
        .collect();
    assert_eq!(
        names,
        [
            "kmalloc-128",
            "kmalloc-32",
            "kmalloc-64",
            "kmalloc-96",
            "kmalloc-192",
            "kmalloc-256",
            "kmalloc-512",
            "kmalloc-1k",
            "kmalloc-2k",
            "kmalloc-4k",
            "kmalloc-8k"
        ]
    );
    assert_eq!(slab_kmalloc_classes(&page(65536)).len(), 15);
    let rcl = slab_kmalloc_request(&slab_kmalloc_index(&page(4096), 96).unwrap(), true);
    assert_eq!(
        (rcl.name.as_str(), rcl.flags.reclaim_account),
        ("kmalloc-rcl-96", true)
    );
}

#[test]
fn boot_order_does_not_change_any_kmalloc_cache() {
    // Each kmalloc cache is laid out seeing only older ones; none ends up off-slab, and each
    // matches what the same request gives once all kmalloc caches exist.
    for size in [4096, 16384, 65536] {
        let p = page(size);
        let pr = params(&p);
        for (class, g) in slab_kmalloc_classes(&p)
            .iter()
            .zip(slab_kmalloc_caches(&p, &pr))
        {
            assert_ne!(g.layout, FreelistLayout::OffSlab, "{}", g.name);
            let late = slab_cache_geometry(&p, &pr, &slab_kmalloc_request(class, false));
            assert_eq!(late.as_ref(), Ok(&g), "page {size}");
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn request() -> impl Strategy<Value = SlabCacheRequest> {
        (
            prop_oneof![1u32..=512, 1u32..=16384, 1u32..=(4 << 20)],
            prop_oneof![Just(0u32), (0u32..=12).prop_map(|s| 1 << s)],
            any::<(bool, bool, bool, bool)>(),
        )
            .prop_map(
                |(object_size, align, (hw, rcu, ctor, reclaim))| SlabCacheRequest {
                    align,
                    flags: SlabFlags {
                        hwcache_align: hw,
                        typesafe_by_rcu: rcu,
                        reclaim_account: reclaim,
                        ..SlabFlags::default()
                    },
                    ctor,
                    ..SlabCacheRequest::new("p", object_size)
                },
            )
    }

    fn machine() -> impl Strategy<Value = (PageGeometry, SlabParams)> {
        (
            prop::sample::select(vec![4096u32, 16384, 65536]),
            1u32..=64,
            prop::option::of(0u32..=4),
        )
            .prop_map(|(size, cpus, max_order)| {
                let p = page(size);
                let params = SlabParams::new(&p, cpus, 1, 1 << 30, max_order);
                (p, params)
            })
    }

    proptest! {
        #[test]
        fn every_layout_obeys_its_own_rule(req in request(), (p, params) in machine()) {
            let g = slab_cache_geometry(&p, &params, &req).unwrap();
            let idx = freelist_idx_size(&p);
            prop_assert!(g.align.is_power_of_two() && g.align >= 8);
            prop_assert!(g.size >= req.object_size && g.size % g.align == 0);
            prop_assert!(g.num >= 1 && g.num <= slab_obj_max_num(&p));
            prop_assert!(g.gfporder <= p.max_order);
            let on_slab = if g.layout == FreelistLayout::OnSlab { g.freelist_size } else { 0 };
            prop_assert_eq!(
                p.bytes(g.gfporder),
                u64::from(g.num) * u64::from(g.size) + u64::from(g.left_over) + u64::from(on_slab)
            );
            prop_assert_eq!(g.freelist_size, g.num * idx);
            prop_assert_eq!(g.colour, g.left_over / g.colour_off);
            match g.layout {
                FreelistLayout::ObjFreelist => {
                    prop_assert!(!req.ctor && !req.flags.typesafe_by_rcu);
                    prop_assert!(g.freelist_size <= req.object_size);
                }
                FreelistLayout::OffSlab => {
                    let cache = g.off_slab_kmalloc_size.unwrap();
                    prop_assert!(cache <= req.object_size / 2);
                    prop_assert!(g.left_over < g.freelist_size);
                }
                FreelistLayout::OnSlab => prop_assert_eq!(g.off_slab_kmalloc_size, None),
            }
            // Above slab_max_order (or past the first fitting order for reclaimable caches)
            // only when no smaller order holds an object.
            let per_object = g.size + if g.layout == FreelistLayout::OnSlab { idx } else { 0 };
            let first_fit = g.gfporder == 0 || p.bytes(g.gfporder - 1) < u64::from(per_object);
            if g.layout != FreelistLayout::OffSlab
                && (g.gfporder > params.slab_max_order || req.flags.reclaim_account)
            {
                prop_assert!(first_fit, "order {} for {:?}", g.gfporder, g);
            }
            prop_assert_eq!(g.batchcount, g.limit.div_ceil(2));
            prop_assert_eq!(free_limit(&g, 2), 3 * g.batchcount + g.num);
        }

        #[test]
        fn no_input_panics(
            object_size in any::<u32>(),
            align in any::<u32>(),
            ctor in any::<bool>(),
            (p, params) in machine(),
        ) {
            let req = SlabCacheRequest { align, ctor, ..SlabCacheRequest::new("p", object_size) };
            let _ = slab_cache_geometry(&p, &params, &req);
        }
    }
}
