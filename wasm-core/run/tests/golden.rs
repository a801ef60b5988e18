//! Golden scenarios: each `tests/golden/*.slab` (and each scenario of docs/scenarios named in
//! `DOC_SCENARIOS`) runs from boot and its whole trace (text form), what its `print` lines
//! show at their points, and the final /proc/slabinfo and /proc/buddyinfo must equal
//! `tests/golden/<name>.golden`, byte for byte.
//! Every invariant is checked after every step (what the step touched and the whole machine,
//! `FullChecks::EVERY_STEP`), and together the scenarios must take every path listed in
//! `REQUIRED_PATHS`, so a path that stops being reached fails here. A scenario that frees to
//! the wrong cache unchecked (`wrong-cache.slab`) is the exception: from that step on both
//! checks must report the known damage first; what else they report from then on (what the
//! damage did) is written into the golden text wherever it changes.
//!
//! After an intended change of behaviour, regenerate and review the diff:
//!   SLABSCOPE_UPDATE_GOLDEN=1 cargo test -p slabscope-run --test golden

use slabscope_run::concurrent::block_text;
use slabscope_run::{print_heading, print_text, run_with_summary};
use slabscope_scenario::parse;
use slabscope_sim::buddyinfo::buddyinfo;
use slabscope_sim::machine::check::{FullChecks, TraceCheck};
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
    ("slab_free_freelist_hook", "reverse the detached freelist"),
    ("__kmem_cache_alias", "merged"),
    ("kmalloc", "size 0"),
    ("kfree", "NULL or ZERO_SIZE_PTR"),
    ("kfree", "double free"),
    ("kfree", "double free caught by BUG_ON(object == fp)"),
    ("cache_from_obj", "wrong cache"),
    ("cache_from_obj", "wrong cache, not checked"),
    ("kmem_cache_alloc", "destroyed cache"),
    ("__rmqueue_pcplist", "pcp hit"),
    ("__rmqueue_pcplist", "pcp refilled"),
    ("rmqueue_bulk", "pcp refill"),
    ("free_unref_page_commit", "to pcp"),
    ("__alloc_pages", "out of memory"),
    ("get_page_from_freelist", "next zone in the zonelist"),
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
    ("cache_grow_begin", "colour, then the OFF_SLAB index array"),
    ("cache_grow_begin", "no memory for the index array"),
    ("fallback_alloc", "walk the zonelist"),
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
    // RCU: SLAB_TYPESAFE_BY_RCU slabs, grace periods and kfree_rcu() (SLUB's discard_slab()
    // runs inside its caller's step; rcu.golden shows its call_rcu()).
    ("slab_destroy", "SLAB_TYPESAFE_BY_RCU: call_rcu"),
    ("synchronize_rcu", "grace period"),
    ("rcu_barrier", "wait for a grace period"),
    ("rcu_barrier", "callbacks already ready"),
    ("rcu_barrier", "no callbacks"),
    ("rcu_do_batch", "rcu_free_slab"),
    ("rcu_do_batch", "kmem_rcu_free"),
    (
        "slab_caches_to_rcu_destroy_workfn",
        "rcu_barrier before release",
    ),
    ("kvfree_call_rcu", "no page: chain through the rcu_head"),
    ("kvfree_call_rcu", "new page from the page cache"),
    ("kvfree_call_rcu", "record in the newest page"),
    ("kvfree_call_rcu", "no cached page: __get_free_page()"),
    ("kvfree_call_rcu", "no page: synchronize_rcu() and kvfree()"),
    ("kvfree_call_rcu", "not the start of an allocated object"),
    ("kvfree_call_rcu", "queued twice"),
    ("kfree_rcu", "NULL"),
    ("fill_page_cache_func", "refill the page cache"),
    ("kfree_rcu_monitor", "queue_rcu_work"),
    ("kfree_rcu_monitor", "both batches busy: rearm"),
    ("kfree_rcu_monitor", "not pending"),
    (
        "kvfree_rcu_drain_ready",
        "grace period over: free without a batch",
    ),
    ("kfree_rcu_work", "after the grace period"),
    ("kvfree_rcu_bulk", "page back to the page cache"),
    ("kvfree_rcu_bulk", "page freed"),
    ("kvfree_rcu_bulk", "pointer freed since kfree_rcu()"),
    ("kvfree_rcu_list", "kvfree"),
];

/// Every retry the kernel makes, by (site, reason), that the concurrent golden scenarios must
/// make between them (`concurrent` blocks; their summaries close each golden file).
const REQUIRED_RETRIES: &[(&str, &str)] = &[
    ("slab_alloc", "migrated"),
    ("slab_alloc", "preempted"),
    ("slab_alloc", "interrupted"),
    ("slab_free", "migrated"),
    ("slab_free", "preempted"),
    ("slab_free", "interrupted"),
    ("__slab_free", "slab changed"),
    ("get_freelist", "slab changed"),
    ("deactivate_slab", "slab changed"),
    ("acquire_slab", "slab changed"),
    ("__unfreeze_partials", "slab changed"),
];

/// Scenarios of docs/scenarios kept as golden traces too (their `.golden` is in tests/golden).
const DOC_SCENARIOS: &[&str] = &["bulk-free-interleaved"];

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
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios");
    files.extend(DOC_SCENARIOS.iter().map(|n| docs.join(format!("{n}.slab"))));
    files
}

