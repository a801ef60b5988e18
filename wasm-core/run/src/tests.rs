//! Scenario runner tests: scenarios parsed and run, their steps, lists, prints and checks.

use super::*;
use slabscope_scenario::*;
use slabscope_sim::buddyinfo::buddyinfo;
use slabscope_sim::machine::check::check_page_allocator;

const HEADER: &str = "slabscope-scenario 1\nmachine cpus=2 nodes=1 memory=64K\n";
/// The same machine in format 2, for gfp flags, call sites, the new cache flags and RCU.
const HEADER2: &str = "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=64K\n";

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
    assert_eq!(
        s.ops[5].for_each,
        Some((
            "x".into(),
            ListExpr::Ref {
                of: Ref::Name { name: "t".into() }
            }
        ))
    );
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
    let e = err("slabscope-scenario 4\n");
    assert_eq!((e.line, e.key), (1, "scenario.version"));
    assert_eq!(e.hint.as_deref(), Some("this build reads versions 1, 2, 3"));
    let e = err("hello\n");
    assert_eq!(e.key, "scenario.no_magic");
    assert!(e.hint.unwrap().contains("slabscope-scenario 3"));

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
    let booted = buddyinfo(
        &slabscope_sim::machine::Machine::new(translate::machine_config(&s.machine)).unwrap(),
    );
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
    assert!(slabscope_sim::slub::check::check_slub(rec.machine()).is_empty());
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
        let mut bad = slabscope_sim::slub::check::check_slub(&m);
        bad.extend(check_page_allocator(&m));
        assert!(bad.is_empty(), "step {cursor}: {bad:?}");
    }
    let left: Vec<(String, &str)> = rec
        .machine()
        .live()
        .map(|(a, c)| {
            (
                format!("{a:#x}"),
                rec.machine().slub().caches[c].name.as_str(),
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
    let info = slabscope_sim::slabinfo::slabinfo(rec.machine());
    assert!(!info.contains("\nfoo "), "destroyed: {info}");
    assert!(!info.contains("\nbar "), "aliases are never listed: {info}");
    assert_eq!(
        rec.steps().last().unwrap().caption.key,
        "step.use_destroyed_cache"
    );
}

const V2: &str = "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=1M\ncache foo size=256\n";

/// The addresses of the objects the run allocated and freed, in step order.
fn object_events(rec: &slabscope_sim::trace::Recorder) -> (Vec<u64>, Vec<u64>) {
    let (mut allocated, mut freed) = (Vec::new(), Vec::new());
    for step in rec.steps() {
        for e in step.events {
            match e {
                slabscope_sim::trace::Event::ObjectAllocated { addr, .. } => allocated.push(*addr),
                slabscope_sim::trace::Event::ObjectFreed { addr, .. } => freed.push(*addr),
                _ => {}
            }
        }
    }
    (allocated, freed)
}

#[test]
fn list_lines_interleave_reverse_and_gather_earlier_results() {
    let s = parse(&format!(
        "{V2}a = kmem_cache_alloc_bulk(foo, 4) on cpu0
repeat 3 b[] = kmem_cache_alloc(foo) on cpu0
one = kmem_cache_alloc(foo) on cpu0
l = interleave(a, b)
l[] = one
m = [b[2], a[0..2], one]
m[] = b[0..1]
m[] = b
e = []
e[] = one
for x in reverse(l): kmem_cache_free(foo, x) on cpu1
"
    ))
    .unwrap();
    assert_eq!(s.ops.len(), 4, "list lines are not operations");
    assert_eq!(s.statements.len(), 7);
    assert_eq!(s.statements[0].after_ops, 3);
    let rec = run(&s, true).unwrap();
    let (allocated, freed) = object_events(&rec);
    let (a, b, one) = (&allocated[..4], &allocated[4..7], allocated[7]);
    // interleave: a0 b0 a1 b1 a2 b2 a3, then one; freed last first.
    let mut l = vec![a[0], b[0], a[1], b[1], a[2], b[2], a[3], one];
    l.reverse();
    assert_eq!(freed, l);
    assert!(rec.machine().live_objects == 0);
}

#[test]
fn list_values_are_flat_and_copied() {
    use super::lists::eval_list;
    use std::collections::BTreeMap;
    let obj = |addr| Value::Object { addr };
    let names = BTreeMap::from([("one".to_string(), obj(9))]);
    let lists = BTreeMap::from([
        ("a".to_string(), vec![obj(1), obj(2), obj(3)]),
        ("b".to_string(), vec![obj(4)]),
    ]);
    let name = |n: &str| Ref::Name { name: n.into() };
    let mut budget = MAX_LIST_ELEMENTS;
    let mut eval = |e: ListExpr| eval_list(7, &e, &names, &lists, &mut budget, true).unwrap();
    let addrs = |v: Vec<Value>| -> Vec<u64> {
        v.into_iter()
            .map(|v| match v {
                Value::Object { addr } => addr,
                _ => 0,
            })
            .collect()
    };
    let items = ListExpr::Items {
        items: vec![
            name("b"),
            Ref::Slice {
                name: "a".into(),
                start: 1,
                end: 3,
            },
            name("one"),
            Ref::Index {
                name: "a".into(),
                index: 0,
            },
        ],
    };
    assert_eq!(addrs(eval(items)), [4, 2, 3, 9, 1]);
    let interleave = ListExpr::Interleave {
        lists: vec![name("b"), name("a")],
    };
    // A list that runs out drops out.
    assert_eq!(addrs(eval(interleave)), [4, 1, 2, 3]);
    assert_eq!(addrs(eval(ListExpr::Reverse { of: name("a") })), [3, 2, 1]);
    assert_eq!(budget, MAX_LIST_ELEMENTS - 5 - 4 - 3);
}

#[test]
fn list_lines_that_grow_without_end_stop_the_run() {
    let mut text = format!("{V2}repeat 1000 t[] = kmalloc(0) on cpu0\n");
    for _ in 0..12 {
        text.push_str("t = [t, t]\n");
    }
    let s = parse(&text).unwrap();
    let Err(e) = run(&s, false) else {
        panic!("2^12 copies of 1,000 elements were built")
    };
    // Copies of 2, 4, ... 1024 thousand elements: the tenth passes 2,000,000.
    assert_eq!(
        e,
        RunError::ListTooLong {
            line: 14,
            max: MAX_LIST_ELEMENTS
        }
    );
    assert_eq!(e.key_args().0, "run.list_too_long");
}

#[test]
fn prints_mark_the_cursor_and_add_no_step() {
    let body = "repeat 3 a[] = kmalloc(64) on cpu0
print slabinfo
for x in a: kfree(x) on cpu1
print sysfs kmalloc-64
print buddyinfo
";
    let with = parse(&format!("{V2}print slabinfo\n{body}")).unwrap();
    let without = parse(&format!(
        "{V2}\n{}",
        body.lines()
            .map(|l| if l.starts_with("print") { "" } else { l })
            .collect::<Vec<_>>()
            .join("\n")
    ))
    .unwrap();
    let (rec, summary) = run_with_summary(&with, true).unwrap();
    let (rec0, summary0) = run_with_summary(&without, true).unwrap();
    assert_eq!(rec.step_count(), rec0.step_count());
    assert_eq!(summary.op_ends, summary0.op_ends);
    assert_eq!(summary.op_lines, summary0.op_lines);
    let marks: Vec<(u32, usize, PrintFile)> = summary
        .prints
        .iter()
        .map(|p| (p.line, p.cursor, p.file.clone()))
        .collect();
    let sysfs = PrintFile::Sysfs {
        cache: "kmalloc-64".into(),
    };
    assert_eq!(
        marks,
        [
            (4, summary.ops_start, PrintFile::Slabinfo),
            (6, summary.op_ends[2], PrintFile::Slabinfo),
            (8, summary.op_ends[5], sysfs.clone()),
            (9, summary.op_ends[5], PrintFile::Buddyinfo),
        ]
    );
    // Read at its cursor: no kmalloc-64 slab at line 4; at line 6 one, its 64 objects all
    // counted active (the cpu slab's free objects count as in use, as in the kernel).
    let at = |i: usize| {
        let m = rec.snapshot_at(summary.prints[i].cursor).unwrap();
        print_text(&m, &summary.prints[i].file).unwrap()
    };
    let line = |text: String| {
        text.lines()
            .find(|l| l.starts_with("kmalloc-64 "))
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string()
    };
    assert_eq!(
        (line(at(0)), line(at(1))),
        ("0".to_string(), "64".to_string())
    );
    let sysfs_lines: Vec<String> = at(2).lines().map(str::to_string).collect();
    assert_eq!(
        sysfs_lines.len(),
        slabscope_sim::sysfs::attribute_names(slabscope_sim::geometry::SlubVersion::V6_6).count()
    );
    assert!(sysfs_lines
        .iter()
        .all(|l| l.starts_with("/sys/kernel/slab/kmalloc-64/")));
    assert_eq!(
        print_heading(&summary.prints[1]),
        format!("line 6: /proc/slabinfo after step {}", summary.op_ends[2])
    );
}

#[test]
fn every_step_names_its_line_and_operation() {
    let s = parse(&format!(
        "{V2}cache bar size=100
repeat 2 a[] = kmem_cache_alloc(foo) on cpu0
l = reverse(a)
for x in l: kmem_cache_free(foo, x) on cpu1
"
    ))
    .unwrap();
    let (rec, summary) = run_with_summary(&s, true).unwrap();
    let steps = rec.steps();
    // Boot, then one kmem_cache_create() per cache line.
    assert_eq!((steps[0].line, steps[0].op), (None, None));
    assert_eq!((steps[1].line, steps[1].op), (Some(3), None));
    assert_eq!((steps[2].line, steps[2].op), (Some(4), None));
    assert_eq!(summary.ops_start, 3);
    // Operation k runs the steps up to op_ends[k], from its line.
    let mut start = summary.ops_start;
    for (k, (&end, &line)) in summary.op_ends.iter().zip(&summary.op_lines).enumerate() {
        for step in &steps[start..end] {
            assert_eq!((step.line, step.op), (Some(line), Some(k as u32)));
        }
        start = end;
    }
    assert_eq!(summary.op_lines, [5, 5, 7, 7]);
    let text = slabscope_sim::trace::text::format_step(1, &steps[0]);
    assert!(text.starts_with("    1  create_kmalloc_caches [boot]  (boot)\n"));
    let text = slabscope_sim::trace::text::format_step(3, &steps[2]);
    assert!(
        text.lines().next().unwrap().ends_with("  (line 4)"),
        "{text}"
    );
    let last = steps.len() - 1;
    let text = slabscope_sim::trace::text::format_step(last + 1, &steps[last]);
    assert!(
        text.lines().next().unwrap().ends_with("  (line 7, op 4)"),
        "{text}"
    );
    let json = serde_json::to_value(&steps[last]).unwrap();
    assert_eq!(
        (json["line"].as_u64(), json["op"].as_u64()),
        (Some(7), Some(3))
    );
    assert!(serde_json::to_value(&steps[0]).unwrap()["op"].is_null());
}

#[test]
fn format_2_forms_in_a_format_1_file_name_the_first_line_they_need() {
    let v1 = "slabscope-scenario 1\nmachine cpus=2\nrepeat 2 a[] = kmalloc(8) on cpu0\n";
    for (line, column, what) in [
        ("print slabinfo", 1, "print"),
        ("l = reverse(a)", 5, "reverse(…)"),
        ("l = interleave(a, a)", 5, "interleave(…)"),
        ("l = [a[0], a[1]]", 5, "[…]"),
        ("l = a", 5, "l = a"),
        ("l[] = a[1]", 7, "l[] = a[1]"),
        ("for x in reverse(a): kfree(x) on cpu0", 10, "reverse(…)"),
        ("for x in a[0..1]: kfree(x) on cpu0", 10, "a[0..1]"),
        // gfp flags, call sites and kmalloc types' switch and cache options.
        (
            "b = kmalloc(64, GFP_KERNEL_ACCOUNT) on cpu0",
            17,
            "kmalloc(SIZE, GFP)",
        ),
        (
            "b = kmalloc(64, __GFP_RECLAIMABLE|__GFP_ZERO) on cpu0",
            17,
            "kmalloc(SIZE, GFP)",
        ),
        (
            "b = kmalloc_node(64, GFP_DMA, 0) on cpu0",
            22,
            "kmalloc(SIZE, GFP)",
        ),
        ("b = kmalloc(64) at site_a on cpu0", 17, "at SITE"),
        ("b = kmalloc_node(64, 0) on cpu0 at site_a", 33, "at SITE"),
        (
            "switch random_kmalloc_caches",
            8,
            "switch random_kmalloc_caches",
        ),
        (
            "switch random_kmalloc_caches off",
            8,
            "switch random_kmalloc_caches",
        ),
        ("cache c size=64 usersize=32", 17, "usersize="),
        ("cache c size=64 useroffset=0 usersize=8", 17, "useroffset="),
        (
            "cache c size=64 flags=hwcache_align,account",
            37,
            "flags=account",
        ),
        (
            "cache c size=64 flags=reclaim_account",
            23,
            "flags=reclaim_account",
        ),
        ("cache c size=64 flags=cache_dma", 23, "flags=cache_dma"),
        ("cache c size=64 flags=cache_dma32", 23, "flags=cache_dma32"),
        ("cache c size=64 flags=rcu,no_merge", 27, "flags=no_merge"),
        // The RCU operations.
        ("kfree_rcu(a[0]) on cpu0", 1, "kfree_rcu(…)"),
        (
            "kfree_rcu_mightsleep(a[1]) on cpu1",
            1,
            "kfree_rcu_mightsleep(…)",
        ),
        ("kfree_rcu_monitor()", 1, "kfree_rcu_monitor()"),
        (
            "repeat 2 kfree_rcu_monitor() on cpu1",
            10,
            "kfree_rcu_monitor()",
        ),
        ("synchronize_rcu()", 1, "synchronize_rcu()"),
        ("rcu_barrier()", 1, "rcu_barrier()"),
    ] {
        let e = err(&format!("{v1}{line}\n"));
        assert_eq!(
            (e.line, e.column, e.key),
            (4, column, "scenario.needs_version"),
            "{line}: {e}"
        );
        assert_eq!(e.args[0], ("what", what.to_string()), "{line}");
        assert!(e
            .hint
            .as_deref()
            .unwrap()
            .contains("`slabscope-scenario 2`"));
        // The same line in a format 2 file parses.
        parse(&format!(
            "{}{line}\n",
            v1.replace("scenario 1", "scenario 2")
        ))
        .unwrap();
    }
}

/// In a format 1 file, what is wrong in format 1 too is named before the version a form needs.
#[test]
fn format_1_files_keep_their_own_mistakes_and_forms() {
    let v1 = "slabscope-scenario 1\nmachine cpus=2\nrepeat 2 a[] = kmalloc(8) on cpu0\n";
    // A name is checked before the version: a wrong one is named as such.
    let e = err(&format!("{v1}l = reverse(b)\n"));
    assert_eq!(e.key, "scenario.unknown_name");
    // Format 1's own mistakes read as before.
    let e = err(&format!("{v1}b = kmaloc 8\n"));
    assert_eq!(e.key, "scenario.unknown_operation_did_you_mean");
    let e = err(&format!("{v1}for x in b: kfree(x) on cpu0\n"));
    assert_eq!(e.key, "scenario.unknown_list");
    let e = err(&format!("{v1}b = kmalloc(64, GFP_KERNEL_ACOUNT) on cpu0\n"));
    assert_eq!(e.key, "scenario.unknown_gfp_did_you_mean");
    let e = err(&format!("{v1}kfree_rcu(b) on cpu0\n"));
    assert_eq!(e.key, "scenario.unknown_name");
    // Format 1's own cache flags and kmalloc_node(size, node) stay format 1.
    parse(&format!(
        "{v1}cache c size=64 flags=hwcache_align,typesafe_by_rcu\ncache d size=8 flags=rcu\nb = kmalloc_node(64, 0) on cpu0\n"
    ))
    .unwrap();
    // `print` stays a name in both formats.
    parse(&format!(
        "{v1}print = kmalloc(8) on cpu0\nkfree(print) on cpu0\n"
    ))
    .unwrap();
}

#[test]
fn list_lines_and_prints_run_once_where_they_stand() {
    for (text, key) in [
        ("repeat 2 print slabinfo", "scenario.print_prefix"),
        ("for x in a: print buddyinfo", "scenario.print_prefix"),
        ("for x in a: l[] = x", "scenario.list_prefix"),
        ("repeat 2 l = reverse(a)", "scenario.list_prefix"),
        ("repeat 2 l[] = [a[0]]", "scenario.list_prefix"),
        ("print", "scenario.expected_print_file"),
        ("print meminfo", "scenario.unknown_print_file"),
        ("print sysfs fo", "scenario.unknown_cache_did_you_mean"),
        ("print slabinfo on cpu0", "scenario.trailing"),
        ("l = reverse(one)", "scenario.expected_list"),
        ("l = [a[0] a[1]]", "scenario.expected_symbol"),
        ("l = interleave(a b)", "scenario.expected_symbol"),
        ("l[] = a[0..1", "scenario.expected_symbol"),
        ("l = [a[0..]]", "scenario.expected_range_end"),
    ] {
        let e = err(&format!(
            "{V2}repeat 2 a[] = kmalloc(8) on cpu0\none = kmalloc(8) on cpu0\n{text}\n"
        ));
        assert_eq!((e.line, e.key), (6, key), "{text}: {e}");
    }
}

/// Format 2 reads every format 1 file as format 1 did: the same scenario, line for line.
#[test]
fn format_2_reads_format_1_files_the_same() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["docs/scenarios", "wasm-core/run/tests/golden"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "slab") {
                files.push(path);
            }
        }
    }
    let mut checked = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(rest) = text.strip_prefix("slabscope-scenario 1\n") else {
            continue;
        };
        let old = parse(&text).unwrap();
        let mut new = parse(&format!("slabscope-scenario 2\n{rest}")).unwrap();
        assert_eq!(new.version, 2);
        new.version = 1;
        assert_eq!(old, new, "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 20, "{checked} format 1 files");
}

