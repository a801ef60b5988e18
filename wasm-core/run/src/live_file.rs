//! A live run of a scenario (`slabscope live FILE`, the app's live page): its lines before a
//! `concurrent` block run as always; the block runs live, each CPU of it on its own thread over
//! one shared memory (docs/live.md), and its schedule becomes the order the threads' shared
//! accesses took. The scenario with each block's schedule so replaced is the replay: it is run,
//! and at each block's end its state, names and lists must equal the live ones.
//!
//! What a block may hold, live: one task per CPU (no `task N`, no `irq`: a live CPU is one
//! thread, and nothing interrupts it), and the operations whose kernel paths live mode runs:
//! `kmalloc`, `kmem_cache_alloc`, `kfree`, `kmem_cache_free` and `flush_cpu_slab`, each on an
//! object the run allocated and has not freed. A line that reads a name another line of the
//! block gives a value to waits, as on the interleaving engine, until every line that gives it
//! one has run (its thread spins).
//!
//! A block runs in three calls, so that the threads can be Web Workers that the caller starts:
//! `LiveFile::next_block` runs the scenario up to the block and returns its `BlockJob`; each
//! thread calls `BlockJob::run_cpu`; `LiveFile::end_block` merges the logs, writes the schedule
//! and checks the replay.

use crate::concurrent::RunState;
use crate::concurrent::{
    block_pending, expanded, first_pending, list_refs, op_refs, ref_name, run_block, store_result,
    target_name, task_label, OutValue, MAX_BLOCK_STEPS,
};
use crate::explore_report::{is_schedule_line, replay_text};
use crate::lists::eval_list;
use crate::run::{lookup_cache, object, resolve, run_inner, Caches, RunError, Value};
use crate::site::{call_site_address, call_site_name};
use crate::translate;
use serde::Serialize;
use slabscope_scenario::{Block, Op, OpLine, Scenario, ScheduleDecl, ScheduleStep, TaskSlot};
use slabscope_sim::boot::Allocator;
use slabscope_sim::ids::{CacheId, CpuId};
use slabscope_sim::live::record::{merge, ThreadLog};
use slabscope_sim::live::report::{LiveReport, ReplayFigures};
use slabscope_sim::live::{with_short_tids, LiveCpu, LiveMem, LiveRefusal, LiveStats, NotAnObject};
use slabscope_sim::machine::Machine;
use slabscope_sim::slub::kmalloc_slab;
use slabscope_sim::smp::schedule::Choice;
use slabscope_sim::trace::Recorder;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Why a scenario cannot run live, or did not replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveFileError {
    /// The scenario does not parse.
    Parse(slabscope_scenario::ParseError),
    /// The scenario's run fails (as `slabscope run` would say).
    Run(RunError),
    /// The scenario has no `concurrent` block.
    NoBlock,
    /// The scenario's allocator is SLAB.
    Slab,
    /// The line at `at` cannot run live, for the reason `why`.
    NotLive { at: u32, why: NotLive },
    /// The machine as it is at the block at `line` cannot run live (a debug or hardened cache).
    Machine { line: u32, refusal: LiveRefusal },
    /// The free at `at` is of something that is not an allocated object.
    BadFree { at: u32, what: BadFree },
    /// The merged schedule has more micro-steps than a block may.
    TooLong { line: u32, steps: usize },
    /// The replay of the block at `line` differs from the live run (a bug): `what`, with both
    /// values.
    Mismatch { line: u32, what: String },
    /// The block at `line` runs on `cpus` CPUs, more than the `max` threads the caller has
    /// (the app's pool workers).
    TooManyCpus { line: u32, cpus: u32, max: u32 },
    /// A thread still runs the block.
    Busy,
}

/// Why a line of a block cannot run live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotLive {
    /// A line of another task than the CPU's one (`cpu1 irq`, `cpu0 task 1`).
    Task(String),
    /// An operation whose kernel path live mode does not run.
    Op(&'static str),
    /// `kmalloc(size)` of a size no kmalloc cache serves.
    NoKmallocCache(u64),
    /// An operation (`.0`) on a destroyed cache (`.1`).
    DestroyedCache(&'static str, String),
    /// `kmem_cache_free()` to cache `named` of an object of cache `of`.
    WrongCache { named: String, of: String },
    /// The block is taught without the tid (`teaching no_tid`), a race the kernel prevents.
    NoTid,
}

impl std::fmt::Display for NotLive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotLive::Task(task) => write!(f, "a line of {task}"),
            NotLive::Op(op) => write!(f, "{op}"),
            NotLive::NoKmallocCache(size) => {
                write!(f, "kmalloc({size}), which no kmalloc cache serves,")
            }
            NotLive::DestroyedCache(op, cache) => write!(f, "{op} of the destroyed cache {cache}"),
            NotLive::WrongCache { named, of } => {
                write!(f, "kmem_cache_free() to {named} of an object of {of}")
            }
            NotLive::NoTid => write!(f, "a block taught without the tid"),
        }
    }
}

/// What a free that live mode refuses frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadFree {
    /// An object that is already free (a double free).
    Free,
    /// An address that is not the start of a slab object.
    NotAnObject,
    /// Pages from `alloc_pages`.
    Pages,
}

impl std::fmt::Display for BadFree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BadFree::Free => "an object that is already free",
            BadFree::NotAnObject => "an address that is not the start of a slab object",
            BadFree::Pages => "pages from alloc_pages",
        })
    }
}

