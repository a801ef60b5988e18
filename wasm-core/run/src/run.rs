//! Runs a parsed scenario through the recorder.
//!
//! Every operation runs under the scenario's allocator: SLUB (`slabscope_sim::slub`) or SLAB
//! (`slabscope_sim::slab`), over the same page allocator. Operations that exist in one allocator only
//! (`flush_cpu_slab`/`flush_all` in SLUB, `cache_reap` in SLAB) are refused under the other with
//! `RunError::WrongAllocator`.
//!
//! The run also keeps a summary: how many operations of each kind ran and how many
//! `list_lock` acquisitions each kind caused, per node, and where each `print` line falls.
//!
//! Every step is tagged with its origin (`Recorder::set_origin`): the operation's line and
//! index, or the `cache` line for cache creation. Format 2's list lines and prints run between
//! operations and record no step (lists.rs, print.rs).
//!
//! Bad operations are steps, not failures: freeing what is not allocated records the kernel's
//! diagnostic and the run goes on; a failed allocation yields NULL.

use crate::concurrent::{run_block, BlockRun, RunState};
use crate::lists::{eval_list, MAX_LIST_ELEMENTS};
use crate::print::PrintMark;
use crate::site::{call_site_address, call_site_name};
use crate::translate;
use serde::Serialize;
use slabscope_scenario::{Block, Op, OpLine, Ref, Scenario, Statement, StatementLine, Target};
use slabscope_sim::allocator::{self, CacheArgs, Missing};
use slabscope_sim::boot::Allocator;
use slabscope_sim::geometry::platform::MAX_CPUS;
use slabscope_sim::ids::{CacheId, CpuId, NodeId, TiVec};
use slabscope_sim::machine::config::{MAX_NODES, MAX_PAGES_PER_NODE};
use slabscope_sim::machine::{AllocatorState, ConfigError, Machine, Owner, Pfn};
use slabscope_sim::page_alloc::{alloc_pages, drain_local_pages, free_pages, PageAllocError};
use slabscope_sim::rcu;
use slabscope_sim::slab_common;
use slabscope_sim::trace::{MicroEntry, Recorder};
use std::collections::BTreeMap;
use std::fmt;

