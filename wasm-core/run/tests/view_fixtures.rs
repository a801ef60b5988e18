//! The view fixtures (web/views/fixtures/*.json) are snapshots the simulator makes: the web
//! app's view tests and golden drawings read them, so they must be what the simulator gives
//! today, not what it gave when someone last copied them. Each is made here from a scenario
//! under web/views/fixtures/scenarios/, at a cursor and with a cache shown as `FIXTURES` says,
//! serialised as the wasm facade serialises a snapshot (serde, pretty-printed so a change
//! reads as a diff), and compared with the checked-in file.
//!
//! After an intended change of what a snapshot holds, rewrite them and review the diff (and
//! the view tests and golden drawings that read them):
//!   UPDATE_FIXTURES=1 cargo test -p slabscope-run --test view_fixtures

mod common;

use slabscope_run::session::Session;
use slabscope_sim::snapshot::SnapshotQuery;
use std::collections::BTreeSet;
use std::path::Path;

/// Where the fixtures and their scenarios are, from the repository root.
const DIR: &str = "web/views/fixtures";

/// One fixture: the snapshot of `scenario` (under `DIR/scenarios`) after `at` steps (the end
/// of the run when `None`), with `cache` shown in full (the cache the step worked on when
/// `None`).
struct Fixture {
    name: &'static str,
    scenario: &'static str,
    at: Option<usize>,
    cache: Option<&'static str>,
}

const FIXTURES: &[Fixture] = &[
    // Linux 7.2: a full rcu_free sheaf submitted to call_rcu(), waiting for its grace period.
    Fixture {
        name: "sheaves-rcu-7.2",
        scenario: "kfree-rcu-sheaves.slab",
        at: Some(32),
        cache: Some("big"),
    },
    // Linux 7.2: two CPUs' sheaves and a barn with full and empty sheaves.
    Fixture {
        name: "sheaves-7.2",
        scenario: "sheaves.slab",
        at: None,
        cache: Some("big"),
    },
    // A remote kfree() freezes a full slab onto cpu1's partial stack.
    Fixture {
        name: "slub-remote-free-104",
        scenario: "slub-remote-free.slab",
        at: Some(104),
        cache: None,
    },
    // flush_cpu_slab() on cpu1 takes node 0's list_lock.
    Fixture {
        name: "slub-remote-free-120",
        scenario: "slub-remote-free.slab",
        at: Some(120),
        cache: None,
    },
    // SLUB on two nodes, cpu partial slabs on both CPUs.
    Fixture {
        name: "slub-numa-300",
        scenario: "slub-numa.slab",
        at: Some(300),
        cache: None,
    },
    // SLAB on two nodes: array caches, shared arrays and alien caches.
    Fixture {
        name: "slab-300",
        scenario: "slab-numa.slab",
        at: Some(300),
        cache: None,
    },
    // build_detached_freelist() of a kmem_cache_free_bulk() over two slabs.
    Fixture {
        name: "slub-bulk-free",
        scenario: "slub-bulk-free.slab",
        at: Some(6),
        cache: None,
    },
    // The same bulk free two steps on: __slab_free() puts the 20 detached objects back.
    Fixture {
        name: "slub-bulk-free-8",
        scenario: "slub-bulk-free.slab",
        at: Some(8),
        cache: None,
    },
    // free_pcppages_bulk() merges three buddy pairs.
    Fixture {
        name: "buddy-merge",
        scenario: "buddy-merge.slab",
        at: Some(15),
        cache: None,
    },
    // expand() splits a block for an order-2 pcp refill.
    Fixture {
        name: "buddy-split",
        scenario: "buddy-split.slab",
        at: Some(2),
        cache: None,
    },
    // Free pointers stored encoded (SLAB_FREELIST_HARDENED).
    Fixture {
        name: "slub-hardened",
        scenario: "slub-hardened.slab",
        at: None,
        cache: Some("c"),
    },
    // SLAB: allocated slots, free ones on the slab and cached ones in the array.
    Fixture {
        name: "slab-cached",
        scenario: "slab-cached.slab",
        at: None,
        cache: Some("c"),
    },
    // A SLAB_TYPESAFE_BY_RCU slab waiting for its grace period, kfree_rcu() pointers queued.
    Fixture {
        name: "rcu-waiting",
        scenario: "rcu-waiting.slab",
        at: None,
        cache: Some("sighand"),
    },
];

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn every_view_fixture_is_what_the_simulator_gives() {
    for f in FIXTURES {
        let path = root().join(DIR).join("scenarios").join(f.scenario);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", f.name, path.display()));
        let session = Session::open(&text).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        let at = f.at.unwrap_or(session.outline().steps as usize);
        let query = SnapshotQuery {
            cache: f.cache.map(str::to_string),
            slab: None,
        };
        let snap = session
            .snapshot(at, &query)
            .unwrap_or_else(|| panic!("{}: no step {at}", f.name));
        if let Some(cache) = f.cache {
            let shown = snap.cache.as_ref().map(|c| c.name.as_str());
            assert_eq!(shown, Some(cache), "{}: the cache shown", f.name);
        }
        let json = serde_json::to_string_pretty(&snap).expect("snapshots serialise") + "\n";
        common::check_fixture(&format!("{DIR}/{}.json", f.name), &json);
    }
}

/// A fixture with no entry in `FIXTURES` would be checked by nothing and drift again; a
/// scenario no fixture uses is dead weight.
#[test]
fn every_fixture_and_scenario_is_listed() {
    let names = |dir: &Path, ext: &str| -> BTreeSet<String> {
        std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter_map(|n| n.strip_suffix(ext).map(str::to_string))
            .collect()
    };
    let dir = root().join(DIR);
    let listed: BTreeSet<String> = FIXTURES.iter().map(|f| f.name.to_string()).collect();
    assert_eq!(names(&dir, ".json"), listed, "the fixtures in {DIR}");
    assert_eq!(
        names(&dir.join("scenarios"), ".slab"),
        FIXTURES
            .iter()
            .map(|f| f.scenario.trim_end_matches(".slab").to_string())
            .collect(),
        "the scenarios in {DIR}/scenarios"
    );
}