impl std::fmt::Display for LiveFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiveFileError::Parse(e) => write!(f, "{e}"),
            LiveFileError::Run(e) => write!(f, "{e}"),
            LiveFileError::NoBlock => write!(
                f,
                "the scenario has no concurrent block: live mode runs the operations between `concurrent` and `end` on one thread per CPU"
            ),
            LiveFileError::Slab => write!(
                f,
                "live mode runs SLUB's lockless paths; this scenario's allocator is SLAB"
            ),
            LiveFileError::NotLive { at, why } => write!(
                f,
                "line {at}: {why} cannot run live; a live block holds kmalloc, kmem_cache_alloc, kfree, kmem_cache_free and flush_cpu_slab, one task per CPU (`slabscope run` runs the rest on the interleaving engine)"
            ),
            LiveFileError::Machine { line, refusal } => {
                write!(f, "line {line}: the machine cannot run live: {refusal}")
            }
            LiveFileError::BadFree { at, what } => write!(
                f,
                "line {at}: live, this free is of {what}; live mode frees only objects the run allocated and has not freed"
            ),
            LiveFileError::TooLong { line, steps } => write!(
                f,
                "line {line}: the block took {steps} micro-steps live; a block replays at most {MAX_BLOCK_STEPS}"
            ),
            LiveFileError::Mismatch { line, what } => write!(
                f,
                "line {line}: the replay differs from the live run: {what}"
            ),
            LiveFileError::TooManyCpus { line, cpus, max } => write!(
                f,
                "line {line}: the block runs on {cpus} CPUs, one thread each, and there are {max} here"
            ),
            LiveFileError::Busy => write!(f, "a thread still runs the block"),
        }
    }
}

impl std::error::Error for LiveFileError {}

impl LiveFileError {
    /// The scenario line the error is about (0: none in particular).
    pub fn line(&self) -> u32 {
        match self {
            LiveFileError::Parse(e) => e.line,
            LiveFileError::Run(e) => e.line(),
            LiveFileError::NotLive { at, .. } | LiveFileError::BadFree { at, .. } => *at,
            LiveFileError::Machine { line, .. }
            | LiveFileError::TooManyCpus { line, .. }
            | LiveFileError::TooLong { line, .. }
            | LiveFileError::Mismatch { line, .. } => *line,
            LiveFileError::NoBlock | LiveFileError::Slab | LiveFileError::Busy => 0,
        }
    }

    /// A stable key for the kind of error and the values its message names (see
    /// `RunError::key_args`).
    pub fn key_args(&self) -> (&'static str, Vec<(&'static str, String)>) {
        match self {
            LiveFileError::Parse(e) => ("live.parse", vec![("message", e.to_string())]),
            LiveFileError::Run(e) => e.key_args(),
            LiveFileError::NoBlock => ("live.no_block", vec![]),
            LiveFileError::Slab => ("live.slab", vec![]),
            LiveFileError::NotLive { at, why } => {
                let line = ("line", at.to_string());
                match why {
                    NotLive::Task(task) => {
                        ("live.not_live_task", vec![line, ("task", task.clone())])
                    }
                    NotLive::Op(op) => ("live.not_live_op", vec![line, ("op", op.to_string())]),
                    NotLive::NoKmallocCache(size) => (
                        "live.no_kmalloc_cache",
                        vec![line, ("size", size.to_string())],
                    ),
                    NotLive::DestroyedCache(op, cache) => (
                        "live.destroyed_cache",
                        vec![line, ("op", op.to_string()), ("cache", cache.clone())],
                    ),
                    NotLive::WrongCache { named, of } => (
                        "live.wrong_cache",
                        vec![line, ("named", named.clone()), ("of", of.clone())],
                    ),
                    NotLive::NoTid => ("live.no_tid", vec![line]),
                }
            }
            LiveFileError::Machine { line, refusal } => {
                let line = ("line", line.to_string());
                match refusal {
                    LiveRefusal::Hardened(cache) => (
                        "live.machine_hardened",
                        vec![line, ("cache", cache.clone())],
                    ),
                    LiveRefusal::Debug(cache) => {
                        ("live.machine_debug", vec![line, ("cache", cache.clone())])
                    }
                    LiveRefusal::Bounds(why) => ("live.machine", vec![line, ("why", why.clone())]),
                    LiveRefusal::Profile(id) => (
                        "live.machine_profile",
                        vec![line, ("profile", (*id).to_string())],
                    ),
                }
            }
            LiveFileError::BadFree { at, what } => (
                match what {
                    BadFree::Free => "live.double_free",
                    BadFree::NotAnObject => "live.bad_free",
                    BadFree::Pages => "live.free_pages",
                },
                vec![("line", at.to_string())],
            ),
            LiveFileError::TooLong { line, steps } => (
                "live.too_long",
                vec![
                    ("line", line.to_string()),
                    ("steps", steps.to_string()),
                    ("max", MAX_BLOCK_STEPS.to_string()),
                ],
            ),
            LiveFileError::Mismatch { line, what } => (
                "live.mismatch",
                vec![("line", line.to_string()), ("what", what.clone())],
            ),
            LiveFileError::TooManyCpus { line, cpus, max } => (
                "live.too_many_cpus",
                vec![
                    ("line", line.to_string()),
                    ("cpus", cpus.to_string()),
                    ("max", max.to_string()),
                ],
            ),
            LiveFileError::Busy => ("live.busy", vec![]),
        }
    }
}

/// What one block did live, and what its replay found.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LiveBlockReport {
    /// Its `concurrent` line in the scenario the run was given.
    pub line: u32,
    /// The figures (per thread, retries by site, `list_lock`, the replay's verdict).
    pub report: LiveReport,
}

/// A live run of a scenario: each block's figures, and the scenario that replays it.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LiveFileReport {
    pub blocks: Vec<LiveBlockReport>,
    /// The scenario with each block's schedule the one its threads took: running it is the
    /// replay.
    pub replay: String,
}

/// A scenario being run live, block by block.
pub struct LiveFile {
    text: String,
    scenario: Scenario,
    /// The schedule each block run so far took live, in order: the blocks before `next`.
    taken: Vec<Vec<Choice>>,
    next: usize,
    blocks: Vec<LiveBlockReport>,
}