/// What a name holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// The first page of a block from `alloc_pages`.
    Pages { pfn: Pfn },
    /// An address from `kmalloc` or `kmem_cache_alloc` (`ZERO_SIZE_PTR` included).
    Object { addr: u64 },
    /// A failed allocation.
    Null,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    Machine(ConfigError),
    /// A cache the kernel would refuse to create.
    Cache {
        line: u32,
        message: String,
    },
    /// A cache name that names no cache (`kmalloc-100`, say).
    UnknownCache {
        line: u32,
        name: String,
    },
    /// An operation of the other allocator (`cache_reap` under SLUB, say).
    WrongAllocator {
        line: u32,
        what: &'static str,
        allocator: Allocator,
    },
    /// A run longer than a scenario may be: more than MAX_RUN_OPS operations or, when
    /// recorded, MAX_RUN_STEPS steps (each step is kept, so this bounds memory too).
    TooLong {
        line: u32,
        what: &'static str,
        max: usize,
    },
    /// An index past the end of a list.
    Index {
        line: u32,
        name: String,
        index: u32,
        len: usize,
    },
    /// List lines (and loops over built lists) that together build more than
    /// `MAX_LIST_ELEMENTS` elements.
    ListTooLong {
        line: u32,
        max: usize,
    },
    /// In the `concurrent` block at `line`, every task with work left waits for a result
    /// another waiting task would produce: (task, the name it waits for).
    BlockDeadlock {
        line: u32,
        waits: Vec<(String, String)>,
    },
    /// `slabscope explore` of a scenario without a `concurrent` block.
    NoBlock,
    /// Decision `index` (from 1) of the explicit schedule of the block at `line`, `choice`, is
    /// not one the kernel allows at that point.
    ScheduleNotAllowed {
        line: u32,
        index: u32,
        choice: String,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Machine(e) => write!(f, "machine: {e}"),
            RunError::UnknownCache { line, name } => {
                write!(f, "line {line}: there is no cache named {name}")
            }
            RunError::Cache { line, message } => {
                write!(f, "line {line}: kmem_cache_create fails: {message}")
            }
            RunError::WrongAllocator {
                line,
                what,
                allocator,
            } => {
                let (name, other) = match allocator {
                    Allocator::Slub => ("SLUB", "allocator slab"),
                    Allocator::Slab => ("SLAB", "allocator slub"),
                };
                write!(
                    f,
                    "line {line}: {what} does not exist in {name}; it needs `{other}`"
                )
            }
            RunError::TooLong { line, what, max } => write!(
                f,
                "line {line}: the run goes past {max} {what}, the most one scenario may run; use smaller repeat counts or fewer loops"
            ),
            RunError::Index {
                line,
                name,
                index,
                len,
            } => write!(
                f,
                "line {line}: {name}[{index}] is past the end of {name}, which has {len} entries"
            ),
            RunError::ListTooLong { line, max } => write!(
                f,
                "line {line}: the lists built by this scenario's list lines pass {max} elements, the most one run may build"
            ),
            RunError::NoBlock => write!(
                f,
                "the scenario has no concurrent block to explore; put the operations that run at once between `concurrent` and `end`"
            ),
            RunError::BlockDeadlock { line, waits } => {
                let waits: Vec<String> = waits.iter().map(|(t, n)| format!("{t} → {n}")).collect();
                write!(
                    f,
                    "line {line}: the concurrent block cannot go on: every task with work left waits for a result no running task will produce ({})",
                    waits.join(", ")
                )
            }
            RunError::ScheduleNotAllowed {
                line,
                index,
                choice,
            } => write!(
                f,
                "line {line}: decision {index} of the schedule, {choice}, is not possible there (the CPU has nothing to run, or its task cannot be preempted or interrupted at that point)"
            ),
        }
    }
}

impl std::error::Error for RunError {}

impl RunError {
    /// The line the error is about (0: the machine as a whole).
    pub fn line(&self) -> u32 {
        match self {
            RunError::Machine(_) | RunError::NoBlock => 0,
            RunError::Cache { line, .. }
            | RunError::UnknownCache { line, .. }
            | RunError::WrongAllocator { line, .. }
            | RunError::TooLong { line, .. }
            | RunError::Index { line, .. }
            | RunError::ListTooLong { line, .. }
            | RunError::BlockDeadlock { line, .. }
            | RunError::ScheduleNotAllowed { line, .. } => *line,
        }
    }

