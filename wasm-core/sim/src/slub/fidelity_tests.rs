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
