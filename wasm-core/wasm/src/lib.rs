//! The wasm boundary, and nothing else: JSON in, JSON or typed arrays out, big state behind
//! opaque handles. The types that cross are defined in `slabscope-sim` and exported to
//! TypeScript from there.
//!
//! Threading: the same source builds single-threaded and, with `+atomics` and shared memory,
//! threaded. In the threaded build several Web Workers instantiate this module over one
//! `WebAssembly.Memory`; a sweep registered by one of them is found by the others through
//! `SWEEPS` and worked on with `work_on_sweep(id)`.

use slabscope_sim::geometry::{kmem_cache_geometry, CacheRequest};
use slabscope_sim::sweep::{SweepGrid, SweepJob, SWEEP_COLUMNS};
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