    /// A stable key for the kind of error and the values its message names, so the web app
    /// can word it in the reader's language (the English wording is `Display`).
    pub fn key_args(&self) -> (&'static str, Vec<(&'static str, String)>) {
        let line = ("line", self.line().to_string());
        match self {
            RunError::Machine(e) => match e {
                ConfigError::Cpus(n) => (
                    "run.cpus",
                    vec![("cpus", n.to_string()), ("max", MAX_CPUS.to_string())],
                ),
                ConfigError::Nodes(n) => (
                    "run.nodes",
                    vec![("nodes", n.to_string()), ("max", MAX_NODES.to_string())],
                ),
                ConfigError::PageSize(p) => ("run.page_size", vec![("size", p.to_string())]),
                ConfigError::Pages(p) => (
                    "run.pages",
                    vec![
                        ("pages", p.to_string()),
                        ("max", MAX_PAGES_PER_NODE.to_string()),
                    ],
                ),
                ConfigError::CpuNodeLength { expected, got } => (
                    "run.cpu_node_length",
                    vec![("got", got.to_string()), ("cpus", expected.to_string())],
                ),
                ConfigError::CpuNode { cpu, node } => (
                    "run.cpu_node",
                    vec![("cpu", cpu.to_string()), ("node", node.to_string())],
                ),
                ConfigError::NodeWithoutCpu(n) => {
                    ("run.node_without_cpu", vec![("node", n.to_string())])
                }
            },
            RunError::Cache { message, .. } => {
                ("run.cache", vec![line, ("message", message.clone())])
            }
            RunError::UnknownCache { name, .. } => {
                ("run.unknown_cache", vec![line, ("name", name.clone())])
            }
            RunError::WrongAllocator {
                what, allocator, ..
            } => (
                match allocator {
                    Allocator::Slub => "run.wrong_allocator_slub",
                    Allocator::Slab => "run.wrong_allocator_slab",
                },
                vec![line, ("what", what.to_string())],
            ),
            RunError::TooLong { what, max, .. } => (
                match *what {
                    "steps" => "run.too_many_steps",
                    "micro-steps" => "run.too_many_micro_steps",
                    _ => "run.too_many_operations",
                },
                vec![line, ("max", max.to_string())],
            ),
            RunError::Index {
                name, index, len, ..
            } => (
                "run.index",
                vec![
                    line,
                    ("name", name.clone()),
                    ("index", index.to_string()),
                    ("len", len.to_string()),
                ],
            ),
            RunError::ListTooLong { max, .. } => {
                ("run.list_too_long", vec![line, ("max", max.to_string())])
            }
            RunError::NoBlock => ("run.no_block", vec![]),
            RunError::BlockDeadlock { waits, .. } => {
                let waits: Vec<String> = waits.iter().map(|(t, n)| format!("{t} → {n}")).collect();
                (
                    "run.block_deadlock",
                    vec![line, ("waits", waits.join(", "))],
                )
            }
            RunError::ScheduleNotAllowed { index, choice, .. } => (
                "run.schedule_not_allowed",
                vec![
                    line,
                    ("index", index.to_string()),
                    ("choice", choice.clone()),
                ],
            ),
        }
    }
}

/// What a run did, operation by operation kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunSummary {
    /// Operations run, by kernel function name (`kmalloc`, `kfree`, ...).
    pub ops: BTreeMap<String, u64>,
    /// `n->list_lock` acquisitions caused by each kind of operation, per node.
    pub list_locks: BTreeMap<String, Vec<u64>>,
    /// The cursor after each operation (repeats and `for` lines count each run): the same
    /// index in two runs of one scenario is the same operation.
    pub op_ends: Vec<usize>,
    /// The scenario line of each operation (1-based), in the same order.
    pub op_lines: Vec<u32>,
    /// The cursor where the first operation starts (after boot and cache creation).
    pub ops_start: usize,
    /// Each `print` line's place in the run, in the order they ran.
    pub prints: Vec<PrintMark>,
    /// What each `concurrent` block did.
    pub blocks: Vec<BlockRun>,
}

/// How far a run has got, for a caller that shows a long run's progress (the web app's
/// worker). Reported at the start of each operation line and every `PROGRESS_EVERY`
/// operations within one; never part of the run's result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct RunProgress {
    /// The scenario line running now (1-based).
    pub line: u32,
    /// Runs of that line done so far.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub line_done: u64,
    /// Runs that line makes: its `repeat` times the elements of its `for` list.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub line_total: u64,
    /// Operations run so far, all lines together.
    pub ops: u32,
    /// Steps recorded so far, boot and cache creation included.
    pub steps: u32,
}

/// Operations between two progress reports within one line: a report costs a call into the
/// caller (in the browser, a crossing from wasm to JavaScript), so it must stay rare next to
/// the operations, yet come several times a second on a slow machine.
pub const PROGRESS_EVERY: u64 = 4096;

/// Runs `scenario` from boot. With `record` the recorder keeps every step for `snapshot_at`.
pub fn run(scenario: &Scenario, record: bool) -> Result<Recorder, RunError> {
    run_with_summary(scenario, record).map(|(rec, _)| rec)
}

/// The most operations one scenario may run (a `repeat` of 1,000,000 inside a loop over a
/// long list would otherwise keep the simulator busy for hours).
pub const MAX_RUN_OPS: usize = 1_000_000;
/// The most steps a recorded run may keep (about 300 MiB of trace in the wasm build).
pub const MAX_RUN_STEPS: usize = 1_500_000;

