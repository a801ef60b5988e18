//! Slab order: `calc_slab_order()` and `calculate_order()` of mm/slub.c, v6.6 (spec 2.3) and
//! v6.7+ (spec after 6.6, 2.1).
//!
//! v6.6 lowers `min_objects` one at a time while no order up to `slub_max_order` wastes at most
//! 1/16, 1/8 or 1/4 of the slab (`calculate_order()`); v6.7 rewrote this, and the profiles from
//! linux-6.12 on use the rewrite (`calculate_order_v6_7()`).

use super::platform::{PageGeometry, SlubParams, MAX_OBJS_PER_PAGE};

/// `order_objects(order, size)`: objects of `size` bytes in a slab of `order`.
pub fn order_objects(page: &PageGeometry, order: u32, size: u32) -> u64 {
    page.bytes(order) / u64::from(size)
}

/// `calc_slab_order()`: the first order from `max(slub_min_order, get_order(min_objects *
/// size))` whose leftover is at most `1/fract_leftover` of the slab, or `max_order + 1`.
pub fn calc_slab_order(
    page: &PageGeometry,
    params: &SlubParams,
    size: u32,
    min_objects: u32,
    max_order: u32,
    fract_leftover: u32,
) -> u32 {
    let min_order = params.slub_min_order;
    if order_objects(page, min_order, size) > u64::from(MAX_OBJS_PER_PAGE) {
        // Tiny objects in a big slab_min_order slab would overflow the 15-bit objects field.
        return page.get_order(u64::from(size) * u64::from(MAX_OBJS_PER_PAGE)) - 1;
    }
    let first = min_order.max(page.get_order(u64::from(min_objects) * u64::from(size)));
    let mut order = first;
    while order <= max_order {
        let slab_bytes = page.bytes(order);
        if slab_bytes % u64::from(size) <= slab_bytes / u64::from(fract_leftover) {
            break;
        }
        order += 1;
    }
    order
}

/// The `min_objects` that `calculate_order()` starts from, before the clamp to what fits in a
/// `slub_max_order` slab: `slub_min_objects`, else `4 * (fls(nr_cpus) + 1)`.
pub fn initial_min_objects(params: &SlubParams) -> u32 {
    if params.slub_min_objects != 0 {
        return params.slub_min_objects;
    }
    // num_present_cpus(), falling back to nr_cpu_ids when <= 1: the same number here.
    let nr_cpus = params.cpus;
    let fls = u32::BITS - nr_cpus.leading_zeros();
    4 * (fls + 1)
}

/// `calculate_order()`: the preferred order for objects of `size`, or `None` where the kernel
/// returns `-ENOSYS` (no order up to `MAX_ORDER` holds even one object).
pub fn calculate_order(page: &PageGeometry, params: &SlubParams, size: u32) -> Option<u32> {
    let max_objects = order_objects(page, params.slub_max_order, size);
    let mut min_objects = u64::from(initial_min_objects(params)).min(max_objects) as u32;
    while min_objects > 1 {
        for fraction in [16, 8, 4] {
            let order = calc_slab_order(
                page,
                params,
                size,
                min_objects,
                params.slub_max_order,
                fraction,
            );
            if order <= params.slub_max_order {
                return Some(order);
            }
        }
        min_objects -= 1;
    }
    // Accept any waste with a single object, first within slub_max_order, then up to MAX_ORDER.
    let order = calc_slab_order(page, params, size, 1, params.slub_max_order, 1);
    if order <= params.slub_max_order {
        return Some(order);
    }
    let order = calc_slab_order(page, params, size, 1, page.max_order, 1);
    (order <= page.max_order).then_some(order)
}