/// The run at a block's start: its machine, names, lists, list elements left to build, and
/// caches.
struct AtBlock {
    machine: Machine,
    names: BTreeMap<String, Value>,
    lists: BTreeMap<String, Vec<Value>>,
    budget: usize,
    caches: Caches,
}

/// One block, ready for its threads.
pub struct BlockJob {
    /// The machine at the block's start, and the block.
    base: Machine,
    block: Block,
    mem: LiveMem,
    /// Per machine CPU: its lines in the block (none: no thread).
    lines: Vec<Vec<OpLine>>,
    /// The cache each `kmalloc`, `kmem_cache_alloc`, `kmem_cache_free` and `flush_cpu_slab`
    /// line uses, by line.
    caches: BTreeMap<u32, CacheId>,
    names: Mutex<Names>,
    done: Vec<Mutex<Option<(LiveStats, ThreadLog)>>>,
    /// Threads that have come to the start line.
    arrived: AtomicU32,
}

/// How long a thread waits at the start for the others (spins): long enough for threads that
/// start together to go together, short enough that a caller with fewer workers than CPUs
/// (whose threads then run one after another) loses little.
const START_SPINS: u32 = 1 << 22;

/// The names and lists the block's threads share, with what a line still has to give them.
struct Names {
    names: BTreeMap<String, Value>,
    lists: BTreeMap<String, Vec<Value>>,
    pending: BTreeMap<String, u32>,
    budget: usize,
    /// Each name the block gives values to: its number (`Res::name`) and how many values it
    /// was given so far.
    ids: BTreeMap<String, (u32, u64)>,
    /// Per machine CPU: the name its thread waits for; and whether it has finished.
    waits: Vec<Option<String>>,
    finished: Vec<bool>,
    /// The first error: every thread stops.
    error: Option<LiveFileError>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl LiveFile {
    /// A live run of the scenario `text`.
    pub fn new(text: &str) -> Result<LiveFile, LiveFileError> {
        let scenario = slabscope_scenario::parse(text).map_err(LiveFileError::Parse)?;
        if scenario.blocks.is_empty() {
            return Err(LiveFileError::NoBlock);
        }
        if translate::allocator(scenario.allocator) != Allocator::Slub {
            return Err(LiveFileError::Slab);
        }
        Ok(LiveFile {
            text: text.to_string(),
            scenario,
            taken: Vec::new(),
            next: 0,
            blocks: Vec::new(),
        })
    }

    /// The run, refused before anything runs if a block has more CPUs than `max` threads.
    pub fn with_max_threads(self, max: u32) -> Result<LiveFile, LiveFileError> {
        for (line, cpus) in block_cpus(&self.scenario) {
            if cpus.len() as u32 > max {
                return Err(LiveFileError::TooManyCpus {
                    line,
                    cpus: cpus.len() as u32,
                    max,
                });
            }
        }
        Ok(self)
    }

    /// Runs the scenario up to its next block (the blocks before it under the schedules they
    /// took live) and makes that block's job (`None`: no block left).
    pub fn next_block(&mut self) -> Result<Option<Arc<BlockJob>>, LiveFileError> {
        let Some(block) = self.scenario.blocks.get(self.next).cloned() else {
            return Ok(None);
        };
        let mut at: Option<AtBlock> = None;
        let mut on_block = |rec: &mut Recorder, state: &mut RunState<'_>, caches: &Caches| {
            at = Some(AtBlock {
                machine: rec.machine().clone(),
                names: state.0.clone(),
                lists: state.1.clone(),
                budget: *state.3,
                caches: caches.clone(),
            });
        };
        run_taken(
            &self.scenario,
            &self.taken,
            Some((Stop::Next, &mut on_block)),
        )?;
        let at = at.expect("the run reaches every block of its scenario");
        BlockJob::new(&self.scenario, block, at).map(|j| Some(Arc::new(j)))
    }

