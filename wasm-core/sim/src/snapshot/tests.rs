use super::*;
use crate::scenario::{parse, run};

fn recorded(text: &str) -> crate::trace::Recorder {
    run(&parse(text).expect("parses"), true).expect("runs")
}

#[test]
fn a_bulk_free_step_shows_its_detached_freelist() {
    let rec = recorded(include_str!("../../tests/golden/bulk-and-lifecycle.slab"));
    let step = (0..rec.step_count())
        .find(|&i| {
            rec.step(i)
                .is_some_and(|s| s.function == "build_detached_freelist")
        })
        .expect("the scenario frees in bulk");
    let m = rec.snapshot_at(step + 1).expect("snapshot");
    let s = snapshot(
        &m,
        step + 1,
        rec.step_events(step),
        &SnapshotQuery::default(),
        &NoHistory,
    );
    let d = &s.transient.detached[0];
    assert!(!d.objects.is_empty());
    assert!(d.scanned as usize >= d.objects.len());
    assert!(d.done_from as usize <= d.array.len());
    // The step's cache is the one shown.
    assert_eq!(s.cache.as_ref().map(|c| c.id), Some(d.cache));
}

#[test]
fn merges_and_splits_name_both_buddies() {
    let rec = recorded(include_str!(
        "../../../../docs/scenarios/buddy-split-merge.slab"
    ));
    let mut merges = 0;
    for i in 0..rec.step_count() {
        let m = rec.snapshot_at(i + 1).expect("snapshot");
        let s = snapshot(
            &m,
            i + 1,
            rec.step_events(i),
            &SnapshotQuery::default(),
            &NoHistory,
        );
        for p in s.transient.merges.iter().chain(&s.transient.splits) {
            // Buddies differ in exactly the bit of their order.
            assert_eq!(p.pfn ^ p.buddy, 1 << p.order, "step {i}");
        }
        merges += s.transient.merges.len();
    }
    assert!(merges > 0, "the preset merges buddies");
}

#[test]
fn hardened_free_pointers_are_shown_encoded_and_decoded() {
    let text = "slabscope-scenario 1\nprofile linux-6.6\nmachine cpus=1 nodes=1 memory=1M\nswitch freelist_hardened\nseed 7\ncache c size=64\nrepeat 3 x[] = kmem_cache_alloc(c) on cpu0\n";
    let rec = recorded(text);
    let m = rec.machine();
    let q = SnapshotQuery {
        cache: Some("c".into()),
        slab: None,
    };
    let s = snapshot(m, rec.cursor(), &[], &q, &NoHistory);
    let cache = s.cache.expect("cache c");
    assert!(cache.hardened && cache.random.is_some());
    let slab = cache.slab.expect("cpu slab");
    let free: Vec<_> = slab
        .slots
        .iter()
        .filter(|x| x.state != SlotState::Allocated)
        .collect();
    assert!(!free.is_empty());
    for slot in &free {
        let stored = slot
            .stored
            .as_ref()
            .expect("a hardened free slot shows its stored word");
        // The stored word is not the pointer it means (unless both are NULL by chance).
        assert_ne!(Some(stored), slot.next_addr.as_ref());
    }
    // Free slots chain through `next`: following it from c->freelist visits each once.
    let CpuView::Slub { freelist, .. } = &cache.cpus[0] else {
        panic!("SLUB")
    };
    assert_eq!(freelist.len(), free.len());
}
