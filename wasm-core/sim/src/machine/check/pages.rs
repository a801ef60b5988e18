//! The page allocator's invariants, one item at a time: a run of page blocks, an entry of a
//! buddy free list or pcp list, a list as a whole, a zone's `NR_FREE_PAGES`, a pcp's `count`.
//! `check_all` applies each to every item; the incremental checker to what a step touched.

use super::problem::{hex, problem, Problem};
use super::totals::Totals;
use crate::ids::{CpuId, NodeId};
use crate::machine::{FrameState, ListHead, Machine, Pfn, Zone, NIL, PCP_ORDERS};

/// A buddy free list or a pcp list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ListId {
    /// `free_area[order]` of a node's zone.
    Free { node: NodeId, order: u8 },
    /// A CPU's pcp list of `order` for a node's zone.
    Pcp { cpu: CpuId, node: NodeId, order: u8 },
}

impl ListId {
    /// The list whose state the frame at `pfn` is in, if it heads a free or pcp block.
    #[inline]
    pub(crate) fn of_frame(m: &Machine, pfn: Pfn) -> Option<ListId> {
        match m.frames.get(pfn)?.state {
            FrameState::Buddy { order } => Some(ListId::Free {
                node: m.node_of(pfn),
                order,
            }),
            FrameState::Pcp { cpu, order } => Some(ListId::Pcp {
                cpu,
                node: m.node_of(pfn),
                order,
            }),
            // Exhaustive, so a new frame state says whether it puts a block on a list.
            FrameState::Allocated { .. }
            | FrameState::Detached { .. }
            | FrameState::Tail { .. }
            | FrameState::Hole => None,
        }
    }

    /// Lists of the machine (the length of `Totals::on_list`).
    pub(crate) fn count(m: &Machine) -> usize {
        m.zones.len() * (m.page.max_order as usize + 1) + m.pcp.len() * PCP_ORDERS
    }

    /// The list's slot in per-list tables; `None` for a list the machine does not have (a
    /// frame state naming a CPU or order that does not exist).
    #[inline]
    pub(crate) fn index(self, m: &Machine) -> Option<usize> {
        let orders = m.page.max_order as usize + 1;
        match self {
            ListId::Free { node, order } => (node.index() < m.zones.len()
                && (order as usize) < orders)
                .then(|| node.index() * orders + order as usize),
            ListId::Pcp { cpu, node, order } => (m.config.has_cpu(cpu)
                && m.config.has_node(node)
                && (order as usize) < PCP_ORDERS)
                .then(|| {
                    m.zones.len() * orders + m.pcp_index(cpu, node) * PCP_ORDERS + order as usize
                }),
        }
    }

    fn head(self, m: &Machine) -> Option<&ListHead> {
        self.index(m)?;
        Some(match self {
            ListId::Free { node, order } => &m.zones[node].free_area[order as usize],
            ListId::Pcp { cpu, node, order } => {
                &m.pcp[m.pcp_index(cpu, node)].lists[order as usize]
            }
        })
    }

    fn name(self) -> String {
        match self {
            ListId::Free { node, order } => format!("node {node} free_area[{order}]"),
            ListId::Pcp { cpu, node, order } => format!("cpu{cpu} pcp node {node} order {order}"),
        }
    }
}

/// Every page-allocator invariant of the machine.
pub(crate) fn check_all(m: &Machine, totals: &Totals, bad: &mut Vec<Problem>) {
    for zone in &m.zones {
        check_blocks(m, zone, zone.start_pfn, zone.start_pfn + zone.pages, bad);
        for hole in Pfn::range(zone.start_pfn + zone.pages, zone.start_pfn + m.span) {
            if m.frames[hole].state != FrameState::Hole {
                bad.push(problem!(
                    "check.pfn_past_node",
                    "pfn {pfn} is past node {node} but not a hole",
                    pfn = hex(hole),
                    node = zone.node
                ));
            }
        }
        for order in 0..zone.free_area.len() {
            let id = ListId::Free {
                node: zone.node,
                order: order as u8,
            };
            walk(m, id, bad);
            check_list(m, id, totals, bad);
        }
        check_zone(m, zone.node, bad);
    }
    for cpu in CpuId::all(m.config.cpus) {
        for node in NodeId::all(m.config.nodes) {
            for order in 0..PCP_ORDERS as u8 {
                let id = ListId::Pcp { cpu, node, order };
                walk(m, id, bad);
                check_list(m, id, totals, bad);
            }
            check_pcp(m, cpu, node, bad);
        }
    }
}

