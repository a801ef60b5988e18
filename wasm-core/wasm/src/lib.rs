//! The wasm boundary, and nothing else: JSON in, JSON or typed arrays out, big state behind
//! opaque handles. The types that cross are defined in `slabscope-sim`, `slabscope-scenario`
//! and `slabscope-run`, and exported to TypeScript from there; every answer is serialised here
//! once, and every failure is thrown as an `Error` whose message is a `SimError` as JSON
//! (`wire.rs` of the run crate).
//!
//! Threading: the same source builds single-threaded and, with `+atomics` and shared memory,
//! threaded. In the threaded build several Web Workers instantiate this module over one
//! `WebAssembly.Memory`; a sweep registered by one of them is found by the others through
//! `SWEEPS` and worked on with `work_on_sweep(id)`; a live run registered in `LIVES` is run by
//! one worker per CPU with `live_work(id, cpu)`.

use slabscope_run::explore_report::explore_report;
use slabscope_run::live::live_scenario;
use slabscope_run::live_file::{BlockJob, LiveFile};
use slabscope_run::wire::LiveResult;
use slabscope_run::wire::{BuildInfo, SimError, SnapshotAt};
use slabscope_run::RunProgress;
use slabscope_scenario::parse;
use slabscope_sim::geometry::{kmem_cache_geometry, CacheRequest};
use slabscope_sim::ids::Pfn;
use slabscope_sim::live::report::{LiveReport, LiveRequest};
use slabscope_sim::live::run::LiveJob;
use slabscope_sim::sweep::{SweepGrid, SweepJob, SWEEP_COLUMNS};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// A JavaScript function that hears how far a run has got: called with a `RunProgress` as
    /// JSON at each operation line and every `PROGRESS_EVERY` operations within one.
    #[wasm_bindgen(typescript_type = "(progress: string) => void")]
    pub type ProgressListener;

    /// `listener.call(context, progress)`.
    #[wasm_bindgen(method, js_name = call)]
    fn call(this: &ProgressListener, context: &JsValue, progress: &str);

    /// A JavaScript function that hears how many schedules an exploration has run, after each.
    #[wasm_bindgen(typescript_type = "(schedules: number) => void")]
    pub type ExploreListener;

    /// `listener.call(context, schedules)`.
    #[wasm_bindgen(method, js_name = call)]
    fn tell(this: &ExploreListener, context: &JsValue, schedules: u32);
}

/// The error thrown for `e`: its `SimError` JSON as the message.
fn fail(e: SimError) -> JsError {
    JsError::new(&serde_json::to_string(&e).expect("errors serialise"))
}

/// An `Invalid` error (a request the simulator cannot answer).
fn invalid(message: String) -> JsError {
    fail(SimError::invalid(message))
}

/// Sweeps in progress, by id, visible to every thread sharing this memory.
static SWEEPS: Mutex<BTreeMap<u32, Arc<SweepJob>>> = Mutex::new(BTreeMap::new());
static NEXT_SWEEP: AtomicU32 = AtomicU32::new(1);

/// The `BuildInfo` of this module as JSON, for a loader that runs `pool_size` workers over it
/// (`fallback` is the loader's to set).
#[wasm_bindgen]
pub fn build_info(pool_size: u32) -> String {
    let info = BuildInfo {
        profiles: slabscope_sim::profile::PROFILES
            .iter()
            .map(|p| p.id.to_string())
            .collect(),
        threaded: cfg!(target_feature = "atomics"),
        version: env!("CARGO_PKG_VERSION").to_string(),
        pool_size,
        fallback: None,
    };
    serde_json::to_string(&info).expect("build info serialises")
}

/// Parses a scenario without running it, for the editor's inline errors: `None` when it
/// parses, else the `ParseError` as JSON (line, column, key, arguments, English message and hint).
#[wasm_bindgen]
pub fn check_scenario(scenario: &str) -> Option<String> {
    parse(scenario)
        .err()
        .map(|e| serde_json::to_string(&e).expect("parse errors serialise"))
}

