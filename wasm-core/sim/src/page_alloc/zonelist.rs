//! The order in which a node's allocations fall back to the other nodes: `build_all_zonelists()`
//! → `build_zonelists()` → `find_next_best_node()` (mm/page_alloc.c, v6.6).
//!
//! Rules:
//! - One zone per node is modelled, so a node's fallback zonelist
//!   (`node_zonelists[ZONELIST_FALLBACK]`) is its list of nodes, itself first. The
//!   `__GFP_THISNODE` zonelist (`ZONELIST_NOFALLBACK`) is the node alone and needs no table.
//! - The lists are built once at boot from a node distance table (the SLIT, `node_distance()`)
//!   and kept in the `Machine`; the page allocator, SLAB's `fallback_alloc()` and SLUB's
//!   `get_any_partial()` all walk them.
//! - The scenario format gives no distances, so a machine boots with `LOCAL_DISTANCE` (10) to
//!   itself and `REMOTE_DISTANCE` (20) to every other node: what x86_64 sets up when the
//!   firmware has no SLIT (`numa_reset_distance()`; `__node_distance()` then answers 10/20),
//!   and what a simple SRAT-only machine or `numa=fake` on one socket shows in `numactl -H`.
//!   With those distances every node's list is itself, then the nodes above it, then the ones
//!   below, each in ascending order (round robin). `Machine::with_node_distance()` builds the
//!   lists from any other table.

use crate::ids::{NodeId, TiSlice, TiVec};
use std::fmt;

/// `LOCAL_DISTANCE` (include/linux/topology.h): a node's distance to itself.
pub const LOCAL_DISTANCE: u32 = 10;
/// `REMOTE_DISTANCE`: the distance to any other node when the firmware gives no table.
pub const REMOTE_DISTANCE: u32 = 20;
/// `PENALTY_FOR_NODE_WITH_CPUS` (include/linux/topology.h).
const PENALTY_FOR_NODE_WITH_CPUS: u64 = 1;
/// `MAX_NUMNODES` = `1 << CONFIG_NODES_SHIFT` (10 in the x86_64 distribution configs). It only
/// scales the distance so that `node_load` breaks ties; any value above the number of nodes
/// gives the same order.
const MAX_NUMNODES: u64 = 1 << 10;

/// A node distance table that the kernel would not accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DistanceError {
    /// Not one row of `nodes` entries per node.
    Shape { nodes: u32 },
    /// A node's distance to itself is not `LOCAL_DISTANCE`.
    Local { node: NodeId, distance: u32 },
    /// A distance between two nodes is not above `LOCAL_DISTANCE` or does not fit in the SLIT's
    /// byte.
    Remote {
        from: NodeId,
        to: NodeId,
        distance: u32,
    },
}

impl fmt::Display for DistanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DistanceError::Shape { nodes } => {
                write!(
                    f,
                    "the distance table needs {nodes} rows of {nodes} entries"
                )
            }
            DistanceError::Local { node, distance } => write!(
                f,
                "node {node} is at distance {distance} from itself: the kernel requires \
                 LOCAL_DISTANCE ({LOCAL_DISTANCE})"
            ),
            DistanceError::Remote { from, to, distance } => write!(
                f,
                "distance {distance} from node {from} to node {to}: the kernel's SLIT check \
                 requires {} to 255",
                LOCAL_DISTANCE + 1
            ),
        }
    }
}

impl std::error::Error for DistanceError {}

/// The distances of a machine without a SLIT: 10 to itself, 20 to every other node.
pub fn uniform_distance(nodes: u32) -> Vec<Vec<u32>> {
    (0..nodes)
        .map(|a| {
            (0..nodes)
                .map(|b| {
                    if a == b {
                        LOCAL_DISTANCE
                    } else {
                        REMOTE_DISTANCE
                    }
                })
                .collect()
        })
        .collect()
}