/// The blocks of `zone` that cover pfns `from..to`, starting from the block holding `from`:
/// each starts with a head (free, on a pcp list or allocated; never detached at a step
/// boundary), is aligned to its order, fits in the node, and every other page of it is its
/// tail. Over the whole zone this says each page belongs to exactly one block.
pub(crate) fn check_blocks(m: &Machine, zone: &Zone, from: Pfn, to: Pfn, bad: &mut Vec<Problem>) {
    let end = zone.start_pfn + zone.pages;
    let mut pfn = match m.frames.get(from).map(|f| f.state) {
        Some(FrameState::Tail { head }) if head < from && head >= zone.start_pfn => head,
        _ => from,
    };
    while pfn < to.min(end) {
        let order = match m.frames[pfn].state {
            FrameState::Buddy { order }
            | FrameState::Pcp { order, .. }
            | FrameState::Allocated { order, .. } => order,
            FrameState::Detached { .. } => {
                bad.push(problem!(
                    "check.pfn_detached",
                    "pfn {pfn} is detached at a step boundary",
                    pfn = hex(pfn)
                ));
                0
            }
            // Exhaustive, so a new frame state says whether it heads a block.
            other @ (FrameState::Tail { .. } | FrameState::Hole) => {
                bad.push(problem!(
                    "check.pfn_not_block_start",
                    "pfn {pfn} should start a block but is {state}",
                    pfn = hex(pfn),
                    state = format!("{other:?}")
                ));
                0
            }
        };
        let size = 1u32 << order;
        if pfn.0 % size != 0 || pfn + size > end {
            bad.push(problem!(
                "check.block_misaligned",
                "block at {pfn} of order {order} is misaligned or overruns the node",
                pfn = hex(pfn),
                order = order
            ));
            break;
        }
        for tail in pfn.pages(size).skip(1) {
            if m.frames[tail].state != (FrameState::Tail { head: pfn }) {
                bad.push(problem!(
                    "check.pfn_not_tail",
                    "pfn {tail} should be a tail of {pfn}",
                    tail = hex(tail),
                    pfn = hex(pfn)
                ));
            }
        }
        pfn += size;
    }
}

/// One entry of a buddy free list or pcp list: its frame is in that list's state on that
/// list's node, its neighbours are entries of the same list that link back to it, and the
/// list's first and last are the entries with no neighbour. A free block's buddy of the same
/// order is not free as well (they would have been merged, `__free_one_page()`).
pub(crate) fn check_entry(m: &Machine, id: ListId, pfn: Pfn, bad: &mut Vec<Problem>) {
    let Some(list) = id.head(m) else {
        bad.push(problem!(
            "check.pfn_on_missing_list",
            "pfn {pfn} is on a list the machine does not have",
            pfn = hex(pfn)
        ));
        return;
    };
    let Some(frame) = m.frames.get(pfn) else {
        bad.push(problem!(
            "check.list_links_outside",
            "{list}: links to {pfn}, not a page",
            list = id.name(),
            pfn = hex(pfn)
        ));
        return;
    };
    if ListId::of_frame(m, pfn) != Some(id) {
        bad.push(problem!(
            "check.list_entry_state",
            "pfn {pfn} on {list} is {state} of node {node}",
            pfn = hex(pfn),
            list = id.name(),
            state = format!("{:?}", frame.state),
            node = m.node_of(pfn)
        ));
    }
    let linked = |other: Pfn, back: fn(&crate::machine::PageFrame) -> Pfn| {
        m.frames
            .get(other)
            .is_some_and(|f| back(f) == pfn && ListId::of_frame(m, other) == Some(id))
    };
    let prev_ok = if frame.prev == NIL {
        list.first == pfn
    } else {
        linked(frame.prev, |f| f.next)
    };
    let next_ok = if frame.next == NIL {
        list.last == pfn
    } else {
        linked(frame.next, |f| f.prev)
    };
    if !prev_ok || !next_ok {
        bad.push(problem!(
            "check.list_links_broken",
            "{list}: the links around {pfn} are broken",
            list = id.name(),
            pfn = hex(pfn)
        ));
    }
    if let ListId::Free { order, .. } = id {
        let buddy = pfn ^ (1 << order);
        if u32::from(order) < m.page.max_order
            && m.frames.get(buddy).map(|f| f.state) == Some(FrameState::Buddy { order })
        {
            bad.push(problem!(
                "check.buddies_not_merged",
                "free buddies {pfn} and {buddy} of order {order} were not merged",
                pfn = hex(pfn),
                buddy = hex(buddy),
                order = order
            ));
        }
    }
}

