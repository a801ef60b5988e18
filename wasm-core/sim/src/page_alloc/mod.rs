//! The buddy page allocator with per-CPU page lists (mm/page_alloc.c, v6.6; spec section 4).
//!
//! Entry points: `alloc_pages`, `free_pages`, `drain_local_pages`. Each reads the machine,
//! decides as the kernel function it is named after would, and records the outcome as events
//! through the `Recorder` (the only writer).
//!
//! Modelled: one zone per node, one migrate type, pcp lists for orders 0..=3, the fallback
//! from the preferred node along its zonelist (`zonelist.rs`: the order `build_zonelists()`
//! gave it at boot). Not modelled (spec 7.10):
//! watermark checks on allocation, reclaim and compaction, migrate-type fallback and
//! stealing, page shuffling, guard pages; an allocation fails only when no node has a block.

mod buddy;
mod pcp;
pub mod zonelist;

pub use buddy::{__free_one_page, __rmqueue_smallest};

use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::{FrameState, Owner, Pfn};
use crate::trace::{Event, Recorder};
use std::fmt;

/// `PAGE_ALLOC_COSTLY_ORDER`: the largest order the pcp lists hold.
pub const PCP_MAX_ORDER: u8 = 3;

/// A page allocator request that cannot be carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageAllocError {
    Cpu(CpuId),
    Node(NodeId),
    Order {
        order: u8,
        max_order: u32,
    },
    /// `free_pages` of something that is not the first page of an allocated block.
    NotAllocated {
        pfn: Pfn,
        state: FrameState,
    },
    /// `free_pages` of a slab's pages while the slab still exists (`PageSlab` set).
    PageSlab {
        pfn: Pfn,
        cache: CacheId,
    },
    /// No node had a free block of the order.
    OutOfMemory {
        order: u8,
    },
}

impl fmt::Display for PageAllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PageAllocError::Cpu(c) => write!(f, "cpu{c} does not exist"),
            PageAllocError::Node(n) => write!(f, "node {n} does not exist"),
            PageAllocError::Order { order, max_order } => {
                write!(f, "order {order} is above MAX_ORDER ({max_order})")
            }
            PageAllocError::NotAllocated { pfn, state } => write!(
                f,
                "pfn {pfn:#x} is not the first page of an allocated block ({state:?}): \
                 the kernel would report \"Bad page state\""
            ),
            PageAllocError::PageSlab { pfn, cache } => write!(
                f,
                "pfn {pfn:#x} belongs to a slab of cache {cache}: freeing it would pull the slab \
                 out from under SLUB; the kernel reports \"Bad page state\" (PageSlab set)"
            ),
            PageAllocError::OutOfMemory { order } => {
                write!(
                    f,
                    "page allocation failure: order:{order}, no node has a free block"
                )
            }
        }
    }
}

impl std::error::Error for PageAllocError {}

/// `__alloc_pages()`: a block of `2^order` pages for `owner` from the zonelist of `node`
/// (`alloc_pages_node()`, `__alloc_pages_node()`), or of the CPU's own node when `None`
/// (`alloc_pages()` without a memory policy: `numa_node_id()`).
#[doc(alias = "__alloc_pages")]
pub fn alloc_pages(
    rec: &mut Recorder,
    cpu: CpuId,
    node: Option<NodeId>,
    order: u8,
    owner: Owner,
) -> Result<Pfn, PageAllocError> {
    alloc_pages_zonelist(rec, cpu, node, order, owner, false)
}

/// `alloc_pages()` with `__GFP_THISNODE`: the node's `ZONELIST_NOFALLBACK` list, its own zone
/// only.
pub fn alloc_pages_thisnode(
    rec: &mut Recorder,
    cpu: CpuId,
    node: NodeId,
    order: u8,
    owner: Owner,
) -> Result<Pfn, PageAllocError> {
    alloc_pages_zonelist(rec, cpu, Some(node), order, owner, true)
}

