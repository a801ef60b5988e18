//! One scenario under both allocators: `slabscope compare FILE` and the web app's split view.
//!
//! The same operations run on the same machine, once with SLUB and once with SLAB; the
//! comparison reads both final states and both traces: slabs and pages used, bytes that hold
//! no live object, free objects parked per CPU, node `list_lock` acquisitions (per node and per
//! operation kind), how often each path ran, and both `/proc/slabinfo` files.
//!
//! Lockstep: `op_ends[i]` is the cursor after the `i`-th operation in each run, so a viewer
//! can step both traces operation by operation.

use crate::run::{run_with_summary, RunError, RunSummary};
use crate::translate;
use serde::Serialize;
use slabscope_scenario::Scenario;
use slabscope_sim::boot::Allocator;
use slabscope_sim::machine::Machine;
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::smp::micro::Stats;
use slabscope_sim::trace::Recorder;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The figures of one allocator's run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Side {
    pub allocator: Allocator,
    pub steps: usize,
    pub slabs: u64,
    pub slab_pages: u64,
    /// Bytes of slab pages that do not hold the `object_size` bytes of a live object.
    pub bytes_wasted: u64,
    pub live_objects: u64,
    /// Per CPU: free objects this CPU can take without touching a node list (SLUB: its cpu
    /// slab's and cpu partial slabs' free objects; SLAB: its array caches).
    pub cached_per_cpu: Vec<u64>,
    /// Free objects parked in SLAB's shared arrays and alien caches (0 under SLUB).
    pub cached_shared: u64,
    /// `list_lock` acquisitions per node.
    pub list_locks: Vec<u64>,
    /// Steps of each kind (`function: path`), of the allocator's own functions.
    pub paths: BTreeMap<String, u64>,
    /// Allocations and frees served by the fast path (SLUB's lockless c->freelist, SLAB's
    /// per-CPU array) and by anything slower.
    pub fast_allocs: u64,
    pub fast_frees: u64,
    /// The `concurrent` blocks' retries by (site, reason) and `list_lock` acquisitions and
    /// spins, summed over the blocks (SLAB runs each operation of a block whole: none).
    pub races: Stats,
    pub summary: RunSummary,
    pub slabinfo: String,
}

/// Both runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Comparison {
    pub slub: Side,
    pub slab: Side,
}

/// Page-allocator and boot steps, which both allocators share.
const SHARED_KEYS: &[&str] = &[
    "step.pcp_take",
    "step.rmqueue_bulk",
    "step.rmqueue_buddy",
    "step.free_to_pcp",
    "step.pcp_to_buddy",
    "step.free_to_buddy",
    "step.free_factor_up",
    "step.create_kmalloc_caches",
    "step.cache_created",
    "step.internal",
];

/// Runs `scenario` under `allocator` (whatever its own `allocator` line says).
pub fn run_as(
    scenario: &Scenario,
    allocator: Allocator,
) -> Result<(Recorder, RunSummary), RunError> {
    let mut s = scenario.clone();
    s.allocator = translate::allocator_line(allocator);
    run_with_summary(&s, true)
}

/// Runs `scenario` under both allocators and measures both.
pub fn compare(scenario: &Scenario) -> Result<Comparison, RunError> {
    let side = |a| -> Result<Side, RunError> {
        let (rec, summary) = run_as(scenario, a)?;
        Ok(measure(&rec, summary))
    };
    Ok(Comparison {
        slub: side(Allocator::Slub)?,
        slab: side(Allocator::Slab)?,
    })
}

/// The figures of one finished run.
pub fn measure(rec: &Recorder, summary: RunSummary) -> Side {
    let m = rec.machine();
    let mut paths = BTreeMap::new();
    let (mut fast_allocs, mut fast_frees) = (0, 0);
    for step in rec.steps() {
        if SHARED_KEYS.contains(&step.caption.key) {
            continue;
        }
        match (step.function, step.path) {
            ("slab_alloc_node", "fast path") | ("____cache_alloc", "array hit") => fast_allocs += 1,
            ("do_slab_free", "fast path") | ("___cache_free", "to the per-CPU array") => {
                fast_frees += 1
            }
            _ => {}
        }
        *paths
            .entry(format!("{}: {}", step.function, step.path))
            .or_default() += 1;
    }
    let mut races = Stats::default();
    for block in &summary.blocks {
        races.merge(&block.stats);
    }
    let (slabs, slab_pages, live_bytes, cached_per_cpu, cached_shared) = match m.allocator() {
        Allocator::Slub => slub_figures(m),
        Allocator::Slab => slab_figures(m),
    };
    Side {
        allocator: m.allocator(),
        steps: rec.cursor(),
        slabs,
        slab_pages,
        bytes_wasted: slab_pages * u64::from(m.config.page_size) - live_bytes,
        live_objects: m.live_objects,
        cached_per_cpu,
        cached_shared,
        list_locks: m.list_lock_taken.raw.clone(),
        paths,
        fast_allocs,
        fast_frees,
        races,
        summary,
        slabinfo: slabinfo(m),
    }
}

type Figures = (u64, u64, u64, Vec<u64>, u64);

