//! `/sys/kernel/slab/`: each attribute of scenarios worked out by hand, and the counts against
//! the slabs after every step of a two-node workload.

use slabscope_run::run;
use slabscope_scenario::parse;
use slabscope_sim::machine::Machine;
use slabscope_sim::sysfs::*;

fn machine(text: &str) -> Machine {
    let s = parse(text).expect("the scenario parses");
    run(&s, true).expect("the scenario runs").machine().clone()
}

/// Two nodes, two CPUs on each. `foo` has 16 objects of 256 bytes in an order-0 slab, a
/// cpu_partial of 52 objects and a min_partial of 5; `bar` merges into it (kmalloc caches
/// would not: they are `SLAB_NO_MERGE` in v6.6 with memcg).
///
/// cpu0 fills S0 and S1 and takes 8 from S2 (its cpu slab); cpu2 fills T0 and takes 4
/// from T1 (its cpu slab), both on node 1. Four remote frees from S0 on cpu1 freeze S0
/// onto cpu1's partial stack; one from S1 on cpu0 puts S1 on cpu0's stack (under its cpu
/// slab); one from T0 on cpu3 puts T0 on cpu3's stack and a second one lands in it. The
/// flushes move S0 (12 in use) to node 0's partial list and T1 (4 in use) to node 1's.
const TWO_NODES: &str = "slabscope-scenario 1
machine cpus=4 nodes=2 memory=1M cpu_node=0,0,1,1
pcp batch=7 high=28
cache foo size=256
cache bar size=256
repeat 40 a[] = kmem_cache_alloc(foo) on cpu0
repeat 20 b[] = kmem_cache_alloc(bar) on cpu2
kmem_cache_free(foo, a[0]) on cpu1
kmem_cache_free(foo, a[1]) on cpu1
kmem_cache_free(foo, a[2]) on cpu1
kmem_cache_free(foo, a[3]) on cpu1
kmem_cache_free(bar, a[16]) on cpu0
kmem_cache_free(bar, b[0]) on cpu3
kmem_cache_free(foo, b[1]) on cpu0
flush_cpu_slab(foo) on cpu1
flush_cpu_slab(bar) on cpu2
";

#[test]
fn a_two_node_cache_reads_as_worked_out_by_hand() {
    let m = machine(TWO_NODES);
    let dir = sysfs_dir(&m, "foo").unwrap();
    let expected = [
        ("aliases", "1\n"),
        ("align", "8\n"),
        ("cache_dma", "0\n"),
        ("cpu_partial", "52\n"),
        // cpu0: its cpu slab and a stack of one. cpu3 has a stack but no cpu slab, and
        // show_slab_objects() skips such a CPU whole.
        ("cpu_slabs", "2 N0=2\n"),
        ("destroy_by_rcu", "0\n"),
        ("hwcache_align", "0\n"),
        ("min_partial", "5\n"),
        ("object_size", "256\n"),
        // All 80 but the free objects of node-partial slabs: 4 of S0, 12 of T1.
        ("objects", "64 N0=44 N1=20\n"),
        ("objects_partial", "16 N0=12 N1=4\n"),
        ("objs_per_slab", "16\n"),
        ("order", "0\n"),
        ("partial", "2 N0=1 N1=1\n"),
        ("poison", "0\n"),
        ("reclaim_account", "0\n"),
        ("red_zone", "0\n"),
        // kmem_cache_open(): 1000, shown in tenths.
        ("remote_node_defrag_ratio", "100\n"),
        ("sanity_checks", "0\n"),
        ("slab_size", "256\n"),
        ("slabs", "5 N0=3 N1=2\n"),
        // One slab on cpu0's stack and one on cpu3's, each estimated at 16 / 2 objects.
        ("slabs_cpu_partial", "16(2) C0=8(1) C3=8(1)\n"),
        ("store_user", "0\n"),
        ("total_objects", "80 N0=48 N1=32\n"),
        ("trace", "0\n"),
        ("usersize", "0\n"),
    ];
    let got: Vec<(&str, &str)> = dir.iter().map(|(a, v)| (*a, v.as_str())).collect();
    assert_eq!(got, expected);
    // The merged name is a symlink to the same directory.
    assert_eq!(sysfs_dir(&m, "bar").unwrap(), dir);
    for (attr, value) in &dir {
        assert_eq!(&sysfs_attribute(&m, "foo", attr).unwrap(), value);
    }
}

