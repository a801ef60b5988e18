//! SLUB tests of the orders and checks a kernel engineer compares with a real 6.6 kernel: the
//! order a bulk free hands objects back in, the order empty slabs are discarded in, frees to
//! the wrong cache without a check, double frees under `slub_debug=F`, and merging under
//! `slub_debug=F`.

use super::tests::{boot_with, cache_with, consistent};
use super::*;
use crate::boot::BootOptions;
use crate::geometry::SlabFlags;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::slab_common::DestroyOutcome;
use crate::slabinfo::slabinfo;
use crate::sysfs::sysfs_attribute;
use crate::trace::{Shown, Splice};

fn slub_debug(letters: &str) -> BootOptions {
    let mut flags = SlabFlags::default();
    for c in letters.chars() {
        match c {
            'F' => flags.consistency_checks = true,
            'Z' => flags.red_zone = true,
            'P' => flags.poison = true,
            'U' => flags.store_user = true,
            _ => unreachable!("a slub_debug letter"),
        }
    }
    BootOptions {
        slub_debug: flags,
        ..BootOptions::default()
    }
}

#[test]
fn consistency_checks_alone_do_not_stop_merging() {
    // SLAB_NEVER_MERGE (mm/slab_common.c, v6.6) holds red zones, poisoning, user tracking and
    // tracing but not SLAB_CONSISTENCY_CHECKS: under slub_debug=F a compatible cache is still
    // merged, under any other letter it is not.
    for (letters, merges) in [("F", true), ("FZ", false), ("P", false), ("U", false)] {
        let switches = slub_debug(letters);
        let mut rec = boot_with(1, 1, 1024, &switches, 0);
        let a = cache_with(&mut rec, "a", 100, &switches);
        let b = cache_with(&mut rec, "b", 104, &switches);
        assert_eq!(a == b, merges, "slub_debug={letters}");
        let m = rec.machine();
        let aliases = if merges { "1\n" } else { "0\n" };
        assert_eq!(sysfs_attribute(m, "a", "aliases").unwrap(), aliases);
        let text = slabinfo(m);
        assert!(text.lines().any(|l| l.starts_with("a ")));
        assert_eq!(
            text.lines().any(|l| l.starts_with("b ")),
            !merges,
            "slabinfo lists a merged name only under its cache: {letters}"
        );
        consistent(&rec);
    }
}

#[test]
fn debug_checks_come_before_the_hardened_bug_on() {
    // free_to_partial_list() runs free_debug_processing() before it links the object with
    // set_freepointer() (mm/slub.c, v6.6): under slub_debug=F on_freelist() reports "Object
    // already free" and the free is abandoned, so BUG_ON(object == fp) is never reached even
    // when the object heads the slab's freelist.
    for hardened in [false, true] {
        let switches = BootOptions {
            freelist_hardened: hardened,
            ..slub_debug("F")
        };
        let mut rec = boot_with(1, 1, 1024, &switches, 5);
        let id = cache_with(&mut rec, "dbg", 200, &switches);
        let a = slab_alloc_node(&mut rec, id, CpuId(0), None);
        let _b = slab_alloc_node(&mut rec, id, CpuId(0), None);
        assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Freed);
        assert_eq!(
            rec.machine().slub().slabs[&place_of(rec.machine(), a).unwrap().pfn].freelist,
            a
        );
        assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Refused);
        assert_eq!(
            rec.steps().last().unwrap().caption.key,
            "step.kfree_double_free_debug",
            "hardened {hardened}"
        );
        consistent(&rec);
    }
    // Any debug cache first compares slab->inuse with the objects to free: a double free into
    // a slab with nothing allocated is "Slab has 0 allocated objects but 1 are to be freed",
    // with or without F, before any hardened check.
    for letters in ["U", "F"] {
        let switches = BootOptions {
            freelist_hardened: true,
            ..slub_debug(letters)
        };
        let mut rec = boot_with(1, 1, 1024, &switches, 5);
        let id = cache_with(&mut rec, "dbg", 200, &switches);
        let a = slab_alloc_node(&mut rec, id, CpuId(0), None);
        assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Freed);
        assert_eq!(kfree(&mut rec, a, CpuId(0), None), FreeOutcome::Refused);
        assert_eq!(
            rec.steps().last().unwrap().caption.key,
            "step.kfree_double_free_debug_inuse",
            "slub_debug={letters}"
        );
        consistent(&rec);
    }
}