/// `slabscope compare`'s table of the scenario `text` run two ways: `a` and `b` are each
/// `PROFILE/ALLOCATOR` (`linux-7.2/slub`).
#[wasm_bindgen]
pub fn compare_table(text: &str, a: &str, b: &str) -> Result<String, JsError> {
    use slabscope_run::compare::{compare_variants, render_sides, side_label};
    use slabscope_sim::boot::Allocator;
    let scenario = parse(text).map_err(|e| JsError::new(&e.to_string()))?;
    let variant = |v: &'_ str| -> Result<(String, Allocator), JsError> {
        let (profile, allocator) = v.split_once('/').unwrap_or((v, "slub"));
        let allocator = match allocator {
            "slub" => Allocator::Slub,
            "slab" => Allocator::Slab,
            other => return Err(JsError::new(&format!("unknown allocator '{other}'"))),
        };
        Ok((profile.to_string(), allocator))
    };
    let (pa, aa) = variant(a)?;
    let (pb, ab) = variant(b)?;
    let (sa, sb) =
        compare_variants(&scenario, (&pa, aa), (&pb, ab)).map_err(|e| JsError::new(&e))?;
    Ok(render_sides(
        (&side_label(&sa, &sb), &sa),
        (&side_label(&sb, &sa), &sb),
    ))
}

/// One cache's geometry: a `CacheRequest` as JSON in, a `CacheGeometry` as JSON out.
#[wasm_bindgen]
pub fn geometry(request_json: &str) -> Result<String, JsError> {
    let request: CacheRequest = serde_json::from_str(request_json)
        .map_err(|e| invalid(format!("bad geometry request: {e}")))?;
    let answer = kmem_cache_geometry(&request).map_err(|e| invalid(e.to_string()))?;
    Ok(serde_json::to_string(&answer).expect("CacheGeometry always serialises"))
}

/// Every schedule of the first `concurrent` block of `scenario` that makes at most
/// `preemptions` forced switches, at most `max_schedules` of them, grouped by outcome: an
/// `ExploreReport` as JSON, each group with the scenario that replays it. `progress` (when
/// given) hears the schedules run so far after each. Bounds past the explorer's limits are
/// thrown as `invalid`, a scenario that does not parse or cannot run as `parse` or `run`.
#[wasm_bindgen]
pub fn explore(
    scenario: &str,
    preemptions: u32,
    max_schedules: u32,
    progress: Option<ExploreListener>,
) -> Result<String, JsError> {
    let mut tell = |n: usize| {
        if let Some(listener) = &progress {
            listener.tell(&JsValue::NULL, n as u32);
        }
    };
    let report = explore_report(scenario, preemptions, max_schedules, &mut tell).map_err(fail)?;
    Ok(serde_json::to_string(&report).expect("reports serialise"))
}

/// The standard workload of `npm run bench` (docs/bench.md), booted and ready: JavaScript
/// times `run` with its own clock.
#[wasm_bindgen]
pub struct Workload {
    rec: slabscope_sim::trace::Recorder,
}

