//! Page allocator tests: the worked examples of spec 5.10 and 5.11, pcp behaviour, and random
//! operation sequences with every invariant checked after every step.

use super::*;
use crate::buddyinfo::buddyinfo;
use crate::ids::{CpuId, NodeId};
use crate::machine::check::{check_page_allocator, FullChecks, TraceCheck};
use crate::machine::{Machine, MachineConfig};
use crate::trace::Shown;
use proptest::prelude::*;

fn machine(cpus: u32, nodes: u32, pages: u32, batch: Option<u32>, high: Option<u32>) -> Recorder {
    let m = Machine::new(MachineConfig {
        cpus,
        nodes,
        cpu_node: vec![],
        page_size: 4096,
        pages_per_node: pages,
        pcp_batch: batch,
        pcp_high: high,
    })
    .unwrap();
    Recorder::new(m, true)
}

/// A machine whose pcp lists pass every page straight through (batch 1, high 0: like the boot
/// pageset), so buddy behaviour shows directly.
fn no_pcp(pages: u32) -> Recorder {
    machine(1, 1, pages, Some(1), Some(0))
}

fn nr_free(rec: &Recorder) -> Vec<u32> {
    rec.machine().zones[NodeId(0)]
        .free_area
        .iter()
        .map(|a| a.len)
        .collect()
}

fn merges(rec: &Recorder, from_step: usize) -> Vec<(Pfn, Pfn, u8)> {
    rec.steps()[from_step..]
        .iter()
        .flat_map(|s| s.events.iter())
        .filter_map(|e| match *e {
            Event::BuddiesMerged {
                pfn, buddy, order, ..
            } => Some((pfn, buddy, order)),
            _ => None,
        })
        .collect()
}

#[test]
fn boot_hands_memory_over_as_aligned_maximal_blocks() {
    let rec = machine(2, 1, 1536 + 3, None, None);
    let counts = nr_free(&rec);
    assert_eq!(counts[10], 1); // 0..1024
    assert_eq!(counts[9], 1); // 1024..1536
    assert_eq!((counts[0], counts[1]), (1, 1)); // 1536..1538, 1538
    assert_eq!(rec.machine().zones[NodeId(0)].free_pages, 1539);
    assert!(check_page_allocator(rec.machine()).is_empty());
}

#[test]
fn split_of_spec_5_10() {
    // The smallest free block is order 3: an order-0 request keeps the lowest page and gives
    // back the upper halves at orders 2, 1, 0.
    let mut rec = no_pcp(8);
    let pfn = alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap();
    assert_eq!(pfn, Pfn(0));
    assert_eq!(&nr_free(&rec)[..4], &[1, 1, 1, 0]);
    let m = rec.machine();
    let heads: Vec<Pfn> = (0..3)
        .map(|o| m.zones[NodeId(0)].free_area[o].first)
        .collect();
    assert_eq!(heads, [1, 2, 4].map(Pfn));
}

#[test]
fn merge_chain_of_spec_5_10() {
    let mut rec = no_pcp(16);
    let pfns: Vec<Pfn> = (0..16)
        .map(|_| alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap())
        .collect();
    assert_eq!(
        pfns,
        (0..16).map(Pfn).collect::<Vec<_>>(),
        "splits hand out ascending pages"
    );
    // Free 4 (order 0), 6+7 (-> order 1 at 6), 0..3 (-> order 2 at 0); then free 5.
    for pfn in [4, 6, 7, 0, 1, 2, 3] {
        free_pages(&mut rec, CpuId(0), Pfn(pfn)).unwrap();
    }
    assert_eq!(&nr_free(&rec)[..4], &[1, 1, 1, 0]);
    let before = rec.steps().len();
    free_pages(&mut rec, CpuId(0), Pfn(5)).unwrap();
    // 5^1 = 4 -> order 1 at 4; 4^2 = 6 -> order 2 at 4; 4^4 = 0 -> order 3 at 0; 0^8 = 8 busy.
    assert_eq!(
        merges(&rec, before),
        [(4, 5, 0), (4, 6, 1), (0, 4, 2)].map(|(a, b, o)| (Pfn(a), Pfn(b), o))
    );
    assert_eq!(&nr_free(&rec)[..5], &[0, 0, 0, 1, 0]);
    assert_eq!(rec.machine().zones[NodeId(0)].free_area[3].first, Pfn(0));
    assert!(check_page_allocator(rec.machine()).is_empty());
}