fn alloc_pages_zonelist(
    rec: &mut Recorder,
    cpu: CpuId,
    node: Option<NodeId>,
    order: u8,
    owner: Owner,
    this_node: bool,
) -> Result<Pfn, PageAllocError> {
    let m = rec.machine();
    if !m.config.has_cpu(cpu) {
        return Err(PageAllocError::Cpu(cpu));
    }
    if u32::from(order) > m.page.max_order {
        return Err(PageAllocError::Order {
            order,
            max_order: m.page.max_order,
        });
    }
    let preferred = node.unwrap_or(m.cpu_node[cpu]);
    if !m.config.has_node(preferred) {
        return Err(PageAllocError::Node(preferred));
    }
    let zonelist = if this_node {
        vec![preferred]
    } else {
        m.zonelists[preferred].clone()
    };
    // get_page_from_freelist(): the zones of the zonelist in order (no watermarks modelled:
    // a zone fails only when it has no block of the order).
    for (i, &zone) in zonelist.iter().enumerate() {
        if i > 0 {
            zonelist_fallback(rec, &zonelist, zonelist[i - 1], zone, order);
        }
        // rmqueue(): the block goes to its owner in the step that took it.
        let take = |rec: &mut Recorder, pfn: Pfn| {
            rec.arg("pfn", pfn);
            rec.emit(Event::PagesAllocated { pfn, order, owner });
            pfn
        };
        if order <= PCP_MAX_ORDER {
            if let Some(pfn) = pcp::rmqueue_pcplist(rec, cpu, zone, order, take) {
                return Ok(pfn);
            }
        }
        let got = rec.call("rmqueue_buddy", "buddy", "step.rmqueue_buddy", |rec| {
            rec.arg("node", zone);
            rec.arg("order", order);
            __rmqueue_smallest(rec, zone, order).map(|pfn| take(rec, pfn))
        });
        if let Some(pfn) = got {
            return Ok(pfn);
        }
    }
    rec.call(
        "__alloc_pages",
        "out of memory",
        "step.alloc_failed",
        |rec| {
            rec.arg("order", order);
        },
    );
    Err(PageAllocError::OutOfMemory { order })
}

/// The step between two zones of the zonelist: `failed` had no block, `next` is tried.
fn zonelist_fallback(
    rec: &mut Recorder,
    zonelist: &[NodeId],
    failed: NodeId,
    next: NodeId,
    order: u8,
) {
    rec.call(
        "get_page_from_freelist",
        "next zone in the zonelist",
        "step.zonelist_fallback",
        |rec| {
            rec.arg("node", failed);
            rec.arg("order", order);
            rec.arg("next", next);
            rec.arg("preferred", zonelist[0]);
            rec.arg("zonelist", zonelist::zonelist_text(zonelist));
        },
    );
}

/// `__free_pages()`: gives back the block starting at `pfn`, freed on `cpu`.
#[doc(alias = "__free_pages")]
pub fn free_pages(rec: &mut Recorder, cpu: CpuId, pfn: Pfn) -> Result<(), PageAllocError> {
    let m = rec.machine();
    if !m.config.has_cpu(cpu) {
        return Err(PageAllocError::Cpu(cpu));
    }
    let state = m.frame(pfn).map_or(FrameState::Hole, |f| f.state);
    let FrameState::Allocated { order, owner } = state else {
        return Err(PageAllocError::NotAllocated { pfn, state });
    };
    // free_page_is_bad(): a page still marked as a slab is refused. free_slab() clears the
    // mark (SlabDiscarded) before it frees a slab's pages; a slab waiting for its RCU callback
    // keeps it until the callback runs.
    if let Owner::Slab { cache } | Owner::SlabRcu { cache } = owner {
        return Err(PageAllocError::PageSlab { pfn, cache });
    }
    let node = m.node_of(pfn);
    if order <= PCP_MAX_ORDER {
        pcp::free_unref_page(rec, cpu, node, pfn, order);
    } else {
        rec.call("__free_pages_ok", "buddy", "step.free_to_buddy", |rec| {
            rec.arg("pfn", pfn);
            rec.arg("order", order);
            rec.emit(Event::PagesReleased { pfn, order });
            __free_one_page(rec, pfn, order, false);
        });
    }
    Ok(())
}

/// `drain_local_pages()` on `cpu`: every pcp list of every zone goes back to the buddy lists.
pub fn drain_local_pages(rec: &mut Recorder, cpu: CpuId) -> Result<(), PageAllocError> {
    if !rec.machine().config.has_cpu(cpu) {
        return Err(PageAllocError::Cpu(cpu));
    }
    for node in NodeId::all(rec.machine().config.nodes) {
        let index = rec.machine().pcp_index(cpu, node);
        let count = rec.machine().pcp[index].count;
        if count > 0 {
            pcp::free_pcppages_bulk(rec, cpu, node, i64::from(count), 0, "drain_pages_zone");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