/// What one golden scenario gives: its text, the (function, path) pairs it took, whether it
/// damaged the kernel's structures, the retries its blocks made and whether a CPU spun on a
/// held `list_lock`.
struct Rendered {
    text: String,
    paths: BTreeSet<(String, String)>,
    damaged: bool,
    retries: BTreeSet<(String, String)>,
    spun: bool,
}

/// Runs one scenario (see `Rendered`).
fn render(path: &Path) -> Rendered {
    let text = fs::read_to_string(path).expect("readable scenario");
    let scenario = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (rec, summary) =
        run_with_summary(&scenario, true).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = String::new();
    let mut paths = BTreeSet::new();
    let mut prints = summary.prints.iter().peekable();
    // A print's file, read at its cursor, after the steps before it.
    let mut print_to = |out: &mut String, cursor: usize| {
        while let Some(mark) = prints.next_if(|p| p.cursor <= cursor) {
            let m = rec.snapshot_at(mark.cursor).expect("a recorded cursor");
            out.push_str(&format!("--- {}\n", print_heading(mark)));
            out.push_str(&print_text(&m, &mark.file).unwrap_or_else(|e| format!("{e}\n")));
        }
    };
    let mut reported: Vec<String> = Vec::new();
    let mut check = TraceCheck::new(&rec, FullChecks::EVERY_STEP)
        .unwrap_or_else(|v| panic!("{}: {v}", path.display()));
    for i in 0..rec.step_count() {
        print_to(&mut out, i);
        let step = rec.step(i).expect("recorded step");
        out.push_str(&format_step(i + 1, &step));
        paths.insert((step.function.to_string(), step.path.to_string()));
        let found = check.check_step(&rec).expect("a recorded step");
        let damage = &check.machine().damage;
        for (which, bad) in
            std::iter::once(("local", &found.local)).chain(found.full.as_ref().map(|b| ("full", b)))
        {
            assert_eq!(
                bad.first().is_some_and(|l| l.starts_with("known damage: ")),
                !damage.is_empty(),
                "{}: {which} check after step {} ({}): known damage {damage:?}, reported {bad:?}",
                path.display(),
                i + 1,
                step.function,
            );
            assert!(
                bad.is_empty() || !damage.is_empty(),
                "{}: {which} check after step {} ({}): {bad:?}",
                path.display(),
                i + 1,
                step.function
            );
        }
        assert!(found.full.is_some(), "a full check after every step");
        // After known damage the checker reports more than the damage records: what the
        // damage did to the structures. Those lines are pinned in the golden file whenever
        // they change, so a new violation after the damage step fails the comparison.
        if let Some(full) = found.full.as_ref().filter(|_| !damage.is_empty()) {
            if *full != reported {
                for line in full {
                    out.push_str(&format!("         ! {line}\n"));
                }
                reported = full.clone();
            }
        }
    }
    print_to(&mut out, rec.step_count());
    let damaged = !rec.machine().damage.is_empty();
    let mut retries = BTreeSet::new();
    let mut spun = false;
    for b in &summary.blocks {
        out.push_str(&block_text(&rec, b));
        retries.extend(
            b.stats
                .retries
                .keys()
                .map(|(site, reason)| (site.to_string(), reason.word().to_string())),
        );
        spun |= b.stats.total_waits() > 0;
    }
    out.push_str("--- /proc/slabinfo\n");
    out.push_str(&slabinfo(rec.machine()));
    out.push_str("--- /proc/buddyinfo\n");
    out.push_str(&buddyinfo(rec.machine()));
    Rendered {
        text: out,
        paths,
        damaged,
        retries,
        spun,
    }
}

#[test]
fn golden_scenarios_reproduce_their_traces_and_reach_every_path() {
    let update = std::env::var_os("SLABSCOPE_UPDATE_GOLDEN").is_some();
    let files = scenarios();
    assert!(files.len() >= 5, "golden scenarios are missing");
    let mut reached = BTreeSet::new();
    let mut retried = BTreeSet::new();
    let mut spun = false;
    let mut failures = Vec::new();
    let mut damaged = Vec::new();
    for file in &files {
        let Rendered {
            text,
            paths,
            damaged: damage,
            retries,
            spun: spins,
        } = render(file);
        reached.extend(paths);
        retried.extend(retries);
        spun |= spins;
        if damage {
            damaged.push(
                file.file_name()
                    .expect("a file")
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        let golden = golden_dir()
            .join(file.file_name().expect("a file"))
            .with_extension("golden");
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
    let missing: Vec<_> = REQUIRED_RETRIES
        .iter()
        .filter(|(s, r)| !retried.contains(&(s.to_string(), r.to_string())))
        .collect();
    assert!(
        missing.is_empty(),
        "no golden scenario retries at {missing:?}"
    );
    assert!(spun, "no golden scenario spins on a held list_lock");
    assert_eq!(
        damaged,
        [
            "slab-wrong-cache.slab",
            "smp-aba-no-tid.slab",
            "wrong-cache.slab"
        ],
        "exactly the wrong-cache scenarios and the ABA race without the tid damage the kernel's \
         structures"
    );
}

/// The lock argument of the 2016 patch (seed 004, Linux 4.7): the same growing refills take
/// fewer `list_lock` acquisitions with the 6.6 refill than with the one before it.
#[test]
fn refilling_through_a_new_slab_takes_the_node_lock_less_often() {
    let locks = |name: &str| -> (u64, u64) {
        let text = fs::read_to_string(golden_dir().join(name)).expect("readable scenario");
        let scenario = parse(&text).expect("valid scenario");
        let (rec, summary) = slabscope_run::run_with_summary(&scenario, true).expect("runs");
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
