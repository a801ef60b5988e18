//! Golden scenarios: each `tests/golden/*.slab` runs from boot and its whole trace (text form),
//! final /proc/slabinfo and /proc/buddyinfo must equal `tests/golden/*.golden`, byte for byte.
//! Every invariant is checked after every step (what the step touched and the whole machine,
//! `FullChecks::EVERY_STEP`), and together the scenarios must take every
//! path listed in `REQUIRED_PATHS`, so a path that stops being reached fails here.
//!
//! After an intended change of behaviour, regenerate and review the diff:
//!   SLABSCOPE_UPDATE_GOLDEN=1 cargo test -p slabscope-sim --test golden

use slabscope_sim::buddyinfo::buddyinfo;
use slabscope_sim::machine::check::{check_trace, FullChecks};
use slabscope_sim::scenario::{parse, run};
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::trace::text::format_step;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// (kernel function, path) pairs the golden scenarios must reach between them.
const REQUIRED_PATHS: &[(&str, &str)] = &[
    ("slab_alloc_node", "fast path"),
    ("get_freelist", "remote frees"),
    ("get_freelist", "cpu slab exhausted"),
    ("___slab_alloc", "cpu partial pop"),
    ("___slab_alloc", "node mismatch: deactivate"),
    ("___slab_alloc", "out of memory"),
    ("get_partial_node", "node partial"),
    ("get_any_partial", "remote node partial"),
    ("allocate_slab", "preferred order"),
    ("allocate_slab", "order fallback"),
    ("do_slab_free", "fast path"),
    ("__slab_free", "frozen slab"),
    ("__slab_free", "full slab to cpu partial"),
    ("__slab_free", "partial slab"),
    ("__slab_free", "empty slab"),
    ("flush_slab", "deactivate cpu slab"),
    ("unfreeze_partials_cpu", "cpu partial to node"),
    ("kmem_cache_alloc_bulk", "bulk"),
    ("build_detached_freelist", "detached freelist"),
    ("__kmem_cache_alias", "merged"),
    ("kmalloc", "size 0"),
    ("kfree", "NULL or ZERO_SIZE_PTR"),
    ("kfree", "double free"),
    ("kfree", "double free caught by BUG_ON(object == fp)"),
    ("cache_from_obj", "wrong cache"),
    ("kmem_cache_alloc", "destroyed cache"),
    ("__rmqueue_pcplist", "pcp hit"),
    ("__rmqueue_pcplist", "pcp refilled"),
    ("rmqueue_bulk", "pcp refill"),
    ("free_unref_page_commit", "to pcp"),
    ("__alloc_pages", "out of memory"),
    ("alloc_single_from_partial", "debug cache: node partial"),
    (
        "free_to_partial_list",
        "debug cache: full slab to node partial",
    ),
    ("free_to_partial_list", "debug cache: partial slab"),
    ("free_to_partial_list", "debug cache: empty slab discarded"),
    (
        "kfree",
        "double free: slub_debug=F reports Object already free",
    ),
    // SLAB
    ("____cache_alloc", "array hit"),
    ("cache_alloc_refill", "from the shared array"),
    ("cache_alloc_refill", "from the node's slab lists"),
    ("cache_alloc_refill", "hand out the newest object"),
    ("cache_grow_begin", "new slab"),
    ("cache_grow_end", "link the new slab on slabs_free"),
    ("cache_grow_end", "link the new slab on its list"),
    (
        "alloc_block",
        "fill the array from the new slab without list_lock",
    ),
    ("____cache_alloc_node", "one object from the node's lists"),
    ("___cache_free", "to the per-CPU array"),
    (
        "cache_flusharray",
        "array full: oldest batch to the shared array",
    ),
    (
        "cache_flusharray",
        "array full: oldest batch back to the slabs",
    ),
    ("cache_free_alien", "to the alien cache"),
    (
        "cache_free_alien",
        "alien cache full: drain it to its node first",
    ),
    ("slab_destroy", "free slab"),
    ("drain_array", "recently used: clear touched"),
    ("drain_array", "unused: free the oldest"),
    ("do_drain", "empty the per-CPU array"),
    ("drain_freelist", "free slab"),
    ("kfree", "double free caught by WARN_ON_ONCE in __free_one"),
];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn scenarios() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "slab"))
        .collect();
    files.sort();
    files
}