/// `run`, with the summary of operations and lock acquisitions.
pub fn run_with_summary(
    scenario: &Scenario,
    record: bool,
) -> Result<(Recorder, RunSummary), RunError> {
    run_with_progress(scenario, record, &mut |_| {})
}

/// `run_with_summary`, telling `progress` how far the run has got (see `RunProgress`).
pub fn run_with_progress(
    scenario: &Scenario,
    record: bool,
    progress: &mut dyn FnMut(&RunProgress),
) -> Result<(Recorder, RunSummary), RunError> {
    let mut blocks = |rec: &mut Recorder, block: &Block, caches: &Caches, state: &mut RunState| {
        run_block(rec, scenario, block, caches, state, None).map(Some)
    };
    run_inner(scenario, record, None, progress, &mut blocks)
}

/// The micro-steps step `step` (0-based) of `scenario`'s run is made of: the scenario run
/// again, keeping them for that step only.
pub fn micro_steps_of(scenario: &Scenario, step: usize) -> Result<Vec<MicroEntry>, RunError> {
    let mut blocks = |rec: &mut Recorder, block: &Block, caches: &Caches, state: &mut RunState| {
        run_block(rec, scenario, block, caches, state, None).map(Some)
    };
    let (rec, _) = run_inner(scenario, true, Some(step), &mut |_| {}, &mut blocks)?;
    Ok(rec.step(step).map(|s| s.micro).unwrap_or_default())
}

/// The caches a scenario's `cache` lines declared, by name.
pub(crate) type Caches = BTreeMap<String, CacheId>;

/// What runs a `concurrent` block: its `BlockRun`, or `None` to stop the run there.
pub(crate) type BlockHook<'h> = dyn FnMut(&mut Recorder, &Block, &Caches, &mut RunState) -> Result<Option<BlockRun>, RunError>
    + 'h;

/// `run_with_progress`, each `concurrent` block run by `on_block`.
pub(crate) fn run_inner(
    scenario: &Scenario,
    record: bool,
    micro_of: Option<usize>,
    progress: &mut dyn FnMut(&RunProgress),
    on_block: &mut BlockHook<'_>,
) -> Result<(Recorder, RunSummary), RunError> {
    let (mut rec, caches) = boot(scenario, record)?;
    rec.set_teaching(slabscope_sim::smp::Teaching {
        no_tid: scenario.teaching_no_tid,
    });
    if let Some(step) = micro_of {
        rec.keep_micro_of(step);
    }
    let mut summary = RunSummary {
        ops_start: rec.cursor(),
        ..RunSummary::default()
    };
    let mut names: BTreeMap<String, Value> = BTreeMap::new();
    let mut lists: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    // Elements list lines may still build (`MAX_LIST_ELEMENTS` in all).
    let mut budget = MAX_LIST_ELEMENTS;
    let mut statements = scenario.statements.iter().peekable();
    let mut blocks = scenario.blocks.iter().peekable();
    for (i, line) in scenario.ops.iter().enumerate() {
        while let Some(s) = statements.next_if(|s| s.after_ops <= i) {
            statement(&rec, s, &mut names, &mut lists, &mut summary, &mut budget)?;
        }
        if let Some(block) = blocks.next_if(|b| b.first_op == i) {
            progress(&block_progress(block.line, &summary, &rec));
            let mut state = (&mut names, &mut lists, &mut summary, &mut budget);
            match on_block(&mut rec, block, &caches, &mut state)? {
                Some(run) => summary.blocks.push(run),
                None => return Ok((rec, summary)),
            }
            continue;
        }
        if scenario
            .blocks
            .iter()
            .any(|b| b.first_op < i && i < b.end_op)
        {
            continue; // run by its block
        }
        let elements: Vec<Option<Value>> = match &line.for_each {
            Some((_, list)) => eval_list(line.line, list, &names, &lists, &mut budget, false)?
                .into_iter()
                .map(Some)
                .collect(),
            None => vec![None],
        };
        let mut report = RunProgress {
            line: line.line,
            line_done: 0,
            line_total: elements.len() as u64 * u64::from(line.repeat),
            ops: summary.op_ends.len() as u32,
            steps: rec.step_count() as u32,
        };
        progress(&report);
        for element in elements {
            if let (Some((var, _)), Some(v)) = (&line.for_each, element) {
                names.insert(var.clone(), v);
            }
            for _ in 0..line.repeat {
                if report.line_done > 0 && report.line_done % PROGRESS_EVERY == 0 {
                    report.ops = summary.op_ends.len() as u32;
                    report.steps = rec.step_count() as u32;
                    progress(&report);
                }
                report.line_done += 1;
                if summary.op_ends.len() >= MAX_RUN_OPS {
                    return Err(RunError::TooLong {
                        line: line.line,
                        what: "operations",
                        max: MAX_RUN_OPS,
                    });
                }
                if record && rec.step_count() > MAX_RUN_STEPS {
                    return Err(RunError::TooLong {
                        line: line.line,
                        what: "steps",
                        max: MAX_RUN_STEPS,
                    });
                }
                let locks_before = rec.machine().list_lock_taken.clone();
                rec.set_origin(Some(line.line), Some(summary.op_ends.len() as u32));
                let result = step(&mut rec, line, &caches, &names, &mut lists);
                count_op(&mut summary, &rec, line, &locks_before);
                match (&line.target, result?) {
                    (Some(Target::Name(n)), Some(v)) => {
                        names.insert(n.clone(), v);
                    }
                    (Some(Target::Append(n)), Some(v)) => {
                        lists.entry(n.clone()).or_default().push(v)
                    }
                    _ => {}
                }
            }
        }
    }
    for s in statements {
        statement(&rec, s, &mut names, &mut lists, &mut summary, &mut budget)?;
    }
    rec.set_origin(None, None);
    Ok((rec, summary))
}