/// Checks a table as the ACPI SLIT parser (`slit_valid()`) and `numa_set_distance()` would:
/// square, `LOCAL_DISTANCE` on the diagonal, and 11..=255 elsewhere.
pub fn check_distance(distance: &[Vec<u32>], nodes: u32) -> Result<(), DistanceError> {
    if distance.len() != nodes as usize || distance.iter().any(|r| r.len() != nodes as usize) {
        return Err(DistanceError::Shape { nodes });
    }
    for (from, row) in NodeId::all(nodes).zip(distance) {
        for (to, &d) in NodeId::all(nodes).zip(row) {
            if from == to && d != LOCAL_DISTANCE {
                return Err(DistanceError::Local {
                    node: from,
                    distance: d,
                });
            }
            if from != to && !(LOCAL_DISTANCE + 1..=255).contains(&d) {
                return Err(DistanceError::Remote {
                    from,
                    to,
                    distance: d,
                });
            }
        }
    }
    Ok(())
}

/// `find_next_best_node()`: the node to put next on `node`'s list, or `None` when every node is
/// on it. The node itself comes first; then the nearest unused node, where a node below
/// `node` counts one unit farther (so equal distances go round the nodes above it first), a
/// node with CPUs one unit farther again, and, at equal values, the node that fewer lists
/// already took first in a new distance group (`node_load`) wins; at equal load, the lowest
/// id. The node returned is marked used.
pub fn find_next_best_node(
    node: NodeId,
    used: &mut TiSlice<NodeId, bool>,
    distance: &[Vec<u32>],
    has_cpus: &[bool],
    node_load: &TiSlice<NodeId, u32>,
) -> Option<NodeId> {
    if !used[node] {
        used[node] = true;
        return Some(node);
    }
    let mut best: Option<(u64, NodeId)> = None;
    // for_each_node_state(n, N_MEMORY): every simulated node has memory.
    for n in used.keys() {
        if used[n] {
            continue;
        }
        let mut val = u64::from(distance[node.index()][n.index()]);
        val += u64::from(n < node);
        if has_cpus[n.index()] {
            val += PENALTY_FOR_NODE_WITH_CPUS;
        }
        val = val * MAX_NUMNODES + u64::from(node_load[n]);
        // Strictly smaller: on a tie the lower node id, met first, stays.
        if best.is_none_or(|(min, _)| val < min) {
            best = Some((val, n));
        }
    }
    let (_, n) = best?;
    used[n] = true;
    Some(n)
}

/// `build_all_zonelists()` at boot: every node's fallback list, node 0's first. `node_load`
/// is one array for the whole build (reset only when all lists are rebuilt), so the tie-breaks
/// of a later node's list depend on the lists built before it: `build_zonelists()` charges a
/// node each time it is the first of a new distance group on some list.
///
/// `has_cpus` is `cpumask_of_node()` at the time of the build. On x86_64 the lists are built
/// from `mm_core_init()`, before `identify_boot_cpu()` (`arch_cpu_finalize_init()`) and the
/// secondary CPUs call `numa_add_cpu()`, so every mask is still empty then and the
/// `Machine` passes `false` for every node (as every simulated node has CPUs, `true` for all
/// would give the same lists).
pub fn build_all_zonelists(distance: &[Vec<u32>], has_cpus: &[bool]) -> TiVec<NodeId, Vec<NodeId>> {
    let nodes = distance.len();
    let mut node_load: TiVec<NodeId, u32> = vec![0u32; nodes].into();
    let mut zonelists = TiVec::with_capacity(nodes);
    for local in NodeId::all(nodes as u32) {
        let mut used: TiVec<NodeId, bool> = vec![false; nodes].into();
        let mut order = Vec::with_capacity(nodes);
        let mut prev = local;
        while let Some(n) = find_next_best_node(local, &mut used, distance, has_cpus, &node_load) {
            // The first node of each farther distance group is charged, so that the next
            // list built starts that group elsewhere (round robin).
            let d = &distance[local.index()];
            if d[n.index()] != d[prev.index()] {
                node_load[n] += 1;
            }
            order.push(n);
            prev = n;
        }
        zonelists.push(order);
    }
    zonelists
}