/// Runs one scenario; returns its golden text and the (function, path) pairs it took.
fn render(path: &Path) -> (String, BTreeSet<(String, String)>) {
    let text = fs::read_to_string(path).expect("readable scenario");
    let scenario = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let rec = run(&scenario, true).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    let mut paths = BTreeSet::new();
    for i in 0..rec.step_count() {
        let step = rec.step(i).expect("recorded step");
        out.push_str(&format_step(i + 1, &step));
        paths.insert((step.function.to_string(), step.path.to_string()));
    }
    if let Err(v) = check_trace(&rec, FullChecks::EVERY_STEP) {
        let function = rec.step(v.step.max(1) - 1).map_or("", |s| s.function);
        panic!("{}: {v} ({function})", path.display());
    }
    out.push_str("--- /proc/slabinfo\n");
    out.push_str(&slabinfo(rec.machine()));
    out.push_str("--- /proc/buddyinfo\n");
    out.push_str(&buddyinfo(rec.machine()));
    (out, paths)
}

#[test]
fn golden_scenarios_reproduce_their_traces_and_reach_every_path() {
    let update = std::env::var_os("SLABSCOPE_UPDATE_GOLDEN").is_some();
    let files = scenarios();
    assert!(files.len() >= 5, "golden scenarios are missing");
    let mut reached = BTreeSet::new();
    let mut failures = Vec::new();
    for file in &files {
        let (text, paths) = render(file);
        reached.extend(paths);
        let golden = file.with_extension("golden");
        if update {
            fs::write(&golden, &text).expect("writable golden file");
            continue;
        }
        let expected = fs::read_to_string(&golden).unwrap_or_default();
        if expected != text {
            let line = expected
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(expected.lines().count().min(text.lines().count()));
            failures.push(format!(
                "{}: differs from {} at line {}:\n  expected: {}\n  got:      {}",
                file.display(),
                golden.display(),
                line + 1,
                expected.lines().nth(line).unwrap_or("(end of file)"),
                text.lines().nth(line).unwrap_or("(end of output)")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let missing: Vec<_> = REQUIRED_PATHS
        .iter()
        .filter(|(f, p)| !reached.contains(&(f.to_string(), p.to_string())))
        .collect();
    assert!(missing.is_empty(), "no golden scenario reaches {missing:?}");
}

/// The lock argument of the 2016 patch (seed 004, Linux 4.7): the same growing refills take
/// fewer `list_lock` acquisitions with the 6.6 refill than with the one before it.
#[test]
fn refilling_through_a_new_slab_takes_the_node_lock_less_often() {
    let locks = |name: &str| -> (u64, u64) {
        let text = fs::read_to_string(golden_dir().join(name)).expect("readable scenario");
        let scenario = parse(&text).expect("valid scenario");
        let (rec, summary) =
            slabscope_sim::scenario::run_with_summary(&scenario, true).expect("runs");
        let grows = rec
            .steps()
            .iter()
            .filter(|s| s.function == "cache_grow_begin")
            .count() as u64;
        let locks: u64 = summary.list_locks["kmem_cache_alloc"].iter().sum();
        (locks, grows)
    };
    let (after, grows_after) = locks("slab-refill-4.7.slab");
    let (before, grows_before) = locks("slab-refill-legacy.slab");
    assert_eq!(grows_after, grows_before, "the same slabs are grown");
    assert!(grows_after >= 10);
    assert!(
        after < before,
        "6.6 refill: {after} list_lock acquisitions, before 4.7: {before}"
    );
    // One acquisition per growing refill (cache_grow_end) against two.
    assert_eq!(before - after, grows_after);
}
