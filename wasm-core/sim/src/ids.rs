//! The simulator's ids, one type each, so that one kind of number cannot be passed where
//! another is meant (a compile error), and the tables they index are typed by them
//! (`TiVec<CacheId, _>` is indexed by a `CacheId` and nothing else).
//!
//! Every id of the simulator is one of these: page frames, caches, CPUs and nodes are passed,
//! stored and recorded in events as `Pfn`, `CacheId`, `CpuId` and `NodeId`. Plain numbers
//! remain only at the edges: the machine's configuration (`MachineConfig`'s counts and
//! `cpu_node`), which the scenario text gives, and what is counted rather than named.
//!
//! | id        | identifies                                   | in the kernel                       |
//! |-----------|----------------------------------------------|-------------------------------------|
//! | `Pfn`     | a page frame; for a slab, its first page     | `page_to_pfn()`, `folio_pfn()`      |
//! | `CacheId` | a slab cache, in creation order, never reused | the `struct kmem_cache *s` pointer |
//! | `CpuId`   | a CPU                                        | `smp_processor_id()`, `raw_smp_processor_id()` |
//! | `NodeId`  | a NUMA node (and its one zone)               | `numa_node_id()`, `page_to_nid()`, `slab_nid()` |
//!
//! No `SlabId`: a slab is named by the `Pfn` of its first page. The kernel has no other name
//! for it either — `struct slab` overlays the first `struct page` of its folio and
//! `virt_to_slab()` finds it from the page — and every table of slabs (`SlabTable`, SLAB's
//! `slabs`), every list of slabs and every event names it so. A second type would be a second
//! name for the same number, converted back and forth at every `virt_to_slab()`.
//!
//! Rules:
//! - Each id serialises as its bare number (`#[serde(transparent)]`), and `Display`/`Debug`
//!   print the bare number (`LowerHex` too, for pfns), so the trace's JSON and text, the
//!   snapshots and the wasm boundary read exactly as they did when ids were plain integers.
//! - Tables indexed by an id are `TiVec<Id, T>` (crate `typed-index-collections`): a `Vec`
//!   whose index, `get` and enumeration take and give the id. Indexing costs what a `Vec`'s
//!   does (the id converts to `usize` in a register).
//! - `.index()` gives the `usize` for tables that are not typed (a flat `cpu * nodes + node`
//!   array, a bit set); `.0` is the number itself, for arithmetic and for the wire types.
//! - In the generated TypeScript each id is `number`, as the bare integer was.
//! - Only pfns have arithmetic, and only what the page allocator does with them: a block's
//!   pages (`+`), the distance between two pages (`-`), the buddy (`^`) and the combined block
//!   (`&`).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, BitAnd, BitXor, Sub};