/// A zonelist as the kernel prints it at boot ("Fallback order for Node 1: 1 2 0").
pub fn zonelist_text(zonelist: &[NodeId]) -> String {
    zonelist
        .iter()
        .map(NodeId::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The zonelists of nodes without CPUs, as plain numbers.
    fn lists(distance: &[Vec<u32>]) -> Vec<Vec<u32>> {
        lists_with_cpus(distance, &vec![false; distance.len()])
    }

    fn lists_with_cpus(distance: &[Vec<u32>], has_cpus: &[bool]) -> Vec<Vec<u32>> {
        build_all_zonelists(distance, has_cpus)
            .into_iter()
            .map(|list| list.into_iter().map(u32::from).collect())
            .collect()
    }

    #[test]
    fn uniform_distances_give_each_node_the_nodes_above_it_first() {
        assert_eq!(lists(&uniform_distance(1)), [vec![0]]);
        assert_eq!(lists(&uniform_distance(2)), [vec![0, 1], vec![1, 0]]);
        assert_eq!(
            lists(&uniform_distance(3)),
            [vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1]]
        );
        assert_eq!(
            lists(&uniform_distance(4)),
            [
                vec![0, 1, 2, 3],
                vec![1, 2, 3, 0],
                vec![2, 3, 0, 1],
                vec![3, 0, 1, 2]
            ]
        );
    }

    /// Four sockets in a ring: each one hop (16) from two neighbours and two hops (22) from the
    /// socket opposite, the shape of the SLIT of a four-socket ring-connected board.
    fn ring() -> Vec<Vec<u32>> {
        vec![
            vec![10, 16, 16, 22],
            vec![16, 10, 22, 16],
            vec![16, 22, 10, 16],
            vec![22, 16, 16, 10],
        ]
    }

    #[test]
    fn a_ring_puts_the_neighbours_before_the_opposite_node() {
        // Node 1: neighbour 3 (16) before neighbour 0 (16, +1 for being below 1), then the
        // opposite node 2. Node 3: neighbours 1 and 2 tie at 17 (both below 3), and node_load
        // decides (next test).
        assert_eq!(
            lists(&ring()),
            [
                vec![0, 1, 2, 3],
                vec![1, 3, 0, 2],
                vec![2, 3, 0, 1],
                vec![3, 2, 1, 0]
            ]
        );
    }

    #[test]
    fn node_load_persists_from_one_list_to_the_next() {
        // Rebuilding node 3's list alone, with a fresh node_load, breaks the 1/2 tie by id.
        let d = ring();
        let cpus = vec![false; 4];
        let mut used: TiVec<NodeId, bool> = vec![false; 4].into();
        let load: TiVec<NodeId, u32> = vec![0; 4].into();
        let fresh: Vec<u32> =
            std::iter::from_fn(|| find_next_best_node(NodeId(3), &mut used, &d, &cpus, &load))
                .map(u32::from)
                .collect();
        assert_eq!(fresh, [3, 1, 2, 0]);
        // In the boot-time build, node 1 was first of a new distance group on the lists of
        // nodes 0 and 2, node 2 only on node 1's: node_load [0, 2, 1, 3] makes 2 win.
        assert_eq!(lists(&d)[3], [3, 2, 1, 0]);
    }

    #[test]
    fn nodes_with_cpus_count_one_unit_farther() {
        // Three nodes at equal distance; only node 1 has CPUs: node 0 prefers headless node 2.
        let d = uniform_distance(3);
        let with_cpus = lists_with_cpus(&d, &[false, true, false]);
        assert_eq!(with_cpus[0], [0, 2, 1]);
        assert_eq!(lists(&d)[0], [0, 1, 2]);
    }

    #[test]
    fn distance_tables_are_checked_like_a_slit() {
        assert_eq!(check_distance(&ring(), 4), Ok(()));
        assert_eq!(
            check_distance(&ring(), 3),
            Err(DistanceError::Shape { nodes: 3 })
        );
        let mut bad = ring();
        bad[2][2] = 11;
        assert!(matches!(
            check_distance(&bad, 4),
            Err(DistanceError::Local {
                node: NodeId(2),
                ..
            })
        ));
        bad[2][2] = 10;
        bad[0][3] = 10;
        assert!(matches!(
            check_distance(&bad, 4),
            Err(DistanceError::Remote {
                from: NodeId(0),
                to: NodeId(3),
                ..
            })
        ));
    }
}
