//! `slabscope run`: scenarios from files, the trace, /proc/buddyinfo, --check, and errors that
//! point at the line and column.

use std::process::{Command, Output};

fn slabscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slabscope"))
        .args(args)
        .output()
        .expect("slabscope runs")
}

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
    let out = slabscope(&["run", &file, "--at", "1", "--buddyinfo"]);
    assert!(out.status.success());
    // After the first refill: orders 0, 2, 3 each hold one block (pfns 3, 4, 8).
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Node 0, zone   Normal      1      0      1      1      0      0      0      0      0      0      0 \n"
    );
    let out = slabscope(&["run", &file, "--trace", "json"]);
    let steps: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(steps[0]["function"], "rmqueue_bulk");
    assert_eq!(steps[0]["events"][0]["event"], "FreeBlockRemoved");
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
fn slab_operations_are_refused_honestly() {
    let file = temp(
        "kmalloc.slab",
        "slabscope-scenario 1\nmachine cpus=1\na = kmalloc(64) on cpu0\n",
    );
    let out = slabscope(&["run", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kmalloc is not simulated"));
}
