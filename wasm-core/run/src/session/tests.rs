use super::*;
use slabscope_sim::ids::Pfn;
use slabscope_sim::snapshot::{CpuView, HandedOut, NodeView, SlabPlace, SlotState};
use std::collections::BTreeMap;

const SCENARIOS: &[(&str, &str)] = &[
    (
        "alloc-paths",
        include_str!("../../tests/golden/alloc-paths.slab"),
    ),
    (
        "free-paths",
        include_str!("../../tests/golden/free-paths.slab"),
    ),
    (
        "bulk-and-lifecycle",
        include_str!("../../tests/golden/bulk-and-lifecycle.slab"),
    ),
    ("debug", include_str!("../../tests/golden/debug.slab")),
    ("numa", include_str!("../../tests/golden/numa.slab")),
    (
        "bad-operations",
        include_str!("../../tests/golden/bad-operations.slab"),
    ),
    (
        "slab-paths",
        include_str!("../../tests/golden/slab-paths.slab"),
    ),
    (
        "slab-numa",
        include_str!("../../tests/golden/slab-numa.slab"),
    ),
    (
        "remote-free",
        include_str!("../../../../docs/scenarios/slub-remote-free.slab"),
    ),
    (
        "buddy",
        include_str!("../../../../docs/scenarios/buddy-split-merge.slab"),
    ),
    (
        "delayed-freezing-6.12",
        include_str!("../../tests/golden/delayed-freezing-6.12.slab"),
    ),
    (
        "sheaves-7.2",
        include_str!("../../tests/golden/sheaves-7.2.slab"),
    ),
    (
        "kfree-rcu-sheaves-7.2",
        include_str!("../../tests/golden/kfree-rcu-sheaves-7.2.slab"),
    ),
];

fn open(name: &str, text: &str) -> Session {
    Session::open(text).unwrap_or_else(|e| panic!("{name} opens: {e}"))
}

/// A slot is in a sheaf exactly when a sheaf of the snapshot holds its address: a CPU's (the
/// slot names that CPU), the barn's, one a task holds or one waiting for RCU.
fn check_sheaf_slots(
    at: &str,
    cache: &slabscope_sim::snapshot::CacheView,
    slab: &slabscope_sim::snapshot::SlabView,
) {
    let mut sheaf_cpu: BTreeMap<&str, Option<u16>> = BTreeMap::new();
    for c in &cache.cpus {
        if let CpuView::Slub {
            cpu,
            sheaves: Some(pcs),
            ..
        } = c
        {
            for sh in [&pcs.main, &pcs.spare, &pcs.rcu_free].into_iter().flatten() {
                for o in &sh.objects {
                    sheaf_cpu.insert(o, Some(cpu.0));
                }
            }
        }
    }
    for n in &cache.nodes {
        if let NodeView::Slub { barn: Some(b), .. } = n {
            for o in b.full.iter().chain(&b.empty).flat_map(|sh| &sh.objects) {
                sheaf_cpu.insert(o, None);
            }
        }
    }
    for o in cache
        .held_sheaves
        .iter()
        .chain(&cache.rcu_sheaves)
        .flat_map(|sh| &sh.objects)
    {
        sheaf_cpu.insert(o, None);
    }
    for slot in &slab.slots {
        let want = sheaf_cpu.get(slot.addr.as_str()).copied();
        let got = match slot.state {
            SlotState::Sheaf { cpu } => Some(cpu.map(|c| c.0)),
            _ => None,
        };
        assert_eq!(got, want, "{at}: slot {} in a sheaf", slot.addr);
    }
}

