//! kmalloc size classes (spec 1.1, `kmalloc_slab()`/`__kmalloc_index()` and `kmalloc_info[]`
//! in mm/slab_common.c, v6.6) and the large-kmalloc cut-off (spec 1.4).
//!
//! SLUB's `KMALLOC_MIN_SIZE` is 8 on the machines we model, so the 24-entry `size_index[]`
//! table is used unpatched and both kmalloc-96 and kmalloc-192 exist.

use super::platform::PageGeometry;
use super::GeometryError;

/// `size_index[]` for sizes 1..=192, one entry per 8 bytes (v6.6 default table).
const SIZE_INDEX: [u32; 24] = [
    3, // 1..8
    4, // 9..16
    5, 5, // 17..32
    6, 6, 6, 6, // 33..64
    1, 1, 1, 1, // 65..96
    7, 7, 7, 7, // 97..128
    2, 2, 2, 2, 2, 2, 2, 2, // 129..192
];

/// Where `kmalloc(size)` is served from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KmallocTarget {
    /// `kmalloc(0)` returns `ZERO_SIZE_PTR` and touches no cache.
    ZeroSizePtr,
    /// A kmalloc cache: its index in `kmalloc_caches[]`, object size and name.
    Cache(KmallocClass),
    /// Above `KMALLOC_MAX_CACHE_SIZE`: `__kmalloc_large_node()` takes `2^order` pages.
    Large { order: u32 },
}

/// One kmalloc cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KmallocClass {
    /// Index in `kmalloc_caches[type][]` (1 = 96 bytes, 2 = 192 bytes, else `2^index`).
    pub index: u32,
    /// The cache's object size.
    pub size: u32,
}

impl KmallocClass {
    /// The class at `index` of `kmalloc_info[]`.
    pub fn from_index(index: u32) -> Self {
        let size = match index {
            1 => 96,
            2 => 192,
            i => 1 << i,
        };
        KmallocClass { index, size }
    }

    /// The name `/proc/slabinfo` prints, e.g. `kmalloc-96`, `kmalloc-1k` (`kmalloc_info[]`:
    /// sizes from 1024 up are named in KiB).
    pub fn name(&self) -> String {
        format!("kmalloc-{}", self.short_size())
    }

    /// The size as `kmalloc_info[]` writes it in every type's name: `96`, `1k`, `8k`.
    pub fn short_size(&self) -> String {
        if self.size >= 1024 {
            format!("{}k", self.size / 1024)
        } else {
            self.size.to_string()
        }
    }
}

/// `kmalloc_slab()` plus the large and zero cases: which cache (or none) serves `size` bytes.
pub fn kmalloc_target(page: &PageGeometry, size: u64) -> Result<KmallocTarget, GeometryError> {
    if size == 0 {
        return Ok(KmallocTarget::ZeroSizePtr);
    }
    if size > u64::from(page.kmalloc_max_cache_size()) {
        if size > page.kmalloc_max_size() {
            return Err(GeometryError::KmallocTooLarge {
                size,
                max: page.kmalloc_max_size(),
            });
        }
        return Ok(KmallocTarget::Large {
            order: page.get_order(size),
        });
    }
    let index = if size <= 192 {
        SIZE_INDEX[((size - 1) / 8) as usize]
    } else {
        // fls(size - 1)
        u64::BITS - (size - 1).leading_zeros()
    };
    Ok(KmallocTarget::Cache(KmallocClass::from_index(index)))
}

/// Every kmalloc class, in the order `create_kmalloc_caches()` makes one type's caches (96
/// right after 64, 192 right after 128).
pub fn kmalloc_classes(page: &PageGeometry) -> Vec<KmallocClass> {
    let high = page.page_shift + 1;
    let mut out = Vec::new();
    for index in 3..=high {
        out.push(KmallocClass::from_index(index));
        if index == 6 {
            out.push(KmallocClass::from_index(1));
        }
        if index == 7 {
            out.push(KmallocClass::from_index(2));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(size: u64) -> String {
        let page = PageGeometry::new(4096).unwrap();
        match kmalloc_target(&page, size).unwrap() {
            KmallocTarget::Cache(c) => c.name(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn size_classes_follow_the_size_index_table() {
        assert_eq!(class(1), "kmalloc-8");
        assert_eq!(class(8), "kmalloc-8");
        assert_eq!(class(9), "kmalloc-16");
        assert_eq!(class(24), "kmalloc-32");
        assert_eq!(class(64), "kmalloc-64");
        assert_eq!(class(65), "kmalloc-96");
        assert_eq!(class(96), "kmalloc-96");
        assert_eq!(class(97), "kmalloc-128");
        assert_eq!(class(129), "kmalloc-192");
        assert_eq!(class(192), "kmalloc-192");
        assert_eq!(class(193), "kmalloc-256");
        assert_eq!(class(257), "kmalloc-512");
        assert_eq!(class(1000), "kmalloc-1k");
        assert_eq!(class(4097), "kmalloc-8k");
        assert_eq!(class(8192), "kmalloc-8k");
    }

    #[test]
    fn zero_and_large_requests_bypass_the_caches() {
        let page = PageGeometry::new(4096).unwrap();
        assert_eq!(
            kmalloc_target(&page, 0).unwrap(),
            KmallocTarget::ZeroSizePtr
        );
        assert_eq!(
            kmalloc_target(&page, 8193).unwrap(),
            KmallocTarget::Large { order: 2 }
        );
        assert_eq!(
            kmalloc_target(&page, 4 << 20).unwrap(),
            KmallocTarget::Large { order: 10 }
        );
        assert!(kmalloc_target(&page, (4 << 20) + 1).is_err());
        let big = PageGeometry::new(65536).unwrap();
        assert!(matches!(
            kmalloc_target(&big, 131072).unwrap(),
            KmallocTarget::Cache(KmallocClass { size: 131072, .. })
        ));
    }

    #[test]
    fn the_cache_list_has_96_and_192_in_creation_order() {
        let page = PageGeometry::new(4096).unwrap();
        let names: Vec<String> = kmalloc_classes(&page)
            .iter()
            .map(KmallocClass::name)
            .collect();
        assert_eq!(
            names,
            [
                "kmalloc-8",
                "kmalloc-16",
                "kmalloc-32",
                "kmalloc-64",
                "kmalloc-96",
                "kmalloc-128",
                "kmalloc-192",
                "kmalloc-256",
                "kmalloc-512",
                "kmalloc-1k",
                "kmalloc-2k",
                "kmalloc-4k",
                "kmalloc-8k"
            ]
        );
    }
}