/// The slabs discarded (`SlabDiscarded`) by the steps from `from` on, in order.
fn discarded(rec: &Recorder, from: usize) -> Vec<Pfn> {
    rec.steps()[from..]
        .iter()
        .flat_map(|st| st.events.iter())
        .filter_map(|ev| match ev {
            Event::SlabDiscarded { pfn, .. } => Some(*pfn),
            _ => None,
        })
        .collect()
}

#[test]
fn unfreeze_partials_discards_the_empty_slabs_last_in_first_out() {
    // __unfreeze_partials() (mm/slub.c, v6.6) pushes each empty slab on slab_to_discard
    // through slab->next and frees that list from its head after dropping the lock: the
    // empty slab it met last is discarded first.
    let switches = BootOptions::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let id = cache_with(&mut rec, "obj512", 512, &switches);
    let g = rec.machine().slub().caches[id].geometry.clone();
    let per = g.objs_per_slab as usize;
    let keep = g.min_partial as usize;
    let objs: Vec<u64> = (0..per * (keep + 4))
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    // min_partial slabs with one free object each go to the node partial list.
    for k in 0..keep {
        kfree(&mut rec, objs[k * per], CpuId(0), None);
    }
    flush_cpu_slab(&mut rec, id, CpuId(0));
    assert_eq!(
        rec.machine().slub().caches[id].node[NodeId(0)]
            .partial
            .len(),
        keep
    );
    // Three full slabs emptied on cpu0: each is frozen onto cpu0's partial stack by its first
    // free and stays there, empty. The stack is walked from its top, the last one pushed.
    let empties: Vec<Pfn> = (keep..keep + 3)
        .map(|k| place_of(rec.machine(), objs[k * per]).unwrap().pfn)
        .collect();
    for k in keep..keep + 3 {
        for &o in &objs[k * per..(k + 1) * per] {
            kfree(&mut rec, o, CpuId(0), None);
        }
    }
    assert_eq!(
        rec.machine().slub().caches[id].cpu[CpuId(0)].partial,
        Some(empties[2])
    );
    let from = rec.steps().len();
    flush_cpu_slab(&mut rec, id, CpuId(0));
    // Walked top first (empties[2], [1], [0]), each pushed on slab_to_discard: freed from
    // its head, empties[0] first.
    assert_eq!(discarded(&rec, from), empties);
    // So the page freed last, at the head of cpu0's order-0 pcp list, is the top slab's.
    let m = rec.machine();
    assert_eq!(
        m.pcp[m.pcp_index(CpuId(0), NodeId(0))].lists[0].first,
        empties[2]
    );
    consistent(&rec);
}

#[test]
fn destroy_frees_the_empty_partial_slabs_last_in_first_out() {
    // free_partial() (mm/slub.c, v6.6), from kmem_cache_destroy(): every empty slab of the
    // node partial list is moved with list_add() to the head of a local discard list under
    // list_lock, and the list is freed from its head afterwards: the last one first.
    let switches = BootOptions::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let id = cache_with(&mut rec, "obj512", 512, &switches);
    let per = rec.machine().slub().caches[id].geometry.objs_per_slab as usize;
    let objs: Vec<u64> = (0..per * 3)
        .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
        .collect();
    for o in objs {
        kfree(&mut rec, o, CpuId(0), None);
    }
    flush_cpu_slab(&mut rec, id, CpuId(0));
    // Fewer than min_partial: every empty slab was kept on the node partial list.
    let list = rec.machine().slub().caches[id].node[NodeId(0)]
        .partial
        .clone();
    assert_eq!(list.len(), 3);
    let from = rec.steps().len();
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
        DestroyOutcome::Destroyed
    );
    let mut lifo = list.clone();
    lifo.reverse();
    assert_eq!(discarded(&rec, from), lifo);
    let m = rec.machine();
    assert_eq!(
        m.pcp[m.pcp_index(CpuId(0), NodeId(0))].lists[0].first,
        list[0]
    );
    consistent(&rec);
}

