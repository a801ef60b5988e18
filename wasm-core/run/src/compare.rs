//! One scenario two ways: under both allocators (`slabscope compare FILE`), or under two
//! kernel profiles (`slabscope compare FILE --profiles linux-6.6,linux-7.2`).
//!
//! The same operations run on the same machine, once each way; the
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

/// The figures of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Side {
    /// The kernel profile it ran.
    pub profile: String,
    pub allocator: Allocator,
    pub steps: usize,
    pub slabs: u64,
    pub slab_pages: u64,
    /// Bytes of slab pages that do not hold the `object_size` bytes of a live object.
    pub bytes_wasted: u64,
    pub live_objects: u64,
    /// Per CPU: free objects this CPU can take without touching a node list (SLUB: its cpu
    /// slab's and cpu partial slabs' free objects, and from 6.18 its sheaves'; SLAB: its
    /// array caches).
    pub cached_per_cpu: Vec<u64>,
    /// Free objects parked where a node's CPUs share them: SLAB's shared arrays and alien
    /// caches, SLUB's barns (6.18+).
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
    /// Objects the boot itself allocated, by cache, before the scenario's first line: from
    /// 6.11 the `kmalloc_buckets` arrays of `kmem_buckets_create()`. The figures above count
    /// every cache, theirs too (under 7.2 the sheaf their first allocation refilled).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub boot_objects: BTreeMap<String, u64>,
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
    "step.create_kmalloc_caches_6_11",
    "step.kmem_buckets_create",
    "step.cache_created",
    "step.internal",
];

/// Runs `scenario` under `profile` and `allocator` (whatever its own lines say); the figures.
pub fn side_of(scenario: &Scenario, profile: &str, allocator: Allocator) -> Result<Side, RunError> {
    let mut s = scenario.clone();
    s.profile = profile.to_string();
    s.allocator = translate::allocator_line(allocator);
    let (rec, summary) = run_with_summary(&s, true)?;
    Ok(measure(&rec, summary))
}

/// A way to run a scenario: a kernel profile's id and an allocator.
pub type Variant<'a> = (&'a str, Allocator);