    /// The block `job` ran (its threads done, `seconds[c]` CPU `c`'s time): merges its logs
    /// into its schedule and runs the replay to the block's end, comparing its state, names
    /// and lists with the live ones.
    pub fn end_block(&mut self, job: Arc<BlockJob>, seconds: &[f64]) -> Result<(), LiveFileError> {
        let job = Arc::try_unwrap(job).map_err(|_| LiveFileError::Busy)?;
        let names = job
            .names
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(e) = names.error {
            return Err(e);
        }
        let line = job.block.line;
        let (mut stats, mut logs, mut secs, mut cpus) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (c, slot) in job.done.into_iter().enumerate() {
            let (s, log) = slot
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .unwrap_or_default();
            if !job.lines[c].is_empty() {
                stats.push(s);
                secs.push(seconds.get(c).copied().unwrap_or(0.0));
                cpus.push(c as u32);
            }
            logs.push(log);
        }
        let choices = merge(&logs).map_err(|e| LiveFileError::Mismatch {
            line,
            what: format!(
                "the micro-steps cannot be put in one order: {} of {} placed",
                e.placed, e.total
            ),
        })?;
        if choices.len() > MAX_BLOCK_STEPS {
            return Err(LiveFileError::TooLong {
                line,
                steps: choices.len(),
            });
        }
        let micro_steps = choices.len() as u64;
        self.taken.push(choices);
        let live = job.mem.to_machine(&job.base);
        let mut end: Option<AtEnd> = None;
        let mut on_block = |rec: &mut Recorder, state: &mut RunState<'_>, _: &Caches| {
            end = Some((
                with_short_tids(rec.machine().clone()),
                state.0.clone(),
                state.1.clone(),
            ));
        };
        let replayed = run_taken(
            &self.scenario,
            &self.taken,
            Some((Stop::Taken, &mut on_block)),
        );
        let mismatch = match (replayed, end) {
            (Err(e), _) => Some(format!("the replay stopped: {e}")),
            (Ok(_), None) => Some("the replay did not reach the block's end".to_string()),
            (Ok(_), Some((machine, _, _))) if machine != live => Some(
                slabscope_sim::live::first_difference(&live, &machine)
                    .unwrap_or_else(|| "the states differ".to_string()),
            ),
            (Ok(_), Some((_, n, _))) if n != names.names => Some(format!(
                "the names differ: live {:?}, in the replay {n:?}",
                names.names
            )),
            (Ok(_), Some((_, _, l))) if l != names.lists => Some(format!(
                "the lists differ: live {:?}, in the replay {l:?}",
                names.lists
            )),
            _ => None,
        };
        self.blocks.push(LiveBlockReport {
            line,
            report: LiveReport::from_parts(
                &cpus,
                &stats,
                &secs,
                None,
                Some(ReplayFigures {
                    micro_steps,
                    mismatch: mismatch.clone(),
                    violations: Vec::new(),
                    epochs: 1,
                }),
            ),
        });
        if let Some(what) = mismatch {
            return Err(LiveFileError::Mismatch { line, what });
        }
        self.next += 1;
        Ok(())
    }

    /// Each block's figures, and the scenario that replays the run: its text with each block
    /// explicit, under the schedule it took. That scenario is run whole, and must end where
    /// the live run (with its blocks replayed) ends.
    pub fn finish(self) -> Result<LiveFileReport, LiveFileError> {
        let mut text = self.text.clone();
        // The last block first: rewriting one moves only the lines after it.
        for (k, choices) in self.taken.iter().enumerate().rev() {
            let line = self.scenario.blocks[k].line;
            let block = &slabscope_scenario::parse(&text)
                .map_err(LiveFileError::Parse)?
                .blocks[k];
            // Its comments about the schedule it had go first (the lines move: parsed again).
            text = without_schedule_comments(&text, block);
            let block = &slabscope_scenario::parse(&text)
                .map_err(LiveFileError::Parse)?
                .blocks[k];
            let replay = replay_text(&text, block, choices);
            let mut lines: Vec<&str> = replay.lines().collect();
            let threads = self.blocks[k].report.threads;
            let comment = format!(
                "# The schedule of this block is what {threads} threads did live, one per CPU ({} micro-steps; the block is at line {line} of the scenario run).",
                choices.len()
            );
            lines.insert(block.line as usize - 1, &comment);
            text = lines.join("\n") + "\n";
        }
        let replay = slabscope_scenario::parse(&text).map_err(|e| LiveFileError::Mismatch {
            line: 0,
            what: format!("the replay does not parse: {e}"),
        })?;
        let whole = crate::run::run(&replay, false).map_err(LiveFileError::Run)?;
        let live = run_taken(&self.scenario, &self.taken, None)?;
        if whole.machine() != &live {
            return Err(LiveFileError::Mismatch {
                line: 0,
                what: slabscope_sim::live::first_difference(&live, whole.machine())
                    .unwrap_or_else(|| "the final states differ".to_string()),
            });
        }
        Ok(LiveFileReport {
            blocks: self.blocks,
            replay: text,
        })
    }
}

/// The cache line `l` of a live block uses (none for `kfree`), or why it cannot run live.
fn line_cache(
    l: &OpLine,
    rec: &Recorder,
    caches: &Caches,
) -> Result<Option<CacheId>, LiveFileError> {
    let cache = |name: &String| lookup_cache(rec, caches, l.line, name).map_err(LiveFileError::Run);
    let not_live = |why: NotLive| LiveFileError::NotLive { at: l.line, why };
    match &l.op {
        Op::Kmalloc {
            size, gfp, site, ..
        } => {
            let caller = call_site_address(&call_site_name(site.as_deref(), l.line));
            match kmalloc_slab(rec, *size, translate::gfp(*gfp), caller) {
                Ok(Ok((c, _))) if *size > 0 => Ok(Some(c)),
                _ => Err(not_live(NotLive::NoKmallocCache(*size))),
            }
        }
        Op::KmemCacheAlloc { cache: c, .. } | Op::FlushCpuSlab { cache: c } => {
            let id = cache(c)?;
            let s = &rec.machine().slub().caches[id];
            if s.destroyed {
                return Err(not_live(NotLive::DestroyedCache(
                    l.op.name(),
                    s.name.clone(),
                )));
            }
            Ok(Some(id))
        }
        Op::KmemCacheFree { cache: c, .. } => Ok(Some(cache(c)?)),
        Op::Kfree { .. } => Ok(None),
        other => Err(not_live(NotLive::Op(other.name()))),
    }
}

/// `text` without the comment lines of `block` that follow its last operation line: they speak
/// of the schedule the live one replaces.
fn without_schedule_comments(text: &str, block: &Block) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let inside = |i: usize| (i as u32 + 1) > block.line && (i as u32 + 1) < block.end_line;
    let is_op = |l: &str| {
        let t = l.trim_start();
        !t.is_empty() && !t.starts_with('#') && !is_schedule_line(l)
    };
    let last_op = (0..lines.len())
        .filter(|&i| inside(i) && is_op(lines[i]))
        .max();
    let mut out = String::with_capacity(text.len());
    for (i, l) in lines.iter().enumerate() {
        if inside(i) && last_op.is_some_and(|o| i > o) && l.trim_start().starts_with('#') {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The machine, names and lists at the end of a block.
type AtEnd = (
    Machine,
    BTreeMap<String, Value>,
    BTreeMap<String, Vec<Value>>,
);

/// What a run under `run_taken` does at the point it stops at.
type OnBlock<'h> = dyn FnMut(&mut Recorder, &mut RunState<'_>, &Caches) + 'h;

/// Where `run_taken` stops.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// At the start of the first block without a schedule.
    Next,
    /// At the end of the last block with one.
    Taken,
}