#[test]
fn a_busy_destroy_stops_at_the_first_node_that_keeps_slabs() {
    // __kmem_cache_shutdown() (mm/slub.c, v6.6) returns at the first node whose partial list or
    // slab count is not empty after free_partial(): the empty slabs of later nodes stay.
    let switches = BootOptions::default();
    let mut rec = boot_with(2, 2, 1024, &switches, 0);
    let id = cache_with(&mut rec, "obj512", 512, &switches);
    let _kept = slab_alloc_node(&mut rec, id, CpuId(0), None);
    let gone = slab_alloc_node(&mut rec, id, CpuId(1), None);
    kfree(&mut rec, gone, CpuId(1), None);
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, CpuId(0)),
        DestroyOutcome::StillHasObjects
    );
    let s = &rec.machine().slub().caches[id];
    assert_eq!(
        s.node[NodeId(0)].partial.len(),
        1,
        "node 0 keeps its busy slab"
    );
    assert_eq!(
        s.node[NodeId(1)].partial.len(),
        1,
        "node 1 is never looked at"
    );
    assert_eq!(
        rec.machine().slub().slabs[&s.node[NodeId(1)].partial[0]].inuse,
        0
    );
    consistent(&rec);
}

#[test]
fn a_bulk_free_hands_each_group_back_in_the_order_it_was_gathered() {
    // slab_free() passes the detached freelist through slab_free_freelist_hook(), which walks it
    // from its head and pushes every object onto a new list (mm/slub.c, v6.6; spec 2.8): the
    // list do_slab_free() links in is reversed, the entry build_detached_freelist() took first
    // (the last of the array) at its head.
    for (free_cpu, splice) in [
        (CpuId(0), Splice::CpuFreelist),
        (CpuId(1), Splice::SlabFreelist),
    ] {
        let switches = BootOptions::default();
        let mut rec = boot_with(2, 1, 1024, &switches, 0);
        let id = cache_with(&mut rec, "obj512", 512, &switches);
        // One full slab, cpu0's cpu slab with an empty c->freelist; four of its objects go.
        let per = rec.machine().slub().caches[id].geometry.objs_per_slab as usize;
        let all: Vec<u64> = (0..per)
            .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
            .collect();
        let p = all[..4].to_vec();
        let from = rec.steps().len();
        assert_eq!(
            kmem_cache_free_bulk(&mut rec, Some(id), &p, free_cpu),
            FreeOutcome::Freed
        );
        let steps = rec.steps();
        let functions: Vec<&str> = steps[from..].iter().map(|s| s.function).collect();
        let lists: Vec<(bool, Vec<u64>)> = steps[from..]
            .iter()
            .flat_map(|s| s.events.iter())
            .filter_map(|ev| match ev {
                Event::DetachedFreelistBuilt(d) => Some((false, d.objects.clone())),
                Event::DetachedFreelistReversed(d) => Some((true, d.objects.clone())),
                _ => None,
            })
            .collect();
        // The objects come back last gathered last: p[3] first (from c->freelist, or from
        // slab->freelist when cpu0 finds its c->freelist empty).
        let gathered: Vec<u64> = p.iter().rev().copied().collect();
        let again: Vec<u64> = (0..4)
            .map(|_| slab_alloc_node(&mut rec, id, CpuId(0), None))
            .collect();
        assert_eq!(again, gathered, "{splice:?}");
        let free = if splice == Splice::CpuFreelist {
            "do_slab_free"
        } else {
            "__slab_free"
        };
        assert_eq!(
            functions,
            ["build_detached_freelist", "slab_free_freelist_hook", free]
        );
        assert_eq!(lists, [(false, p.clone()), (true, gathered)]);
        consistent(&rec);
    }
}

#[test]
fn freeing_one_object_records_no_reversal() {
    // For one object the hook's pass leaves the list as it was (it stores NULL in the object's
    // free pointer, which do_slab_free() overwrites at once): no step for it, neither in
    // kfree() nor for a bulk free's group of one.
    let switches = BootOptions::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let a = kmalloc(&mut rec, 64, CpuId(0), None);
    let b = kmalloc(&mut rec, 512, CpuId(0), None);
    kfree(&mut rec, a, CpuId(0), None);
    kmem_cache_free_bulk(&mut rec, None, &[b], CpuId(0));
    assert!(rec
        .steps()
        .iter()
        .all(|s| s.function != "slab_free_freelist_hook"));
}