pub use typed_index_collections::{TiSlice, TiVec};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident($int:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub $int);

        impl $name {
            /// The id as an index into an untyped table.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl From<usize> for $name {
            #[inline(always)]
            fn from(i: usize) -> Self {
                $name(i as $int)
            }
        }

        impl From<$name> for usize {
            #[inline(always)]
            fn from(id: $name) -> usize {
                id.0 as usize
            }
        }

        impl From<$name> for u64 {
            #[inline(always)]
            fn from(id: $name) -> u64 {
                u64::from(id.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        /// A `number` in TypeScript, as the bare integer was: the generated declarations name
        /// no id type.
        #[cfg(feature = "ts-export")]
        impl ts_rs::TS for $name {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn name() -> String {
                "number".to_owned()
            }
            fn inline() -> String {
                <Self as ts_rs::TS>::name()
            }
            fn inline_flattened() -> String {
                panic!("an id cannot be flattened")
            }
            fn decl() -> String {
                panic!("an id is not declared: it is a number")
            }
            fn decl_concrete() -> String {
                panic!("an id is not declared: it is a number")
            }
        }
    };
}

id! {
    /// A page frame number (`page_to_pfn()`). Node `n`'s frames are `n * span ..`; a slab is
    /// named by its first page's.
    Pfn(u32)
}

id! {
    /// A slab cache: its place in `slab_caches` in creation order (the kernel names a cache by
    /// its `struct kmem_cache *`). Ids are never reused, so a destroyed cache keeps its id.
    CacheId(u32)
}

id! {
    /// A CPU (`smp_processor_id()`); below the simulator's 64-CPU limit, so 16 bits keep
    /// `struct page`'s copy (a pcp list's owner) small.
    CpuId(u16)
}

id! {
    /// A sheaf (`struct slab_sheaf`, 6.18+): a kmalloc'ed array of object pointers, named in the
    /// order the run made them. Ids are never reused.
    SheafId(u32)
}

id! {
    /// A NUMA node (`numa_node_id()`, `page_to_nid()`); each node has one zone. 16 bits, as
    /// for CPUs: the limit is 4 nodes, and the keys that pair a node with a CPU or another
    /// node (a pcp list, SLAB's `AcRef`) stay small.
    NodeId(u16)
}

impl From<Pfn> for u32 {
    #[inline(always)]
    fn from(pfn: Pfn) -> u32 {
        pfn.0
    }
}

impl From<CacheId> for u32 {
    #[inline(always)]
    fn from(id: CacheId) -> u32 {
        id.0
    }
}

impl From<CpuId> for u32 {
    #[inline(always)]
    fn from(id: CpuId) -> u32 {
        u32::from(id.0)
    }
}

impl From<NodeId> for u32 {
    #[inline(always)]
    fn from(id: NodeId) -> u32 {
        u32::from(id.0)
    }
}

impl CpuId {
    /// CPUs `0..cpus`.
    pub fn all(cpus: u32) -> impl DoubleEndedIterator<Item = CpuId> + Clone {
        (0..cpus).map(|c| CpuId(c as u16))
    }

    /// The CPU's bit in a CPU mask (`cpumask`), e.g. the CPUs holding a slab.
    #[inline(always)]
    pub const fn bit(self) -> u64 {
        1 << self.0
    }

    /// The CPUs whose bits are set in `mask`, lowest first (`for_each_cpu()`).
    pub fn in_mask(mut mask: u64) -> impl Iterator<Item = CpuId> {
        std::iter::from_fn(move || {
            (mask != 0).then(|| {
                let cpu = CpuId(mask.trailing_zeros() as u16);
                mask &= mask - 1;
                cpu
            })
        })
    }

    /// CPU `c` of a number given as `u32` (machine configuration, scenario text), within the
    /// 64-CPU limit the configuration enforces.
    #[inline(always)]
    pub fn new(c: u32) -> CpuId {
        debug_assert!(
            c <= u32::from(u16::MAX),
            "cpu{c} is past any configuration's limit"
        );
        CpuId(c as u16)
    }
}

impl NodeId {
    /// Nodes `0..nodes`.
    pub fn all(nodes: u32) -> impl DoubleEndedIterator<Item = NodeId> + Clone {
        (0..nodes).map(|n| NodeId(n as u16))
    }

    /// `next_node_in()`: the node after this one among `0..nodes`, wrapping round to node 0.
    #[inline]
    pub fn next_node_in(self, nodes: u32) -> NodeId {
        NodeId::new((u32::from(self) + 1) % nodes)
    }

    /// Node `n` of a count given as `u32` (machine configuration, scenario text), checked
    /// against the 16-bit range by the machine's limits.
    #[inline(always)]
    pub fn new(n: u32) -> NodeId {
        debug_assert!(
            n <= u32::from(u16::MAX),
            "node {n} is past any configuration's limit"
        );
        NodeId(n as u16)
    }
}

impl fmt::LowerHex for Pfn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

impl Pfn {
    /// The pages of a block of `pages` pages at `self`: `self .. self + pages`.
    pub fn pages(self, pages: u32) -> impl DoubleEndedIterator<Item = Pfn> + Clone {
        (self.0..self.0 + pages).map(Pfn)
    }

    /// Pfns `from .. to`.
    pub fn range(from: Pfn, to: Pfn) -> impl DoubleEndedIterator<Item = Pfn> + Clone {
        (from.0..to.0).map(Pfn)
    }

    /// `__ffs(pfn)`: the largest order a block at this pfn can be aligned to.
    #[inline]
    pub fn trailing_zeros(self) -> u32 {
        self.0.trailing_zeros()
    }
}

/// The page `n` pages after `self`.
impl Add<u32> for Pfn {
    type Output = Pfn;
    #[inline(always)]
    fn add(self, n: u32) -> Pfn {
        Pfn(self.0 + n)
    }
}

impl AddAssign<u32> for Pfn {
    #[inline(always)]
    fn add_assign(&mut self, n: u32) {
        self.0 += n;
    }
}

/// The page `n` pages before `self`.
impl Sub<u32> for Pfn {
    type Output = Pfn;
    #[inline(always)]
    fn sub(self, n: u32) -> Pfn {
        Pfn(self.0 - n)
    }
}

/// Pages from `other` to `self`.
impl Sub<Pfn> for Pfn {
    type Output = u32;
    #[inline(always)]
    fn sub(self, other: Pfn) -> u32 {
        self.0 - other.0
    }
}

/// `__find_buddy_pfn()`: `pfn ^ (1 << order)`.
impl BitXor<u32> for Pfn {
    type Output = Pfn;
    #[inline(always)]
    fn bitxor(self, mask: u32) -> Pfn {
        Pfn(self.0 ^ mask)
    }
}

/// `buddy_pfn & pfn`: the first page of the block two buddies make.
impl BitAnd<Pfn> for Pfn {
    type Output = Pfn;
    #[inline(always)]
    fn bitand(self, other: Pfn) -> Pfn {
        Pfn(self.0 & other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_serialise_and_print_as_their_bare_number() {
        assert_eq!(serde_json::to_string(&Pfn(0x1a2)).unwrap(), "418");
        assert_eq!(serde_json::to_string(&CacheId(7)).unwrap(), "7");
        assert_eq!(serde_json::to_string(&CpuId(3)).unwrap(), "3");
        assert_eq!(serde_json::to_string(&Some(NodeId(1))).unwrap(), "1");
        assert_eq!(
            format!("{:?} {} {:#x}", Pfn(18), CpuId(2), Pfn(18)),
            "18 2 0x12"
        );
    }

    #[test]
    fn a_typed_table_is_indexed_by_its_id() {
        let mut t: TiVec<CpuId, &str> = TiVec::new();
        let a = t.push_and_get_key("cpu0");
        let b = t.push_and_get_key("cpu1");
        assert_eq!((a, b), (CpuId(0), CpuId(1)));
        assert_eq!(t[CpuId(1)], "cpu1");
        assert_eq!(t.keys().collect::<Vec<_>>(), [CpuId(0), CpuId(1)]);
    }

    #[test]
    fn cpu_masks_and_the_round_robin_of_nodes() {
        let mask = CpuId(5).bit() | CpuId(0).bit() | CpuId(63).bit();
        assert_eq!(
            CpuId::in_mask(mask).collect::<Vec<_>>(),
            [CpuId(0), CpuId(5), CpuId(63)]
        );
        assert_eq!(CpuId::in_mask(0).count(), 0);
        assert_eq!(NodeId(1).next_node_in(4), NodeId(2));
        assert_eq!(NodeId(3).next_node_in(4), NodeId(0));
        assert_eq!(NodeId(0).next_node_in(1), NodeId(0));
    }
}
