//! Cache geometry: how Linux 6.6 SLUB lays out a cache before any object is allocated —
//! kmalloc class, slot size, free pointer offset, slab order, objects per slab, waste and the
//! partial-list limits (spec sections 1 and 2.2-2.4).
//!
//! `kmem_cache_geometry()` is SLUB's entry point; the submodules mirror one kernel function
//! family each. `slab` holds the same questions answered by SLAB (mm/slab.c, spec 3.1-3.4),
//! with `slab_cache_geometry()` as its entry point.

mod cache;
mod error;
pub mod kmalloc;
pub mod layout;
pub mod order;
pub mod platform;
pub mod slab;
pub mod version;

pub use cache::{
    kmem_cache_geometry, kmem_cache_geometry_of, CacheGeometry, CacheRequest, CacheSource,
};
pub use error::GeometryError;
pub use layout::SlabFlags;
pub use version::{Sheaves, SlubVersion};