#[test]
fn a_name_line_names_one_earlier_object() {
    let s = parse(&format!(
        "{V2}t = kmem_cache_alloc_bulk(foo, 3) on cpu0
victim = t[1]
same = victim
kmem_cache_free(foo, same) on cpu1
for x in [t[0], t[2]]: kmem_cache_free(foo, x) on cpu0
"
    ))
    .unwrap();
    assert_eq!(
        s.statements[0].statement,
        Statement::Name {
            name: "victim".into(),
            of: Ref::Index {
                name: "t".into(),
                index: 1
            }
        }
    );
    let rec = run(&s, true).unwrap();
    let (allocated, freed) = object_events(&rec);
    assert_eq!(freed, [allocated[1], allocated[0], allocated[2]]);
    // A name is one object: used where a list is expected, it is refused.
    let e = err(&format!(
        "{V2}a = kmalloc(8) on cpu0\nb = a\nkfree_bulk(b) on cpu0\n"
    ));
    assert_eq!((e.line, e.key), (6, "scenario.expected_list"));
}

#[test]
fn gfp_flags_and_call_sites_follow_the_kernels_argument_order() {
    use slabscope_scenario::gfp::{Gfp, GFP_KERNEL};
    let named = |name: &str| Gfp::from_name(name).expect("a gfp name");
    let s = parse(&format!(
        "{HEADER2}a = kmalloc(64, GFP_KERNEL_ACCOUNT) on cpu0
b = kmalloc(64, GFP_KERNEL | __GFP_RECLAIMABLE|__GFP_ZERO) at site_a on cpu1
c = kmalloc_node(64, GFP_DMA, 0) on cpu0 at s2
d = kmalloc_node(64, 0) on cpu0
e = kmalloc(8) on cpu0
"
    ))
    .unwrap();
    let kmalloc = |size, node, gfp, site: Option<&str>| Op::Kmalloc {
        size,
        node,
        gfp,
        site: site.map(str::to_string),
    };
    let ops: Vec<Op> = s.ops.iter().map(|o| o.op.clone()).collect();
    assert_eq!(
        ops,
        [
            kmalloc(64, None, named("GFP_KERNEL_ACCOUNT"), None),
            kmalloc(64, None, Gfp(GFP_KERNEL.0 | 0x10 | 0x100), Some("site_a")),
            kmalloc(64, Some(0), named("GFP_DMA"), Some("s2")),
            // The older kmalloc_node(size, node) keeps working, with GFP_KERNEL.
            kmalloc(64, Some(0), GFP_KERNEL, None),
            kmalloc(8, None, GFP_KERNEL, None),
        ]
    );
    assert_eq!(s.ops[1].cpu, Some(1));
    assert_eq!(s.ops[2].cpu, Some(0));
}