/// Runs `scenario` with its first blocks under the schedules `taken` gives them, the others
/// under their own. With `stop`, until that point, which `on_block` sees; without, to the end.
/// The machine where it stopped.
fn run_taken(
    scenario: &Scenario,
    taken: &[Vec<Choice>],
    mut stop: Option<(Stop, &mut OnBlock<'_>)>,
) -> Result<Machine, LiveFileError> {
    let mut hook = |rec: &mut Recorder, b: &Block, caches: &Caches, state: &mut RunState<'_>| {
        let k = scenario
            .blocks
            .iter()
            .position(|x| x.line == b.line)
            .expect("a block of the scenario");
        let Some(choices) = taken.get(k) else {
            if let Some((Stop::Next, f)) = stop.as_mut() {
                f(rec, state, caches);
                return Ok(None);
            }
            return run_block(rec, scenario, b, caches, state, None).map(Some);
        };
        let mut block = b.clone();
        block.schedule = ScheduleDecl::Explicit {
            steps: choices
                .iter()
                .map(|c| match *c {
                    Choice::Run { cpu } => ScheduleStep::Run {
                        cpu: u32::from(cpu.0),
                        times: 1,
                    },
                    other => unreachable!("a live schedule only runs CPUs, not {other:?}"),
                })
                .collect(),
        };
        let run = run_block(rec, scenario, &block, caches, state, None)?;
        if k + 1 == taken.len() {
            if let Some((Stop::Taken, f)) = stop.as_mut() {
                f(rec, state, caches);
                return Ok(None);
            }
        }
        Ok(Some(run))
    };
    let (rec, _) =
        run_inner(scenario, false, None, &mut |_| {}, &mut hook).map_err(LiveFileError::Run)?;
    Ok(rec.machine().clone())
}

impl BlockJob {
    fn new(scenario: &Scenario, block: Block, at: AtBlock) -> Result<BlockJob, LiveFileError> {
        let AtBlock {
            machine: base,
            names,
            lists,
            budget,
            caches,
        } = at;
        let caches = &caches;
        if scenario.teaching_no_tid {
            return Err(LiveFileError::NotLive {
                at: block.line,
                why: NotLive::NoTid,
            });
        }
        let lines = &scenario.ops[block.first_op..block.end_op];
        let cpus = base.config.cpus as usize;
        let mut per_cpu: Vec<Vec<OpLine>> = vec![Vec::new(); cpus];
        let mut line_caches = BTreeMap::new();
        let rec = Recorder::new(base.clone(), false);
        for l in lines {
            if l.task != TaskSlot::Main {
                return Err(LiveFileError::NotLive {
                    at: l.line,
                    why: NotLive::Task(task_label(l.cpu.unwrap_or(0) as u16, l.task)),
                });
            }
            let cpu = l.cpu.unwrap_or(0);
            if let Some(c) = line_cache(l, &rec, caches)? {
                line_caches.insert(l.line, c);
            }
            if let Some(v) = per_cpu.get_mut(cpu as usize) {
                v.push(l.clone());
            }
        }
        let mem = LiveMem::new(&base).map_err(|refusal| LiveFileError::Machine {
            line: block.line,
            refusal,
        })?;
        let pending = block_pending(lines);
        let ids = pending
            .keys()
            .enumerate()
            .map(|(i, n)| (n.clone(), (i as u32, 0)))
            .collect();
        let finished = per_cpu.iter().map(Vec::is_empty).collect();
        Ok(BlockJob {
            base,
            block,
            mem,
            caches: line_caches,
            names: Mutex::new(Names {
                names,
                lists,
                pending,
                budget,
                ids,
                waits: vec![None; cpus],
                finished,
                error: None,
            }),
            done: (0..cpus).map(|_| Mutex::new(None)).collect(),
            lines: per_cpu,
            arrived: AtomicU32::new(0),
        })
    }

    /// The CPUs that run a thread in this block.
    pub fn cpus(&self) -> Vec<u32> {
        (0..self.lines.len() as u32)
            .filter(|&c| !self.lines[c as usize].is_empty())
            .collect()
    }

    /// CPU `cpu`'s thread: its lines of the block, in order, racing the other threads (a
    /// second call for the same CPU, or one for a CPU without lines, does nothing).
    pub fn run_cpu(&self, cpu: u32) {
        let c = cpu as usize;
        let Some(slot) = self.done.get(c) else {
            return;
        };
        if self.lines[c].is_empty() || lock(slot).is_some() {
            return;
        }
        let live = LiveCpu::new(&self.mem, CpuId::new(cpu), true);
        // The threads start together, so that short blocks race too.
        let threads = self.cpus().len() as u32;
        self.arrived.fetch_add(1, Ordering::AcqRel);
        let mut spins = 0;
        while self.arrived.load(Ordering::Acquire) < threads && spins < START_SPINS {
            std::hint::spin_loop();
            spins += 1;
        }
        let result = self.run_lines(c, &live);
        let mut names = lock(&self.names);
        names.finished[c] = true;
        names.waits[c] = None;
        if let Err(e) = result {
            names.error.get_or_insert(e);
        } else {
            names.check_deadlock(&self.block);
        }
        drop(names);
        *lock(slot) = Some((live.stats(), live.into_log()));
    }

