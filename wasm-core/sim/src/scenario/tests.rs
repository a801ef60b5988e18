//! Scenario parser and runner tests.

use super::*;
use crate::buddyinfo::buddyinfo;
use crate::machine::check::check_page_allocator;

const HEADER: &str = "slabscope-scenario 1\nmachine cpus=2 nodes=1 memory=64K\n";

fn err(text: &str) -> ParseError {
    parse(text).expect_err("should not parse")
}

#[test]
fn a_full_scenario_parses() {
    let s = parse(
        "slabscope-scenario 1
# a comment line
profile linux-6.6
allocator slub
machine cpus=4 nodes=2 page_size=4096 memory=16M cpu_node=0,0,1,1
pcp batch=7 high=28
switch freelist_random on
switch freelist_hardened
slub_debug FZ
boot slub_min_objects=8 slub_max_order=2
seed 0x2a
cache foo size=100 align=8 flags=hwcache_align ctor
a = kmalloc(64) on cpu0          # trailing comment
b = kmalloc_node(200, 1) on cpu3
repeat 10 t[] = kmem_cache_alloc(foo) on cpu1
objs = kmem_cache_alloc_bulk(foo, 16) on cpu0
kmem_cache_free_bulk(foo, objs) on cpu2
for x in t: kmem_cache_free(foo, x) on cpu1
kfree(a) on cpu1
kfree_bulk(t[2..5]) on cpu0
p = alloc_pages_node(1, 3) on cpu0
free_pages(p) on cpu2
drain_pages() on cpu0
flush_all(foo)
kmem_cache_destroy(foo)
",
    )
    .unwrap();
    assert_eq!(s.machine.cpus, 4);
    assert_eq!(s.machine.cpu_node, [0, 0, 1, 1]);
    assert_eq!(s.machine.pages_per_node, 4096);
    assert_eq!(s.machine.pcp_batch, Some(7));
    assert_eq!(s.seed, 42);
    assert!(s.switches.freelist_random && s.switches.freelist_hardened);
    assert!(s.switches.slub_debug.consistency_checks && s.switches.slub_debug.red_zone);
    assert_eq!(s.switches.slub_max_order, Some(2));
    assert_eq!(s.caches[0].size, 100);
    assert!(s.caches[0].ctor && s.caches[0].flags.hwcache_align);
    assert_eq!(s.ops.len(), 13);
    assert_eq!(s.ops[2].repeat, 10);
    assert_eq!(s.ops[2].target, Some(Target::Append("t".into())));
    assert_eq!(s.ops[4].for_each, None);
    assert_eq!(s.ops[5].for_each, Some(("x".into(), "t".into())));
    assert_eq!(
        s.ops[7].op,
        Op::KfreeBulk {
            objs: Ref::Slice {
                name: "t".into(),
                start: 2,
                end: 5
            }
        }
    );
    assert_eq!(
        s.ops[8].op,
        Op::AllocPages {
            order: 3,
            node: Some(1)
        }
    );
    assert_eq!(s.ops[11].cpu, None);
}

