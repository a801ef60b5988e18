//! Property tests: for random caches on random machines the geometry is self-consistent, and
//! no input whatsoever makes it panic.

use proptest::prelude::*;
use slabscope_sim::geometry::platform::{PageGeometry, MAX_OBJS_PER_PAGE};
use slabscope_sim::geometry::{
    kmem_cache_geometry, CacheRequest, CacheSource, GeometryError, SlabFlags,
};

fn flags() -> impl Strategy<Value = SlabFlags> {
    prop::array::uniform6(any::<bool>()).prop_map(|b| SlabFlags {
        hwcache_align: b[0],
        typesafe_by_rcu: b[1],
        poison: b[2],
        red_zone: b[3],
        store_user: b[4],
        consistency_checks: b[5],
        // The merge flags (account, reclaim_account, DMA, no_merge) do not change SLUB's layout.
        ..SlabFlags::default()
    })
}

fn valid_request() -> impl Strategy<Value = CacheRequest> {
    (
        prop_oneof![1u32..=512, 1u32..=16384, 1u32..=(1 << 22)],
        prop_oneof![Just(0u32), (0u32..=12).prop_map(|s| 1 << s)],
        flags(),
        any::<bool>(),
        prop::sample::select(vec![4096u32, 16384, 65536]),
        1u32..=64,
        prop_oneof![Just(0u32), 1u32..=64],
        prop::option::of(0u32..=6),
        0u32..=3,
    )
        .prop_map(
            |(
                object_size,
                align,
                flags,
                ctor,
                page_size,
                cpus,
                min_objects,
                max_order,
                min_order,
            )| {
                CacheRequest {
                    source: CacheSource::Object { object_size },
                    align,
                    flags,
                    ctor,
                    page_size,
                    cpus,
                    slub_min_objects: min_objects,
                    slub_max_order: max_order,
                    slub_min_order: min_order,
                    freeptr_offset: None,
                    sheaf_capacity: None,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn layouts_are_consistent(req in valid_request()) {
        let g = match kmem_cache_geometry(&req) {
            Ok(g) => g,
            Err(e) => {
                // Valid machines only refuse slots that no MAX_ORDER slab can hold.
                let page = PageGeometry::new(req.page_size).unwrap();
                prop_assert!(
                    matches!(e, GeometryError::ObjectTooLarge { size, .. } if u64::from(size) > page.kmalloc_max_size()),
                    "unexpected refusal {:?}", e
                );
                return Ok(());
            }
        };
        let page = PageGeometry::new(req.page_size).unwrap();
        prop_assert!(g.objs_per_slab >= 1 && g.objs_per_slab <= MAX_OBJS_PER_PAGE);
        prop_assert_eq!(g.slab_size, page.bytes(g.order));
        prop_assert_eq!(u64::from(g.objs_per_slab) * u64::from(g.size) + g.waste, g.slab_size);
        prop_assert!(g.waste < u64::from(g.size));
        prop_assert!(g.size >= g.object_size && g.size % g.align == 0);
        prop_assert!(g.align.is_power_of_two() && g.align >= 8);
        prop_assert!(req.align == 0 || g.align >= req.align);
        prop_assert!(g.offset % 8 == 0 && g.offset + 8 <= g.size);
        prop_assert!(g.inuse >= g.object_size && g.inuse <= g.size);
        prop_assert!(g.order <= page.max_order);
        prop_assert!((5..=10).contains(&g.min_partial));
        prop_assert!(u64::from(g.cpu_partial_slabs) * u64::from(g.objs_per_slab)
            >= 2 * u64::from(g.cpu_partial));
        prop_assert_eq!(g.cpu_partial == 0, g.debug);
        // The free pointer overlays the object only when the object may be overwritten.
        let outside = g.offset >= g.inuse;
        let must_be_outside = req.ctor || req.flags.typesafe_by_rcu || req.flags.poison
            || (req.flags.red_zone && g.object_size < 8);
        prop_assert!(!must_be_outside || outside);
        prop_assert!(must_be_outside || g.offset < g.object_size.max(8));
    }

    #[test]
    fn no_input_panics(
        object_size in any::<u32>(),
        kmalloc in any::<bool>(),
        align in any::<u32>(),
        flags in flags(),
        ctor in any::<bool>(),
        page_size in prop_oneof![any::<u32>(), Just(4096u32), Just(65536u32)],
        cpus in any::<u32>(),
        min_objects in any::<u32>(),
        max_order in prop::option::of(any::<u32>()),
        min_order in prop_oneof![any::<u32>(), 0u32..=3],
    ) {
        let source = if kmalloc {
            CacheSource::Kmalloc { request_size: object_size }
        } else {
            CacheSource::Object { object_size }
        };
        let _ = kmem_cache_geometry(&CacheRequest {
            source, align, flags, ctor, page_size, cpus,
            slub_min_objects: min_objects, slub_max_order: max_order, slub_min_order: min_order,
            freeptr_offset: None,
            sheaf_capacity: None,
        });
    }
}