/// Counts an operation that has just run in `summary`: its kind, its end, its line, and the
/// `list_lock` acquisitions it made (the machine's counts now, less `locks_before`).
fn count_op(
    summary: &mut RunSummary,
    rec: &Recorder,
    line: &OpLine,
    locks_before: &TiVec<NodeId, u64>,
) {
    let kind = line.op.name().to_string();
    *summary.ops.entry(kind.clone()).or_default() += 1;
    summary.op_ends.push(rec.cursor());
    summary.op_lines.push(line.line);
    let locks = summary
        .list_locks
        .entry(kind)
        .or_insert_with(|| vec![0; locks_before.len()]);
    for (total, (after, before)) in locks
        .iter_mut()
        .zip(rec.machine().list_lock_taken.iter().zip(locks_before))
    {
        *total += after - before;
    }
}

/// The progress report at the start of a `concurrent` block (a block runs whole).
fn block_progress(line: u32, summary: &RunSummary, rec: &Recorder) -> RunProgress {
    RunProgress {
        line,
        line_done: 0,
        line_total: 1,
        ops: summary.op_ends.len() as u32,
        steps: rec.step_count() as u32,
    }
}

/// Boots the scenario's machine under its allocator and boot options, with the kmalloc caches
/// and then each `cache` line's cache (each step tagged with its line): the recorder, and the
/// id each declared name refers to.
fn boot(
    scenario: &Scenario,
    record: bool,
) -> Result<(Recorder, BTreeMap<String, CacheId>), RunError> {
    let allocator = translate::allocator(scenario.allocator);
    let mut machine =
        Machine::new_seeded(translate::machine_config(&scenario.machine), scenario.seed)
            .map_err(RunError::Machine)?
            .with_profile(translate::profile(&scenario.profile))
            .with_allocator(allocator);
    let boot = translate::boot_options(&scenario.switches);
    if let AllocatorState::Slab(slab) = &mut machine.alloc {
        slab.legacy_refill = boot.slab_legacy_refill;
    }
    machine.slab_nomerge = boot.slab_nomerge;
    let mut rec = Recorder::new(machine, record);
    let ops = allocator::ops(rec.machine());
    ops.create_kmalloc_caches(&mut rec, &boot)
        .map_err(|e| RunError::Cache {
            line: 1,
            message: e.to_string(),
        })?;
    let mut caches: BTreeMap<String, CacheId> = BTreeMap::new();
    for decl in &scenario.caches {
        rec.set_origin(Some(decl.line), None);
        let args = CacheArgs {
            name: &decl.name,
            size: decl.size,
            align: decl.align,
            flags: translate::cache_flags(decl.flags),
            useroffset: decl.useroffset,
            usersize: decl.usersize,
            ctor: decl.ctor,
            freeptr_offset: decl.freeptr_offset,
            sheaf_capacity: decl.sheaf_capacity,
        };
        let id = ops
            .kmem_cache_create(&mut rec, &args, &boot)
            .map_err(|e| RunError::Cache {
                line: decl.line,
                message: e.to_string(),
            })?;
        caches.insert(decl.name.clone(), id);
    }
    Ok((rec, caches))
}

