//! Snapshots of recorded scenarios: what the views are given about a bulk free, a buddy merge
//! or split, and the machine at a cursor.

use slabscope_run::run;
use slabscope_scenario::parse;
use slabscope_sim::ids::CpuId;
use slabscope_sim::snapshot::*;
use slabscope_sim::trace::Recorder;

fn recorded(text: &str) -> Recorder {
    run(&parse(text).expect("parses"), true).expect("runs")
}

#[test]
fn a_bulk_free_step_shows_its_detached_freelist() {
    let rec = recorded(include_str!("golden/bulk-and-lifecycle.slab"));
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
        StepAt {
            events: rec.step_events(step),
            ..StepAt::default()
        },
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
        "../../../docs/scenarios/buddy-split-merge.slab"
    ));
    let mut merges = 0;
    for i in 0..rec.step_count() {
        let m = rec.snapshot_at(i + 1).expect("snapshot");
        let s = snapshot(
            &m,
            i + 1,
            StepAt {
                events: rec.step_events(i),
                ..StepAt::default()
            },
            &SnapshotQuery::default(),
            &NoHistory,
        );
        for p in s.transient.merges.iter().chain(&s.transient.splits) {
            // Buddies differ in exactly the bit of their order.
            assert_eq!(p.pfn.0 ^ p.buddy.0, 1 << p.order, "step {i}");
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
    let s = snapshot(m, rec.cursor(), StepAt::default(), &q, &NoHistory);
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

#[test]
fn pages_waiting_for_rcu_and_queued_kfree_rcu_pointers_are_shown() {
    let text = "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=1M\ncache sig size=1000 flags=typesafe_by_rcu
repeat 4 s[] = kmem_cache_alloc(sig) on cpu0
for x in s: kmem_cache_free(sig, x) on cpu0
kmem_cache_shrink(sig) on cpu1
a = kmalloc(64) on cpu0
b = kmalloc(64) on cpu0
kfree_rcu(a) on cpu0
kfree_rcu(b) on cpu0
";
    let rec = recorded(text);
    let show = |cursor: usize| {
        let m = rec.snapshot_at(cursor).expect("snapshot");
        snapshot(
            &m,
            cursor,
            StepAt {
                events: rec.step_events(cursor - 1),
                ..StepAt::default()
            },
            &SnapshotQuery::default(),
            &NoHistory,
        )
    };
    let s = show(rec.cursor());
    let waiting: Vec<&BlockView> = s
        .buddy
        .blocks
        .iter()
        .filter(|b| matches!(b.owner, BlockOwner::SlabRcu { .. }))
        .collect();
    assert_eq!(waiting.len(), 1);
    let cb = &s.rcu.cpus[1].callbacks[0];
    assert_eq!(
        (cb.func.as_str(), cb.pfn, cb.ready, cb.gp),
        ("rcu_free_slab", Some(waiting[0].pfn), false, 1)
    );
    assert_eq!(cb.pages, waiting[0].pages);
    assert!(s.caches.iter().all(|c| c.name != "sig" || c.slabs == 0));
    let krc = &s.rcu.cpus[0].krc;
    assert!(krc.monitor_pending);
    assert_eq!(krc.queued.objects, 2);
    assert_eq!(krc.queued.head_count, 1);
    assert_eq!(krc.queued.pages[0].records.len(), 1);
    assert_eq!(krc.cached_pages.len(), 4);
    let pointer_pages = s
        .buddy
        .blocks
        .iter()
        .filter(|b| matches!(b.owner, BlockOwner::KfreeRcu { cpu: CpuId(0), .. }))
        .count();
    assert_eq!(pointer_pages, 5);
    // The shrink's step is about the cache whose slab it queued.
    let shrink = (0..rec.step_count())
        .find(|&i| {
            rec.step(i)
                .is_some_and(|s| s.function == "__kmem_cache_do_shrink")
        })
        .unwrap();
    let at = show(shrink + 1);
    assert_eq!(at.cache.map(|c| c.name), Some("sig".to_string()));
}