/// The slot-by-slot view agrees with the slab's counters and with the object history: a slot
/// is allocated exactly when its last recorded event is an allocation.
fn check_snapshot(name: &str, s: &Snapshot) {
    let at = format!("{name} at cursor {}", s.cursor);
    let Some(cache) = &s.cache else { return };
    for n in &cache.nodes {
        if let NodeView::Slub {
            partial,
            nr_partial,
            ..
        } = n
        {
            assert_eq!(partial.len() as u32, *nr_partial, "{at}");
            assert!(partial
                .iter()
                .all(|b| b.place == SlabPlace::NodePartial && !b.frozen));
        }
    }
    for c in &cache.cpus {
        if let CpuView::Slub { partial, .. } = c {
            // slab->slabs counts down the stack to 1 at the bottom.
            let counts: Vec<u32> = partial.iter().map(|p| p.slabs).collect();
            let expect: Vec<u32> = (1..=counts.len() as u32).rev().collect();
            assert_eq!(counts, expect, "{at}");
        }
    }
    let Some(slab) = &cache.slab else { return };
    let count = |f: fn(&SlotState) -> bool| slab.slots.iter().filter(|x| f(&x.state)).count();
    let free = count(|s| matches!(s, SlotState::Free));
    let allocated = count(|s| matches!(s, SlotState::Allocated));
    let on_cpu = count(|s| matches!(s, SlotState::CpuFreelist { .. }));
    let in_sheaf = count(|s| matches!(s, SlotState::Sheaf { .. }));
    let stacked = count(|s| matches!(s, SlotState::Stacked));
    check_sheaf_slots(&at, cache, slab);
    if !cache.cpu_slab {
        assert_eq!(on_cpu, 0, "{at}: no cpu slab under 7.x");
    }
    assert_eq!(
        free,
        slab.free_order.len(),
        "{at}: free slots vs the freelist"
    );
    assert_eq!(slab.slots.len() as u32, slab.brief.objects, "{at}");
    match s.allocator {
        Allocator::Slub => {
            // inuse counts what is not on slab->freelist (a cpu slab's c->freelist included).
            assert_eq!(
                slab.brief.inuse as usize,
                allocated + on_cpu + in_sheaf + stacked,
                "{at}: inuse of slab {}",
                slab.brief.pfn
            );
        }
        Allocator::Slab => {
            assert_eq!(slab.brief.inuse as usize, slab.slots.len() - free, "{at}");
        }
    }
    for slot in &slab.slots {
        let held = slot.state == SlotState::Allocated;
        let history_says = slot.allocated_by.is_some() && slot.freed_by.is_none();
        assert_eq!(
            held, history_says,
            "{at}: slot {} of {}",
            slot.index, slab.addr
        );
        if let Some(mark) = slot.allocated_by {
            assert!((mark.step as usize) < s.cursor as usize, "{at}");
        }
    }
}

#[test]
fn snapshots_agree_with_counters_and_history_at_every_cursor() {
    for (name, text) in SCENARIOS {
        let session = open(name, text);
        let steps = session.outline().steps as usize;
        for cursor in 0..=steps {
            let s = session
                .snapshot(cursor, &SnapshotQuery::default())
                .expect("every cursor has a snapshot");
            check_snapshot(name, &s);
            // The page-frame map covers every frame once, in order.
            let mut next = Pfn(0);
            for b in &s.buddy.blocks {
                assert_eq!(b.pfn, next, "{name} at {cursor}");
                next += b.pages;
            }
            assert_eq!(next.index(), session.recorder().machine().frames.len());
        }
    }
}

#[test]
fn stepping_forward_and_jumping_build_the_same_machine() {
    let session = open("remote-free", SCENARIOS[8].1);
    let steps = session.outline().steps as usize;
    // Forward one at a time, then back, then far jumps: each equals a fresh replay.
    let mut cursors: Vec<usize> = (0..=steps).collect();
    cursors.extend((0..=steps).rev().step_by(7));
    cursors.extend([steps, 0, steps / 2, steps / 2 + 600, 3]);
    for c in cursors.into_iter().filter(|&c| c <= steps) {
        assert_eq!(
            session.machine_at(c),
            session.recorder().snapshot_at(c),
            "cursor {c}"
        );
    }
    assert!(session.machine_at(steps + 1).is_none());
}

#[test]
fn the_remote_free_preset_ends_with_one_partial_slab_on_node_0() {
    let session = open("remote-free", SCENARIOS[8].1);
    let outline = session.outline();
    assert_eq!(outline.ops.len(), 16 + 80 + 16 + 1);
    assert_eq!(outline.ops[0].text, "repeat 16 h[] = kmalloc(100) on cpu0");
    assert_eq!(outline.ops.last().map(|o| o.end), Some(outline.steps));
    let query = SnapshotQuery {
        cache: Some("kmalloc-128".into()),
        slab: None,
    };
    let end = session
        .snapshot(outline.steps as usize, &query)
        .expect("the end has a snapshot");
    let cache = end.cache.expect("kmalloc-128 is shown");
    assert_eq!(cache.name, "kmalloc-128");
    let NodeView::Slub { partial, .. } = &cache.nodes[0] else {
        panic!("a SLUB node")
    };
    assert_eq!(partial.len(), 1);
    assert_eq!(partial[0].inuse, 16);
    let CpuView::Slub { partial, .. } = &cache.cpus[1] else {
        panic!("a SLUB cpu")
    };
    assert!(partial.is_empty(), "the flush emptied cpu1's partial stack");
    // The 16 objects of that slab freed by cpu1 say so.
    let first = session
        .snapshot(
            outline.steps as usize,
            &SnapshotQuery {
                cache: Some("kmalloc-128".into()),
                slab: Some(cache.slabs[0].pfn),
            },
        )
        .and_then(|s| s.cache?.slab)
        .expect("the first slab is shown");
    let freed: Vec<_> = first.slots.iter().filter_map(|s| s.freed_by).collect();
    assert_eq!(freed.len(), 16);
    assert!(freed
        .iter()
        .all(|m| m.cpu == CpuId(1) && m.op.is_some_and(|op| op >= 96)));
    let files = session
        .files(outline.steps as usize, Some("kmalloc-128"))
        .expect("files");
    assert!(files.slabinfo.starts_with("slabinfo - version: 2.1"));
    let sysfs = files.sysfs.expect("SLUB has sysfs");
    assert!(sysfs
        .iter()
        .any(|(k, v)| k == "partial" && v.starts_with('1')));
}