    fn run_lines(&self, c: usize, live: &LiveCpu<'_>) -> Result<(), LiveFileError> {
        for line in &self.lines[c] {
            // A `for` line waits for its list (and what its operation reads), then expands.
            let elements: Vec<Option<(String, Value)>> = match &line.for_each {
                Some((var, list)) => {
                    let mut names = self.wait(c, line, Some(var), true)?;
                    let names = &mut *names;
                    for r in list_refs(list) {
                        names.saw(live, ref_name(r));
                    }
                    let values = eval_list(
                        line.line,
                        list,
                        &names.names,
                        &names.lists,
                        &mut names.budget,
                        false,
                    )
                    .map_err(LiveFileError::Run)?;
                    expanded(&mut names.pending, line, values.len());
                    values.into_iter().map(|v| Some((var.clone(), v))).collect()
                }
                None => vec![None],
            };
            for var in elements {
                for _ in 0..line.repeat {
                    self.run_one(c, live, line, var.as_ref())?;
                }
            }
        }
        Ok(())
    }

    /// One run of `line` (with its `for` variable).
    fn run_one(
        &self,
        c: usize,
        live: &LiveCpu<'_>,
        line: &OpLine,
        var: Option<&(String, Value)>,
    ) -> Result<(), LiveFileError> {
        let at = line.line;
        // What the operation reads, resolved as the interleaving engine resolves it when the
        // operation starts.
        let arg = {
            let names = self.wait(c, line, var.map(|(n, _)| n), false)?;
            let mut view = names.names.clone();
            if let Some((n, v)) = var {
                view.insert(n.clone(), v.clone());
            }
            let mut arg = None;
            for r in op_refs(&line.op) {
                if var.is_none_or(|(n, _)| n != ref_name(r)) {
                    names.saw(live, ref_name(r));
                }
                arg = Some(resolve(at, r, &view, &names.lists).map_err(LiveFileError::Run)?);
            }
            arg
        };
        let cache = |l: u32| self.caches.get(&l).copied();
        let out = match &line.op {
            Op::Kmalloc { node, .. } => {
                let c = cache(at).expect("kmalloc lines have their cache");
                object(live.alloc_node(c, node.map(translate::node)))
            }
            Op::KmemCacheAlloc { node, .. } => {
                let c = cache(at).expect("kmem_cache_alloc lines have their cache");
                object(live.alloc_node(c, node.map(translate::node)))
            }
            Op::FlushCpuSlab { .. } => {
                live.flush(cache(at).expect("flush_cpu_slab lines have their cache"));
                None
            }
            Op::Kfree { .. } | Op::KmemCacheFree { .. } => {
                match arg.unwrap_or(Value::Null) {
                    Value::Null => live.nothing(),
                    Value::Pages { .. } => {
                        return Err(LiveFileError::BadFree {
                            at,
                            what: BadFree::Pages,
                        })
                    }
                    Value::Object { addr } => {
                        let of = live
                            .object_cache(addr)
                            .map_err(|e| LiveFileError::BadFree {
                                at,
                                what: match e {
                                    NotAnObject::Free => BadFree::Free,
                                    NotAnObject::NotInASlab => BadFree::NotAnObject,
                                },
                            })?;
                        // cache_from_obj() of a cache without consistency checks or
                        // hardening (mm/slab.h, v6.6) trusts the caller's cache: the object
                        // would go back under another cache's geometry. Live mode refuses it.
                        if let Some(named) = cache(at).filter(|&n| n != of) {
                            let name =
                                |c: CacheId| self.base.cache_name(c).unwrap_or("?").to_string();
                            return Err(LiveFileError::NotLive {
                                at,
                                why: NotLive::WrongCache {
                                    named: name(named),
                                    of: name(of),
                                },
                            });
                        }
                        // Another thread of the block may have freed it since the look
                        // above: the second free of the two is the double free.
                        if !live.free(addr) {
                            return Err(LiveFileError::BadFree {
                                at,
                                what: BadFree::Free,
                            });
                        }
                    }
                }
                None
            }
            other => unreachable!("{} was refused when the block was made", other.name()),
        };
        let mut names = lock(&self.names);
        let names = &mut *names;
        if let Some(target) = &line.target {
            let name = target_name(target);
            if let Some(left) = names.pending.get_mut(name) {
                *left = left.saturating_sub(1);
            }
            if let Some((id, seq)) = names.ids.get_mut(name) {
                *seq += 1;
                let (id, seq) = (*id, *seq);
                live.log(|l| l.named(id, seq));
            }
        }
        store_result(
            &mut names.names,
            &mut names.lists,
            line.target.as_ref(),
            out.map(OutValue::One),
        );
        Ok(())
    }

    /// Spins until nothing `line` reads (its list, when `list`, then its operation's names;
    /// never `var`) has a value still to come; then the names, locked. An error another thread
    /// met, or a wait no thread can end, stops it.
    fn wait(
        &self,
        c: usize,
        line: &OpLine,
        var: Option<&String>,
        list: bool,
    ) -> Result<MutexGuard<'_, Names>, LiveFileError> {
        loop {
            let mut names = lock(&self.names);
            if let Some(e) = &names.error {
                return Err(e.clone());
            }
            let lists = match (&line.for_each, list) {
                (Some((_, l)), true) => list_refs(l),
                _ => Vec::new(),
            };
            let waits = first_pending(&names.pending, lists.into_iter(), None).or_else(|| {
                first_pending(
                    &names.pending,
                    op_refs(&line.op).into_iter(),
                    var.map(String::as_str),
                )
            });
            match waits {
                None => {
                    names.waits[c] = None;
                    return Ok(names);
                }
                Some(name) => {
                    if names.waits[c].as_ref() != Some(&name) {
                        names.waits[c] = Some(name);
                        names.check_deadlock(&self.block);
                    }
                }
            }
            drop(names);
            std::hint::spin_loop();
            std::thread::yield_now();
        }
    }
}

impl Names {
    /// The next operation reads `name`: if the block gives it values, after the last one.
    fn saw(&self, live: &LiveCpu<'_>, name: &str) {
        if let Some(&(id, seq)) = self.ids.get(name) {
            live.log(|l| l.saw(id, seq));
        }
    }