#[test]
fn mistakes_have_line_column_and_hint() {
    let e = err("slabscope-scenario 2\n");
    assert_eq!((e.line, e.key), (1, "scenario.version"));
    let e = err("hello\n");
    assert_eq!(e.key, "scenario.no_magic");
    assert!(e.hint.unwrap().contains("slabscope-scenario 1"));

    let e = err(&format!("{HEADER}a = kmaloc(64) on cpu0\n"));
    assert_eq!(
        (e.line, e.column, e.key),
        (3, 5, "scenario.unknown_operation_did_you_mean")
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean kmalloc?"));

    let e = err(&format!("{HEADER}a = kmalloc(64) on cpu7\n"));
    assert_eq!((e.line, e.column, e.key), (3, 20, "scenario.cpu"));
    assert!(e.hint.unwrap().contains("cpu0 to cpu1"));

    let e = err(&format!("{HEADER}a = kmalloc(64)\n"));
    assert_eq!((e.key, e.column), ("scenario.no_cpu", 16));

    let e = err(&format!("{HEADER}a = kmalloc_node(64, 1) on cpu0\n"));
    assert_eq!((e.key, e.column), ("scenario.node", 22));
    let e = err(&format!("{HEADER}p = alloc_pages_node(2, 0) on cpu0\n"));
    assert_eq!((e.key, e.column), ("scenario.node", 22));
    let e = err(&format!("{HEADER}a = kmalloc_node(64 1) on cpu0\n"));
    assert_eq!(e.key, "scenario.expected_symbol");

    let e = err(&format!("{HEADER}kfree(b) on cpu0\n"));
    assert_eq!((e.line, e.column, e.key), (3, 7, "scenario.unknown_name"));

    let e = err(&format!("{HEADER}kmem_cache_alloc(fo) on cpu0\n"));
    assert_eq!(e.key, "scenario.unknown_cache");

    let e = err("slabscope-scenario 1\nswitch freelist_randon on\nmachine cpus=1\n");
    assert_eq!(e.hint.as_deref(), Some("did you mean freelist_random?"));

    let e = err("slabscope-scenario 1\na = kmalloc(64) on cpu0\n");
    assert_eq!(e.key, "scenario.op_before_machine");

    let e = err("slabscope-scenario 1\nmachine cpus=2 memory=5000\n");
    assert_eq!(e.key, "scenario.memory");

    let e = err("slabscope-scenario 1\nmachine cpus=99\n");
    assert_eq!(e.key, "scenario.too_big");

    let e = err(&format!("{HEADER}repeat 3 a = kmalloc(8) on cpu0\n"));
    assert_eq!(e.key, "scenario.repeat_name");

    let e = err(&format!("{HEADER}a = kmalloc(8) on cpu0 extra\n"));
    assert_eq!((e.key, e.column), ("scenario.trailing", 24));

    let e = err(&format!("{HEADER}a = kmalloc(12x) on cpu0\n"));
    assert_eq!(e.key, "scenario.bad_number");

    let e = err(&format!("{HEADER}<script>\n"));
    assert_eq!((e.key, e.column), ("scenario.bad_character", 1));

    let e = err("slabscope-scenario 1\n");
    assert_eq!(e.key, "scenario.missing_machine");
    assert!(err("").key == "scenario.empty");
    let big = "x".repeat(MAX_TEXT + 1);
    assert_eq!(err(&big).key, "scenario.too_large");
}

#[test]
fn messages_read_well() {
    let e = err(&format!("{HEADER}a = kmalloc(64) on cpu9\n"));
    assert_eq!(
        e.to_string(),
        "line 3, column 20: cpu9 does not exist: the machine has 2 CPUs\n  hint: use cpu0 to cpu1"
    );
}

#[test]
fn page_scenarios_run_and_end_where_they_began() {
    let s = parse(&format!(
        "{HEADER}pcp batch=3 high=12
repeat 5 p[] = alloc_pages(0) on cpu0
q = alloc_pages(2) on cpu1
for x in p: free_pages(x) on cpu1
free_pages(q) on cpu0
drain_pages() on cpu0
drain_pages() on cpu1
"
    ))
    .unwrap();
    let booted = buddyinfo(&crate::machine::Machine::new(s.machine.clone()).unwrap());
    let rec = run(&s, true).unwrap();
    assert_eq!(buddyinfo(rec.machine()), booted);
    for cursor in 0..=rec.cursor() {
        assert!(check_page_allocator(&rec.snapshot_at(cursor).unwrap()).is_empty());
    }
}

#[test]
fn bad_operations_become_diagnostic_steps() {
    let s = parse(&format!(
        "{HEADER}p = alloc_pages(0) on cpu0
free_pages(p) on cpu0
free_pages(p) on cpu1
big = alloc_pages(12) on cpu0
free_pages(big) on cpu0
o = kmalloc(64) on cpu0
free_pages(o) on cpu0
kfree(o) on cpu0
"
    ))
    .unwrap();
    let rec = run(&s, true).unwrap();
    let keys: Vec<&str> = rec.steps().iter().map(|s| s.caption.key).collect();
    assert!(keys.contains(&"step.bad_page"), "{keys:?}");
    assert!(keys.contains(&"step.bad_order"));
    assert!(keys.contains(&"step.free_null"));
    // free_pages() of a slab object's page is refused ("Bad page state"): the slab survives
    // and the object is still freed normally afterwards.
    assert_eq!(keys.iter().filter(|k| **k == "step.bad_page").count(), 2);
    assert_eq!(rec.steps().last().unwrap().function, "do_slab_free");
    assert!((rec.machine().live_objects == 0));
    assert!(crate::slub::check::check_slub(rec.machine()).is_empty());
}

#[test]
fn operations_of_the_other_allocator_are_refused_with_a_reason() {
    // cache_reap is SLAB's timer; flush_all is SLUB's.
    let s = parse(&format!("{HEADER}cache_reap()\n")).unwrap();
    let Err(e) = run(&s, true) else {
        panic!("cache_reap ran under SLUB")
    };
    assert!(matches!(
        e,
        RunError::WrongAllocator {
            what: "cache_reap",
            ..
        }
    ));
    assert!(e.to_string().contains("allocator slab"), "{e}");
    let s = parse(&format!(
        "{HEADER}allocator slab\na = kmalloc(64) on cpu0\nflush_all(kmalloc-64)\n"
    ))
    .unwrap();
    let Err(e) = run(&s, true) else {
        panic!("flush_all ran under SLAB")
    };
    assert!(
        matches!(
            e,
            RunError::WrongAllocator {
                line: 5,
                what: "flush_all",
                ..
            }
        ),
        "{e:?}"
    );
    // Under SLAB the same kmalloc runs, and slub_debug caches run under SLUB.
    let s = parse(&format!(
        "{HEADER}allocator slab\na = kmalloc(64) on cpu0\n"
    ))
    .unwrap();
    assert_eq!(run(&s, true).unwrap().machine().live_objects, 1);
    let s = parse("slabscope-scenario 1\nslub_debug FZ\nmachine cpus=1\na = kmalloc(8) on cpu0\n")
        .unwrap();
    assert!(run(&s, true).is_ok());
}

#[test]
fn slub_scenarios_run_with_every_invariant() {
    let s = parse(
        "slabscope-scenario 1\nmachine cpus=2 nodes=1 memory=1M\ncache foo size=100
cache bar size=104
repeat 50 a[] = kmalloc(64) on cpu0
repeat 30 b[] = kmem_cache_alloc(foo) on cpu1
for x in a: kfree(x) on cpu1
for x in b: kmem_cache_free(bar, x) on cpu0
big = kmalloc(10000) on cpu0
kfree(big) on cpu1
z = kmalloc(0) on cpu0
kfree(z) on cpu0
t = kmem_cache_alloc_bulk(foo, 40) on cpu1
kmem_cache_free_bulk(foo, t[0..10]) on cpu0
repeat 3 u[] = kmalloc(5000) on cpu0
u[] = kmalloc(20000) on cpu1
kfree_bulk(u) on cpu1
kmem_cache_free_bulk(bar, t[10..40]) on cpu1
flush_all(foo)
kmem_cache_shrink(foo) on cpu0
kmem_cache_destroy(bar)
kmem_cache_destroy(foo)
x = kmem_cache_alloc(foo) on cpu0
",
    )
    .unwrap();
    let rec = run(&s, true).unwrap();
    for cursor in 0..=rec.cursor() {
        let m = rec.snapshot_at(cursor).unwrap();
        let mut bad = crate::slub::check::check_slub(&m);
        bad.extend(check_page_allocator(&m));
        assert!(bad.is_empty(), "step {cursor}: {bad:?}");
    }
    let left: Vec<(String, &str)> = rec
        .machine()
        .live()
        .map(|(a, c)| {
            (
                format!("{a:#x}"),
                rec.machine().caches[c as usize].name.as_str(),
            )
        })
        .collect();
    let refused: Vec<&str> = rec
        .steps()
        .iter()
        .map(|s| s.caption.key)
        .filter(|k| k.contains("invalid") || k.contains("double"))
        .collect();
    assert!(left.is_empty(), "{left:?} {refused:?}");
    // bar merged into foo: frees through either name are not "wrong cache".
    assert!(!rec
        .steps()
        .iter()
        .any(|s| s.caption.key == "step.wrong_cache"));
    let info = crate::slabinfo::slabinfo(rec.machine());
    assert!(!info.contains("\nfoo "), "destroyed: {info}");
    assert!(!info.contains("\nbar "), "aliases are never listed: {info}");
    assert_eq!(
        rec.steps().last().unwrap().caption.key,
        "step.use_destroyed_cache"
    );
}

#[test]
fn rcu_operations_parse_with_their_cpus_and_run_under_both_allocators() {
    let text = "cache sig size=200 flags=typesafe_by_rcu
a = kmalloc(64) on cpu0
b = kmalloc(64) on cpu1
kfree_rcu(a) on cpu0
kfree_rcu_mightsleep(b) on cpu1
kfree_rcu_monitor()
kfree_rcu_monitor() on cpu1
synchronize_rcu()
rcu_barrier()
";
    let s = parse(&format!("{HEADER}{text}")).unwrap();
    let ops: Vec<(&str, Option<u32>)> = s.ops.iter().map(|o| (o.op.name(), o.cpu)).collect();
    assert_eq!(
        ops[2..],
        [
            ("kfree_rcu", Some(0)),
            ("kfree_rcu_mightsleep", Some(1)),
            ("kfree_rcu_monitor", None),
            ("kfree_rcu_monitor", Some(1)),
            ("synchronize_rcu", None),
            ("rcu_barrier", None),
        ]
    );
    assert_eq!(
        s.ops[2].op,
        Op::KfreeRcu {
            obj: Ref::Name { name: "a".into() },
            mightsleep: false
        }
    );
    // A grace period belongs to no CPU: `on cpuN` is refused where it would mean nothing.
    let e = err(&format!("{HEADER}rcu_barrier() on cpu1\n"));
    assert_eq!(
        (e.key, e.line, e.column),
        ("scenario.cpu_not_wanted", 3, 15)
    );
    assert!(e.hint.is_some());
    for allocator in ["slub", "slab"] {
        let s = parse(&format!("{HEADER}allocator {allocator}\n{text}")).unwrap();
        let (rec, summary) = run_with_summary(&s, true).unwrap();
        assert_eq!(rec.machine().live_objects, 0, "{allocator}");
        assert_eq!(summary.ops["rcu_barrier"], 1);
        for cursor in 1..=rec.cursor() {
            let bad = crate::machine::check::check_machine(&rec.snapshot_at(cursor).unwrap());
            assert!(bad.is_empty(), "{allocator}, step {cursor}: {bad:?}");
        }
    }
}
