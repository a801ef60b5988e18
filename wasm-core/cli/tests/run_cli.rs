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
fn operations_not_simulated_yet_are_refused_honestly() {
    let file = temp(
        "slab.slab",
        "slabscope-scenario 1\nallocator slab\nmachine cpus=1\na = kmalloc(64) on cpu0\n",
    );
    let out = slabscope(&["run", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the SLAB allocator is not simulated"));
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