#[wasm_bindgen]
impl Workload {
    /// Boots the standard machine with its kmalloc caches; `record` keeps the trace. Under
    /// `profile` (a kernel profile's id) when given, else linux-6.6.
    #[wasm_bindgen(constructor)]
    pub fn new(record: bool, profile: Option<String>) -> Result<Workload, JsValue> {
        let profile = match profile {
            None => &slabscope_sim::profile::LINUX_6_6,
            Some(id) => slabscope_sim::profile::by_id(&id)
                .ok_or_else(|| JsValue::from_str(&format!("unknown kernel profile '{id}'")))?,
        };
        Ok(Workload {
            rec: slabscope_sim::workload::standard_recorder_under(profile, record),
        })
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

    /// Runs `ops` operations of the concurrent workload (4 CPUs at once under a seeded random
    /// schedule); returns the `ConcurrentReport` as JSON, with `trace_bytes`.
    pub fn run_concurrent(&mut self, ops: u32, seed: u32) -> String {
        let report = slabscope_sim::workload::run_concurrent_ops(
            &mut self.rec,
            u64::from(ops),
            u64::from(seed),
        );
        let mut value = serde_json::to_value(&report).expect("reports serialise");
        value["trace_bytes"] = self.rec.trace_bytes().into();
        value.to_string()
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
    /// Parses and runs the scenario, telling `progress` (when given) how far the run has got.
    /// A scenario that does not parse or cannot run is thrown as a `parse` or `run`
    /// `SimError`.
    #[wasm_bindgen(constructor)]
    pub fn new(scenario: &str, progress: Option<ProgressListener>) -> Result<Session, JsError> {
        let mut report = |p: &RunProgress| {
            if let Some(listener) = &progress {
                let json = serde_json::to_string(p).expect("progress serialises");
                listener.call(&JsValue::NULL, &json);
            }
        };
        slabscope_run::session::Session::open_with_progress(scenario, &mut report)
            .map(|inner| Session { inner })
            .map_err(|e| fail(e.into()))
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

    /// The `Overview` as JSON: each step's kinds and kernel path, for the overview strip and
    /// the breakpoints.
    pub fn overview(&self) -> String {
        serde_json::to_string(&self.inner.overview()).expect("overviews serialise")
    }

    /// The `SnapshotAt` `cursor` as JSON: the snapshot after `cursor` steps and the step that
    /// led there; `query` is a `SnapshotQuery` as JSON.
    pub fn view(&self, cursor: u32, query: &str) -> Result<String, JsError> {
        let query: slabscope_sim::snapshot::SnapshotQuery =
            serde_json::from_str(query).map_err(|e| invalid(format!("bad snapshot query: {e}")))?;
        let snapshot = self
            .inner
            .snapshot(cursor as usize, &query)
            .ok_or_else(|| invalid(format!("no step {cursor}")))?;
        let step = cursor
            .checked_sub(1)
            .and_then(|i| self.inner.recorder().step(i as usize));
        Ok(serde_json::to_string(&SnapshotAt { snapshot, step }).expect("snapshots serialise"))
    }

    /// `KernelFiles` after `cursor` steps as JSON, with `/sys/kernel/slab/<cache>/`.
    pub fn files(&self, cursor: u32, cache: Option<String>) -> Result<String, JsError> {
        let files = self
            .inner
            .files(cursor as usize, cache.as_deref())
            .ok_or_else(|| invalid(format!("no step {cursor}")))?;
        Ok(serde_json::to_string(&files).expect("files serialise"))
    }

    /// The micro-steps of step `step` (0-based), captioned (`MicroStepCaption`s), as JSON.
    pub fn micro_steps(&self, step: u32) -> Result<String, JsError> {
        let micro = self
            .inner
            .micro_steps(step as usize)
            .map_err(|e| fail(e.into()))?;
        Ok(serde_json::to_string(&micro).expect("micro-steps serialise"))
    }

    /// The `LaneStep`s of concurrent block `index` as JSON.
    pub fn lanes(&self, index: u32) -> Result<String, JsError> {
        let lanes = self
            .inner
            .lanes(index as usize)
            .ok_or_else(|| invalid(format!("no concurrent block {index}")))?;
        Ok(serde_json::to_string(&lanes).expect("lanes serialise"))
    }

    /// The `Lane` of the object at `addr` (hex) as JSON.
    pub fn object_lane(&self, addr: &str) -> Result<String, JsError> {
        let value = slabscope_sim::snapshot::parse_addr(addr)
            .ok_or_else(|| invalid(format!("not an address: {addr}")))?;
        let lane = self
            .inner
            .object_lane(value)
            .ok_or_else(|| invalid(format!("{addr} is not in simulated memory")))?;
        Ok(serde_json::to_string(&lane).expect("lanes serialise"))
    }

    /// The `Lane` of page frame `pfn` as JSON.
    pub fn page_lane(&self, pfn: u32) -> Result<String, JsError> {
        let lane = self
            .inner
            .page_lane(Pfn(pfn))
            .ok_or_else(|| invalid(format!("no page frame {pfn}")))?;
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
        let grid: SweepGrid =
            serde_json::from_str(grid_json).map_err(|e| invalid(format!("bad sweep grid: {e}")))?;
        let job = Arc::new(SweepJob::new(grid).map_err(|e| invalid(e.to_string()))?);
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

    /// The explorer as the page calls it: the ABA race without the tid, explored whole, comes
    /// back as an `ExploreReport` whose groups carry keyed findings and a replay.
    #[test]
    fn explore_answers_a_report_as_json() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../run/tests/golden/smp-aba-no-tid.slab"
        );
        let source = std::fs::read_to_string(path).expect("readable");
        let json = explore(&source, 2, 10_000, None).unwrap_or_else(|_| panic!("explores"));
        let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(report["schedules"], 57);
        assert_eq!(report["cut_short"], false);
        let groups = report["groups"].as_array().expect("groups");
        assert!(groups.len() > 1);
        let damaged = groups
            .iter()
            .find(|g| !g["damage"].as_array().expect("damage").is_empty())
            .expect("a damaged group");
        assert_eq!(damaged["damage"][0]["key"], "damage.stale_cpu_freelist");
        assert_eq!(
            damaged["damage"][0]["args"][0],
            serde_json::json!(["cpu", "0"])
        );
        let replay = damaged["replay"].as_str().expect("a replay");
        assert!(replay.contains("concurrent explicit\n"));
        assert!(replay.contains(&format!(
            "  schedule {}\n",
            damaged["schedule"].as_str().unwrap()
        )));
    }
}

/// The work of one CPU of a live run, for a pool worker to do.
trait CpuWork: Send + Sync {
    fn run_cpu(&self, cpu: u32);
}

impl CpuWork for LiveJob {
    fn run_cpu(&self, cpu: u32) {
        LiveJob::run_cpu(self, cpu);
    }
}

impl CpuWork for BlockJob {
    fn run_cpu(&self, cpu: u32) {
        BlockJob::run_cpu(self, cpu);
    }
}

/// Live runs in progress (the standard workload's, or a scenario's block), by id, visible to
/// every thread sharing this memory (threaded build): each pool worker runs one CPU of one with
/// `live_work(id, cpu)`.
static LIVES: Mutex<BTreeMap<u32, Arc<dyn CpuWork>>> = Mutex::new(BTreeMap::new());
static NEXT_LIVE: AtomicU32 = AtomicU32::new(1);

/// Most operations a live run in the browser may have, recorded or not (a recorded run keeps
/// its log one epoch at a time: `slabscope_sim::live::run::EPOCH_OPS`).
pub const MAX_LIVE_OPS: u64 = 20_000_000;

/// A registered live run (docs/live.md). Dropping it (JS `free()`) unregisters it.
#[wasm_bindgen]
pub struct Live {
    id: u32,
    request: LiveRequest,
    job: Option<Arc<LiveJob>>,
}

#[wasm_bindgen]
impl Live {
    /// Validates a `LiveRequest` (JSON) and registers the run for workers to share.
    #[wasm_bindgen(constructor)]
    pub fn new(request_json: &str) -> Result<Live, JsError> {
        let request: LiveRequest = serde_json::from_str(request_json)
            .map_err(|e| invalid(format!("bad live request: {e}")))?;
        if request.ops > MAX_LIVE_OPS {
            return Err(invalid(format!(
                "{} operations: a live run in the browser has at most {MAX_LIVE_OPS}",
                request.ops
            )));
        }
        let job = LiveJob::new(
            request.threads,
            request.ops,
            request.seed,
            request.frees,
            request.record,
        )
        .map_err(|refusal| invalid(refusal.to_string()))?;
        let job = Arc::new(job);
        let id = NEXT_LIVE.fetch_add(1, Ordering::Relaxed);
        lock_lives().insert(id, Arc::clone(&job) as Arc<dyn CpuWork>);
        Ok(Live {
            id,
            request,
            job: Some(job),
        })
    }

    /// The id workers pass to `live_work`.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Once every thread has run its share of the epoch (`seconds[t]`: thread `t`'s time):
    /// replays the epoch (a recorded run) and says whether another follows (then every worker
    /// runs `live_work` again).
    pub fn end_epoch(&mut self, seconds: Vec<f64>) -> Result<bool, JsError> {
        let job = self
            .job
            .as_ref()
            .ok_or_else(|| invalid("this live run is finished".to_string()))?;
        Ok(job.end_epoch(&seconds))
    }

    /// After the last epoch: the figures, the replay's verdict and, for a recorded run small
    /// enough, its scenario, as a `LiveResult` (JSON).
    pub fn finish(&mut self) -> Result<String, JsError> {
        lock_lives().remove(&self.id);
        let job = self
            .job
            .take()
            .ok_or_else(|| invalid("this live run is finished".to_string()))?;
        let job = Arc::try_unwrap(job)
            .map_err(|_| invalid("a worker still runs this live run".to_string()))?;
        let run = job.finish();
        let report = LiveReport::of(&run, self.request.frees);
        let (scenario, scenario_error) = if self.request.record {
            match live_scenario(&run, self.request.seed, self.request.frees) {
                Ok(text) => (Some(text), None),
                Err(e) => (None, Some(e.to_string())),
            }
        } else {
            (None, None)
        };
        let result = LiveResult {
            report,
            scenario,
            scenario_error,
        };
        Ok(serde_json::to_string(&result).expect("a live result serialises"))
    }
}

/// A live run of a scenario (docs/live.md, "A scenario, live"), block by block: `next_block`
/// registers the next block for pool workers (`live_work(id, cpu)` for each CPU it returns),
/// `end_block` takes it back and checks its replay, `finish` gives the `LiveFileReport` (JSON).
#[wasm_bindgen]
pub struct LiveScenario {
    id: u32,
    file: Option<LiveFile>,
    job: Option<Arc<BlockJob>>,
}

#[wasm_bindgen]
impl LiveScenario {
    /// A live run of the scenario `text` on at most `max_threads` workers (a `SimError` if it
    /// cannot run live).
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, max_threads: u32) -> Result<LiveScenario, JsError> {
        let file = LiveFile::new(text)
            .and_then(|f| f.with_max_threads(max_threads))
            .map_err(|e| fail(SimError::from(&e)))?;
        Ok(LiveScenario {
            id: NEXT_LIVE.fetch_add(1, Ordering::Relaxed),
            file: Some(file),
            job: None,
        })
    }

    /// The id workers pass to `live_work`.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Runs the scenario to its next block and registers it: the CPUs whose threads run it
    /// (none: no block left).
    pub fn next_block(&mut self) -> Result<Vec<u32>, JsError> {
        let file = self.file_mut()?;
        match file.next_block().map_err(|e| fail(SimError::from(&e)))? {
            None => Ok(Vec::new()),
            Some(job) => {
                let cpus = job.cpus();
                lock_lives().insert(self.id, Arc::clone(&job) as Arc<dyn CpuWork>);
                self.job = Some(job);
                Ok(cpus)
            }
        }
    }

    /// Once every thread of the block has run (`seconds[c]`: CPU `c`'s time): its replay
    /// checked.
    pub fn end_block(&mut self, seconds: Vec<f64>) -> Result<(), JsError> {
        lock_lives().remove(&self.id);
        let job = self
            .job
            .take()
            .ok_or_else(|| invalid("no block of this live run is running".to_string()))?;
        self.file_mut()?
            .end_block(job, &seconds)
            .map_err(|e| fail(SimError::from(&e)))
    }

    /// Each block's figures and the scenario that replays the run (`LiveFileReport` JSON).
    pub fn finish(&mut self) -> Result<String, JsError> {
        let file = self
            .file
            .take()
            .ok_or_else(|| invalid("this live run is finished".to_string()))?;
        let report = file.finish().map_err(|e| fail(SimError::from(&e)))?;
        Ok(serde_json::to_string(&report).expect("a live report serialises"))
    }

    fn file_mut(&mut self) -> Result<&mut LiveFile, JsError> {
        self.file
            .as_mut()
            .ok_or_else(|| invalid("this live run is finished".to_string()))
    }
}

impl Drop for LiveScenario {
    fn drop(&mut self) {
        lock_lives().remove(&self.id);
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        lock_lives().remove(&self.id);
    }
}

/// Called by a pool worker: run CPU `cpu` of live run `id` (false if the run is gone).
#[wasm_bindgen]
pub fn live_work(id: u32, cpu: u32) -> bool {
    let job = lock_lives().get(&id).cloned();
    job.map(|job| job.run_cpu(cpu)).is_some()
}

fn lock_lives() -> std::sync::MutexGuard<'static, BTreeMap<u32, Arc<dyn CpuWork>>> {
    LIVES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