/// Runs `scenario` two ways (any two of profiles x allocators) and measures both; an unknown
/// profile, or SLAB under a profile that no longer has it, is refused with the reason.
pub fn compare_variants(
    scenario: &Scenario,
    a: Variant,
    b: Variant,
) -> Result<(Side, Side), String> {
    let known = slabscope_scenario::PROFILES;
    let side = |(id, allocator): Variant| -> Result<Side, String> {
        if !known.contains(&id) {
            return Err(format!(
                "unknown kernel profile '{id}' (known: {})",
                known.join(", ")
            ));
        }
        if let Some((_, removed)) = slabscope_scenario::SLAB_REMOVED
            .iter()
            .find(|(p, _)| *p == id)
            .filter(|_| allocator == Allocator::Slab)
        {
            return Err(format!(
                "{id} has no SLAB: it was removed in Linux {removed} (use `allocator slub`)"
            ));
        }
        side_of(scenario, id, allocator).map_err(|e| e.to_string())
    };
    Ok((side(a)?, side(b)?))
}

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
    let mut boot_objects = BTreeMap::new();
    for step in rec.steps() {
        if step.line.is_none() {
            for e in step.events {
                if let slabscope_sim::trace::Event::ObjectAllocated { cache, .. } = e {
                    let name = m.cache_name(*cache).unwrap_or("?").to_string();
                    *boot_objects.entry(name).or_default() += 1;
                }
            }
        }
        if SHARED_KEYS.contains(&step.caption.key) {
            continue;
        }
        match (step.function, step.path) {
            // 6.18+: an object from or to a CPU's sheaf is the fast path (ALLOC_FASTPATH,
            // FREE_FASTPATH count it).
            ("slab_alloc_node", "fast path")
            | ("____cache_alloc", "array hit")
            | ("alloc_from_pcs", "main sheaf") => fast_allocs += 1,
            ("do_slab_free", "fast path")
            | ("___cache_free", "to the per-CPU array")
            | ("free_to_pcs", "main sheaf") => fast_frees += 1,
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
        profile: m.profile.id.to_string(),
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
        boot_objects,
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
    let st = m.slub();
    let size = |sheaf: Option<slabscope_sim::ids::SheafId>| {
        sheaf.map_or(0, |id| {
            st.sheaves.get(&id).map_or(0, |s| s.objects.len() as u64)
        })
    };
    let mut shared = 0;
    for s in &st.caches {
        for (cpu, pcs) in s.pcs.iter().enumerate() {
            cached[cpu] += size(pcs.main) + size(pcs.spare) + size(pcs.rcu_free);
        }
        for barn in s.node.iter().filter_map(|n| n.barn.as_ref()) {
            shared += barn.full.iter().map(|&id| size(Some(id))).sum::<u64>();
        }
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
    (
        m.slub().slabs.len() as u64,
        pages,
        live_bytes,
        cached,
        shared,
    )
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
fn race_rows(row: &mut impl FnMut(&str, String, String), a: &Side, b: &Side) {
    row(
        "cmpxchg retries in concurrent blocks",
        a.races.total_retries().to_string(),
        b.races.total_retries().to_string(),
    );
    let sites: std::collections::BTreeSet<_> = a
        .races
        .retries
        .keys()
        .chain(b.races.retries.keys())
        .collect();
    for key in sites {
        let n = |s: &Side| s.races.retries.get(key).copied().unwrap_or(0).to_string();
        row(
            &format!("  retries in {} ({})", key.0, key.1.word()),
            n(a),
            n(b),
        );
    }
    row(
        "list_lock spins while held",
        a.races.total_lock_waits().to_string(),
        b.races.total_lock_waits().to_string(),
    );
}

/// The comparison as a side-by-side text table, then both slabinfo files.
pub fn render(c: &Comparison) -> String {
    render_sides(("SLUB", &c.slub), ("SLAB", &c.slab))
}

/// How a side is named in a comparison's table: its profile, and its allocator when the two
/// sides differ in it (`linux-7.2`, `linux-6.6 SLAB`).
pub fn side_label(s: &Side, other: &Side) -> String {
    let allocator = match s.allocator {
        Allocator::Slub => "SLUB",
        Allocator::Slab => "SLAB",
    };
    match (s.profile == other.profile, s.allocator == other.allocator) {
        (true, _) => allocator.to_string(),
        (false, true) => s.profile.clone(),
        (false, false) => format!("{} {allocator}", s.profile),
    }
}

/// Two runs side by side (`render`'s table for any two sides), then both slabinfo files.
/// Says which caches the boot allocated from, when it did on either side: their slabs and
/// cached objects are in the figures, which are of every cache.
fn boot_note(out: &mut String, a: (&str, &Side), b: (&str, &Side)) {
    if a.1.boot_objects.is_empty() && b.1.boot_objects.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nThe figures count every cache, those the boot allocated from too:"
    );
    for (name, side) in [a, b] {
        let list: Vec<String> = side
            .boot_objects
            .iter()
            .map(|(cache, n)| format!("{cache} ({n} object{})", if *n == 1 { "" } else { "s" }))
            .collect();
        let list = if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        };
        let _ = writeln!(out, "  {name}: {list}");
    }
}

pub fn render_sides(a: (&str, &Side), b: (&str, &Side)) -> String {
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
        ("free objects shared by a node's CPUs", |s| {
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
    let ((a_name, a), (b_name, b)) = (a, b);
    let mut out = String::new();
    let mut row = |what: &str, x: String, y: String| {
        let _ = writeln!(out, "{what:<40} {x:>14} {y:>14}");
    };
    row("", a_name.into(), b_name.into());
    for (what, figure) in &figures[..8] {
        row(what, figure(a), figure(b));
    }
    // list_lock acquisitions and operations, per kind of operation.
    let kinds: std::collections::BTreeSet<&String> =
        a.summary.ops.keys().chain(b.summary.ops.keys()).collect();
    for kind in kinds {
        let per_kind = |s: &Side| {
            let ops = s.summary.ops.get(kind).copied().unwrap_or(0);
            let locks: u64 = s.summary.list_locks.get(kind).map_or(0, |v| v.iter().sum());
            format!("{locks} / {ops}")
        };
        row(
            &format!("  locks / ops of {kind}"),
            per_kind(a),
            per_kind(b),
        );
    }
    for (what, figure) in &figures[8..10] {
        row(what, figure(a), figure(b));
    }
    if !a.summary.blocks.is_empty() {
        race_rows(&mut row, a, b);
    }
    boot_note(&mut out, (a_name, a), (b_name, b));
    let _ = writeln!(out, "\nsteps by function and path");
    for (side, name) in [(a, a_name), (b, b_name)] {
        let _ = writeln!(out, "  {name}");
        for (path, n) in &side.paths {
            let _ = writeln!(out, "    {n:>8}  {path}");
        }
    }
    let _ = writeln!(out, "\n/proc/slabinfo under {a_name}\n{}", a.slabinfo);
    let _ = writeln!(out, "/proc/slabinfo under {b_name}\n{}", b.slabinfo);
    out
}