/// One node, two CPUs; `foo` (100 bytes in 104-byte slots) has 39 objects a slab, an odd
/// number, so the half-full estimate rounds down. cpu0 fills the first slab and starts a
/// second; cpu1's free from the full first slab puts it on cpu1's partial stack.
#[test]
fn one_node_still_prints_n0_and_the_estimate_rounds_down() {
    let m = machine(
        "slabscope-scenario 1
machine cpus=2 nodes=1 memory=1M
cache foo size=100
repeat 40 x[] = kmem_cache_alloc(foo) on cpu0
kmem_cache_free(foo, x[0]) on cpu1
",
    );
    let read = |attr| sysfs_attribute(&m, "foo", attr).unwrap();
    assert_eq!(read("objs_per_slab"), "39\n");
    assert_eq!(read("slab_size"), "104\n");
    assert_eq!(read("object_size"), "100\n");
    assert_eq!(read("align"), "8\n");
    assert_eq!(read("cpu_partial"), "120\n");
    assert_eq!(read("aliases"), "0\n");
    assert_eq!(read("slabs"), "2 N0=2\n");
    assert_eq!(read("total_objects"), "78 N0=78\n");
    // Nothing is on the node partial list, so every object counts as in use.
    assert_eq!(read("objects"), "78 N0=78\n");
    // A zero count has no node suffix.
    assert_eq!(read("partial"), "0\n");
    assert_eq!(read("objects_partial"), "0\n");
    assert_eq!(read("cpu_slabs"), "1 N0=1\n");
    assert_eq!(read("slabs_cpu_partial"), "19(1) C1=19(1)\n");
}

#[test]
fn unknown_names_are_errors_worded_for_a_person() {
    let m = machine(
        "slabscope-scenario 1
machine cpus=1 nodes=1 memory=1M
cache gone size=3000
kmem_cache_destroy(gone)
",
    );
    let e = sysfs_attribute(&m, "kmalloc-100", "slabs").unwrap_err();
    assert_eq!(
        e,
        SysfsError::UnknownCache {
            name: "kmalloc-100".into(),
            destroyed: false
        }
    );
    assert!(e.to_string().contains("no cache named kmalloc-100"), "{e}");
    let e = sysfs_dir(&m, "gone").unwrap_err();
    assert!(matches!(
        e,
        SysfsError::UnknownCache {
            destroyed: true,
            ..
        }
    ));
    assert!(e.to_string().contains("gone was destroyed"), "{e}");
    let e = sysfs_attribute(&m, "kmalloc-64", "slab").unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("/sys/kernel/slab/kmalloc-64/slab is not"),
        "{text}"
    );
    for name in attribute_names(slabscope_sim::geometry::SlubVersion::V6_6) {
        assert!(text.contains(name), "{name} missing from: {text}");
    }
}

#[test]
fn the_directory_lists_every_attribute_once_in_byte_order() {
    let names: Vec<&str> = attribute_names(slabscope_sim::geometry::SlubVersion::V6_6).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), 26);
}

/// The flag files print one bit of `s->flags` each. The kmalloc caches' values are those a
/// Debian 6.12 kernel shows for them (its show functions are 6.6's): dma-kmalloc-* have
/// cache_dma 1, kmalloc-rcl-* reclaim_account 1, every kmalloc cache a usersize of its
/// object size and, under SLUB, hwcache_align 0.
#[test]
fn flag_files_read_the_cache_flags() {
    let m = machine(
        "slabscope-scenario 2
machine cpus=1 nodes=1 memory=1M
slub_debug ZU
cache r size=100 flags=hwcache_align,reclaim_account,typesafe_by_rcu
cache d size=64 flags=cache_dma usersize=16 useroffset=8
",
    );
    let read = |cache, attr| sysfs_attribute(&m, cache, attr).unwrap();
    let flags = |cache| {
        [
            "cache_dma",
            "destroy_by_rcu",
            "hwcache_align",
            "poison",
            "reclaim_account",
            "red_zone",
            "sanity_checks",
            "store_user",
            "usersize",
        ]
        .map(|a| read(cache, a).trim_end().to_string())
        .join(" ")
    };
    // slub_debug=ZU reaches every cache's flags (kmem_cache_flags()). `trace` and
    // `remote_node_defrag_ratio` read constants (no scenario sets SLAB_TRACE or the ratio).
    assert_eq!(flags("r"), "0 1 1 0 1 1 0 1 0");
    assert_eq!(flags("d"), "1 0 0 0 0 1 0 1 16");
    assert_eq!(flags("dma-kmalloc-64"), "1 0 0 0 0 1 0 1 64");
    assert_eq!(flags("kmalloc-rcl-64"), "0 0 0 0 1 1 0 1 64");
    assert_eq!(flags("kmalloc-cg-96"), "0 0 0 0 0 1 0 1 96");
}

