//! The wasm boundary, and nothing else: JSON in, JSON or typed arrays out, big state behind
//! opaque handles. The types that cross are defined in `slabscope-sim`, `slabscope-scenario`
//! and `slabscope-run`, and exported to TypeScript from there.
//!
//! Threading: the same source builds single-threaded and, with `+atomics` and shared memory,
//! threaded. In the threaded build several Web Workers instantiate this module over one
//! `WebAssembly.Memory`; a sweep registered by one of them is found by the others through
//! `SWEEPS` and worked on with `work_on_sweep(id)`.

use slabscope_run::compare::{measure, run_as};
use slabscope_run::RunSummary;
use slabscope_scenario::parse;
use slabscope_sim::boot::Allocator;
use slabscope_sim::geometry::{kmem_cache_geometry, CacheRequest};
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::sweep::{SweepGrid, SweepJob, SWEEP_COLUMNS};
use slabscope_sim::trace::Recorder;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use wasm_bindgen::prelude::*;

/// Sweeps in progress, by id, visible to every thread sharing this memory.
static SWEEPS: Mutex<BTreeMap<u32, Arc<SweepJob>>> = Mutex::new(BTreeMap::new());
static NEXT_SWEEP: AtomicU32 = AtomicU32::new(1);

/// The kernel profile and whether this build shares memory between threads.
#[wasm_bindgen]
pub fn build_info() -> String {
    serde_json::json!({
        "profile": slabscope_sim::PROFILE,
        "threaded": cfg!(target_feature = "atomics"),
        "version": env!("CARGO_PKG_VERSION"),
    })
    .to_string()
}

/// Parses a scenario without running it, for the editor's inline errors: `None` when it
/// parses, else the `ParseError` as JSON (line, column, key, arguments, English message and hint).
#[wasm_bindgen]
pub fn check_scenario(scenario: &str) -> Option<String> {
    parse(scenario)
        .err()
        .map(|e| serde_json::to_string(&e).expect("parse errors serialise"))
}

/// One cache's geometry: a `CacheRequest` as JSON in, a `CacheGeometry` as JSON out.
#[wasm_bindgen]
pub fn geometry(request_json: &str) -> Result<String, JsError> {
    let request: CacheRequest = serde_json::from_str(request_json)
        .map_err(|e| JsError::new(&format!("bad geometry request: {e}")))?;
    let answer = kmem_cache_geometry(&request).map_err(|e| JsError::new(&e.to_string()))?;
    Ok(serde_json::to_string(&answer).expect("CacheGeometry always serialises"))
}

/// The standard workload of `npm run bench` (docs/bench.md), booted and ready: JavaScript
/// times `run` with its own clock.
#[wasm_bindgen]
pub struct Workload {
    rec: slabscope_sim::trace::Recorder,
}

#[wasm_bindgen]
impl Workload {
    /// Boots the standard machine with its kmalloc caches; `record` keeps the trace.
    #[wasm_bindgen(constructor)]
    pub fn new(record: bool) -> Workload {
        Workload {
            rec: slabscope_sim::workload::standard_recorder(record),
        }
    }

    /// Runs `ops` operations; returns the `WorkloadReport` as JSON, with `trace_bytes`.
    pub fn run(&mut self, ops: u32, seed: u32) -> String {
        let report = slabscope_sim::workload::run_standard_ops(
            &mut self.rec,
            u64::from(ops),
            u64::from(seed),
        );
        let mut value = serde_json::to_value(&report).expect("reports serialise");
        value["trace_bytes"] = self.rec.trace_bytes().into();
        value.to_string()
    }
}

/// One scenario run under both allocators, for the split view that steps SLUB and SLAB in
/// lockstep: `op_end(i)` gives, for the `i`-th operation, the cursor after it in each trace.
#[wasm_bindgen]
pub struct Comparison {
    runs: [(Recorder, RunSummary); 2],
}

fn side(allocator: &str) -> Result<usize, JsError> {
    match allocator {
        "slub" => Ok(0),
        "slab" => Ok(1),
        other => Err(JsError::new(&format!(
            "unknown allocator '{other}': use slub or slab"
        ))),
    }
}