    /// Every thread with work left waits for a name only a waiting thread would give a value
    /// to: the block's deadlock, as the interleaving engine reports it.
    fn check_deadlock(&mut self, block: &Block) {
        let stuck = self.waits.iter().zip(&self.finished).all(|(w, &done)| {
            done || w
                .as_ref()
                .is_some_and(|n| self.pending.get(n).is_some_and(|&p| p > 0))
        });
        let any = self.waits.iter().any(Option::is_some);
        if stuck && any && self.error.is_none() {
            self.error = Some(LiveFileError::Run(RunError::BlockDeadlock {
                line: block.line,
                waits: self
                    .waits
                    .iter()
                    .enumerate()
                    .filter_map(|(c, w)| {
                        w.as_ref()
                            .map(|n| (task_label(c as u16, TaskSlot::Main), n.clone()))
                    })
                    .collect(),
            }));
        }
    }
}

/// Each block's `concurrent` line and the CPUs its lines run on: the threads it takes live.
pub fn block_cpus(scenario: &Scenario) -> Vec<(u32, Vec<u32>)> {
    scenario
        .blocks
        .iter()
        .map(|b| {
            let mut cpus: Vec<u32> = scenario.ops[b.first_op..b.end_op]
                .iter()
                .map(|l| l.cpu.unwrap_or(0))
                .collect();
            cpus.sort_unstable();
            cpus.dedup();
            (b.line, cpus)
        })
        .collect()
}