/// The run's known damage and invariant violations (`check_machine`).
fn diagnostics(rec: &Recorder) -> Vec<String> {
    crate::machine::check::check_machine(rec.machine())
}

#[test]
fn an_unchecked_free_to_the_wrong_cache_runs_the_named_caches_code() {
    // cache_from_obj() (mm/slab.h, v6.6) looks only with CONFIG_SLAB_FREELIST_HARDENED or
    // SLAB_CONSISTENCY_CHECKS. Without both, kmem_cache_free(foo, x) of a kmalloc-128 object
    // runs foo's slab_free() on kmalloc-128's slab: foo's free pointer offset (32, where
    // kmalloc-128 reads 64), and here foo's per-CPU partial stack.
    let switches = BootOptions::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let foo = cache_with(&mut rec, "foo", 64, &switches);
    let k128 = kmalloc_cache_for(&rec, 128).unwrap().unwrap();
    let per = rec.machine().slub().caches[k128].geometry.objs_per_slab as usize;
    // A full kmalloc-128 slab that is no longer cpu0's cpu slab, and one object of it.
    let objs: Vec<u64> = (0..=per)
        .map(|_| kmalloc(&mut rec, 128, CpuId(0), None))
        .collect();
    let (x, slab) = (objs[0], place_of(rec.machine(), objs[0]).unwrap().pfn);
    assert_ne!(
        rec.machine().slub().caches[k128].cpu[CpuId(0)].slab,
        Some(slab)
    );
    assert!(diagnostics(&rec).is_empty());
    let from = rec.steps().len();
    assert_eq!(kfree(&mut rec, x, CpuId(0), Some(foo)), FreeOutcome::Freed);
    let steps = rec.steps();
    let keys: Vec<&str> = steps[from..].iter().map(|s| s.caption.key).collect();
    assert_eq!(keys, ["step.wrong_cache_unchecked", "step.slab_free"]);
    assert_eq!(steps[from + 1].path, "full slab to cpu partial");
    // __slab_free(foo, slab): a full slab's first free freezes it onto foo's stack.
    let m = rec.machine();
    assert_eq!(m.slub().caches[foo].cpu[CpuId(0)].partial, Some(slab));
    assert_eq!(
        (m.slub().slabs[&slab].cache, m.slub().slabs[&slab].freelist),
        (k128, x)
    );
    let bad = diagnostics(&rec);
    assert!(bad[0].starts_with("known damage: "), "{bad:?}");
    assert!(bad[0].contains("offset 32 of the object, where kmalloc-128 reads offset 64"));
    assert!(bad
        .iter()
        .any(|l| l.starts_with("foo: cpu0's per-CPU partial slab 0x")
            && l.ends_with("is a slab of kmalloc-128, not of the cache")));
    // foo now hands out kmalloc-128's slot as one of its own objects.
    assert_eq!(slab_alloc_node(&mut rec, foo, CpuId(0), None), x);
    assert_eq!(
        rec.machine().slub().caches[foo].cpu[CpuId(0)].slab,
        Some(slab)
    );
}

#[test]
fn hardening_or_consistency_checks_redirect_a_free_to_the_wrong_cache() {
    for switches in [
        BootOptions {
            freelist_hardened: true,
            ..BootOptions::default()
        },
        slub_debug("F"),
    ] {
        let mut rec = boot_with(1, 1, 1024, &switches, 0);
        let foo = cache_with(&mut rec, "foo", 64, &switches);
        let x = kmalloc(&mut rec, 128, CpuId(0), None);
        let from = rec.steps().len();
        assert_eq!(kfree(&mut rec, x, CpuId(0), Some(foo)), FreeOutcome::Freed);
        assert_eq!(rec.steps()[from].caption.key, "step.wrong_cache");
        assert!(!rec.machine().is_live(x));
        assert!(diagnostics(&rec).is_empty(), "{:?}", diagnostics(&rec));
    }
}