#[test]
fn a_block_whose_higher_buddy_is_free_goes_to_the_tail() {
    // buddy_merge_likely(): free 0 while 1 is busy and 2..3 are free: the order-1 block one up
    // (0..1) would have a free buddy (2..3), so 0 is queued at the tail of free_area[0].
    let mut rec = no_pcp(4);
    let p: Vec<Pfn> = (0..4)
        .map(|_| alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap())
        .collect();
    assert_eq!(p, [0, 1, 2, 3].map(Pfn));
    free_pages(&mut rec, CpuId(0), Pfn(2)).unwrap();
    free_pages(&mut rec, CpuId(0), Pfn(3)).unwrap(); // 2+3 -> order 1 at 2
                                                     // Put an unrelated order-0 block on free_area[0] first, so head and tail differ.
    let mut rec2 = no_pcp(8);
    let q: Vec<Pfn> = (0..8)
        .map(|_| alloc_pages(&mut rec2, CpuId(0), None, 0, Owner::Pages).unwrap())
        .collect();
    for pfn in [6, 2, 3] {
        free_pages(&mut rec2, CpuId(0), q[pfn as usize]).unwrap();
    }
    free_pages(&mut rec2, CpuId(0), Pfn(0)).unwrap();
    let list = rec2
        .machine()
        .list_pfns(&rec2.machine().zones[NodeId(0)].free_area[0]);
    assert_eq!(list, [6, 0].map(Pfn), "0 joined at the tail, behind 6");
    free_pages(&mut rec, CpuId(0), Pfn(0)).unwrap();
    assert!(check_page_allocator(rec.machine()).is_empty());
    assert!(check_page_allocator(rec2.machine()).is_empty());
}

#[test]
fn pcp_refill_takes_a_batch_in_address_order() {
    let mut rec = machine(2, 1, 1024, Some(7), Some(28));
    let first = alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap();
    assert_eq!(first, Pfn(0));
    let m = rec.machine();
    let pcp = &m.pcp[m.pcp_index(CpuId(0), NodeId(0))];
    assert_eq!(pcp.count, 6);
    assert_eq!(m.list_pfns(&pcp.lists[0]), [1, 2, 3, 4, 5, 6].map(Pfn));
    // The other CPU's lists are untouched; its first allocation refills its own.
    let other = alloc_pages(&mut rec, CpuId(1), None, 0, Owner::Pages).unwrap();
    assert_eq!(other, Pfn(7));
    // Order-2 refills take max(7 >> 2, 2) = 2 blocks.
    alloc_pages(&mut rec, CpuId(0), None, 2, Owner::Pages).unwrap();
    let m = rec.machine();
    assert_eq!(m.pcp[m.pcp_index(CpuId(0), NodeId(0))].lists[2].len, 1);
    assert!(check_page_allocator(rec.machine()).is_empty());
}

#[test]
fn frees_past_high_go_back_in_growing_batches() {
    let mut rec = machine(1, 1, 1024, Some(4), Some(12));
    let pages: Vec<Pfn> = (0..40)
        .map(|_| alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap())
        .collect();
    let index = rec.machine().pcp_index(CpuId(0), NodeId(0));
    let mut drained = Vec::new();
    for &p in &pages {
        let before = rec.machine().pcp[index].count;
        free_pages(&mut rec, CpuId(0), p).unwrap();
        let after = rec.machine().pcp[index].count;
        if after <= before {
            drained.push(before + 1 - after);
        }
    }
    // nr_pcp_free(): batch << free_factor, clamped to [batch, high - batch] = [4, 8].
    assert_eq!(&drained[..3], &[4, 8, 8]);
    assert!(rec.machine().pcp[index].count < 12);
    assert!(check_page_allocator(rec.machine()).is_empty());
}

#[test]
fn drain_returns_everything_and_merges_back_to_boot_state() {
    let mut rec = machine(2, 2, 2048, Some(15), Some(60));
    let booted = buddyinfo(rec.machine());
    let mut got = Vec::new();
    for i in 0..50u32 {
        got.push(
            alloc_pages(
                &mut rec,
                CpuId::new(i % 2),
                Some(NodeId::new(i % 2)),
                (i % 4) as u8,
                Owner::Pages,
            )
            .unwrap(),
        );
    }
    for (i, &p) in got.iter().enumerate() {
        free_pages(&mut rec, CpuId::new((i as u32 + 1) % 2), p).unwrap();
    }
    drain_local_pages(&mut rec, CpuId(0)).unwrap();
    drain_local_pages(&mut rec, CpuId(1)).unwrap();
    assert_eq!(buddyinfo(rec.machine()), booted);
    assert!(check_page_allocator(rec.machine()).is_empty());
}