/// A list as a whole: it is empty exactly when it has no first and no last, its ends have no
/// neighbour outward, and as many frames say they are on it as its length (`nr_free` for a
/// free area): no block in the list's state is off the list.
pub(crate) fn check_list(m: &Machine, id: ListId, totals: &Totals, bad: &mut Vec<Problem>) {
    let (Some(list), Some(index)) = (id.head(m), id.index(m)) else {
        return;
    };
    let ends = |pfn: Pfn, outward: fn(&crate::machine::PageFrame) -> Pfn| {
        m.frames.get(pfn).is_some_and(|f| outward(f) == NIL)
    };
    let empty = list.len == 0;
    let ends_open = empty || (ends(list.first, |f| f.prev) && ends(list.last, |f| f.next));
    if empty != (list.first == NIL) || empty != (list.last == NIL) || !ends_open {
        bad.push(problem!(
            "check.list_ends",
            "{list}: first {first}, last {last} and length {len} do not agree",
            list = id.name(),
            first = hex(list.first),
            last = hex(list.last),
            len = list.len
        ));
    }
    let on = totals.on_list.get(index).copied().unwrap_or(0);
    if on != i64::from(list.len) {
        bad.push(problem!(
            "check.list_length",
            "{list}: length {len} but {on} blocks are in its state",
            list = id.name(),
            len = list.len,
            on = on
        ));
    }
}

/// Follows a list from its first entry, checking each entry, until it ends; the walk is as
/// long as the list's length (no cycle, no entry of another list reached).
fn walk(m: &Machine, id: ListId, bad: &mut Vec<Problem>) {
    let Some(list) = id.head(m) else { return };
    let mut n = 0u32;
    let mut at = list.first;
    while at != NIL && ((at).index()) < m.frames.len() {
        if n >= list.len {
            bad.push(problem!(
                "check.list_cycle",
                "{list} is longer than its length {len} (a cycle?)",
                list = id.name(),
                len = list.len
            ));
            return;
        }
        check_entry(m, id, at, bad);
        n += 1;
        at = m.frames[at].next;
    }
    if n != list.len {
        bad.push(problem!(
            "check.list_entries",
            "{list}: {n} entries but length {len}",
            list = id.name(),
            n = n,
            len = list.len
        ));
    }
}

/// `NR_FREE_PAGES` of a node's zone is what its free lists hold (pcp pages are not counted,
/// as in the kernel).
pub(crate) fn check_zone(m: &Machine, node: NodeId, bad: &mut Vec<Problem>) {
    let Some(zone) = m.zones.get(node) else {
        return;
    };
    let held: u64 = zone
        .free_area
        .iter()
        .enumerate()
        .map(|(order, l)| u64::from(l.len) << order)
        .sum();
    if held != zone.free_pages {
        bad.push(problem!(
            "check.nr_free_pages",
            "node {node}: NR_FREE_PAGES is {free} but the free lists hold {held}",
            node = node,
            free = zone.free_pages,
            held = held
        ));
    }
}

/// A pcp's `count` is what its lists hold.
pub(crate) fn check_pcp(m: &Machine, cpu: CpuId, node: NodeId, bad: &mut Vec<Problem>) {
    let pcp = &m.pcp[m.pcp_index(cpu, node)];
    let held: u32 = pcp
        .lists
        .iter()
        .enumerate()
        .map(|(order, l)| l.len << order)
        .sum();
    if held != pcp.count {
        bad.push(problem!(
            "check.pcp_count",
            "cpu{cpu} node {node}: pcp count {count} but lists hold {held}",
            cpu = cpu,
            node = node,
            count = pcp.count,
            held = held
        ));
    }
}