#[test]
fn cache_lines_take_the_merge_flags_and_a_usercopy_region() {
    let s = parse(&format!(
        "{HEADER2}cache a size=64 flags=account,reclaim_account,cache_dma,cache_dma32,no_merge
cache b size=128 usersize=64 useroffset=16
"
    ))
    .unwrap();
    let f = s.caches[0].flags;
    assert!(f.account && f.reclaim_account && f.cache_dma && f.cache_dma32 && f.no_merge);
    assert!(!f.hwcache_align);
    assert_eq!((s.caches[1].usersize, s.caches[1].useroffset), (64, 16));
    assert_eq!((s.caches[0].usersize, s.caches[0].useroffset), (0, 0));
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
    let s = parse(&format!("{HEADER2}{text}")).unwrap();
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
    let e = err(&format!("{HEADER2}rcu_barrier() on cpu1\n"));
    assert_eq!(
        (e.key, e.line, e.column),
        ("scenario.cpu_not_wanted", 3, 15)
    );
    assert!(e.hint.is_some());
    for allocator in ["slub", "slab"] {
        let s = parse(&format!("{HEADER2}allocator {allocator}\n{text}")).unwrap();
        let (rec, summary) = run_with_summary(&s, true).unwrap();
        assert_eq!(rec.machine().live_objects, 0, "{allocator}");
        assert_eq!(summary.ops["rcu_barrier"], 1);
        for cursor in 1..=rec.cursor() {
            let bad =
                slabscope_sim::machine::check::check_machine(&rec.snapshot_at(cursor).unwrap());
            assert!(bad.is_empty(), "{allocator}, step {cursor}: {bad:?}");
        }
    }
}

