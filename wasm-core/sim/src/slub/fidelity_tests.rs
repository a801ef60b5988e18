//! SLUB tests of the orders and checks a kernel engineer compares with a real 6.6 kernel: the
//! order a bulk free hands objects back in, the order empty slabs are discarded in, frees to
//! the wrong cache without a check, double frees under `slub_debug=F`, and merging under
//! `slub_debug=F`.

use super::tests::{boot_with, cache_with, consistent};
use super::*;
use crate::geometry::SlabFlags;
use crate::scenario::Switches;
use crate::slabinfo::slabinfo;
use crate::sysfs::sysfs_attribute;
use crate::trace::Splice;

fn slub_debug(letters: &str) -> Switches {
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
    Switches {
        slub_debug: flags,
        ..Switches::default()
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
        let switches = Switches {
            freelist_hardened: hardened,
            ..slub_debug("F")
        };
        let mut rec = boot_with(1, 1, 1024, &switches, 5);
        let id = cache_with(&mut rec, "dbg", 200, &switches);
        let a = slab_alloc_node(&mut rec, id, 0, None);
        let _b = slab_alloc_node(&mut rec, id, 0, None);
        assert_eq!(kfree(&mut rec, a, 0, None), FreeOutcome::Freed);
        assert_eq!(rec.machine().slabs[&place_of(rec.machine(), a).unwrap().pfn].freelist, a);
        assert_eq!(kfree(&mut rec, a, 0, None), FreeOutcome::Refused);
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
        let switches = Switches {
            freelist_hardened: true,
            ..slub_debug(letters)
        };
        let mut rec = boot_with(1, 1, 1024, &switches, 5);
        let id = cache_with(&mut rec, "dbg", 200, &switches);
        let a = slab_alloc_node(&mut rec, id, 0, None);
        assert_eq!(kfree(&mut rec, a, 0, None), FreeOutcome::Freed);
        assert_eq!(kfree(&mut rec, a, 0, None), FreeOutcome::Refused);
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
    let switches = Switches::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let id = cache_with(&mut rec, "obj512", 512, &switches);
    let g = rec.machine().caches[id as usize].geometry.clone();
    let per = g.objs_per_slab as usize;
    let keep = g.min_partial as usize;
    let objs: Vec<u64> = (0..per * (keep + 4))
        .map(|_| slab_alloc_node(&mut rec, id, 0, None))
        .collect();
    // min_partial slabs with one free object each go to the node partial list.
    for k in 0..keep {
        kfree(&mut rec, objs[k * per], 0, None);
    }
    flush_cpu_slab(&mut rec, id, 0);
    assert_eq!(rec.machine().caches[id as usize].node[0].partial.len(), keep);
    // Three full slabs emptied on cpu0: each is frozen onto cpu0's partial stack by its first
    // free and stays there, empty. The stack is walked from its top, the last one pushed.
    let empties: Vec<Pfn> = (keep..keep + 3)
        .map(|k| place_of(rec.machine(), objs[k * per]).unwrap().pfn)
        .collect();
    for k in keep..keep + 3 {
        for &o in &objs[k * per..(k + 1) * per] {
            kfree(&mut rec, o, 0, None);
        }
    }
    assert_eq!(rec.machine().caches[id as usize].cpu[0].partial, Some(empties[2]));
    let from = rec.steps().len();
    flush_cpu_slab(&mut rec, id, 0);
    // Walked top first (empties[2], [1], [0]), each pushed on slab_to_discard: freed from
    // its head, empties[0] first.
    assert_eq!(discarded(&rec, from), empties);
    // So the page freed last, at the head of cpu0's order-0 pcp list, is the top slab's.
    let m = rec.machine();
    assert_eq!(m.pcp[m.pcp_index(0, 0)].lists[0].first, empties[2]);
    consistent(&rec);
}

#[test]
fn destroy_frees_the_empty_partial_slabs_last_in_first_out() {
    // free_partial() (mm/slub.c, v6.6), from kmem_cache_destroy(): every empty slab of the
    // node partial list is moved with list_add() to the head of a local discard list under
    // list_lock, and the list is freed from its head afterwards: the last one first.
    let switches = Switches::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let id = cache_with(&mut rec, "obj512", 512, &switches);
    let per = rec.machine().caches[id as usize].geometry.objs_per_slab as usize;
    let objs: Vec<u64> = (0..per * 3)
        .map(|_| slab_alloc_node(&mut rec, id, 0, None))
        .collect();
    for o in objs {
        kfree(&mut rec, o, 0, None);
    }
    flush_cpu_slab(&mut rec, id, 0);
    // Fewer than min_partial: every empty slab was kept on the node partial list.
    let list = rec.machine().caches[id as usize].node[0].partial.clone();
    assert_eq!(list.len(), 3);
    let from = rec.steps().len();
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, 0),
        DestroyOutcome::Destroyed
    );
    let mut lifo = list.clone();
    lifo.reverse();
    assert_eq!(discarded(&rec, from), lifo);
    let m = rec.machine();
    assert_eq!(m.pcp[m.pcp_index(0, 0)].lists[0].first, list[0]);
    consistent(&rec);
}