#[test]
fn a_bulk_free_naming_the_wrong_cache_frees_the_group_with_that_cache() {
    // build_detached_freelist(): df->s = cache_from_obj(s, object), unchecked here.
    let switches = BootOptions::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let foo = cache_with(&mut rec, "foo", 64, &switches);
    let p: Vec<u64> = (0..3)
        .map(|_| kmalloc(&mut rec, 128, CpuId(0), None))
        .collect();
    let from = rec.steps().len();
    kmem_cache_free_bulk(&mut rec, Some(foo), &p, CpuId(0));
    let steps = rec.steps();
    let functions: Vec<&str> = steps[from..].iter().map(|s| s.function).collect();
    assert_eq!(
        functions,
        [
            "cache_from_obj",
            "build_detached_freelist",
            "slab_free_freelist_hook",
            "__slab_free"
        ]
    );
    // foo's code: not kmalloc-128's fast path, although the slab is cpu0's kmalloc-128 slab.
    assert_eq!(steps[from + 3].caption.args[0].1, Shown::Text("foo".into()));
    assert!(diagnostics(&rec)[0].starts_with("known damage: "));
}

#[test]
fn discarding_another_caches_slab_is_recorded_and_the_counts_still_add_up() {
    // foo empties a kmalloc-128 slab on its per-CPU partial stack and flushes it while its
    // node keeps min_partial slabs: its __unfreeze_partials() discards the slab, and the
    // kernel's discard_slab() runs dec_slabs_node(foo).
    let switches = BootOptions::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let foo = cache_with(&mut rec, "foo", 64, &switches);
    let k128 = kmalloc_cache_for(&rec, 128).unwrap().unwrap();
    // min_partial foo slabs with one free object each on node 0's partial list.
    let g = rec.machine().slub().caches[foo].geometry.clone();
    let (foo_per, keep) = (g.objs_per_slab as usize, g.min_partial as usize);
    let mine: Vec<u64> = (0..foo_per * keep)
        .map(|_| slab_alloc_node(&mut rec, foo, CpuId(0), None))
        .collect();
    for k in 0..keep {
        kfree(&mut rec, mine[k * foo_per], CpuId(0), None);
    }
    flush_cpu_slab(&mut rec, foo, CpuId(0));
    assert_eq!(
        rec.machine().slub().caches[foo].node[NodeId(0)]
            .partial
            .len(),
        keep
    );
    // A full kmalloc-128 slab, emptied through foo: frozen onto foo's stack by the first free.
    let per = rec.machine().slub().caches[k128].geometry.objs_per_slab as usize;
    let objs: Vec<u64> = (0..=per)
        .map(|_| kmalloc(&mut rec, 128, CpuId(0), None))
        .collect();
    let slab = place_of(rec.machine(), objs[0]).unwrap().pfn;
    for &o in &objs[..per] {
        kfree(&mut rec, o, CpuId(0), Some(foo));
    }
    assert_eq!(
        rec.machine().slub().caches[foo].cpu[CpuId(0)].partial,
        Some(slab)
    );
    flush_cpu_slab(&mut rec, foo, CpuId(0));
    assert!(!rec.machine().slub().slabs.contains_key(&slab), "discarded");
    assert!(rec.machine().damage.iter().any(|d| matches!(
        d,
        crate::machine::Damage::ForeignSlabDiscarded { cache, slab_cache, .. }
            if (*cache, *slab_cache) == (foo, k128)
    )));
    // Only the damage is reported: every counter and list of the simulator agrees.
    assert!(diagnostics(&rec)
        .iter()
        .all(|l| l.starts_with("known damage: ")));
    consistent(&rec);
}

#[derive(Clone, Debug)]
enum Op {
    Alloc {
        cpu: u32,
        cache: usize,
    },
    Free {
        cpu: u32,
        pick: usize,
        named: Option<usize>,
    },
    FreeBulk {
        cpu: u32,
        picks: Vec<usize>,
        named: Option<usize>,
    },
    Flush {
        cpu: u32,
        cache: usize,
    },
    Shrink {
        cpu: u32,
        cache: usize,
    },
    Destroy {
        cpu: u32,
        cache: usize,
    },
}