/// Runs a list line or marks a print (format 2): no kernel code, no step.
fn statement(
    rec: &Recorder,
    s: &StatementLine,
    names: &mut BTreeMap<String, Value>,
    lists: &mut BTreeMap<String, Vec<Value>>,
    summary: &mut RunSummary,
    budget: &mut usize,
) -> Result<(), RunError> {
    match &s.statement {
        Statement::List { target, list } => {
            let values = eval_list(s.line, list, names, lists, budget, true)?;
            match target {
                Target::Name(n) => {
                    lists.insert(n.clone(), values);
                }
                Target::Append(n) => lists.entry(n.clone()).or_default().extend(values),
            }
        }
        Statement::Name { name, of } => {
            let value = resolve(s.line, of, names, lists)?;
            names.insert(name.clone(), value);
        }
        Statement::Print { file } => summary.prints.push(PrintMark {
            line: s.line,
            cursor: rec.cursor(),
            file: file.clone(),
        }),
    }
    Ok(())
}

pub(crate) fn lookup_cache(
    rec: &Recorder,
    caches: &BTreeMap<String, CacheId>,
    line: u32,
    name: &String,
) -> Result<CacheId, RunError> {
    let m = rec.machine();
    caches
        .get(name)
        .copied()
        .or_else(|| allocator::ops(m).find_cache(m, name))
        .ok_or_else(|| RunError::UnknownCache {
            line,
            name: name.clone(),
        })
}

/// The values a list reference names: a whole list or a slice of one.
pub(crate) fn resolve_list(
    line: u32,
    r: &Ref,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
) -> Result<Vec<Value>, RunError> {
    match r {
        Ref::Name { name } => Ok(lists.get(name).cloned().unwrap_or_default()),
        Ref::Slice { name, start, end } => {
            let list = lists.get(name).map_or(&[][..], Vec::as_slice);
            list.get(*start as usize..*end as usize)
                .map(<[Value]>::to_vec)
                .ok_or(RunError::Index {
                    line,
                    name: name.clone(),
                    index: end - 1,
                    len: list.len(),
                })
        }
        single => Ok(vec![resolve(line, single, names, lists)?]),
    }
}

pub(crate) fn resolve(
    line: u32,
    r: &Ref,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
) -> Result<Value, RunError> {
    match r {
        Ref::Name { name } => Ok(names.get(name).cloned().unwrap_or(Value::Null)),
        Ref::Index { name, index } => {
            let list = lists.get(name).map_or(&[][..], Vec::as_slice);
            list.get(*index as usize).cloned().ok_or(RunError::Index {
                line,
                name: name.clone(),
                index: *index,
                len: list.len(),
            })
        }
        Ref::Slice { name, start, .. } => Err(RunError::Index {
            line,
            name: name.clone(),
            index: *start,
            len: 0,
        }),
    }
}

