//! The buddy free lists: `__free_one_page()` with `buddy_merge_likely()`, and
//! `__rmqueue_smallest()` with `expand()` (mm/page_alloc.c, v6.6; spec 4.2, 4.3).

use crate::ids::NodeId;
use crate::machine::{FrameState, Machine, Pfn};
use crate::trace::{End, Event, Recorder};

/// `page_is_buddy()`: `pfn` is the head of a free block of exactly `order` in `node`.
fn page_is_buddy(m: &Machine, pfn: Pfn, order: u8, node: NodeId) -> bool {
    m.frame(pfn)
        .is_some_and(|f| f.state == FrameState::Buddy { order })
        && m.node_of(pfn) == node
}

/// `__free_one_page()`: puts a detached block into its node's free lists, merging with free
/// buddies as far as they go. `to_tail` forces the tail (`FPI_TO_TAIL`).
pub fn __free_one_page(rec: &mut Recorder, pfn: Pfn, order: u8, to_tail: bool) {
    let m = rec.machine();
    let node = m.node_of(pfn);
    let max_order = m.page.max_order as u8;
    let (mut pfn, mut order) = (pfn, order);
    let mut buddy_pfn = pfn;
    let mut stopped_by_buddy = false;
    while order < max_order {
        // find_buddy_page_pfn() computes the buddy pfn before checking it, and
        // buddy_merge_likely() uses the last one computed.
        buddy_pfn = pfn ^ (1 << order);
        if !page_is_buddy(rec.machine(), buddy_pfn, order, node) {
            stopped_by_buddy = true;
            break;
        }
        rec.emit(Event::FreeBlockRemoved {
            node,
            pfn: buddy_pfn,
            order,
        });
        let combined = buddy_pfn & pfn;
        rec.emit(Event::BuddiesMerged {
            node,
            pfn: combined,
            buddy: if combined == pfn { buddy_pfn } else { pfn },
            order,
        });
        pfn = combined;
        order += 1;
    }
    let to_tail = to_tail
        || (stopped_by_buddy && buddy_merge_likely(rec.machine(), pfn, buddy_pfn, order, node));
    rec.arg("merged_order", order);
    rec.emit(Event::FreeBlockAdded {
        node,
        pfn,
        order,
        end: if to_tail { End::Tail } else { End::Head },
    });
}

/// `buddy_merge_likely()`: when the block one order up would have a free buddy, queue this
/// block at the tail so it stays free long enough for that merge.
fn buddy_merge_likely(m: &Machine, pfn: Pfn, buddy_pfn: Pfn, order: u8, node: NodeId) -> bool {
    if u32::from(order) + 1 >= m.page.max_order {
        return false;
    }
    let higher = buddy_pfn & pfn;
    page_is_buddy(m, higher ^ (1 << (order + 1)), order + 1, node)
}

/// `__rmqueue_smallest()`: takes the first block of the smallest order `>= order` that has one,
/// and splits it down with `expand()`, inside the caller's step.
pub fn __rmqueue_smallest(rec: &mut Recorder, node: NodeId, order: u8) -> Option<Pfn> {
    let m = rec.machine();
    let zone = &m.zones[node];
    let current =
        (order..=m.page.max_order as u8).find(|&o| !zone.free_area[o as usize].is_empty())?;
    let pfn = zone.free_area[current as usize].first;
    rec.emit(Event::FreeBlockRemoved {
        node,
        pfn,
        order: current,
    });
    // expand(): keep the lowest piece, give each upper half back at the head of its list.
    let mut high = current;
    while high > order {
        high -= 1;
        let upper = pfn + (1 << high);
        rec.emit(Event::BlockSplit {
            node,
            pfn,
            upper,
            order: high,
        });
        rec.emit(Event::FreeBlockAdded {
            node,
            pfn: upper,
            order: high,
            end: End::Head,
        });
    }
    Some(pfn)
}
