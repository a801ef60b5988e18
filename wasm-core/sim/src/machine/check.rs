//! Invariants of the page allocator's state, checked after every step by tests and by
//! `slabscope run --check`: the kernel's own `check_new_page()`/`bad_page()` ideas and the
//! bookkeeping that must add up.

use super::{FrameState, ListHead, Machine, Pfn, NIL};

/// Every invariant of the machine: the page allocator's and those of its slab allocator, after
/// the known damage an unchecked bad operation did (`damage.rs`).
pub fn check_machine(m: &Machine) -> Vec<String> {
    let mut bad = super::damage::report(m);
    bad.extend(check_page_allocator(m));
    match m.allocator {
        crate::scenario::Allocator::Slub => bad.extend(crate::slub::check::check_slub(m)),
        crate::scenario::Allocator::Slab => bad.extend(crate::slab::check::check_slab(m)),
    }
    bad.extend(crate::rcu::check::check_rcu(m));
    bad
}

/// Every violation found, worded for a person; empty when the state is consistent.
pub fn check_page_allocator(m: &Machine) -> Vec<String> {
    let mut bad = Vec::new();
    // Walk every node's frames block by block: each page belongs to exactly one block.
    for zone in &m.zones {
        let end = zone.start_pfn + zone.pages;
        let mut pfn = zone.start_pfn;
        while pfn < end {
            let order = match m.frames[pfn as usize].state {
                FrameState::Buddy { order }
                | FrameState::Pcp { order, .. }
                | FrameState::Allocated { order, .. } => order,
                FrameState::Detached { .. } => {
                    bad.push(format!("pfn {pfn:#x} is detached at a step boundary"));
                    0
                }
                other => {
                    bad.push(format!(
                        "pfn {pfn:#x} should start a block but is {other:?}"
                    ));
                    0
                }
            };
            let size = 1u32 << order;
            if pfn % size != 0 || pfn + size > end {
                bad.push(format!(
                    "block at {pfn:#x} of order {order} is misaligned or overruns the node"
                ));
                break;
            }
            for tail in pfn + 1..pfn + size {
                if m.frames[tail as usize].state != (FrameState::Tail { head: pfn }) {
                    bad.push(format!("pfn {tail:#x} should be a tail of {pfn:#x}"));
                }
            }
            pfn += size.max(1);
        }
        for hole in end..zone.start_pfn + m.span {
            if m.frames[hole as usize].state != FrameState::Hole {
                bad.push(format!(
                    "pfn {hole:#x} is past node {} but not a hole",
                    zone.node
                ));
            }
        }

        // Free lists: membership, nr_free, NR_FREE_PAGES, and no unmerged buddy pairs.
        let mut free_pages = 0u64;
        for (order, list) in zone.free_area.iter().enumerate() {
            let members = walk(
                m,
                list,
                &mut bad,
                &format!("node {} free_area[{order}]", zone.node),
            );
            for &p in &members {
                if m.frames[p as usize].state != (FrameState::Buddy { order: order as u8 }) {
                    bad.push(format!(
                        "pfn {p:#x} on free_area[{order}] is {:?}",
                        m.frames[p as usize].state
                    ));
                }
                if m.node_of(p) != zone.node {
                    bad.push(format!("pfn {p:#x} is on node {}'s free list", zone.node));
                }
                let buddy = p ^ (1 << order);
                if (order as u32) < m.page.max_order
                    && m.frames.get(buddy as usize).map(|f| f.state)
                        == Some(FrameState::Buddy { order: order as u8 })
                {
                    bad.push(format!(
                        "free buddies {p:#x} and {buddy:#x} of order {order} were not merged"
                    ));
                }
            }
            free_pages += u64::from(list.len) << order;
        }
        if free_pages != zone.free_pages {
            bad.push(format!(
                "node {}: NR_FREE_PAGES is {} but the free lists hold {free_pages}",
                zone.node, zone.free_pages
            ));
        }
    }
    // pcp lists: membership and count.
    for cpu in 0..m.config.cpus {
        for node in 0..m.config.nodes {
            let pcp = &m.pcp[m.pcp_index(cpu, node)];
            let mut pages = 0u32;
            for (order, list) in pcp.lists.iter().enumerate() {
                let members = walk(
                    m,
                    list,
                    &mut bad,
                    &format!("cpu{cpu} pcp node {node} order {order}"),
                );
                for &p in &members {
                    let want = FrameState::Pcp {
                        cpu: cpu as u16,
                        order: order as u8,
                    };
                    if m.frames[p as usize].state != want || m.node_of(p) != node {
                        bad.push(format!(
                            "pfn {p:#x} on cpu{cpu}'s pcp list is {:?}",
                            m.frames[p as usize].state
                        ));
                    }
                }
                pages += list.len << order;
            }
            if pages != pcp.count {
                bad.push(format!(
                    "cpu{cpu} node {node}: pcp count {} but lists hold {pages}",
                    pcp.count
                ));
            }
        }
    }
    // Every block head on a list state is on exactly that list (checked above by membership);
    // count heads to catch a Buddy or Pcp frame that is on no list.
    let listed: u64 = m
        .zones
        .iter()
        .flat_map(|z| z.free_area.iter())
        .map(|l| u64::from(l.len))
        .sum::<u64>()
        + m.pcp
            .iter()
            .flat_map(|p| p.lists.iter())
            .map(|l| u64::from(l.len))
            .sum::<u64>();
    let heads = m
        .frames
        .iter()
        .filter(|f| matches!(f.state, FrameState::Buddy { .. } | FrameState::Pcp { .. }))
        .count() as u64;
    if listed != heads {
        bad.push(format!(
            "{heads} free or pcp block heads but {listed} list entries"
        ));
    }
    bad
}

/// Follows a list forward, checking its back links, length and that it ends.
fn walk(m: &Machine, list: &ListHead, bad: &mut Vec<String>, name: &str) -> Vec<Pfn> {
    let mut out = Vec::new();
    let mut prev = NIL;
    let mut at = list.first;
    while at != NIL {
        if out.len() as u32 > list.len {
            bad.push(format!(
                "{name} is longer than its length {} (a cycle?)",
                list.len
            ));
            return out;
        }
        if m.frames[at as usize].prev != prev {
            bad.push(format!("{name}: back link of {at:#x} is wrong"));
        }
        out.push(at);
        prev = at;
        at = m.frames[at as usize].next;
    }
    if list.last != prev || out.len() as u32 != list.len {
        bad.push(format!("{name}: last or length does not match its entries"));
    }
    out
}