#[test]
fn zonelist_falls_back_to_other_nodes_then_fails_cleanly() {
    let mut rec = machine(2, 2, 4, Some(1), Some(0));
    for _ in 0..4 {
        let pfn = alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap();
        assert_eq!(rec.machine().node_of(pfn), NodeId(0));
    }
    let pfn = alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap();
    assert_eq!(rec.machine().node_of(pfn), NodeId(1));
    assert_eq!(
        alloc_pages(&mut rec, CpuId(0), None, 3, Owner::Pages),
        Err(PageAllocError::OutOfMemory { order: 3 })
    );
    assert_eq!(rec.steps().last().unwrap().function, "__alloc_pages");
    assert!(matches!(
        free_pages(&mut rec, CpuId(0), Pfn(3000)),
        Err(PageAllocError::NotAllocated { .. })
    ));
    // 1025 is the free buddy of the page just taken from node 1 (which starts at pfn 1024).
    assert_eq!(pfn, Pfn(1024));
    assert!(matches!(
        free_pages(&mut rec, CpuId(0), Pfn(1025)),
        Err(PageAllocError::NotAllocated { .. })
    ));
    assert!(alloc_pages(&mut rec, CpuId(9), None, 0, Owner::Pages).is_err());
    assert!(alloc_pages(&mut rec, CpuId(0), None, 11, Owner::Pages).is_err());
    assert!(check_page_allocator(rec.machine()).is_empty());
}

/// Each node's zonelist, as plain node numbers.
fn zonelists(m: &Machine) -> Vec<Vec<u32>> {
    m.zonelists
        .iter()
        .map(|list| list.iter().map(|&n| u32::from(n)).collect())
        .collect()
}

/// The node of the block `alloc_pages()` gives `cpu` (preferring `node`), after every page of
/// `full` was taken.
fn node_after_exhausting(
    rec: &mut Recorder,
    full: NodeId,
    cpu: CpuId,
    node: Option<NodeId>,
) -> NodeId {
    while alloc_pages_thisnode(rec, cpu, full, 0, Owner::Pages).is_ok() {}
    let pfn = alloc_pages(rec, cpu, node, 0, Owner::Pages).unwrap();
    rec.machine().node_of(pfn)
}

#[test]
fn an_exhausted_node_falls_back_along_its_zonelist_not_in_node_order() {
    // Three nodes at the default distances: node 1's zonelist is 1 2 0 (build_zonelists()
    // puts the nodes above it first), so its next choice is node 2, not node 0.
    let mut rec = machine(3, 3, 16, Some(1), Some(0));
    assert_eq!(
        zonelists(rec.machine()),
        [vec![0, 1, 2], vec![1, 2, 0], vec![2, 0, 1]]
    );
    assert_eq!(
        node_after_exhausting(&mut rec, NodeId(1), CpuId(1), None),
        NodeId(2)
    );
    let step = rec
        .steps()
        .into_iter()
        .rev()
        .find(|s| s.function == "get_page_from_freelist")
        .unwrap();
    let arg = |name: &str| {
        let (_, v) = step.caption.args.iter().find(|(k, _)| *k == name).unwrap();
        v.clone()
    };
    assert_eq!(
        (arg("node"), arg("next"), arg("zonelist")),
        (Shown::Num(1), Shown::Num(2), Shown::Text("1 2 0".into()))
    );
    // alloc_pages_node(1) on a CPU of node 0 walks node 1's zonelist, not the CPU's.
    assert_eq!(rec.machine().cpu_node[CpuId(0)], NodeId(0));
    let pfn = alloc_pages(&mut rec, CpuId(0), Some(NodeId(1)), 0, Owner::Pages).unwrap();
    assert_eq!(rec.machine().node_of(pfn), NodeId(2));
    // __GFP_THISNODE does not fall back at all.
    assert!(alloc_pages_thisnode(&mut rec, CpuId(0), NodeId(1), 0, Owner::Pages).is_err());
    // Node 2's zonelist is 2 0 1: with node 2 full too, cpu2 gets node 0.
    assert_eq!(
        node_after_exhausting(&mut rec, NodeId(2), CpuId(2), None),
        NodeId(0)
    );
    assert!(check_page_allocator(rec.machine()).is_empty());
}