/// `sysfs_slab_add()`: a cache another may merge into gets a directory named by
/// `create_unique_id()` and a symlink by its name. `anon_vma_chain -> :A-0000064` and
/// `buffer_head -> :a-0000104` are what a Debian 6.12 kernel lists for those two caches
/// (`SLAB_ACCOUNT`, and `SLAB_RECLAIM_ACCOUNT` with 104-byte slots).
#[test]
fn the_slab_directory_lists_unique_ids_and_symlinks() {
    let text = "slabscope-scenario 2
machine cpus=1 nodes=1 memory=1M
cache anon_vma_chain size=64 flags=account
cache buffer_head size=104 flags=reclaim_account
cache foo size=256
cache bar size=256
cache withctor size=256 ctor
cache dmacache size=200 flags=cache_dma
cache both size=300 flags=account,reclaim_account
cache copy size=512 usersize=64
";
    let m = machine(text);
    let entries = sysfs_slab_dir(&m).unwrap();
    let listing = sysfs_slab_dir_text(&entries);
    let ours: Vec<&str> = listing
        .lines()
        .filter(|l| !l.contains("kmalloc-"))
        .collect();
    assert_eq!(
        ours,
        [
            ":0000256/",
            ":A-0000064/",
            ":a-0000104/",
            ":aA-0000304/",
            ":d-0000200/",
            "anon_vma_chain -> :A-0000064",
            "bar -> :0000256",
            "both -> :aA-0000304",
            "buffer_head -> :a-0000104",
            "copy/",
            "dmacache -> :d-0000200",
            "foo -> :0000256",
            "withctor/",
        ]
    );
    // Every kmalloc cache has a usercopy region, so a directory of its own name.
    assert_eq!(
        listing.lines().filter(|l| l.contains("kmalloc-")).count(),
        52
    );
    assert!(listing.contains("\nkmalloc-cg-64/\n"), "{listing}");
    assert!(listing.contains("\ndma-kmalloc-8k/\n"), "{listing}");
    // The unique id leads to the same directory as the names.
    assert_eq!(
        sysfs_dir(&m, ":0000256").unwrap(),
        sysfs_dir(&m, "bar").unwrap()
    );
    assert_eq!(sysfs_attribute(&m, ":A-0000064", "aliases").unwrap(), "0\n");
    // slab_nomerge makes every cache unmergeable: plain names only.
    let m = machine(&text.replace("cache anon", "switch slab_nomerge on\ncache anon"));
    let entries = sysfs_slab_dir(&m).unwrap();
    assert!(entries.iter().all(|e| e.target.is_none()));
    assert!(entries.iter().any(|e| e.name == "bar"));
    assert!(sysfs_dir(&m, ":0000256").is_err());
}

/// `total N<a>=<x> ...`, written from per-node counts the way the tests expect it.
fn per_node(nodes: &[u64]) -> String {
    let mut s = nodes.iter().sum::<u64>().to_string();
    for (n, c) in nodes.iter().enumerate() {
        if *c != 0 {
            s += &format!(" N{n}={c}");
        }
    }
    s + "\n"
}