#[test]
fn a_page_lane_follows_a_frame_from_buddy_to_slab() {
    let session = open("remote-free", SCENARIOS[8].1);
    let end = session
        .snapshot(session.outline().steps as usize, &SnapshotQuery::default())
        .expect("snapshot");
    let slab = end.cache.and_then(|c| c.slab).expect("a slab is shown");
    let lane = session.page_lane(slab.brief.pfn).expect("lane");
    assert!(matches!(lane.page[0].owner, BlockOwner::Buddy { .. }));
    assert!(matches!(
        lane.page.last().map(|s| s.owner),
        Some(BlockOwner::Slab { .. })
    ));
    // Steps only move forward along the lane.
    let steps: Vec<u32> = lane.page.iter().filter_map(|s| s.step).collect();
    assert!(steps.windows(2).all(|w| w[0] <= w[1]));
    let object = &slab.slots[0].addr;
    let addr = slabscope_sim::snapshot::parse_addr(object).expect("hex");
    let lane = session.object_lane(addr).expect("object lane");
    assert!(!lane.marks.is_empty());
    // An object's life alternates: allocated, freed, allocated, ...
    assert!(lane
        .marks
        .iter()
        .enumerate()
        .all(|(i, m)| m.allocated == (i % 2 == 0)));
}

#[test]
fn bad_scenarios_are_errors_not_panics() {
    assert!(matches!(
        Session::open("not a scenario"),
        Err(SessionError::Parse(_))
    ));
    assert!(Session::open("").is_err());
}

#[test]
fn sysfs_is_refused_under_slab_with_the_reason() {
    let session = open("slab-paths", SCENARIOS[6].1);
    let files = session.files(10, Some("kmalloc-64")).expect("files");
    let reason = files.sysfs.expect_err("SLAB has no /sys/kernel/slab");
    assert_eq!(reason.key, "sysfs.not_slub");
    assert!(reason.message.contains("only under SLUB"), "{reason:?}");
    assert_eq!(
        files.slab_dir.expect_err("nor a listing").key,
        "sysfs.not_slub"
    );
    let slub = open(SCENARIOS[0].0, SCENARIOS[0].1);
    let missing = slub.files(0, Some("nope")).expect("files").sysfs;
    let reason = missing.expect_err("no cache is called nope");
    assert_eq!(
        (reason.key, reason.cache.as_deref()),
        ("sysfs.unknown_cache", Some("nope"))
    );
    assert!(files.slabinfo.contains(": tunables"));
}

#[test]
fn addresses_cross_as_hex_and_come_back() {
    use slabscope_sim::snapshot::{hex, parse_addr};
    let a = 0xffff_8880_0012_3040;
    assert_eq!(parse_addr(&hex(a)), Some(a));
    assert_eq!(parse_addr("123040"), Some(0x12_3040));
    for bad in ["", "0x", "0xg1", "0x1ffffffffffffffff", "<script>"] {
        assert_eq!(parse_addr(bad), None, "{bad}");
    }
}

#[test]
fn the_outline_lists_the_print_lines_at_their_cursors() {
    let session = open(
        "interleaved",
        include_str!("../../../../docs/scenarios/bulk-free-interleaved.slab"),
    );
    let outline = session.outline();
    let prints: Vec<(u32, &str, u32)> = outline
        .prints
        .iter()
        .map(|p| (p.line, p.text.as_str(), p.cursor))
        .collect();
    // The first two after the two bulk allocations, the third after the interleaved free.
    assert_eq!(prints[0].1, "print slabinfo");
    assert_eq!(prints[0].2, outline.ops[1].end);
    assert_eq!(prints[1].2, outline.ops[1].end);
    assert_eq!(prints[2].2, outline.ops[2].end);
    assert_eq!(
        outline.prints[2].file,
        PrintFile::Sysfs {
            cache: "slab_bulk_test03".into()
        }
    );
    // What the file says there is what the viewer's files show at that cursor.
    let files = session
        .files(prints[2].2 as usize, Some("slab_bulk_test03"))
        .expect("files");
    let dir = files.sysfs.expect("a SLUB cache");
    assert!(dir.contains(&("cpu_slabs".to_string(), "2 N0=2\n".to_string())));
}

