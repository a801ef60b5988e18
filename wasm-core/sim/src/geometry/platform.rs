//! The machine constants the layout rules depend on: page size, the buddy allocator's largest
//! order, the cache line, the word, and the SLUB boot parameters.
//!
//! Only 64-bit machines are modelled (`sizeof(void *) == 8`), with a 64-byte cache line, as on
//! x86_64 and arm64.

use super::GeometryError;

/// `sizeof(void *)` on the 64-bit machines we model.
pub const WORD: u32 = 8;
/// `cache_line_size()`: 64 bytes on x86_64 and arm64.
pub const CACHE_LINE: u32 = 64;
/// `ARCH_KMALLOC_MINALIGN`: 8 on x86_64 (and on arm64 since v6.5, with DMA bouncing).
pub const ARCH_KMALLOC_MINALIGN: u32 = 8;
/// `PAGE_ALLOC_COSTLY_ORDER`, the default `slub_max_order`.
pub const PAGE_ALLOC_COSTLY_ORDER: u32 = 3;
/// `MAX_OBJS_PER_PAGE`: `slab->objects` is a 15-bit field.
pub const MAX_OBJS_PER_PAGE: u32 = 32767;
/// Most CPUs a scenario or sweep may model.
pub const MAX_CPUS: u32 = 64;

/// The page sizes we model, with their `PAGE_SHIFT` and `MAX_ORDER`.
///
/// `MAX_ORDER` is the largest buddy order, inclusive, as v6.4..v6.7 define it. x86_64 has 10;
/// arm64's `ARCH_FORCE_MAX_ORDER` (arch/arm64/Kconfig, v6.6) defaults to 10 for 4K pages, 11
/// for 16K pages and 13 for 64K pages.
const PAGE_SIZES: [(u32, u32, u32); 3] = [(4096, 12, 10), (16384, 14, 11), (65536, 16, 13)];

/// Page size and the values derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageGeometry {
    /// `PAGE_SIZE` in bytes.
    pub page_size: u32,
    /// `PAGE_SHIFT`.
    pub page_shift: u32,
    /// `MAX_ORDER` (largest order, inclusive).
    pub max_order: u32,
}

impl PageGeometry {
    pub fn new(page_size: u32) -> Result<Self, GeometryError> {
        PAGE_SIZES
            .iter()
            .find(|(size, _, _)| *size == page_size)
            .map(|&(page_size, page_shift, max_order)| PageGeometry {
                page_size,
                page_shift,
                max_order,
            })
            .ok_or(GeometryError::PageSize { page_size })
    }

    /// `get_order(n)`: the smallest order whose block holds `n` bytes (`n >= 1`).
    pub fn get_order(&self, n: u64) -> u32 {
        let pages = (n.max(1) - 1) >> self.page_shift;
        u64::BITS - pages.leading_zeros()
    }

    /// Bytes in a block of `order` pages.
    pub fn bytes(&self, order: u32) -> u64 {
        u64::from(self.page_size) << order
    }

    /// `KMALLOC_SHIFT_HIGH = PAGE_SHIFT + 1`: the largest kmalloc cache holds two pages.
    pub fn kmalloc_max_cache_size(&self) -> u32 {
        self.page_size * 2
    }

    /// `KMALLOC_MAX_SIZE = 1 << (MAX_ORDER + PAGE_SHIFT)`: the largest kmalloc at all.
    pub fn kmalloc_max_size(&self) -> u64 {
        self.bytes(self.max_order)
    }
}

/// The boot parameters and CPU count that `calculate_order()` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlubParams {
    /// `num_present_cpus()` (1..=64).
    pub cpus: u32,
    /// `slub_min_objects=`; 0 means "derive from the CPU count".
    pub slub_min_objects: u32,
    /// `slub_max_order=`, already clamped to `MAX_ORDER` as `setup_slub_max_order()` does.
    pub slub_max_order: u32,
    /// `slub_min_order=`; v6.6 stores it unclamped (`setup_slub_min_order()`).
    pub slub_min_order: u32,
}

impl SlubParams {
    /// Checks the CPU count and applies the kernel's own clamp to `slub_max_order`.
    pub fn new(
        page: &PageGeometry,
        cpus: u32,
        slub_min_objects: u32,
        slub_max_order: Option<u32>,
        slub_min_order: u32,
    ) -> Result<Self, GeometryError> {
        if !(1..=MAX_CPUS).contains(&cpus) {
            return Err(GeometryError::Cpus { cpus });
        }
        if slub_min_order > page.max_order {
            return Err(GeometryError::MinOrder {
                slub_min_order,
                max_order: page.max_order,
            });
        }
        let slub_max_order = slub_max_order
            .unwrap_or(PAGE_ALLOC_COSTLY_ORDER)
            .min(page.max_order);
        Ok(SlubParams {
            cpus,
            slub_min_objects,
            slub_max_order,
            slub_min_order,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_order_matches_the_kernel_helper() {
        let page = PageGeometry::new(4096).unwrap();
        assert_eq!(page.get_order(1), 0);
        assert_eq!(page.get_order(4096), 0);
        assert_eq!(page.get_order(4097), 1);
        assert_eq!(page.get_order(8192), 1);
        assert_eq!(page.get_order(8193), 2);
        assert_eq!(page.get_order(32768), 3);
        assert_eq!(page.get_order(4 << 20), 10);
        let big = PageGeometry::new(65536).unwrap();
        assert_eq!(big.get_order(65537), 1);
    }

    #[test]
    fn only_modelled_page_sizes_are_accepted() {
        assert_eq!(PageGeometry::new(16384).unwrap().max_order, 11);
        assert_eq!(PageGeometry::new(65536).unwrap().max_order, 13);
        assert!(matches!(
            PageGeometry::new(8192),
            Err(GeometryError::PageSize { page_size: 8192 })
        ));
    }

    #[test]
    fn slub_max_order_is_clamped_like_setup_slub_max_order() {
        let page = PageGeometry::new(4096).unwrap();
        let p = SlubParams::new(&page, 2, 0, Some(99), 0).unwrap();
        assert_eq!(p.slub_max_order, 10);
        assert!(SlubParams::new(&page, 0, 0, None, 0).is_err());
        assert!(SlubParams::new(&page, 65, 0, None, 0).is_err());
        assert!(SlubParams::new(&page, 4, 0, None, 11).is_err());
    }
}