#[test]
fn zonelists_follow_the_node_distance_table() {
    // Four sockets in a ring (one hop 16, the opposite socket 22): node 1's zonelist is
    // 1 3 0 2 (find_next_best_node(), with node_load carried over from the lists of nodes
    // 0, 2 and 3 built around it).
    let ring = vec![
        vec![10, 16, 16, 22],
        vec![16, 10, 22, 16],
        vec![16, 22, 10, 16],
        vec![22, 16, 16, 10],
    ];
    let m = Machine::new(MachineConfig {
        cpus: 4,
        nodes: 4,
        cpu_node: vec![],
        page_size: 4096,
        pages_per_node: 16,
        pcp_batch: Some(1),
        pcp_high: Some(0),
    })
    .unwrap()
    .with_node_distance(ring)
    .unwrap();
    assert_eq!(zonelists(&m)[1], [1, 3, 0, 2]);
    let mut rec = Recorder::new(m, true);
    assert_eq!(
        node_after_exhausting(&mut rec, NodeId(1), CpuId(1), None),
        NodeId(3)
    );
    assert_eq!(
        node_after_exhausting(&mut rec, NodeId(3), CpuId(1), None),
        NodeId(0)
    );
    assert_eq!(
        node_after_exhausting(&mut rec, NodeId(0), CpuId(1), None),
        NodeId(2)
    );
    assert!(check_page_allocator(rec.machine()).is_empty());
    // A table the kernel would refuse is refused.
    let bad = Machine::new(MachineConfig {
        cpus: 2,
        nodes: 2,
        cpu_node: vec![],
        page_size: 4096,
        pages_per_node: 16,
        pcp_batch: None,
        pcp_high: None,
    })
    .unwrap()
    .with_node_distance(vec![vec![10, 20], vec![20, 20]]);
    assert!(bad.is_err());
}