#[test]
fn a_long_run_reports_its_progress_without_changing_what_it_records() {
    use crate::PROGRESS_EVERY;
    let text = "slabscope-scenario 2\nmachine cpus=2\nrepeat 10000 t[] = kmalloc(64) on cpu0\n\
                for x in t: kfree(x) on cpu1\nsynchronize_rcu()\n";
    let mut reports = Vec::new();
    let heard = Session::open_with_progress(text, &mut |p| reports.push(*p)).unwrap();
    let quiet = Session::open(text).unwrap();
    assert_eq!(heard.outline(), quiet.outline());
    assert_eq!(heard.recorder().step_count(), quiet.recorder().step_count());
    // Each operation line once at its start, then every PROGRESS_EVERY of its runs.
    let summary: Vec<(u32, u64, u64)> = reports
        .iter()
        .map(|p| (p.line, p.line_done, p.line_total))
        .collect();
    let every = PROGRESS_EVERY;
    assert_eq!(
        summary,
        [
            (3, 0, 10_000),
            (3, every, 10_000),
            (3, 2 * every, 10_000),
            (4, 0, 10_000),
            (4, every, 10_000),
            (4, 2 * every, 10_000),
            (5, 0, 1),
        ]
    );
    // Operations and steps so far only grow, and stop short of the whole run.
    assert!(reports
        .windows(2)
        .all(|w| w[0].ops <= w[1].ops && w[0].steps <= w[1].steps));
    let last = reports.last().unwrap();
    assert_eq!(last.ops, 20_000);
    assert!(last.steps as usize <= quiet.recorder().step_count());
    assert_eq!(reports[1].ops as u64, every);
}

/// An allocation operation ends by handing an object to its caller on the CPU its line names,
/// an object no CPU's freelist or array holds afterwards; a free hands nothing out. (SLAB may
/// hand out more within one operation: the off-slab index array of a new slab comes from a
/// kmalloc cache, `alloc_slabmgmt()`.)
#[test]
fn each_allocation_hands_its_object_to_its_cpus_caller() {
    for text in [
        include_str!("../../../../docs/scenarios/slub-fast-path.slab"),
        include_str!("../../../../docs/scenarios/slab-paths.slab"),
    ] {
        let s = Session::open(text).unwrap();
        let query = SnapshotQuery {
            cache: None,
            slab: None,
        };
        let overview = s.overview();
        let mut start = s.outline().ops_start;
        for op in s.outline().ops.clone() {
            let handed: Vec<HandedOut> = (start + 1..=op.end)
                .flat_map(|c| s.snapshot(c as usize, &query).unwrap().transient.handed_out)
                .collect();
            let cpu: Option<u32> = op
                .text
                .rsplit_once("on cpu")
                .and_then(|(_, n)| n.trim().parse().ok());
            // kmalloc(0) returns ZERO_SIZE_PTR, and beyond KMALLOC_MAX_CACHE_SIZE (two pages
            // under SLUB) kmalloc() hands out pages (`kmalloc_large()`): no slab object.
            let no_object = op
                .text
                .split("kmalloc(")
                .nth(1)
                .and_then(|r| r.split(')').next()?.parse::<u32>().ok())
                .is_some_and(|size| size == 0 || size > 8192);
            // A refused operation (a destroyed cache, out of memory) hands nothing out.
            let refused = (start..op.end).any(|i| {
                let k = &overview.kinds[2 * i as usize..2 * i as usize + 2];
                u8::from_str_radix(k, 16).unwrap() & crate::overview::DIAGNOSTIC != 0
            });
            if op.text.contains("alloc(") && !op.text.contains("bulk") && !no_object && !refused {
                let last = handed
                    .last()
                    .unwrap_or_else(|| panic!("{}: nothing handed out", op.text));
                let cpu = cpu.unwrap_or_else(|| panic!("{}: no CPU", op.text));
                assert_eq!(CpuId::all(cpu + 1).last(), Some(last.cpu), "{}", op.text);
                if s.outline().allocator == Allocator::Slub {
                    assert_eq!(handed.len(), 1, "{}: {handed:?}", op.text);
                }
                let after = s.snapshot(op.end as usize, &query).unwrap();
                for c in &after.cache.as_ref().unwrap().cpus {
                    let held = match c {
                        CpuView::Slub { freelist, .. } => freelist.clone(),
                        CpuView::Slab { ac, .. } => ac.entry[..ac.avail as usize].to_vec(),
                    };
                    assert!(
                        !held.contains(&last.addr),
                        "{}: {} still held",
                        op.text,
                        last.addr
                    );
                }
            } else if op.text.starts_with("kfree") || op.text.contains("_free(") {
                assert!(handed.is_empty(), "{}: {handed:?}", op.text);
            }
            start = op.end;
        }
    }
}