fn slub_figures(m: &Machine) -> Figures {
    let mut pages = 0;
    let mut live_bytes = 0;
    for s in m.slub().slabs.values() {
        pages += 1u64 << s.order;
        let object_size = u64::from(m.slub().caches[s.cache].geometry.object_size);
        live_bytes += s.allocated.iter().filter(|&&a| a).count() as u64 * object_size;
    }
    let mut cached = vec![0u64; m.config.cpus as usize];
    for s in &m.slub().caches {
        for (cpu, c) in s.cpu.iter().enumerate() {
            let mut n = u64::from(slabscope_sim::slub::freelist_len(m, c.freelist));
            if let Some(pfn) = c.slab {
                n += u64::from(slabscope_sim::slub::freelist_len(
                    m,
                    m.slub().slabs[&pfn].freelist,
                ));
            }
            let mut at = c.partial;
            while let Some(pfn) = at {
                let slab = &m.slub().slabs[&pfn];
                n += u64::from(slab.objects - slab.inuse);
                at = slab.next;
            }
            cached[cpu] += n;
        }
    }
    (m.slub().slabs.len() as u64, pages, live_bytes, cached, 0)
}

fn slab_figures(m: &Machine) -> Figures {
    let sl = m.slab();
    let mut pages = 0;
    let mut live_bytes = 0;
    for s in sl.slabs.values() {
        pages += 1u64 << s.order;
        let object_size = u64::from(sl.caches[s.cache].object_size);
        live_bytes += s.allocated.iter().filter(|&&a| a).count() as u64 * object_size;
    }
    let mut cached = vec![0u64; m.config.cpus as usize];
    let mut shared = 0;
    for s in &sl.caches {
        for (cpu, ac) in s.cpu.iter().enumerate() {
            cached[cpu] += u64::from(ac.avail());
        }
        for n in &s.node {
            shared += n.shared.as_ref().map_or(0, |a| u64::from(a.avail()));
            shared += n
                .alien
                .iter()
                .flatten()
                .map(|a| u64::from(a.avail()))
                .sum::<u64>();
        }
    }
    (sl.slabs.len() as u64, pages, live_bytes, cached, shared)
}

/// `a/b/...`: one figure per node or CPU.
fn per_node_or_cpu(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join("/")
}

/// The `concurrent` blocks' retries (in total, then by site and reason, as
/// `note_cmpxchg_failure()` and the slab cmpxchg loops count them) and `list_lock` spins.
fn race_rows(row: &mut impl FnMut(&str, String, String), c: &Comparison) {
    row(
        "cmpxchg retries in concurrent blocks",
        c.slub.races.total_retries().to_string(),
        c.slab.races.total_retries().to_string(),
    );
    let sites: std::collections::BTreeSet<_> = c
        .slub
        .races
        .retries
        .keys()
        .chain(c.slab.races.retries.keys())
        .collect();
    for key in sites {
        let n = |s: &Side| s.races.retries.get(key).copied().unwrap_or(0).to_string();
        row(
            &format!("  retries in {} ({})", key.0, key.1.word()),
            n(&c.slub),
            n(&c.slab),
        );
    }
    row(
        "list_lock spins while held",
        c.slub.races.total_lock_waits().to_string(),
        c.slab.races.total_lock_waits().to_string(),
    );
}

/// The comparison as a side-by-side text table, then both slabinfo files.
pub fn render(c: &Comparison) -> String {
    type Figure = fn(&Side) -> String;
    let figures: [(&str, Figure); 10] = [
        ("steps", |s| s.steps.to_string()),
        ("slabs", |s| s.slabs.to_string()),
        ("pages in slabs", |s| s.slab_pages.to_string()),
        ("live objects", |s| s.live_objects.to_string()),
        ("bytes wasted (slab bytes - live objects)", |s| {
            s.bytes_wasted.to_string()
        }),
        ("free objects cached per CPU", |s| {
            per_node_or_cpu(&s.cached_per_cpu)
        }),
        ("free objects in shared/alien arrays", |s| {
            s.cached_shared.to_string()
        }),
        ("list_lock acquisitions per node", |s| {
            per_node_or_cpu(&s.list_locks)
        }),
        ("allocations on the fast path", |s| {
            s.fast_allocs.to_string()
        }),
        ("frees on the fast path", |s| s.fast_frees.to_string()),
    ];
    let mut out = String::new();
    let mut row = |what: &str, a: String, b: String| {
        let _ = writeln!(out, "{what:<40} {a:>14} {b:>14}");
    };
    row("", "SLUB".into(), "SLAB".into());
    for (what, figure) in &figures[..8] {
        row(what, figure(&c.slub), figure(&c.slab));
    }
    // list_lock acquisitions and operations, per kind of operation.
    let kinds: std::collections::BTreeSet<&String> = c
        .slub
        .summary
        .ops
        .keys()
        .chain(c.slab.summary.ops.keys())
        .collect();
    for kind in kinds {
        let per_kind = |s: &Side| {
            let ops = s.summary.ops.get(kind).copied().unwrap_or(0);
            let locks: u64 = s.summary.list_locks.get(kind).map_or(0, |v| v.iter().sum());
            format!("{locks} / {ops}")
        };
        row(
            &format!("  locks / ops of {kind}"),
            per_kind(&c.slub),
            per_kind(&c.slab),
        );
    }
    for (what, figure) in &figures[8..10] {
        row(what, figure(&c.slub), figure(&c.slab));
    }
    if !c.slub.summary.blocks.is_empty() {
        race_rows(&mut row, c);
    }
    let _ = writeln!(out, "\nsteps by function and path");
    for (side, name) in [(&c.slub, "SLUB"), (&c.slab, "SLAB")] {
        let _ = writeln!(out, "  {name}");
        for (path, n) in &side.paths {
            let _ = writeln!(out, "    {n:>8}  {path}");
        }
    }
    let _ = writeln!(out, "\n/proc/slabinfo under SLUB\n{}", c.slub.slabinfo);
    let _ = writeln!(out, "/proc/slabinfo under SLAB\n{}", c.slab.slabinfo);
    out
}
