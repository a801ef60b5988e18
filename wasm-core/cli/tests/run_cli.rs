//! `slabscope run`: scenarios from files, the trace, /proc/buddyinfo, --check, and errors that
//! point at the line and column.

use std::process::{Command, Output};

fn slabscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slabscope"))
        .args(args)
        .output()
        .expect("slabscope runs")
}

/// Three slabs of 32 objects; the 16 free objects of the node-partial slab are the only ones
/// not counted as active (spec 2.11).
const EXPECTED_KMALLOC_128: &str = "kmalloc-128           80     96    128   32    1 : tunables    0    0    0 : slabdata      3      3      0";

fn scenario(name: &str) -> String {
    format!("{}/../../docs/scenarios/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("slabscope-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn the_documented_buddy_scenario_runs_clean_and_merges_back() {
    let file = scenario("buddy-split-merge.slab");
    let out = slabscope(&["run", &file, "--check", "--buddyinfo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // 64K of 4K pages is one order-4 block at boot, and again once everything is drained.
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Node 0, zone   Normal      0      0      0      0      1      0      0      0      0      0      0 \n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("every invariant held"));
}

#[test]
fn at_shows_an_earlier_state_and_the_trace_is_json() {
    let file = scenario("buddy-split-merge.slab");
    // Step 1 creates the kmalloc caches; step 2 is the first pcp refill, after which orders
    // 0, 2, 3 each hold one block (pfns 3, 4, 8).
    let out = slabscope(&["run", &file, "--at", "2", "--buddyinfo"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Node 0, zone   Normal      1      0      1      1      0      0      0      0      0      0      0 \n"
    );
    let out = slabscope(&["run", &file, "--trace", "json"]);
    let steps: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(steps[0]["function"], "create_kmalloc_caches");
    assert_eq!(steps[1]["function"], "rmqueue_bulk");
    assert_eq!(steps[1]["events"][0]["event"], "FreeBlockRemoved");
    let out = slabscope(&["run", &file, "--at", "999"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn parse_errors_name_file_line_and_column() {
    let file = temp(
        "bad.slab",
        "slabscope-scenario 1\nmachine cpus=2\np = alloc_pages(0) on cpu5\n",
    );
    let out = slabscope(&["run", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(":3:23: cpu5 does not exist"), "{err}");
    assert!(err.contains("hint: use cpu0 to cpu1"), "{err}");
    let out = slabscope(&["run", "/nonexistent/file.slab"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_slab_scenario_runs_checked_and_is_compared_with_slub() {
    let file = temp(
        "slab.slab",
        "slabscope-scenario 1\nallocator slab\nmachine cpus=2\nrepeat 20 a[] = kmalloc(64) on cpu0\nfor x in a: kfree(x) on cpu1\ncache_reap()\n",
    );
    let out = slabscope(&["run", &file, "--check", "--slabinfo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // SLAB's kmalloc-64: tunables 120 60 8 on a 2-CPU machine.
    assert!(text.contains(": tunables  120   60    8 :"), "{text}");
    let out = slabscope(&["run", &file, "--sysfs", "kmalloc-64"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists only under SLUB"));
    // compare ignores the allocator line and runs both; cache_reap is SLAB's, so SLUB refuses.
    let out = slabscope(&["compare", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cache_reap does not exist in SLUB"));
    let file = temp(
        "both.slab",
        "slabscope-scenario 1\nmachine cpus=2\nrepeat 20 a[] = kmalloc(64) on cpu0\nfor x in a: kfree(x) on cpu1\n",
    );
    let out = slabscope(&["compare", &file]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("list_lock acquisitions per node"), "{text}");
    assert!(text.contains("/proc/slabinfo under SLAB"), "{text}");
}

#[test]
fn a_slub_scenario_prints_slabinfo() {
    let file = scenario("slub-remote-free.slab");
    let out = slabscope(&["run", &file, "--check", "--slabinfo"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("slabinfo - version: 2.1\n"));
    let line = text
        .lines()
        .find(|l| l.starts_with("kmalloc-128 "))
        .unwrap();
    assert_eq!(line, EXPECTED_KMALLOC_128);
}

/// `/sys/kernel/slab/kmalloc-128/` of the remote-free scenario, worked out by hand: after step
/// 119 the slab of the 16 remote frees is still frozen on cpu1's partial stack (cpu1 has no
/// cpu slab, so `cpu_slabs` skips it and `objects` counts its free objects as in use); the
/// flush at step 120 moves it to node 0's partial list.
#[test]
fn sysfs_prints_every_attribute_at_a_step() {
    let file = scenario("slub-remote-free.slab");
    let expect = |changing: [&str; 5]| {
        let [cpu_slabs, objects, objects_partial, partial, slabs_cpu_partial] = changing;
        [
            "aliases: 0".to_string(),
            "align: 128".into(),
            "cache_dma: 0".into(),
            "cpu_partial: 120".into(),
            format!("cpu_slabs: {cpu_slabs}"),
            "destroy_by_rcu: 0".into(),
            "hwcache_align: 0".into(),
            "min_partial: 5".into(),
            "object_size: 128".into(),
            format!("objects: {objects}"),
            format!("objects_partial: {objects_partial}"),
            "objs_per_slab: 32".into(),
            "order: 0".into(),
            format!("partial: {partial}"),
            "poison: 0".into(),
            "reclaim_account: 0".into(),
            "red_zone: 0".into(),
            "remote_node_defrag_ratio: 100".into(),
            "sanity_checks: 0".into(),
            "slab_size: 128".into(),
            "slabs: 3 N0=3".into(),
            format!("slabs_cpu_partial: {slabs_cpu_partial}"),
            "store_user: 0".into(),
            "total_objects: 96 N0=96".into(),
            "trace: 0".into(),
            // A kmalloc cache's usercopy region is the whole object.
            "usersize: 128".into(),
        ]
        .iter()
        .map(|l| format!("/sys/kernel/slab/kmalloc-128/{l}\n"))
        .collect::<String>()
    };
    let out = slabscope(&["run", &file, "--at", "119", "--sysfs", "kmalloc-128"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expect(["1 N0=1", "96 N0=96", "0", "0", "16(1) C1=16(1)"])
    );
    let out = slabscope(&["run", &file, "--sysfs", "kmalloc-128"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        expect(["1 N0=1", "80 N0=80", "16 N0=16", "1 N0=1", "0(0)"])
    );
}

/// `--sysfs` without a cache lists /sys/kernel/slab/ itself, as `sysfs_slab_add()` names its
/// entries: a mergeable cache's directory is its unique id, its name a symlink.
#[test]
fn sysfs_without_a_cache_lists_the_directory() {
    let file = temp(
        "sysfs-listing.slab",
        "slabscope-scenario 2\nmachine cpus=1 nodes=1 memory=1M\ncache foo size=64 flags=account\ncache bar size=60 flags=account\n",
    );
    let out = slabscope(&["run", &file, "--sysfs"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 52 + 3, "{text}");
    assert_eq!(
        lines[..3],
        [
            "/sys/kernel/slab/:A-0000064/",
            "/sys/kernel/slab/bar -> :A-0000064",
            "/sys/kernel/slab/dma-kmalloc-128/",
        ]
    );
    assert!(lines.contains(&"/sys/kernel/slab/foo -> :A-0000064"));
    assert!(lines.contains(&"/sys/kernel/slab/kmalloc-cg-64/"));
    let out = slabscope(&["run", &file, "--sysfs", ":A-0000064"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("/sys/kernel/slab/:A-0000064/aliases: 1\n")
    );
}

#[test]
fn sysfs_of_an_unknown_cache_is_an_error() {
    let file = scenario("slub-remote-free.slab");
    let out = slabscope(&["run", &file, "--slabinfo", "--sysfs", "kmalloc-100"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: there is no cache named kmalloc-100"),
        "{err}"
    );
}

#[test]
fn a_reader_that_stops_early_ends_the_output_quietly() {
    use std::io::Read;
    let file = scenario("slub-remote-free.slab");
    let mut child = Command::new(env!("CARGO_BIN_EXE_slabscope"))
        .args(["run", &file, "--trace", "text"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("slabscope runs");
    let mut first = [0u8; 64];
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_exact(&mut first)
        .expect("some output");
    // The read end is dropped here, as `| head` does.
    let out = child.wait_with_output().expect("slabscope ends");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn snapshot_prints_the_view_data_and_lanes_as_json() {
    let file = scenario("slub-remote-free.slab");
    let out = slabscope(&["snapshot", &file, "--cache", "kmalloc-128"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let snap: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(snap["cache"]["name"], "kmalloc-128");
    assert_eq!(snap["cache"]["nodes"][0]["nr_partial"], 1);
    let pfn = snap["cache"]["slab"]["brief"]["pfn"]
        .as_u64()
        .expect("a slab");
    let out = slabscope(&["snapshot", &file, "--page", &pfn.to_string()]);
    let lane: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(lane["page"][0]["owner"]["kind"], "buddy");
    // A cursor past the end is refused with the run's length.
    let out = slabscope(&["snapshot", &file, "--at", "99999"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the run has 120 steps"));
}

/// Several `--at` values print the files at each point of one run, each under a heading, and
/// each block equals what a single `--at` prints there.
#[test]
fn several_at_values_print_each_point_of_one_run() {
    let file = scenario("slub-remote-free.slab");
    let single = |at: &str| {
        let out = slabscope(&["run", &file, "--at", at, "--slabinfo", "--buddyinfo"]);
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let out = slabscope(&[
        "run",
        &file,
        "--at",
        "100",
        "--at",
        "5",
        "--slabinfo",
        "--buddyinfo",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "--- after step 5\n{}--- after step 100\n{}",
            single("5"),
            single("100")
        )
    );
    // With the trace, each point's files follow the steps that lead to it.
    let out = slabscope(&[
        "run",
        &file,
        "--at",
        "2",
        "--at",
        "4",
        "--trace",
        "text",
        "--buddyinfo",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let order: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("    ") && !l.starts_with("     ") || l.starts_with("---"))
        .collect();
    assert_eq!(order.len(), 6, "{text}");
    assert!(order[0].starts_with("    1  ") && order[1].starts_with("    2  "));
    assert_eq!(order[2], "--- after step 2");
    assert!(order[3].starts_with("    3  ") && order[4].starts_with("    4  "));
    assert_eq!(order[5], "--- after step 4");
    let out = slabscope(&["run", &file, "--at", "3", "--at", "999"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--at 999: the run has 120 steps"));
}

/// A scenario's `print` lines show their files at their points of the run, headed by line and
/// step, between the steps with `--trace text`; `--no-print` leaves them out.
#[test]
fn print_lines_show_their_files_where_they_stand() {
    let file = temp(
        "print.slab",
        "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=1M\ncache foo size=64\nrepeat 3 a[] = kmem_cache_alloc(foo) on cpu0\nprint sysfs foo\nfor x in reverse(a): kmem_cache_free(foo, x) on cpu1\nprint buddyinfo\nkmem_cache_destroy(foo)\nprint sysfs foo\n",
    );
    let out = slabscope(&["run", &file, "--check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let headings: Vec<&str> = text.lines().filter(|l| l.starts_with("---")).collect();
    assert_eq!(
        headings,
        [
            "--- line 5: /sys/kernel/slab/foo/ after step 7",
            "--- line 7: /proc/buddyinfo after step 10",
            "--- line 9: /sys/kernel/slab/foo/ after step 12",
        ],
        "{text}"
    );
    assert!(text.contains("/sys/kernel/slab/foo/objs_per_slab: 64\n"));
    assert!(text.contains("Node 0, zone   Normal "));
    // A destroyed cache's directory is gone, and the print says so.
    assert!(text.contains("cache foo was destroyed (kmem_cache_destroy)"));
    assert!(text.ends_with("12 steps\n"), "{text}");
    // The print lines add no step: the same run without them has the same steps.
    let plain = temp(
        "plain.slab",
        "slabscope-scenario 2\nmachine cpus=2 nodes=1 memory=1M\ncache foo size=64\nrepeat 3 a[] = kmem_cache_alloc(foo) on cpu0\nfor x in reverse(a): kmem_cache_free(foo, x) on cpu1\nkmem_cache_destroy(foo)\n",
    );
    let out = slabscope(&["run", &plain]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "12 steps\n");
    let out = slabscope(&["run", &file, "--no-print", "--trace", "text"]);
    let traced = String::from_utf8_lossy(&out.stdout);
    assert!(!traced.contains("---"));
    let out = slabscope(&["run", &file, "--trace", "text"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
    assert!(at("    7  ") < at("--- line 5:") && at("--- line 5:") < at("    8  "));
    // A print past the last --at is not reached.
    let out = slabscope(&["run", &file, "--at", "8"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--- line 5:") && !text.contains("--- line 7:"),
        "{text}"
    );
}

/// `--check` of a run that frees to the wrong cache unchecked fails at the step that does it
/// (the `cache_from_obj()` step the trace shows), with the known damage as the first problem.
#[test]
fn check_reports_known_damage_at_the_step_that_does_it() {
    for name in ["wrong-cache.slab", "slab-wrong-cache.slab"] {
        let file = format!("{}/../run/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
        let traced = slabscope(&["run", &file, "--trace", "text"]);
        assert!(traced.status.success(), "{name}");
        let trace = String::from_utf8_lossy(&traced.stdout);
        let step: usize = trace
            .lines()
            .find(|l| l.contains("cache_from_obj [wrong cache, not checked"))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no unchecked wrong-cache step in\n{trace}"));
        let out = slabscope(&["run", &file, "--check"]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        let mut lines = err.lines();
        assert_eq!(
            lines.next(),
            Some(format!("error: invariant violated after step {step}:").as_str()),
            "{name}: {err}"
        );
        assert!(
            lines
                .next()
                .is_some_and(|l| l.starts_with("  known damage: ")),
            "{name}: {err}"
        );
        assert!(
            out.stdout.is_empty(),
            "{name}: nothing printed before the check"
        );
    }
}

/// `slabscope live FILE`: each block's figures and the replay scenario, which runs like any
/// scenario; `--threads` is checked against the CPUs a block runs on.
#[test]
fn live_runs_a_scenario_file_and_writes_its_replay() {
    let lesson = format!(
        "{}/../../lessons/14-remote-free-race/scenario.slab",
        env!("CARGO_MANIFEST_DIR")
    );
    let lesson = lesson.as_str();
    let out = temp("live-replay.slab", "");
    let o = slabscope(&["live", lesson, "--threads", "2", "--out", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let blocks = report["blocks"].as_array().expect("blocks");
    assert_eq!(blocks.len(), 2);
    for b in blocks {
        assert_eq!(b["report"]["threads"], 2);
        assert!(b["report"]["replay"]["mismatch"].is_null(), "{b}");
    }
    let replay = std::fs::read_to_string(&out).expect("the replay is written");
    assert_eq!(replay, report["replay"].as_str().expect("text"));
    assert_eq!(replay.matches("\nconcurrent explicit\n").count(), 2);
    let o = slabscope(&["run", &out, "--check"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let o = slabscope(&["live", lesson, "--threads", "3"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 18: the block runs on 2 CPUs (cpu0, cpu1)"),
        "{err}"
    );
}

#[test]
fn compare_profiles_runs_one_scenario_under_two_kernels() {
    let file = scenario("slub-remote-free.slab");
    let out = slabscope(&["compare", &file, "--profiles", "linux-6.6,linux-7.2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let header = text.lines().next().unwrap();
    assert!(
        header.contains("linux-6.6") && header.contains("linux-7.2"),
        "{header}"
    );
    // 6.6 frees from cpu1 into a full slab of cpu0's, which goes to cpu1's partial stack;
    // 7.2 puts them on cpu1's main sheaf, the fast path.
    assert!(
        text.contains("__slab_free: full slab to cpu partial"),
        "{text}"
    );
    assert!(text.contains("16  free_to_pcs: main sheaf"), "{text}");
    assert!(text.contains("/proc/slabinfo under linux-7.2"), "{text}");
    // The figures are of every cache: the table names the boot's own allocations (7.2's
    // kmem_buckets_create() takes two objects of kmalloc_buckets; 6.6 has no such cache).
    assert!(
        text.contains("  linux-6.6: none\n  linux-7.2: kmalloc_buckets (2 objects)\n"),
        "{text}"
    );
    // Bad profile lists are refused with the known ones.
    let out = slabscope(&["compare", &file, "--profiles", "linux-6.6,linux-5.4"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown kernel profile 'linux-5.4'") && err.contains("linux-7.2"),
        "{err}"
    );
    // SLAB under a profile without it.
    let slab = temp(
        "slab-profiles.slab",
        "slabscope-scenario 1\nallocator slab\nmachine cpus=2\na = kmalloc(64) on cpu0\n",
    );
    let out = slabscope(&["compare", &slab, "--profiles", "linux-6.6,linux-6.12"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("removed in Linux 6.8"));
}