/// A sequential step's micro-steps, asked for: the scenario runs again and gives the
/// kernel's own points of that step, in order, each with the events applied by its end.
#[test]
fn a_sequential_step_opens_into_its_micro_steps() {
    let text = "slabscope-scenario 3\nmachine cpus=1 nodes=1 memory=1M\ncache t size=256\na = kmem_cache_alloc(t) on cpu0\nb = kmem_cache_alloc(t) on cpu0\n";
    let session = crate::session::Session::open(text).expect("runs");
    let rec = session.recorder();
    let last = rec.step_count() - 1;
    let step = rec.step(last).expect("a step");
    assert_eq!((step.function, step.path), ("slab_alloc_node", "fast path"));
    assert!(
        step.micro.is_empty(),
        "a sequential trace keeps no micro-steps"
    );
    let micro = session.micro_steps(last).expect("runs again");
    let keys: Vec<&str> = micro.iter().map(|m| m.caption.key).collect();
    assert_eq!(
        keys,
        [
            "micro.read_tid",
            "micro.read_cpu",
            "micro.get_freepointer",
            "micro.cmpxchg_cpu_ok"
        ]
    );
    assert_eq!(
        micro.last().expect("some").events_through as usize,
        step.events.len()
    );
    assert!(
        micro[..3].iter().all(|m| m.events_through == 0),
        "loads change nothing"
    );
    assert!(micro[0]
        .caption
        .args
        .iter()
        .any(|(n, v)| *n == "cache" && *v == slabscope_sim::trace::Shown::Text("t".into())));
}

