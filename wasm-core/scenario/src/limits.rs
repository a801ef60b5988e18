//! The language's limits: how large a scenario, a machine and each count in it may be.
//!
//! Rules: everything in a scenario is untrusted, so every number the parser reads has an upper
//! bound, and a text past one is a `ParseError` naming it. The machine's bounds are the ones the
//! simulator can build; the language states them itself (it knows nothing of the simulator),
//! and a test of the runner, which sees both, checks that the two agree.

/// Largest scenario text accepted, in bytes.
pub const MAX_TEXT: usize = 1 << 20;
/// Largest `repeat` count.
pub const MAX_REPEAT: u64 = 1_000_000;
/// Largest `kmem_cache_alloc_bulk` count.
pub const MAX_BULK: u64 = 65_536;

/// Most CPUs a machine may have.
pub const MAX_CPUS: u32 = 64;
/// Most NUMA nodes a machine may have.
pub const MAX_NODES: u32 = 4;
/// Most pages one node may hold.
pub const MAX_PAGES_PER_NODE: u32 = 1 << 20;
/// The page sizes a machine may have: `PAGE_SIZE` of x86_64 and of arm64's three kernels.
pub const PAGE_SIZES: [u32; 3] = [4096, 16384, 65536];
/// The largest page order any of those page sizes has (`MAX_ORDER` with 64 KiB pages): the
/// bound of `alloc_pages` orders and of the order boot parameters.
pub const MAX_ORDER: u64 = 13;
/// Largest `slub_min_objects=`: `MAX_OBJS_PER_PAGE`, as `slab->objects` is a 15-bit field.
pub const MAX_MIN_OBJECTS: u64 = 32767;
