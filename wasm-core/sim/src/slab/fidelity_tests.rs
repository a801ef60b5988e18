//! SLAB tests of a free to the wrong cache that `cache_from_obj()` does not check, and random
//! operations with such frees: nothing panics, and the checker reports the damage.

use super::tests::{boot, boot_with, cache, consistent};
use super::*;
use crate::boot::BootOptions;
use crate::ids::{CacheId, CpuId};
use crate::machine::check::check_machine;
use crate::machine::Damage;
use crate::slub::FreeOutcome;
use proptest::prelude::*;

#[test]
fn an_unchecked_free_to_the_wrong_cache_parks_the_object_in_the_named_caches_array() {
    // Without CONFIG_SLAB_FREELIST_HARDENED, cache_from_obj() (mm/slab.h, v6.6) returns the
    // named cache and __cache_free() pushes the pointer on its per-CPU array: foo hands the
    // kmalloc-128 object out next, as one of its own.
    let mut rec = boot(1, 1);
    let foo = cache(&mut rec, "foo", 64);
    let x = kmalloc(&mut rec, 128, CpuId(0), None);
    let from = rec.steps().len();
    assert_eq!(kfree(&mut rec, x, CpuId(0), Some(foo)), FreeOutcome::Freed);
    let keys: Vec<&str> = rec.steps()[from..].iter().map(|s| s.caption.key).collect();
    assert_eq!(
        keys,
        ["step.slab_wrong_cache_unchecked", "step.slab_free_array"]
    );
    assert_eq!(rec.machine().slab().caches[foo].cpu[CpuId(0)].entry, [x]);
    let bad = check_machine(rec.machine());
    assert!(bad[0].starts_with("known damage: "), "{bad:?}");
    assert!(bad
        .iter()
        .any(|l| l.contains("holds") && l.contains("of another cache")));
    assert_eq!(slab_alloc_node(&mut rec, foo, CpuId(0), None), x);
}

#[test]
fn hardening_redirects_a_free_to_the_wrong_cache() {
    let switches = BootOptions {
        freelist_hardened: true,
        ..BootOptions::default()
    };
    let mut rec = boot_with(1, 1, 16384, &switches, 0);
    let foo =
        kmem_cache_create(&mut rec, "foo", 64, 0, Default::default(), false, &switches).unwrap();
    let x = kmalloc(&mut rec, 128, CpuId(0), None);
    let from = rec.steps().len();
    assert_eq!(kfree(&mut rec, x, CpuId(0), Some(foo)), FreeOutcome::Freed);
    assert_eq!(rec.steps()[from].caption.key, "step.wrong_cache");
    assert!(rec.machine().slab().caches[foo].cpu[CpuId(0)]
        .entry
        .is_empty());
    assert!(check_machine(rec.machine()).is_empty());
}

#[test]
fn free_block_returns_another_caches_object_to_its_own_slab_and_records_it() {
    // The named cache's array fills and flushes its oldest batch, the foreign object first:
    // free_block() is where the simulator stops following the kernel.
    let mut rec = boot(1, 1);
    let foo = cache(&mut rec, "foo", 64);
    let x = kmalloc(&mut rec, 128, CpuId(0), None);
    let limit = rec.machine().slab().caches[foo].cpu[CpuId(0)].limit as usize;
    let mine: Vec<u64> = (0..limit)
        .map(|_| slab_alloc_node(&mut rec, foo, CpuId(0), None))
        .collect();
    kfree(&mut rec, x, CpuId(0), Some(foo));
    for &o in &mine {
        kfree(&mut rec, o, CpuId(0), None);
    }
    let m = rec.machine();
    assert!(!m.slab().caches[foo].cpu[CpuId(0)].entry.contains(&x));
    assert!(m.damage.iter().any(|d| matches!(
        d,
        Damage::ForeignObjectFreed { cache, addr, .. } if (*cache, *addr) == (foo, x)
    )));
    // The simulator's own books balance: only the damage is reported.
    consistent(&rec);
    assert!(check_machine(rec.machine())
        .iter()
        .all(|l| l.starts_with("known damage: ")));
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
    Reap {
        cpu: u32,
    },
    Shrink {
        cpu: u32,
        cache: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Alloc { cpu, cache }),
        5 => (0u32..3, any::<usize>(), prop::option::of(0usize..3)).prop_map(|(cpu, pick, named)| Op::Free { cpu, pick, named }),
        1 => (0u32..3).prop_map(|cpu| Op::Reap { cpu }),
        1 => (0u32..3, 0usize..3).prop_map(|(cpu, cache)| Op::Shrink { cpu, cache }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Frees that name a random cache, unchecked, among ordinary operations: nothing panics,
    /// the checker finds nothing until known damage is recorded and reports it from then on,
    /// and snapshots replay to the live state.
    #[test]
    fn unchecked_wrong_cache_frees_never_panic(
        cpus in 1u32..=3,
        nodes in 1u32..=2,
        sizes in prop::array::uniform3(prop_oneof![16u32..300, 300u32..3000]),
        ops in prop::collection::vec(op(), 1..300),
    ) {
        let nodes = nodes.min(cpus);
        let mut rec = boot_with(cpus, nodes, 2048, &BootOptions::default(), 0);
        let ids: Vec<CacheId> = sizes.iter().enumerate().map(|(i, &s)| cache(&mut rec, &format!("c{i}"), s)).collect();
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
                        prop_assert_eq!(kfree(&mut rec, obj, CpuId::new(cpu % cpus), named), FreeOutcome::Freed);
                    }
                }
                Op::Reap { cpu } => cache_reap(&mut rec, Some(CpuId::new(cpu % cpus))),
                Op::Shrink { cpu, cache } => {
                    kmem_cache_shrink(&mut rec, ids[cache], CpuId::new(cpu % cpus));
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
