//! The `slabscope geometry` contract: JSON fields other tools rely on, and clear failures.

use std::process::{Command, Output};

fn slabscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_slabscope"))
        .args(args)
        .output()
        .expect("slabscope runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = slabscope(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn prints_the_documented_fields() {
    let v = json(&[
        "geometry",
        "--object-size",
        "144",
        "--page-size",
        "16384",
        "--cpus",
        "4",
        "--json",
    ]);
    for (field, expected) in [
        ("size", 144),
        ("object_size", 144),
        ("offset", 72),
        ("order", 0),
        ("objs_per_slab", 113),
        ("slab_size", 16384),
        ("waste", 112),
        ("min_partial", 5),
        ("cpu_partial", 120),
        ("cpu_partial_slabs", 3),
    ] {
        assert_eq!(v[field], expected, "{field}");
    }
}

#[test]
fn kmalloc_picks_the_size_class() {
    let v = json(&["geometry", "--kmalloc", "65", "--cpus", "2", "--json"]);
    assert_eq!(v["cache"], "kmalloc-96");
    assert_eq!(v["objs_per_slab"], 42);
    let v = json(&["geometry", "--kmalloc", "1000", "--cpus", "2", "--json"]);
    assert_eq!(v["cache"], "kmalloc-1k");
    assert_eq!(
        (v["order"].as_u64(), v["objs_per_slab"].as_u64()),
        (Some(2), Some(16))
    );
}

#[test]
fn debug_flags_grow_the_slot() {
    let v = json(&[
        "geometry",
        "--kmalloc",
        "1024",
        "--cpus",
        "4",
        "--red-zone",
        "--poison",
        "--store-user",
        "--sanity-checks",
        "--json",
    ]);
    assert_eq!(
        (v["size"].as_u64(), v["objs_per_slab"].as_u64()),
        (Some(3072), Some(10))
    );
    assert_eq!(v["cpu_partial"], 0);
}

#[test]
fn refusals_exit_non_zero_with_a_reason() {
    for (args, needle) in [
        (
            vec!["geometry", "--object-size", "5000000"],
            "object too large",
        ),
        (vec!["geometry", "--kmalloc", "9000"], "page allocator"),
        (vec!["geometry", "--kmalloc", "0"], "ZERO_SIZE_PTR"),
        (
            vec!["geometry", "--object-size", "64", "--page-size", "8192"],
            "page size",
        ),
        (
            vec!["geometry", "--object-size", "64", "--cpus", "65"],
            "CPU count",
        ),
        (
            vec!["geometry", "--object-size", "64", "--align", "48"],
            "power of two",
        ),
    ] {
        let out = slabscope(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn usage_mistakes_are_reported_by_the_parser() {
    for args in [
        vec!["geometry"],
        vec!["geometry", "--object-size", "abc"],
        vec!["geometry", "--object-size", "-4"],
        vec!["geometry", "--object-size", "64", "--kmalloc", "64"],
        vec!["geometry", "--kmalloc", "64", "--ctor"],
    ] {
        let out = slabscope(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn table_output_without_json() {
    let out = slabscope(&["geometry", "--object-size", "100"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text
        .lines()
        .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["size", "104"]));
}

#[test]
fn sweep_csv_rows_agree_with_geometry() {
    let out = slabscope(&[
        "sweep",
        "--size-from",
        "64",
        "--size-to",
        "1024",
        "--size-step",
        "64",
        "--cpus",
        "2,4",
        "--page-sizes",
        "4096",
        "--threads",
        "3",
        "--csv",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<u64>> = lines
        .map(|l| l.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 16 * 2);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for row in rows.iter().step_by(5) {
        let (size, cpus) = (row[col("object_size")], row[col("cpus")]);
        let v = json(&[
            "geometry",
            "--object-size",
            &size.to_string(),
            "--cpus",
            &cpus.to_string(),
            "--json",
        ]);
        for name in [
            "size",
            "offset",
            "order",
            "objs_per_slab",
            "waste",
            "cpu_partial_slabs",
        ] {
            assert_eq!(
                v[name],
                row[col(name)],
                "{name} at {size} bytes, {cpus} CPUs"
            );
        }
    }
    let summary: serde_json::Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(summary["points"], 32);
    assert_eq!(summary["threads"], 3);
}

/// `sweep --profile`: the table is the later kernel's, its sheaf capacity included, and an
/// unknown profile is refused with the known ones.
#[test]
fn sweep_under_a_profile_agrees_with_geometry_under_it() {
    let out = slabscope(&[
        "sweep",
        "--size-from",
        "12232",
        "--size-to",
        "12232",
        "--cpus",
        "2",
        "--page-sizes",
        "4096",
        "--profile",
        "linux-7.2",
        "--csv",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<u64> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|c| c.parse().unwrap())
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let v = json(&[
        "geometry",
        "--object-size",
        "12232",
        "--cpus",
        "2",
        "--profile",
        "linux-7.2",
        "--json",
    ]);
    for name in ["order", "objs_per_slab", "cpu_partial", "sheaf_capacity"] {
        assert_eq!(v[name], row[col(name)], "{name}");
    }
    // 6.7's order rule: order 3 and two objects where 6.6 takes order 2 and one.
    assert_eq!((row[col("order")], row[col("objs_per_slab")]), (3, 2));
    let out = slabscope(&["sweep", "--profile", "linux-5.4", "--csv"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown kernel profile 'linux-5.4'"));
}

#[test]
fn a_later_profile_lays_the_cache_out_as_that_kernel_does() {
    // kmalloc-96 on 4 CPUs: 6.11+ aligns kmalloc caches to their size's power-of-two part
    // (32); 7.x has sheaves (capacity 60) and no cpu partial list.
    let v66 = json(&["geometry", "--kmalloc", "96", "--cpus", "4", "--json"]);
    assert_eq!(v66["align"], 8);
    assert!(v66
        .get("sheaf_capacity")
        .is_none_or(serde_json::Value::is_null));
    let v72 = json(&[
        "geometry",
        "--kmalloc",
        "96",
        "--cpus",
        "4",
        "--profile",
        "linux-7.2",
        "--json",
    ]);
    assert_eq!(v72["align"], 32);
    assert_eq!(v72["sheaf_capacity"], 60);
    assert_eq!(v72["cpu_partial_slabs"], 0);
    // 6.18 takes the capacity a cache asks for; 6.6 has no such argument.
    let v618 = json(&[
        "geometry",
        "--object-size",
        "64",
        "--profile",
        "linux-6.18",
        "--sheaf-capacity",
        "10",
        "--json",
    ]);
    assert_eq!(v618["sheaf_capacity"], 10);
    for (args, reason) in [
        (
            vec!["geometry", "--object-size", "64", "--sheaf-capacity", "10"],
            "from Linux 6.18 on",
        ),
        (
            vec!["geometry", "--object-size", "64", "--profile", "linux-9"],
            "unknown kernel profile 'linux-9'",
        ),
    ] {
        let out = slabscope(&args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(reason), "{args:?}: {err}");
    }
}