/// Runs `text` live natively, one `std::thread` per CPU of each block; `timed(work)` runs one
/// thread's work and says how many seconds it took.
pub fn run_file(
    text: &str,
    timed: impl Fn(&dyn Fn()) -> f64 + Sync,
) -> Result<LiveFileReport, (LiveFileError, Vec<LiveBlockReport>)> {
    let mut file = LiveFile::new(text).map_err(|e| (e, Vec::new()))?;
    loop {
        let job = match file.next_block() {
            Ok(Some(job)) => job,
            Ok(None) => break,
            Err(e) => return Err((e, file.blocks)),
        };
        let cpus = job.cpus();
        let mut seconds = vec![0.0; job.lines.len()];
        std::thread::scope(|scope| {
            let handles: Vec<_> = cpus
                .iter()
                .map(|&c| {
                    let (job, timed) = (&job, &timed);
                    (c, scope.spawn(move || timed(&|| job.run_cpu(c))))
                })
                .collect();
            for (c, h) in handles {
                seconds[c as usize] = h.join().expect("a live thread never panics");
            }
        });
        if let Err(e) = file.end_block(job, &seconds) {
            return Err((e, file.blocks));
        }
    }
    let blocks = file.blocks.clone();
    file.finish().map_err(|e| (e, blocks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(text: &str) -> Result<LiveFileReport, LiveFileError> {
        run_file(text, |work| {
            work();
            0.0
        })
        .map_err(|(e, _)| e)
    }

    /// Live runs of scenarios replay to the live state at each block's end (checked inside
    /// `end_block`: a difference is an error); the replay is an ordinary scenario whose blocks
    /// are explicit, with one decision per micro-step the threads took.
    #[test]
    fn scenarios_run_live_and_their_replays_end_in_the_live_state() {
        let lesson = include_str!("../../../lessons/14-remote-free-race/scenario.slab");
        // Two CPUs free each other's objects while allocating (remote frees into each other's
        // cpu slabs, slabs going to and from the node list), then hand a name across.
        let cross = "slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=4M\ncache t size=192\n\
            repeat 400 a[] = kmem_cache_alloc(t) on cpu0\nrepeat 400 b[] = kmem_cache_alloc(t) on cpu1\n\
            concurrent\n  for x in b: kmem_cache_free(t, x) on cpu0\n  repeat 300 c[] = kmem_cache_alloc(t) on cpu0\n\
            for x in a: kmem_cache_free(t, x) on cpu1\n  repeat 300 d[] = kmalloc(200) on cpu1\n  \
            flush_cpu_slab(t) on cpu1\nend\nconcurrent random seed=4\n  k = kmalloc(64) on cpu0\n  \
            kfree(k) on cpu1\n  for x in d: kfree(x) on cpu0\n  for x in c: kmem_cache_free(t, x) on cpu1\nend\n";
        // Three CPUs on two nodes, with node-bound allocations.
        let numa = "slabscope-scenario 3\nmachine cpus=3 nodes=2 memory=2M cpu_node=0,0,1\n\
            repeat 50 a[] = kmalloc(96) on cpu2\nconcurrent\n  for x in a: kfree(x) on cpu0\n  \
            repeat 80 b[] = kmalloc_node(96, 1) on cpu1\n  repeat 80 c[] = kmalloc(96) on cpu2\nend\n";
        for (name, text, runs) in [
            ("lesson 14", lesson, 12),
            ("cross", cross, 6),
            ("numa", numa, 6),
        ] {
            for run in 0..runs {
                let report = live(text).unwrap_or_else(|e| panic!("{name}, run {run}: {e}"));
                let scenario = slabscope_scenario::parse(text).expect("parses");
                assert_eq!(report.blocks.len(), scenario.blocks.len());
                let replay = slabscope_scenario::parse(&report.replay).expect("the replay parses");
                for (b, r) in replay.blocks.iter().zip(&report.blocks) {
                    let steps = match &b.schedule {
                        slabscope_scenario::ScheduleDecl::Explicit { steps } => steps
                            .iter()
                            .map(|s| match s {
                                slabscope_scenario::ScheduleStep::Run { times, .. } => {
                                    u64::from(*times)
                                }
                                _ => panic!("a live schedule only runs CPUs"),
                            })
                            .sum::<u64>(),
                        other => panic!("{name}: the replay's block is {other:?}"),
                    };
                    let figures = r.report.replay.as_ref().expect("a verdict");
                    assert_eq!(figures.mismatch, None);
                    assert_eq!(steps, figures.micro_steps);
                    assert_eq!(r.report.micro_steps, figures.micro_steps);
                }
                crate::run::run(&replay, false).expect("the replay runs");
            }
        }
        // Whether the threads raced (a cmpxchg retried) is up to the machine: small blocks
        // often do not; the workload's test asserts that its long runs do.
    }

    /// A name one CPU gives and another frees: the freeing thread waits for it, and the
    /// replay orders the free after the allocation (the merge, left free, would run the lower
    /// CPU's free first).
    #[test]
    fn a_name_handed_across_cpus_is_freed_after_it_is_given() {
        let text = "slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=1M\nconcurrent\n  \
            p = kmalloc(32) on cpu1\n  kfree(p) on cpu0\n  q = kmalloc(32) on cpu0\nend\n";
        for _ in 0..10 {
            let report = live(text).expect("runs live");
            let replay = slabscope_scenario::parse(&report.replay).expect("parses");
            let (rec, summary) = crate::run::run_with_summary(&replay, false).expect("runs");
            // The free waits for p: p's allocation (line 5 of the replay, under the comment
            // on the block's schedule) starts first, and the free second, before q's
            // allocation on the same CPU.
            assert_eq!(&summary.op_lines[..2], &[5, 6], "{}", report.replay);
            assert_eq!(rec.machine().live_objects, 1);
        }
    }

    fn refused(text: &str) -> LiveFileError {
        live(text).expect_err("refused")
    }

    #[test]
    fn what_cannot_run_live_is_refused_with_its_line_and_reason() {
        let head = "slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=1M\ncache t size=64\n";
        let e = refused(&format!("{head}a = kmalloc(8) on cpu0\n"));
        assert_eq!(e, LiveFileError::NoBlock);
        let e = refused(
            "slabscope-scenario 3\nallocator slab\nmachine cpus=2\nconcurrent\n  a = kmalloc(8) on cpu0\nend\n",
        );
        assert_eq!(e, LiveFileError::Slab);
        assert!(e.to_string().contains("SLAB"));
        let e = refused(&format!(
            "{head}concurrent\n  a = kmalloc(8) on cpu0\n  b = kmalloc(8) on cpu1 irq\nend\n"
        ));
        assert_eq!(
            e,
            LiveFileError::NotLive {
                at: 6,
                why: NotLive::Task("cpu1 irq".to_string())
            }
        );
        assert_eq!(e.key_args().0, "live.not_live_task");
        let e = refused(&format!(
            "{head}concurrent\n  a = kmem_cache_alloc_bulk(t, 4) on cpu0\nend\n"
        ));
        assert_eq!(
            e,
            LiveFileError::NotLive {
                at: 5,
                why: NotLive::Op("kmem_cache_alloc_bulk")
            }
        );
        let e = refused(&format!(
            "{head}concurrent\n  a = kmalloc(100000) on cpu0\nend\n"
        ));
        assert_eq!(
            e,
            LiveFileError::NotLive {
                at: 5,
                why: NotLive::NoKmallocCache(100000)
            }
        );
        // kmem_cache_free() to another cache than the object's, by name.
        let e = refused(&format!(
            "{head}cache u size=200\na = kmem_cache_alloc(t) on cpu0\nconcurrent\n  kmem_cache_free(u, a) on cpu1\nend\n"
        ));
        assert_eq!(
            e,
            LiveFileError::NotLive {
                at: 7,
                why: NotLive::WrongCache {
                    named: "u".to_string(),
                    of: "t".to_string()
                }
            }
        );
        let e = refused(
            "slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=1M\nslub_debug FZ\nconcurrent\n  a = kmalloc(8) on cpu0\nend\n",
        );
        assert!(
            matches!(
                e,
                LiveFileError::Machine {
                    line: 4,
                    refusal: LiveRefusal::Debug(_)
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.key_args().0, "live.machine_debug");
        let three = "slabscope-scenario 3\nmachine cpus=3\nconcurrent\n  a = kmalloc(8) on cpu0\n  b = kmalloc(8) on cpu1\n  c = kmalloc(8) on cpu2\nend\n";
        let e = LiveFile::new(three)
            .and_then(|f| f.with_max_threads(2))
            .err()
            .expect("refused");
        assert_eq!(
            e,
            LiveFileError::TooManyCpus {
                line: 3,
                cpus: 3,
                max: 2
            }
        );
    }

    /// What goes wrong while a block runs stops every thread, with the line.
    #[test]
    fn what_goes_wrong_while_a_block_runs_stops_it_with_its_line() {
        let head = "slabscope-scenario 3\nmachine cpus=2 nodes=1 memory=1M\ncache t size=64\n";
        // A double free: whichever CPU comes second finds the object free.
        let e = refused(&format!(
            "{head}a = kmalloc(8) on cpu0\nconcurrent\n  kfree(a) on cpu0\n  kfree(a) on cpu1\nend\n"
        ));
        assert!(
            matches!(
                e,
                LiveFileError::BadFree {
                    what: BadFree::Free,
                    ..
                }
            ),
            "{e:?}"
        );
        assert_eq!(e.key_args().0, "live.double_free");
        // Each CPU waits for a name only the other gives, after its own wait.
        let e = refused(&format!(
            "{head}x = kmalloc(8) on cpu0\ny = kmalloc(8) on cpu0\nconcurrent\n  kfree(y) on cpu0\n  x = kmalloc(8) on cpu0\n  kfree(x) on cpu1\n  y = kmalloc(8) on cpu1\nend\n"
        ));
        match e {
            LiveFileError::Run(RunError::BlockDeadlock { line: 6, waits }) => {
                assert_eq!(waits.len(), 2, "{waits:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}