/// The address a value passes to a free: an object's own, a page block's first byte, 0 for
/// NULL.
pub(crate) fn addr_of(rec: &Recorder, v: &Value) -> u64 {
    match *v {
        Value::Object { addr } => addr,
        Value::Pages { pfn } => rec.machine().object_addr(pfn, 1, 0),
        Value::Null => 0,
    }
}

pub(crate) fn object(addr: u64) -> Option<Value> {
    Some(if addr == 0 {
        Value::Null
    } else {
        Value::Object { addr }
    })
}

/// Runs one operation once; returns the value it produces, if it produces one, for the
/// caller to name. A bulk allocation's list is stored here.
#[allow(
    clippy::too_many_lines,
    reason = "one arm per operation, each the kernel calls it stands for under either allocator"
)]
pub(crate) fn step(
    rec: &mut Recorder,
    line: &OpLine,
    caches: &BTreeMap<String, CacheId>,
    names: &BTreeMap<String, Value>,
    lists: &mut BTreeMap<String, Vec<Value>>,
) -> Result<Option<Value>, RunError> {
    // The parser guarantees a CPU for every operation that needs one, and declared caches;
    // kmalloc cache names are looked up here.
    let cpu = translate::cpu(line.cpu.unwrap_or(0));
    let ops = allocator::ops(rec.machine());
    let wrong = |Missing| RunError::WrongAllocator {
        line: line.line,
        what: line.op.name(),
        allocator: ops.kind(),
    };
    let free = |rec: &mut Recorder, addr: u64, cache: Option<CacheId>| {
        slab_common::kfree(rec, addr, cpu, cache);
    };
    let free_bulk = |rec: &mut Recorder, cache: Option<CacheId>, addrs: &[u64]| {
        slab_common::kmem_cache_free_bulk(rec, cache, addrs, cpu);
    };
    match &line.op {
        Op::Kmalloc {
            size,
            node,
            gfp,
            site,
        } => {
            let caller = call_site_address(&call_site_name(site.as_deref(), line.line));
            Ok(object(ops.kmalloc(
                rec,
                *size,
                translate::gfp(*gfp),
                caller,
                cpu,
                node.map(translate::node),
            )))
        }
        Op::KmemCacheAlloc { cache, node } => {
            let id = lookup_cache(rec, caches, line.line, cache)?;
            Ok(object(ops.kmem_cache_alloc(
                rec,
                id,
                cpu,
                node.map(translate::node),
            )))
        }
        Op::Kfree { obj } => {
            let addr = addr_of(rec, &resolve(line.line, obj, names, lists)?);
            free(rec, addr, None);
            Ok(None)
        }
        Op::KmemCacheFree { cache, obj } => {
            let addr = addr_of(rec, &resolve(line.line, obj, names, lists)?);
            let id = lookup_cache(rec, caches, line.line, cache)?;
            free(rec, addr, Some(id));
            Ok(None)
        }
        Op::KmemCacheFreeBulk { cache, objs } => {
            let id = lookup_cache(rec, caches, line.line, cache)?;
            let addrs: Vec<u64> = resolve_list(line.line, objs, names, lists)?
                .iter()
                .map(|v| addr_of(rec, v))
                .collect();
            if !addrs.is_empty() {
                free_bulk(rec, Some(id), &addrs);
            }
            Ok(None)
        }
        Op::KfreeBulk { objs } => {
            let addrs: Vec<u64> = resolve_list(line.line, objs, names, lists)?
                .iter()
                .map(|v| addr_of(rec, v))
                .collect();
            if !addrs.is_empty() {
                free_bulk(rec, None, &addrs);
            }
            Ok(None)
        }
        Op::KmemCacheShrink { cache } => {
            let id = lookup_cache(rec, caches, line.line, cache)?;
            ops.kmem_cache_shrink(rec, id, cpu);
            Ok(None)
        }
        Op::KmemCacheDestroy { cache } => {
            let id = lookup_cache(rec, caches, line.line, cache)?;
            let own = rec.machine().cache_name(id).unwrap_or_default().to_string();
            let alias = (own != *cache).then_some(cache.as_str());
            ops.kmem_cache_destroy(rec, id, alias, cpu);
            Ok(None)
        }
        Op::FlushCpuSlab { cache } => {
            // Refused for its allocator before its cache is looked up.
            if !ops.has_cpu_slabs() {
                return Err(wrong(Missing));
            }
            let id = lookup_cache(rec, caches, line.line, cache)?;
            ops.flush_cpu_slab(rec, id, cpu).map_err(wrong)?;
            Ok(None)
        }
        Op::FlushAll { cache } => {
            if !ops.has_cpu_slabs() {
                return Err(wrong(Missing));
            }
            let id = lookup_cache(rec, caches, line.line, cache)?;
            for cpu in CpuId::all(rec.machine().config.cpus) {
                ops.flush_cpu_slab(rec, id, cpu).map_err(wrong)?;
            }
            Ok(None)
        }
        Op::CacheReap => {
            ops.cache_reap(rec, line.cpu.map(translate::cpu))
                .map_err(wrong)?;
            Ok(None)
        }
        Op::KfreeRcu { obj, mightsleep } => {
            let addr = addr_of(rec, &resolve(line.line, obj, names, lists)?);
            rcu::kvfree_call_rcu(rec, addr, cpu, *mightsleep);
            Ok(None)
        }
        Op::KfreeRcuMonitor => {
            rcu::kfree_rcu_monitor(rec, line.cpu.map(translate::cpu));
            Ok(None)
        }
        Op::SynchronizeRcu => {
            rcu::synchronize_rcu(rec);
            Ok(None)
        }
        Op::RcuBarrier => {
            rcu::rcu_barrier(rec);
            Ok(None)
        }
        Op::KmemCacheAllocBulk { cache, count } => {
            let id = lookup_cache(rec, caches, line.line, cache)?;
            let got = ops.kmem_cache_alloc_bulk(rec, id, *count, cpu);
            let values = got.into_iter().map(|addr| Value::Object { addr });
            match &line.target {
                Some(Target::Name(n)) => {
                    lists.insert(n.clone(), values.collect());
                }
                Some(Target::Append(n)) => lists.entry(n.clone()).or_default().extend(values),
                None => {}
            }
            Ok(None)
        }
        Op::AllocPages { order, node } => {
            match alloc_pages(rec, cpu, node.map(translate::node), *order, Owner::Pages) {
                Ok(pfn) => Ok(Some(Value::Pages { pfn })),
                Err(PageAllocError::Order { order, max_order }) => {
                    // __alloc_pages(): WARN_ON_ONCE(order > MAX_ORDER) and return NULL.
                    rec.call(
                        "__alloc_pages",
                        "order > MAX_ORDER",
                        "step.bad_order",
                        |rec| {
                            rec.arg("order", order);
                            rec.arg("max_order", max_order);
                        },
                    );
                    Ok(Some(Value::Null))
                }
                Err(_) => Ok(Some(Value::Null)),
            }
        }
        Op::FreePages { pages } => {
            match resolve(line.line, pages, names, lists)? {
                Value::Null => {
                    // free_pages(0) returns at once.
                    rec.call("free_pages", "NULL", "step.free_null", |_| {});
                }
                v => {
                    // An object's address is not the first page of a block: "Bad page state".
                    let pfn = rec
                        .machine()
                        .addr_pfn(addr_of(rec, &v))
                        .unwrap_or(Pfn(u32::MAX));
                    if let Err(
                        PageAllocError::NotAllocated { pfn, .. }
                        | PageAllocError::PageSlab { pfn, .. },
                    ) = free_pages(rec, cpu, pfn)
                    {
                        // bad_page(): "BUG: Bad page state"; the kernel reports it and leaks the page.
                        rec.call("free_pages", "bad page", "step.bad_page", |rec| {
                            rec.arg("pfn", pfn);
                        });
                    }
                }
            }
            Ok(None)
        }
        Op::DrainPages => {
            let _ = drain_local_pages(rec, cpu);
            Ok(None)
        }
    }
}