/// `calculate_order()` of 6.7 and later (mm/slub.c, read in v6.12.117, v6.18.15 and v7.2.13,
/// unchanged between them): `min_objects` is clamped once and fixes the lowest order, and
/// the waste fractions 1/16, 1/8, 1/4 and then 1/2 are tried from there up to
/// `slab_max_order`; 1/2 accepts the order `min_objects` asks for whatever it wastes. There
/// is no lowering of `min_objects` and no single-object pass any more, so the two rules part
/// only for objects that cannot keep to 1/4 at that order (12224 bytes on 2 CPUs: order 2 and
/// one object in 6.6, order 3 and two objects here). `None` is `-ENOSYS`.
pub fn calculate_order_v6_7(page: &PageGeometry, params: &SlubParams, size: u32) -> Option<u32> {
    // max(order_objects(slub_max_order), 1): get_order(0) is undefined.
    let max_objects = order_objects(page, params.slub_max_order, size).max(1);
    let min_objects = u64::from(initial_min_objects(params)).min(max_objects);
    let min_order = params
        .slub_min_order
        .max(page.get_order(min_objects * u64::from(size)));
    if order_objects(page, min_order, size) > u64::from(MAX_OBJS_PER_PAGE) {
        return Some(page.get_order(u64::from(size) * u64::from(MAX_OBJS_PER_PAGE)) - 1);
    }
    for fraction in [16u64, 8, 4, 2] {
        // calc_slab_order(size, min_order, slub_max_order, fraction)
        let found = (min_order..=params.slub_max_order).find(|&order| {
            let slab_bytes = page.bytes(order);
            slab_bytes % u64::from(size) <= slab_bytes / fraction
        });
        if let Some(order) = found {
            return Some(order);
        }
    }
    // Not even one object in a slub_max_order slab.
    let order = page.get_order(u64::from(size));
    (order <= page.max_order).then_some(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(page: &PageGeometry, cpus: u32) -> SlubParams {
        SlubParams::new(page, cpus, 0, None, 0).unwrap()
    }

    #[test]
    fn min_objects_by_cpu_count() {
        let page = PageGeometry::new(4096).unwrap();
        let expect = [
            (1, 8),
            (2, 12),
            (3, 12),
            (4, 16),
            (7, 16),
            (8, 20),
            (16, 24),
            (32, 28),
            (64, 32),
        ];
        for (cpus, min) in expect {
            assert_eq!(
                initial_min_objects(&params(&page, cpus)),
                min,
                "{cpus} cpus"
            );
        }
        let fixed = SlubParams::new(&page, 4, 5, None, 0).unwrap();
        assert_eq!(initial_min_objects(&fixed), 5);
    }

    #[test]
    fn worked_example_5_1_on_16k_and_4k_pages() {
        let p16 = PageGeometry::new(16384).unwrap();
        assert_eq!(calculate_order(&p16, &params(&p16, 4), 144), Some(0));
        assert_eq!(order_objects(&p16, 0, 144), 113);
        let p4 = PageGeometry::new(4096).unwrap();
        assert_eq!(calculate_order(&p4, &params(&p4, 4), 144), Some(0));
        assert_eq!(order_objects(&p4, 0, 144), 28);
    }

    #[test]
    fn worked_example_5_3_falls_back_to_one_object() {
        // task_struct 12224 bytes, 2 CPUs: v6.6 gives order 2 with one object.
        let page = PageGeometry::new(4096).unwrap();
        assert_eq!(calculate_order(&page, &params(&page, 2), 12224), Some(2));
    }

    #[test]
    fn huge_objects_go_past_slub_max_order_and_then_fail() {
        let page = PageGeometry::new(4096).unwrap();
        let p = params(&page, 2);
        assert_eq!(calculate_order(&page, &p, 1 << 20), Some(8));
        assert_eq!(calculate_order(&page, &p, 4 << 20), Some(10));
        assert_eq!(calculate_order(&page, &p, (4 << 20) + 8), None);
    }

    #[test]
    fn slub_min_order_caps_objects_per_slab() {
        // 64K pages, slub_min_order=3: 8-byte objects would be 65536 a slab, over the 15-bit
        // field, so calc_slab_order backs off to get_order(8 * 32767) - 1 = order 1, below
        // slub_min_order, exactly as v6.6 does.
        let page = PageGeometry::new(65536).unwrap();
        let p = SlubParams::new(&page, 2, 0, None, 3).unwrap();
        assert_eq!(calculate_order(&page, &p, 8), Some(1));
        assert!(order_objects(&page, 1, 8) <= u64::from(MAX_OBJS_PER_PAGE));
    }

    #[test]
    fn the_v6_7_rule_keeps_min_objects_and_accepts_half_waste() {
        // Spec after 6.6, 2.1: 12224-byte objects on 2 CPUs, order 3 with two objects.
        let page = PageGeometry::new(4096).unwrap();
        let p = params(&page, 2);
        assert_eq!(calculate_order_v6_7(&page, &p, 12224), Some(3));
        assert_eq!(order_objects(&page, 3, 12224), 2);
        // The worked examples of 6.1 (4 CPUs): mm_struct, TCP, task_struct.
        let p4 = params(&page, 4);
        assert_eq!(calculate_order_v6_7(&page, &p4, 1408), Some(3));
        assert_eq!(calculate_order_v6_7(&page, &p4, 2432), Some(3));
        assert_eq!(calculate_order_v6_7(&page, &p4, 8448), Some(3));
        assert_eq!(calculate_order_v6_7(&page, &p4, 96), Some(0));
        // Past slub_max_order, then past MAX_ORDER.
        assert_eq!(calculate_order_v6_7(&page, &p, 1 << 20), Some(8));
        assert_eq!(calculate_order_v6_7(&page, &p, (4 << 20) + 8), None);
        // Tiny objects with a big slab_min_order back off as 6.6 does.
        let big = PageGeometry::new(65536).unwrap();
        let p = SlubParams::new(&big, 2, 0, None, 3).unwrap();
        assert_eq!(calculate_order_v6_7(&big, &p, 8), Some(1));
    }

    #[test]
    fn the_two_rules_agree_except_where_a_quarter_cannot_be_met() {
        // Every slot size 8..=32768 in steps of 8 on 1..=64 CPUs: where they differ, the v6.6
        // rule had to give up objects (or waste) that v6.7 keeps.
        let page = PageGeometry::new(4096).unwrap();
        for cpus in [1, 2, 4, 8, 64] {
            let p = params(&page, cpus);
            for size in (8..=32768).step_by(8) {
                let old = calculate_order(&page, &p, size).unwrap();
                let new = calculate_order_v6_7(&page, &p, size).unwrap();
                if old != new {
                    let waste = page.bytes(old) % u64::from(size);
                    assert!(
                        waste > page.bytes(old) / 4
                            || order_objects(&page, old, size) < u64::from(initial_min_objects(&p)),
                        "{size} bytes, {cpus} cpus: {old} vs {new}"
                    );
                }
            }
        }
    }
}