#[test]
fn a_busy_destroy_stops_at_the_first_node_that_keeps_slabs() {
    // __kmem_cache_shutdown() (mm/slub.c, v6.6) returns at the first node whose partial list or
    // slab count is not empty after free_partial(): the empty slabs of later nodes stay.
    let switches = Switches::default();
    let mut rec = boot_with(2, 2, 1024, &switches, 0);
    let id = cache_with(&mut rec, "obj512", 512, &switches);
    let _kept = slab_alloc_node(&mut rec, id, 0, None);
    let gone = slab_alloc_node(&mut rec, id, 1, None);
    kfree(&mut rec, gone, 1, None);
    assert_eq!(
        kmem_cache_destroy(&mut rec, id, None, 0),
        DestroyOutcome::StillHasObjects
    );
    let s = &rec.machine().caches[id as usize];
    assert_eq!(s.node[0].partial.len(), 1, "node 0 keeps its busy slab");
    assert_eq!(s.node[1].partial.len(), 1, "node 1 is never looked at");
    assert_eq!(rec.machine().slabs[&s.node[1].partial[0]].inuse, 0);
    consistent(&rec);
}

#[test]
fn a_bulk_free_hands_each_group_back_in_the_order_it_was_gathered() {
    // slab_free() passes the detached freelist through slab_free_freelist_hook(), which walks it
    // from its head and pushes every object onto a new list (mm/slub.c, v6.6; spec 2.8): the
    // list do_slab_free() links in is reversed, the entry build_detached_freelist() took first
    // (the last of the array) at its head.
    for (free_cpu, splice) in [(0, Splice::CpuFreelist), (1, Splice::SlabFreelist)] {
        let switches = Switches::default();
        let mut rec = boot_with(2, 1, 1024, &switches, 0);
        let id = cache_with(&mut rec, "obj512", 512, &switches);
        // One full slab, cpu0's cpu slab with an empty c->freelist; four of its objects go.
        let per = rec.machine().caches[id as usize].geometry.objs_per_slab as usize;
        let all: Vec<u64> = (0..per)
            .map(|_| slab_alloc_node(&mut rec, id, 0, None))
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
        let again: Vec<u64> = (0..4).map(|_| slab_alloc_node(&mut rec, id, 0, None)).collect();
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
    let switches = Switches::default();
    let mut rec = boot_with(1, 1, 1024, &switches, 0);
    let a = kmalloc(&mut rec, 64, 0, None);
    let b = kmalloc(&mut rec, 512, 0, None);
    kfree(&mut rec, a, 0, None);
    kmem_cache_free_bulk(&mut rec, None, &[b], 0);
    assert!(rec
        .steps()
        .iter()
        .all(|s| s.function != "slab_free_freelist_hook"));
}