#[wasm_bindgen]
impl Comparison {
    /// Parses the scenario text and runs it under SLUB and under SLAB, recording both.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: &str) -> Result<Comparison, JsError> {
        let parsed = parse(scenario).map_err(|e| {
            JsError::new(&serde_json::to_string(&e).expect("parse errors serialise"))
        })?;
        let run = |a| run_as(&parsed, a).map_err(|e| JsError::new(&e.to_string()));
        Ok(Comparison {
            runs: [run(Allocator::Slub)?, run(Allocator::Slab)?],
        })
    }

    /// Operations run (the same in both).
    pub fn operations(&self) -> u32 {
        self.runs[0].1.op_ends.len() as u32
    }

    /// `[slub_cursor, slab_cursor]` after operation `op` (0-based).
    pub fn op_end(&self, op: u32) -> Vec<u32> {
        self.runs
            .iter()
            .map(|(_, s)| s.op_ends.get(op as usize).copied().unwrap_or(0) as u32)
            .collect()
    }

    /// Steps recorded under `allocator` ("slub" or "slab").
    pub fn steps(&self, allocator: &str) -> Result<u32, JsError> {
        Ok(self.runs[side(allocator)?].0.step_count() as u32)
    }

    /// Step `i` (0-based) of `allocator`'s trace, as JSON.
    pub fn step(&self, allocator: &str, i: u32) -> Result<String, JsError> {
        let rec = &self.runs[side(allocator)?].0;
        let step = rec
            .step(i as usize)
            .ok_or_else(|| JsError::new(&format!("no step {i}")))?;
        Ok(serde_json::to_string(&step).expect("steps serialise"))
    }

    /// /proc/slabinfo of `allocator` after `cursor` steps.
    pub fn slabinfo(&self, allocator: &str, cursor: u32) -> Result<String, JsError> {
        let rec = &self.runs[side(allocator)?].0;
        let m = rec
            .snapshot_at(cursor as usize)
            .ok_or_else(|| JsError::new(&format!("no step {cursor}")))?;
        Ok(slabinfo(&m))
    }

    /// Node list_lock acquisitions so far of `allocator` after `cursor` steps, per node.
    pub fn list_locks(&self, allocator: &str, cursor: u32) -> Result<Vec<u64>, JsError> {
        let rec = &self.runs[side(allocator)?].0;
        let m = rec
            .snapshot_at(cursor as usize)
            .ok_or_else(|| JsError::new(&format!("no step {cursor}")))?;
        Ok(m.list_lock_taken.clone())
    }

    /// The side-by-side figures at the end of both runs (`slabscope compare --json`).
    pub fn summary(&self) -> String {
        let [slub, slab] = &self.runs;
        let c = slabscope_run::compare::Comparison {
            slub: measure(&slub.0, slub.1.clone()),
            slab: measure(&slab.0, slab.1.clone()),
        };
        serde_json::to_string(&c).expect("comparisons serialise")
    }
}

/// One scenario, run and recorded, for the visualizer: its outline, any step, the snapshot
/// and the kernel files at any cursor, and the life of an object or a page.
#[wasm_bindgen]
pub struct Session {
    inner: slabscope_run::session::Session,
}

#[wasm_bindgen]
impl Session {
    /// Parses and runs the scenario. A parse error is thrown as the `ParseError` JSON (line,
    /// column, message key, hint); a run error as JSON too: `run: true`, its line, key,
    /// arguments and English message.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: &str) -> Result<Session, JsError> {
        use slabscope_run::session::SessionError;
        slabscope_run::session::Session::open(scenario)
            .map(|inner| Session { inner })
            .map_err(|e| match e {
                SessionError::Parse(p) => {
                    JsError::new(&serde_json::to_string(&p).expect("parse errors serialise"))
                }
                SessionError::Run(r) => {
                    let (key, args) = r.key_args();
                    let json = serde_json::json!({
                        "run": true,
                        "line": r.line(),
                        "key": key,
                        "args": args,
                        "message": r.to_string(),
                    });
                    JsError::new(&json.to_string())
                }
            })
    }

    /// Every step of the run as a JSON array: the same document as `slabscope run FILE --trace
    /// json` prints.
    pub fn trace(&self) -> String {
        let rec = self.inner.recorder();
        let steps: Vec<_> = (0..rec.step_count()).filter_map(|i| rec.step(i)).collect();
        serde_json::to_string(&steps).expect("steps serialise")
    }

    /// The `RunOutline` as JSON.
    pub fn outline(&self) -> String {
        serde_json::to_string(self.inner.outline()).expect("outlines serialise")
    }

    /// Step `i` (0-based) as JSON.
    pub fn step(&self, i: u32) -> Result<String, JsError> {
        let step = self
            .inner
            .recorder()
            .step(i as usize)
            .ok_or_else(|| JsError::new(&format!("no step {i}")))?;
        Ok(serde_json::to_string(&step).expect("steps serialise"))
    }

    /// The `Snapshot` after `cursor` steps as JSON; `query` is a `SnapshotQuery` as JSON.
    pub fn snapshot(&self, cursor: u32, query: &str) -> Result<String, JsError> {
        let query: slabscope_sim::snapshot::SnapshotQuery = serde_json::from_str(query)
            .map_err(|e| JsError::new(&format!("bad snapshot query: {e}")))?;
        let snap = self
            .inner
            .snapshot(cursor as usize, &query)
            .ok_or_else(|| JsError::new(&format!("no step {cursor}")))?;
        Ok(serde_json::to_string(&snap).expect("snapshots serialise"))
    }

    /// `KernelFiles` after `cursor` steps as JSON, with `/sys/kernel/slab/<cache>/`.
    pub fn files(&self, cursor: u32, cache: Option<String>) -> Result<String, JsError> {
        let files = self
            .inner
            .files(cursor as usize, cache.as_deref())
            .ok_or_else(|| JsError::new(&format!("no step {cursor}")))?;
        Ok(serde_json::to_string(&files).expect("files serialise"))
    }

    /// The `Lane` of the object at `addr` (hex) as JSON.
    pub fn object_lane(&self, addr: &str) -> Result<String, JsError> {
        let value = slabscope_sim::snapshot::parse_addr(addr)
            .ok_or_else(|| JsError::new(&format!("not an address: {addr}")))?;
        let lane = self
            .inner
            .object_lane(value)
            .ok_or_else(|| JsError::new(&format!("{addr} is not in simulated memory")))?;
        Ok(serde_json::to_string(&lane).expect("lanes serialise"))
    }

    /// The `Lane` of page frame `pfn` as JSON.
    pub fn page_lane(&self, pfn: u32) -> Result<String, JsError> {
        let lane = self
            .inner
            .page_lane(pfn)
            .ok_or_else(|| JsError::new(&format!("no page frame {pfn}")))?;
        Ok(serde_json::to_string(&lane).expect("lanes serialise"))
    }
}