#[derive(Clone, Debug)]
enum Op {
    Alloc {
        cpu: u32,
        node: Option<u32>,
        order: u8,
    },
    Free {
        cpu: u32,
        pick: usize,
    },
    Drain {
        cpu: u32,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => (0u32..4, prop::option::of(0u32..4), prop_oneof![4 => 0u8..=1, 2 => 2u8..=3, 1 => 4u8..=6])
            .prop_map(|(cpu, node, order)| Op::Alloc { cpu, node, order }),
        4 => (0u32..4, any::<usize>()).prop_map(|(cpu, pick)| Op::Free { cpu, pick }),
        1 => (0u32..4).prop_map(|cpu| Op::Drain { cpu }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random machines and operation sequences: after every step the state is consistent,
    /// pages are conserved, and the snapshot replayed from a keyframe equals the live state.
    #[test]
    fn random_operations_keep_every_invariant(
        cpus in 1u32..=4,
        nodes in 1u32..=4,
        pages in 16u32..600,
        batch in prop::option::of(0u32..20),
        high in prop::option::of(0u32..80),
        ops in prop::collection::vec(op(), 1..120),
    ) {
        let nodes = nodes.min(cpus);
        let mut rec = machine(cpus, nodes, pages, batch, high);
        let total = u64::from(pages) * u64::from(nodes);
        let mut live: Vec<Pfn> = Vec::new();
        let mut check = TraceCheck::new(&rec, FullChecks::EVERY_STEP).unwrap();
        for op in ops {
            match op {
                Op::Alloc { cpu, node, order } => {
                    let node = node.map(|n| NodeId::new(n % nodes));
                    match alloc_pages(&mut rec, CpuId::new(cpu % cpus), node, order, Owner::Pages) {
                        Ok(pfn) => live.push(pfn),
                        Err(PageAllocError::OutOfMemory { .. }) => {}
                        Err(e) => prop_assert!(false, "unexpected error {e}"),
                    }
                }
                Op::Free { cpu, pick } => {
                    if !live.is_empty() {
                        let pfn = live.swap_remove(pick % live.len());
                        free_pages(&mut rec, CpuId::new(cpu % cpus), pfn).unwrap();
                    }
                }
                Op::Drain { cpu } => drain_local_pages(&mut rec, CpuId::new(cpu % cpus)).unwrap(),
            }
            prop_assert!(rec.is_idle(), "an operation left a step open");
            // Every invariant after every step this operation produced: what the step touched,
            // and everything.
            if let Err(v) = check.advance(&rec, rec.cursor()) {
                prop_assert!(false, "{}", v);
            }
            prop_assert_eq!(check.machine(), rec.machine());
            prop_assert_eq!(&rec.snapshot_at(rec.cursor()).unwrap(), rec.machine());
            let m = rec.machine();
            let buddy: u64 = m.zones.iter().map(|z| z.free_pages).sum();
            let pcp: u64 = m.pcp.iter().map(|p| u64::from(p.count)).sum();
            let owned: u64 = live.iter().map(|&p| match m.frames[p].state {
                FrameState::Allocated { order, .. } => 1u64 << order,
                _ => 0,
            }).sum();
            prop_assert_eq!(buddy + pcp + owned, total, "pages conserved");
        }
        // Replay from scratch equals replay from the nearest keyframe for the final cursor.
        let end = rec.cursor();
        prop_assert_eq!(&rec.snapshot_at(end).unwrap(), rec.machine());
    }
}

/// A machine of a 6.7+ kernel (PCP auto-tuning), as `machine()` builds it.
fn machine_6_12(pages: u32, batch: Option<u32>, high: Option<u32>) -> Recorder {
    let m = Machine::new(MachineConfig {
        cpus: 1,
        nodes: 1,
        cpu_node: vec![],
        page_size: 4096,
        pages_per_node: pages,
        pcp_batch: batch,
        pcp_high: high,
    })
    .unwrap()
    .with_profile(&crate::profile::LINUX_6_12);
    Recorder::new(m, true)
}

/// The `batch` argument of every `rmqueue_bulk` step from `from` on.
fn refills(rec: &Recorder, from: usize) -> Vec<u64> {
    rec.steps()[from..]
        .iter()
        .filter(|s| s.function == "rmqueue_bulk")
        .filter_map(|s| {
            s.caption
                .args
                .iter()
                .find(|(k, _)| *k == "batch")
                .and_then(|(_, v)| match v {
                    Shown::Num(n) => Some(*n),
                    Shown::Text(_) => None,
                })
        })
        .collect()
}

#[test]
fn from_6_7_order_0_refills_double_while_allocations_run_without_frees() {
    // pcp batch=4 high=64: nr_pcp_alloc() asks batch << alloc_factor, bounded by
    // max(high - count - batch, batch) = 60, and alloc_factor stops growing once a request
    // no longer fits (spec after 6.6, 5.3).
    let mut rec = machine_6_12(1024, Some(4), Some(64));
    for _ in 0..4 + 8 + 16 + 32 + 60 + 1 {
        alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap();
    }
    assert_eq!(refills(&rec, 0), [4, 8, 16, 32, 60, 60]);
    let m = rec.machine();
    let pcp = &m.pcp[m.pcp_index(CpuId(0), NodeId(0))];
    assert_eq!((pcp.alloc_factor, pcp.high), (4, 64));
    assert!(check_page_allocator(m).is_empty());
}

#[test]
fn from_6_7_frees_past_high_return_as_many_as_were_freed_in_a_row() {
    let mut rec = machine_6_12(1024, Some(4), Some(64));
    let pages: Vec<Pfn> = (0..130)
        .map(|_| alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap())
        .collect();
    let index = rec.machine().pcp_index(CpuId(0), NodeId(0));
    // Allocations halved free_count to 0; 50 pages are left on the list (180 fetched by the
    // refills, 130 handed out), and frees count free_count up again.
    let mut drained = Vec::new();
    for &p in &pages {
        let before = rec.machine().pcp[index].count;
        free_pages(&mut rec, CpuId(0), p).unwrap();
        let after = rec.machine().pcp[index].count;
        if after <= before {
            drained.push(before + 1 - after);
        }
    }
    // Each time the list reaches high (64), nr_pcp_free() returns clamp(free_count, batch,
    // high - batch) = clamp(free_count, 4, 60) pages: as many as were freed in a row (6.6
    // doubled batch << free_factor instead).
    assert_eq!(drained, [14, 28, 56, 60]);
    let pcp = &rec.machine().pcp[index];
    assert_eq!(pcp.free_count, 128, "capped at batch << 5");
    assert_eq!(pcp.alloc_factor, 0, "frees halve it");
    assert!(check_page_allocator(rec.machine()).is_empty());
}

#[test]
fn from_6_7_high_grows_with_refills_up_to_high_max() {
    // No pcp line: high_min is 6.6's high, high_max an eighth of the zone (per CPU). A 1 GiB
    // zone, so that zone_batchsize() is not 0 (63).
    let mut rec = machine_6_12(262_144, None, None);
    let index = rec.machine().pcp_index(CpuId(0), NodeId(0));
    let p = rec.machine().pcp[index].clone();
    assert_eq!(p.batch, 63);
    assert_eq!(p.high_max, 262_144 / 8);
    assert!(p.high_min < p.high_max);
    let mut highs = Vec::new();
    for _ in 0..400 {
        alloc_pages(&mut rec, CpuId(0), None, 0, Owner::Pages).unwrap();
        highs.push(rec.machine().pcp[index].high);
    }
    assert!(
        highs.windows(2).all(|w| w[0] <= w[1]),
        "allocating only raises high"
    );
    assert!(highs[0] > p.high_min && *highs.last().unwrap() <= p.high_max);
    assert!(check_page_allocator(rec.machine()).is_empty());
}
