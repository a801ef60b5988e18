//! Zone watermarks and per-CPU page list sizes at boot (mm/page_alloc.c, v6.6:
//! `init_per_zone_wmark_min()`, `__setup_per_zone_wmarks()`, `zone_batchsize()`,
//! `zone_highsize()`). Spec 4.4 and 4.5.

use super::Zone;
use crate::geometry::platform::PageGeometry;

/// `watermark_scale_factor` default (0.1% of the zone).
const WATERMARK_SCALE_FACTOR: u64 = 10;

/// `int_sqrt()`.
fn int_sqrt(x: u64) -> u64 {
    let mut r = (x as f64).sqrt() as u64;
    while r * r > x {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= x {
        r += 1;
    }
    r
}

/// `min_free_kbytes` as `init_per_zone_wmark_min()` derives it from all low memory, then
/// `WMARK_MIN/LOW/HIGH` of every zone.
pub fn setup_per_zone_wmarks(page: &PageGeometry, zones: &mut [Zone]) {
    let lowmem_pages: u64 = zones.iter().map(|z| u64::from(z.pages)).sum();
    let lowmem_kbytes = lowmem_pages * u64::from(page.page_size >> 10);
    let min_free_kbytes = int_sqrt(lowmem_kbytes * 16).clamp(128, 262_144);
    let pages_min = min_free_kbytes >> (page.page_shift - 10);
    for zone in zones {
        let managed = u64::from(zone.pages);
        let min = pages_min * managed / lowmem_pages;
        let step = (min >> 2).max(managed * WATERMARK_SCALE_FACTOR / 10_000);
        zone.watermark = [min, min + step, min + 2 * step];
    }
}

/// `zone_batchsize()`: about 0.1% of the zone, at most 1 MiB, rounded to `2^n - 1`.
pub fn zone_batchsize(page: &PageGeometry, managed_pages: u32) -> u32 {
    let mut batch = (managed_pages >> 10).min((1 << 20) / page.page_size);
    batch /= 4;
    batch = batch.max(1);
    let x = batch + batch / 2;
    (1 << (31 - x.leading_zeros())) - 1
}

/// `zone_highsize()`: the low watermark split over the node's CPUs, at least `4 * batch`.
pub fn zone_highsize(zone: &Zone, batch: u32, cpus_of_node: u32) -> u32 {
    let high = zone.watermark[1] / u64::from(cpus_of_node.max(1));
    (high as u32).max(batch << 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;
    use crate::machine::{ListHead, Pfn};

    fn zone(pages: u32) -> Zone {
        Zone {
            node: NodeId(0),
            start_pfn: Pfn(0),
            pages,
            free_area: vec![ListHead::EMPTY; 11],
            free_pages: 0,
            watermark: [0; 3],
        }
    }

    #[test]
    fn batch_of_spec_example_5_11() {
        let page = PageGeometry::new(4096).unwrap();
        assert_eq!(zone_batchsize(&page, 2_000_000), 63);
        // DMA32 zone of sample 1 under v6.6 rules (spec 4.4): 63.
        assert_eq!(zone_batchsize(&page, 995_127), 63);
        // Small teaching zones get 0: the pcp lists would never be refilled.
        assert_eq!(zone_batchsize(&page, 4096), 0);
        assert_eq!(zone_batchsize(&page, 65_536), 15);
    }

    #[test]
    fn high_is_the_low_watermark_per_cpu_but_at_least_four_batches() {
        let mut z = zone(2_000_000);
        z.watermark = [3917, 4896, 5875];
        assert_eq!(zone_highsize(&z, 63, 2), 2448);
        z.watermark = [10, 12, 14];
        assert_eq!(zone_highsize(&z, 63, 2), 252);
    }

    #[test]
    fn watermarks_follow_min_free_kbytes() {
        let page = PageGeometry::new(4096).unwrap();
        // 8 GiB in one zone: min_free_kbytes = sqrt(8388608 * 16) = 11585 -> 2896 pages.
        let mut zones = vec![zone(2_097_152)];
        setup_per_zone_wmarks(&page, &mut zones);
        let [min, low, high] = zones[0].watermark;
        assert_eq!(min, 2896);
        // step = max(2896 / 4 = 724, 2097152 * 10 / 10000 = 2097)
        assert_eq!((low, high), (2896 + 2097, 2896 + 2 * 2097));
        assert_eq!(int_sqrt(15), 3);
        assert_eq!(int_sqrt(16), 4);
    }
}