/// The sweep table's column names, in row order.
#[wasm_bindgen]
pub fn sweep_columns() -> Vec<String> {
    SWEEP_COLUMNS.iter().map(|c| c.to_string()).collect()
}

/// A registered sweep. Dropping it (JS `free()`) unregisters it.
#[wasm_bindgen]
pub struct Sweep {
    id: u32,
    job: Arc<SweepJob>,
}

#[wasm_bindgen]
impl Sweep {
    /// Validates a `SweepGrid` (JSON) and registers it for workers to share.
    #[wasm_bindgen(constructor)]
    pub fn new(grid_json: &str) -> Result<Sweep, JsError> {
        let grid: SweepGrid = serde_json::from_str(grid_json)
            .map_err(|e| JsError::new(&format!("bad sweep grid: {e}")))?;
        let job = Arc::new(SweepJob::new(grid).map_err(|e| JsError::new(&e.to_string()))?);
        let id = NEXT_SWEEP.fetch_add(1, Ordering::Relaxed);
        lock_sweeps().insert(id, Arc::clone(&job));
        Ok(Sweep { id, job })
    }

    /// The id workers pass to `work_on_sweep`.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Number of points.
    #[wasm_bindgen(getter)]
    pub fn points(&self) -> u32 {
        self.job.len() as u32
    }

    /// Works on this sweep from the calling thread; returns the points it computed.
    pub fn work(&self) -> u32 {
        self.job.work() as u32
    }

    /// True once every point is computed.
    pub fn complete(&self) -> bool {
        self.job.is_complete()
    }

    /// The result table (a copy, row-major).
    pub fn rows(&self) -> Vec<u32> {
        self.job.rows()
    }
}

impl Drop for Sweep {
    fn drop(&mut self) {
        lock_sweeps().remove(&self.id);
    }
}

/// Called by a pool worker: work on sweep `id` until no chunk is left. Returns the points this
/// worker computed (0 if the sweep is already finished or gone).
#[wasm_bindgen]
pub fn work_on_sweep(id: u32) -> u32 {
    let job = lock_sweeps().get(&id).cloned();
    job.map_or(0, |job| job.work() as u32)
}

fn lock_sweeps() -> std::sync::MutexGuard<'static, BTreeMap<u32, Arc<SweepJob>>> {
    // A panic while holding the lock aborts the module (panic = "abort"), so poisoning cannot
    // be observed; recover the guard rather than unwrap.
    SWEEPS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comparison_steps_both_allocators_operation_by_operation() {
        let text = include_str!("../../run/tests/golden/slab-refill-4.7.slab");
        let c = Comparison::new(text).unwrap_or_else(|_| panic!("the scenario runs"));
        assert_eq!(c.operations(), 80);
        let ends: Vec<Vec<u32>> = (0..80).map(|i| c.op_end(i)).collect();
        // Cursors only move forward, in both traces, and end at the last step.
        assert!(ends
            .windows(2)
            .all(|w| w[0][0] <= w[1][0] && w[0][1] < w[1][1]));
        assert_eq!(ends[79][0], c.steps("slub").unwrap_or(0));
        assert_eq!(ends[79][1], c.steps("slab").unwrap_or(0));
        // Every kmem_cache_alloc of the second CPU's forty takes list_lock once every other
        // operation (a growing refill), as the lock count at those cursors shows.
        let locks = |op: usize| c.list_locks("slab", ends[op][1]).unwrap_or_default()[0];
        assert_eq!(locks(79) - locks(39), 20);
        let summary: serde_json::Value = serde_json::from_str(&c.summary()).unwrap();
        assert_eq!(summary["slab"]["list_locks"][0], 40);
        assert!(c
            .slabinfo("slab", ends[79][1])
            .unwrap_or_default()
            .contains(": tunables   24   12    8 :"));
    }
}