/// The counts recomputed from the slabs themselves rather than from the counters and
/// lists the show functions read. In v6.6 without debugging, a slab that is not frozen
/// is on its node's partial list exactly when it has a free object; a frozen slab is a
/// cpu slab or on a per-CPU partial stack, whose depth is found by walking `next`.
fn check_against_the_slabs(m: &Machine) {
    let nodes = m.config.nodes as usize;
    for s in m.slub().caches.iter().filter(|s| !s.destroyed) {
        let mut slabs = vec![0; nodes];
        let mut total = vec![0; nodes];
        let mut objects = vec![0; nodes];
        let mut partial = vec![0; nodes];
        let mut objects_partial = vec![0; nodes];
        for slab in m.slub().slabs.values().filter(|sl| sl.cache == s.id) {
            let n = slab.node.index();
            let (all, inuse) = (u64::from(slab.objects), u64::from(slab.inuse));
            slabs[n] += 1;
            total[n] += all;
            if !slab.frozen && inuse < all {
                partial[n] += 1;
                objects_partial[n] += inuse;
                objects[n] += inuse;
            } else {
                objects[n] += all;
            }
        }
        let mut cpu_slabs = vec![0; nodes];
        let mut stacks = Vec::new();
        for (cpu, c) in s.cpu.iter().enumerate() {
            let mut depth = 0u64;
            let mut next = c.partial;
            while let Some(pfn) = next {
                assert!(m.slub().slabs[&pfn].frozen, "{}: cpu{cpu} partial", s.name);
                depth += 1;
                next = m.slub().slabs[&pfn].next;
            }
            if depth > 0 {
                stacks.push((cpu, depth));
            }
            if let Some(pfn) = c.slab {
                cpu_slabs[m.slub().slabs[&pfn].node.index()] += 1;
                if let Some(top) = c.partial {
                    cpu_slabs[m.slub().slabs[&top].node.index()] += depth;
                }
            }
        }
        let half = u64::from(s.geometry.objs_per_slab);
        let all: u64 = stacks.iter().map(|(_, d)| d).sum();
        let mut scp = format!("{}({all})", all * half / 2);
        for (cpu, d) in &stacks {
            scp += &format!(" C{cpu}={}({d})", d * half / 2);
        }
        scp.push('\n');
        let read = |attr| sysfs_attribute(m, &s.name, attr).unwrap();
        let name = &s.name;
        assert_eq!(read("slabs"), per_node(&slabs), "{name} slabs");
        assert_eq!(read("total_objects"), per_node(&total), "{name} total");
        assert_eq!(read("objects"), per_node(&objects), "{name} objects");
        assert_eq!(read("partial"), per_node(&partial), "{name} partial");
        assert_eq!(
            read("objects_partial"),
            per_node(&objects_partial),
            "{name} objects_partial"
        );
        assert_eq!(read("cpu_slabs"), per_node(&cpu_slabs), "{name} cpu_slabs");
        assert_eq!(read("slabs_cpu_partial"), scp, "{name} slabs_cpu_partial");
        assert_eq!(read("aliases"), format!("{}\n", s.aliases.len()));
    }
}

#[test]
fn counts_match_the_slabs_after_every_step_of_a_two_node_workload() {
    let s = parse(
        "slabscope-scenario 1
machine cpus=4 nodes=2 memory=2M cpu_node=0,0,1,1
pcp batch=7 high=28
cache foo size=100
cache bar size=256
cache baz size=256
repeat 120 a[] = kmalloc(256) on cpu0
repeat 70 b[] = kmalloc_node(256, 1) on cpu1
repeat 90 c[] = kmem_cache_alloc(foo) on cpu2
repeat 60 d[] = kmem_cache_alloc(baz) on cpu3
kfree_bulk(a[0..60]) on cpu2
kfree_bulk(b[10..40]) on cpu3
for x in c: kmem_cache_free(foo, x) on cpu0
kmem_cache_free_bulk(bar, d[5..50]) on cpu1
flush_cpu_slab(kmalloc-256) on cpu1
repeat 30 e[] = kmalloc(256) on cpu3
kfree_bulk(a[60..120]) on cpu3
repeat 40 f[] = kmem_cache_alloc_node(foo, 0) on cpu3
kfree_bulk(e) on cpu0
for x in f: kmem_cache_free(foo, x) on cpu1
kmem_cache_shrink(kmalloc-256) on cpu0
flush_all(foo)
",
    )
    .unwrap();
    let rec = run(&s, true).unwrap();
    let (mut remote_stack, mut stack_without_cpu_slab, mut both_partial) = (0, 0, 0);
    for cursor in 0..=rec.cursor() {
        let m = rec.snapshot_at(cursor).unwrap();
        check_against_the_slabs(&m);
        let read = |attr| sysfs_attribute(&m, "kmalloc-256", attr).unwrap_or_default();
        remote_stack += usize::from(read("slabs_cpu_partial").contains(" C3="));
        both_partial +=
            usize::from(read("partial").contains(" N0=") && read("partial").contains(" N1="));
        stack_without_cpu_slab += m
            .slub()
            .caches
            .iter()
            .flat_map(|s| &s.cpu)
            .filter(|c| c.partial.is_some() && c.slab.is_none())
            .count();
    }
    // The workload reaches the states the checks are about.
    assert!(remote_stack > 0, "no per-CPU partial stack on a node 1 CPU");
    assert!(both_partial > 0, "never partial slabs on both nodes");
    assert!(
        stack_without_cpu_slab > 0,
        "never a partial stack without a cpu slab"
    );
    assert!(rec.cursor() > 100, "{} steps", rec.cursor());
    let end = rec.machine();
    assert_eq!(sysfs_attribute(end, "bar", "aliases").unwrap(), "1\n");
    assert_eq!(
        sysfs_dir(end, "baz").unwrap(),
        sysfs_dir(end, "bar").unwrap()
    );
    assert!(sysfs_attribute(end, "kmalloc-256", "slabs")
        .unwrap()
        .contains(" N1="));
}
