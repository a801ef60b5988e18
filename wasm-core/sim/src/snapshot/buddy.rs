//! The page allocator as the snapshot shows it: `free_area[]` per node, every CPU's pcp lists,
//! and the page-frame map as blocks (one entry per block, not per page, so a machine of a
//! gigabyte stays a few thousand entries).

use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::{FrameState, Machine, Owner, Pfn};
use serde::Serialize;

/// Free blocks of one order listed in full up to this many (the count is always exact).
const LISTED_BLOCKS: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct BuddyView {
    pub zones: Vec<ZoneView>,
    /// Every CPU's lists for every zone, CPU-major.
    pub pcp: Vec<PcpView>,
    /// Every block of memory in pfn order, holes included.
    pub blocks: Vec<BlockView>,
    pub max_order: u32,
}

/// A node's zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct ZoneView {
    pub node: NodeId,
    pub start_pfn: Pfn,
    pub pages: u32,
    /// `NR_FREE_PAGES` (pcp pages not counted).
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub free_pages: u64,
    /// `WMARK_MIN`, `WMARK_LOW`, `WMARK_HIGH`.
    #[cfg_attr(feature = "ts-export", ts(type = "[number, number, number]"))]
    pub watermark: [u64; 3],
    pub free_area: Vec<FreeAreaView>,
}

/// `free_area[order]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct FreeAreaView {
    pub order: u32,
    pub nr_free: u32,
    /// First pfns of the free blocks, head first (at most 64).
    pub pfns: Vec<Pfn>,
}

/// `struct per_cpu_pages` of one CPU for one zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct PcpView {
    pub cpu: CpuId,
    pub node: NodeId,
    pub count: u32,
    pub high: u32,
    pub batch: u32,
    /// 6.6: `free_factor`.
    pub free_factor: u32,
    /// The list tunes itself (6.7+): the fields below are what it goes by, not `free_factor`.
    pub tuned: bool,
    /// 6.7+: the bounds of `high` (both `high` before 6.7 or with a scenario's `pcp high=`),
    /// `alloc_factor` and `free_count`.
    pub high_min: u32,
    pub high_max: u32,
    pub alloc_factor: u32,
    pub free_count: u32,
    /// One list per order 0..=3, first pfns head first.
    pub lists: Vec<Vec<Pfn>>,
}

/// Who holds a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BlockOwner {
    Buddy {
        order: u8,
    },
    Pcp {
        cpu: CpuId,
        order: u8,
    },
    Slab {
        cache: CacheId,
        order: u8,
    },
    LargeKmalloc {
        order: u8,
    },
    Pages {
        order: u8,
    },
    /// A slab of a `SLAB_TYPESAFE_BY_RCU` cache waiting for its RCU callback.
    SlabRcu {
        cache: CacheId,
        order: u8,
    },
    /// A page of a CPU's `kfree_rcu()` pointers.
    KfreeRcu {
        cpu: CpuId,
        order: u8,
    },
    /// Between two events of one step (never at a step boundary).
    Detached {
        order: u8,
    },
    Hole,
}

/// A block of the page-frame map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct BlockView {
    pub pfn: Pfn,
    pub pages: u32,
    pub owner: BlockOwner,
}

/// The block owner of an allocated block of `order`.
pub fn owner_block(order: u8, owner: Owner) -> BlockOwner {
    match owner {
        Owner::Slab { cache } => BlockOwner::Slab { cache, order },
        Owner::LargeKmalloc => BlockOwner::LargeKmalloc { order },
        Owner::Pages => BlockOwner::Pages { order },
        Owner::SlabRcu { cache } => BlockOwner::SlabRcu { cache, order },
        Owner::KfreeRcu { cpu } => BlockOwner::KfreeRcu { cpu, order },
    }
}

fn owner_of(state: FrameState) -> Option<BlockOwner> {
    Some(match state {
        FrameState::Buddy { order } => BlockOwner::Buddy { order },
        FrameState::Pcp { cpu, order } => BlockOwner::Pcp { cpu, order },
        FrameState::Allocated { order, owner } => owner_block(order, owner),
        FrameState::Detached { order } => BlockOwner::Detached { order },
        FrameState::Hole => BlockOwner::Hole,
        FrameState::Tail { .. } => return None,
    })
}

/// The first pfn and owner of the block holding `pfn`.
pub fn block_owner_at(m: &Machine, pfn: Pfn) -> Option<(Pfn, BlockOwner)> {
    let frame = m.frame(pfn)?;
    let head = match frame.state {
        FrameState::Tail { head } => head,
        _ => pfn,
    };
    Some((head, owner_of(m.frame(head)?.state)?))
}

fn block_pages(owner: BlockOwner) -> u32 {
    match owner {
        BlockOwner::Buddy { order }
        | BlockOwner::Pcp { order, .. }
        | BlockOwner::Slab { order, .. }
        | BlockOwner::LargeKmalloc { order }
        | BlockOwner::Pages { order }
        | BlockOwner::SlabRcu { order, .. }
        | BlockOwner::KfreeRcu { order, .. }
        | BlockOwner::Detached { order } => 1 << order,
        BlockOwner::Hole => 1,
    }
}

pub(super) fn buddy_view(m: &Machine) -> BuddyView {
    let zones = m
        .zones
        .iter()
        .map(|z| ZoneView {
            node: z.node,
            start_pfn: z.start_pfn,
            pages: z.pages,
            free_pages: z.free_pages,
            watermark: z.watermark,
            free_area: z
                .free_area
                .iter()
                .enumerate()
                .map(|(order, list)| FreeAreaView {
                    order: order as u32,
                    nr_free: list.len,
                    pfns: list.iter(&m.frames).take(LISTED_BLOCKS).collect(),
                })
                .collect(),
        })
        .collect();
    // `pcp` is laid out CPU by CPU, a list per node within each (`Machine::pcp_index`).
    let lists = CpuId::all(m.config.cpus)
        .flat_map(|cpu| NodeId::all(m.config.nodes).map(move |node| (cpu, node)));
    let pcp = lists
        .zip(&m.pcp)
        .map(|((cpu, node), p)| PcpView {
            cpu,
            node,
            count: p.count,
            high: p.high,
            batch: p.batch,
            free_factor: p.free_factor,
            tuned: m.profile.slub.pcp_auto_tuning(),
            high_min: p.high_min,
            high_max: p.high_max,
            alloc_factor: p.alloc_factor,
            free_count: p.free_count,
            lists: p
                .lists
                .iter()
                .map(|l| l.iter(&m.frames).take(LISTED_BLOCKS).collect())
                .collect(),
        })
        .collect();
    let mut blocks: Vec<BlockView> = Vec::new();
    let mut pfn = Pfn(0);
    while pfn.index() < m.frames.len() {
        let owner = owner_of(m.frames[pfn].state).unwrap_or(BlockOwner::Hole);
        let pages = block_pages(owner);
        match blocks.last_mut() {
            Some(last) if owner == BlockOwner::Hole && last.owner == BlockOwner::Hole => {
                last.pages += pages
            }
            _ => blocks.push(BlockView { pfn, pages, owner }),
        }
        pfn += pages;
    }
    BuddyView {
        zones,
        pcp,
        blocks,
        max_order: m.page.max_order,
    }
}