/// A bulk allocation in a concurrent block names a list, as the same line does outside one:
/// even a list of one object, `xs = ...` replaces what `xs` named before, `xs[] = ...` adds to it.
#[test]
fn a_bulk_allocation_in_a_block_names_a_list_as_outside_one() {
    const V3: &str = "slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=1M\ncache foo size=256\n";
    for block in [false, true] {
        let (open, close, indent) = if block {
            ("concurrent\n", "end\n", "  ")
        } else {
            ("", "", "")
        };
        let s = parse(&format!(
            "{V3}xs = kmem_cache_alloc_bulk(foo, 2) on cpu0
{open}{indent}xs = kmem_cache_alloc_bulk(foo, 1) on cpu0
{indent}ys = kmem_cache_alloc_bulk(foo, 1) on cpu1
{indent}ys[] = kmem_cache_alloc_bulk(foo, 1) on cpu1
{close}kmem_cache_free_bulk(foo, xs) on cpu0
kmem_cache_free_bulk(foo, ys) on cpu1
"
        ))
        .unwrap();
        let rec = run(&s, true).unwrap();
        let (allocated, mut freed) = object_events(&rec);
        assert_eq!(allocated.len(), 5, "block: {block}");
        // The first two objects stay allocated; the three the second line and ys took are
        // freed (in whatever order the block ran them).
        freed.sort_unstable();
        let mut expected = allocated[2..].to_vec();
        expected.sort_unstable();
        assert_eq!(freed, expected, "block: {block}");
    }
}