fn op() -> impl proptest::strategy::Strategy<Value = Op> {
    use proptest::prelude::*;
    prop_oneof![
        6 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Alloc { cpu, cache }),
        5 => (0u32..3, any::<usize>(), proptest::option::of(0usize..3)).prop_map(|(cpu, pick, named)| Op::Free { cpu, pick, named }),
        1 => (0u32..3, proptest::collection::vec(any::<usize>(), 1..12), proptest::option::of(0usize..3)).prop_map(|(cpu, picks, named)| Op::FreeBulk { cpu, picks, named }),
        1 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Flush { cpu, cache }),
        1 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Shrink { cpu, cache }),
        1 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Destroy { cpu, cache }),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]

    /// Frees and bulk frees that name a random cache, unchecked (no hardening; slub_debug
    /// letters without F), among ordinary operations: nothing panics, the checker finds
    /// nothing until known damage is recorded and reports it from then on, and snapshots
    /// replay to the live state.
    #[test]
    fn unchecked_wrong_cache_frees_never_panic(
        cpus in 1u32..=3,
        nodes in 1u32..=2,
        sizes in proptest::array::uniform3(proptest::prop_oneof![8u32..300, 300u32..3000]),
        debug in proptest::prop_oneof![3 => proptest::strategy::Just(""), 1 => proptest::strategy::Just("U"), 1 => proptest::strategy::Just("PZ")],
        ops in proptest::collection::vec(op(), 1..400),
    ) {
        use proptest::prelude::*;
        let nodes = nodes.min(cpus);
        let switches = slub_debug(debug);
        let mut rec = boot_with(cpus, nodes, 400, &switches, 0);
        let ids: Vec<CacheId> = sizes.iter().enumerate().map(|(i, &s)| cache_with(&mut rec, &format!("c{i}"), s, &switches)).collect();
        let mut live: Vec<u64> = Vec::new();
        let mut check = crate::machine::check::TraceCheck::new(&rec, crate::machine::check::FullChecks::EVERY_STEP).unwrap();
        for op in ops {
            match op {
                Op::Alloc { cpu, cache } => {
                    let obj = slab_alloc_node(&mut rec, ids[cache], CpuId::new(cpu % cpus), None);
                    if obj != 0 {
                        live.push(obj);
                    }
                }
                Op::Free { cpu, pick, named } => {
                    if !live.is_empty() {
                        let obj = live.swap_remove(pick % live.len());
                        let named = named.map(|c| ids[c]);
                        if named.is_some_and(|c| rec.machine().slub().caches[c].destroyed) {
                            live.push(obj);
                        }
                        kfree(&mut rec, obj, CpuId::new(cpu % cpus), named);
                    }
                }
                Op::FreeBulk { cpu, picks, named } => {
                    let named = named.map(|c| ids[c]);
                    let mut batch = Vec::new();
                    for pick in picks {
                        if !live.is_empty() {
                            batch.push(live.swap_remove(pick % live.len()));
                        }
                    }
                    if !batch.is_empty() {
                        prop_assert_eq!(kmem_cache_free_bulk(&mut rec, named, &batch, CpuId::new(cpu % cpus)), FreeOutcome::Freed);
                    }
                }
                Op::Flush { cpu, cache } => flush_cpu_slab(&mut rec, ids[cache], CpuId::new(cpu % cpus)),
                Op::Shrink { cpu, cache } => kmem_cache_shrink(&mut rec, ids[cache], CpuId::new(cpu % cpus)),
                Op::Destroy { cpu, cache } => {
                    let _ = kmem_cache_destroy(&mut rec, ids[cache], None, CpuId::new(cpu % cpus));
                }
            }
            prop_assert!(rec.is_idle(), "an operation left a step open");
            // What each step touched, and everything, after every step: both report nothing
            // until known damage is recorded, and the damage first from then on.
            while let Some(found) = check.check_step(&rec) {
                let damaged = !check.machine().damage.is_empty();
                for bad in std::iter::once(&found.local).chain(found.full.as_ref()) {
                    prop_assert_eq!(bad.is_empty(), !damaged, "after step {}: {:?}", found.step, bad);
                    prop_assert_eq!(bad.first().is_some_and(|l| l.starts_with("known damage: ")), damaged, "after step {}: {:?}", found.step, bad);
                }
            }
            prop_assert_eq!(rec.machine().live_objects as usize, live.len());
        }
        prop_assert_eq!(&rec.snapshot_at(rec.cursor()).unwrap(), rec.machine());
    }
}
