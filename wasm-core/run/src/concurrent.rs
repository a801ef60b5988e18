//! A `concurrent` block (format 3): its operation lines run as tasks of the interleaving
//! executor (`slabscope_sim::smp::exec`), one per CPU and task slot, under the block's
//! schedule.
//!
//! Rules:
//! - Each task runs its lines in order; `repeat` and `for` expand when the task reaches the
//!   line (a `for` variable belongs to its task).
//! - An operation that names a result another line of the block produces waits until that
//!   line has produced it: the task sleeps and its CPU's next task runs.
//! - Under SLUB the racing operations (kmalloc, kmem_cache_alloc, kfree, kmem_cache_free, the
//!   bulk calls, flush_cpu_slab) run their micro-stepped kernel paths; every other operation,
//!   and every operation under SLAB, runs whole in the micro-step that starts it.
//! - Operation indices are given in the order operations start; `RunSummary::op_ends` then
//!   holds each one's end, which in a block need not grow from one operation to the next.

use crate::lists::eval_list;
use crate::run::{addr_of, object, resolve, resolve_list, step, RunError, RunSummary, Value};
use crate::site::{call_site_address, call_site_name};
use crate::translate;
use serde::Serialize;
use slabscope_scenario::{
    Block, ListExpr, Op, OpLine, Ref, Scenario, ScheduleDecl, ScheduleStep, Target, TaskSlot,
};
use slabscope_sim::allocator;
use slabscope_sim::boot::Allocator;
use slabscope_sim::ids::{CacheId, CpuId};
use slabscope_sim::slub::task::{SmpOp, SmpResult};
use slabscope_sim::smp::exec::{self, ExecError, OpFuture, Program, Ready, TaskKind, TaskSpec};
use slabscope_sim::smp::micro::Stats;
use slabscope_sim::smp::schedule::{Choice, Schedule};
use slabscope_sim::smp::{Ctx, TaskId, Teaching};
use slabscope_sim::trace::Recorder;
use std::collections::{BTreeMap, VecDeque};

/// Micro-steps a block may take.
pub const MAX_BLOCK_STEPS: usize = 200_000;

/// What a block did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BlockRun {
    /// Its `concurrent` line.
    pub line: u32,
    /// The cursor at its start and its end.
    pub start: usize,
    pub end: usize,
    /// The decisions taken: an explicit schedule that replays it.
    pub taken: Vec<Choice>,
    /// Retries by site and reason, `list_lock` acquisitions and waits.
    pub stats: Stats,
    /// Each task: its CPU, its slot, and its operations' indices.
    pub tasks: Vec<(u16, TaskSlot)>,
}

/// The schedule a block declares.
pub fn schedule(decl: &ScheduleDecl) -> Schedule {
    match decl {
        ScheduleDecl::RoundRobin => Schedule::RoundRobin,
        ScheduleDecl::Random { seed, preempt } => Schedule::Random {
            seed: *seed,
            preempt: *preempt,
        },
        ScheduleDecl::Explicit { steps } => Schedule::Explicit {
            choices: steps
                .iter()
                .flat_map(|s| {
                    let (choice, times) = match *s {
                        ScheduleStep::Run { cpu, times } => (
                            Choice::Run {
                                cpu: translate::cpu(cpu),
                            },
                            times,
                        ),
                        ScheduleStep::Preempt { cpu, to } => (
                            Choice::Preempt {
                                cpu: translate::cpu(cpu),
                                to: translate::cpu(to),
                            },
                            1,
                        ),
                        ScheduleStep::Irq { cpu } => (
                            Choice::Irq {
                                cpu: translate::cpu(cpu),
                            },
                            1,
                        ),
                    };
                    std::iter::repeat_n(choice, times as usize)
                })
                .collect(),
        },
    }
}

/// One run of an operation line, ready to start: the line, and its task's `for` variable.
struct Item<'s> {
    line: &'s OpLine,
    var: Option<(String, Value)>,
}

struct Task<'s> {
    cpu: u16,
    slot: TaskSlot,
    lines: Vec<&'s OpLine>,
    /// The next line to expand.
    next_line: usize,
    items: VecDeque<Item<'s>>,
    /// The running operation: its item and index.
    running: Option<(Item<'s>, u32)>,
}

/// The block's operations as the executor's program.
struct BlockProgram<'s, 'r> {
    tasks: Vec<Task<'s>>,
    caches: &'r BTreeMap<String, CacheId>,
    names: &'r mut BTreeMap<String, Value>,
    lists: &'r mut BTreeMap<String, Vec<Value>>,
    summary: &'r mut RunSummary,
    budget: &'r mut usize,
    /// Names and lists a line of the block produces, and how many lines still will.
    pending: BTreeMap<String, u32>,
    slub: bool,
    error: Option<RunError>,
}

/// The names an operation reads.
pub(crate) fn op_refs(op: &Op) -> Vec<&Ref> {
    match op {
        Op::Kfree { obj } | Op::KmemCacheFree { obj, .. } | Op::KfreeRcu { obj, .. } => vec![obj],
        Op::KmemCacheFreeBulk { objs, .. } | Op::KfreeBulk { objs } => vec![objs],
        Op::FreePages { pages } => vec![pages],
        _ => vec![],
    }
}

pub(crate) fn list_refs(e: &ListExpr) -> Vec<&Ref> {
    match e {
        ListExpr::Ref { of } | ListExpr::Reverse { of } => vec![of],
        ListExpr::Items { items } => items.iter().collect(),
        ListExpr::Interleave { lists } => lists.iter().collect(),
    }
}

pub(crate) fn ref_name(r: &Ref) -> &str {
    match r {
        Ref::Name { name } | Ref::Index { name, .. } | Ref::Slice { name, .. } => name,
    }
}

pub(crate) fn target_name(t: &Target) -> &str {
    match t {
        Target::Name(n) | Target::Append(n) => n,
    }
}

/// The names and lists `lines` give values to, each with the number of runs that will: a
/// line that reads one waits until that is 0. A `for` line is counted as `repeat` runs until it
/// expands and its list is known (`expanded`); each run's end takes one off.
pub(crate) fn block_pending(lines: &[OpLine]) -> BTreeMap<String, u32> {
    let mut pending: BTreeMap<String, u32> = BTreeMap::new();
    for l in lines {
        if let Some(t) = &l.target {
            *pending.entry(target_name(t).to_string()).or_default() += l.repeat;
        }
    }
    pending
}

/// `line` expanded into `elements` elements: a `for` line makes `repeat` runs per element.
pub(crate) fn expanded(pending: &mut BTreeMap<String, u32>, line: &OpLine, elements: usize) {
    if let (Some(target), Some(_)) = (&line.target, &line.for_each) {
        let runs = line.repeat.saturating_mul(elements as u32);
        let left = pending.entry(target_name(target).to_string()).or_default();
        *left = left.saturating_sub(line.repeat).saturating_add(runs);
    }
}

/// The first name `refs` read (other than `var`, a `for` variable) that a line still has to
/// give a value to.
pub(crate) fn first_pending<'x>(
    pending: &BTreeMap<String, u32>,
    refs: impl Iterator<Item = &'x Ref>,
    var: Option<&str>,
) -> Option<String> {
    refs.map(ref_name)
        .filter(|n| Some(*n) != var)
        .find(|n| pending.get(*n).is_some_and(|&c| c > 0))
        .map(str::to_string)
}

/// A run's result given to its line's target, as a sequential line gives it: `x = ...` names
/// a value (or a bulk allocation's list), `xs += ...` adds to a list.
pub(crate) fn store_result(
    names: &mut BTreeMap<String, Value>,
    lists: &mut BTreeMap<String, Vec<Value>>,
    target: Option<&Target>,
    value: Option<OutValue>,
) {
    match (target, value) {
        (Some(Target::Name(n)), Some(OutValue::One(v))) => {
            names.insert(n.clone(), v);
        }
        (Some(Target::Append(n)), Some(OutValue::One(v))) => {
            lists.entry(n.clone()).or_default().push(v);
        }
        (Some(Target::Name(n)), Some(OutValue::List(vs))) => {
            lists.insert(n.clone(), vs);
        }
        (Some(Target::Append(n)), Some(OutValue::List(vs))) => {
            lists.entry(n.clone()).or_default().extend(vs);
        }
        _ => {}
    }
}

impl<'s> BlockProgram<'s, '_> {
    /// The first name `refs` read that a line of the block has still to produce.
    fn waits_for<'x>(
        &self,
        refs: impl Iterator<Item = &'x Ref>,
        var: Option<&str>,
    ) -> Option<String> {
        first_pending(&self.pending, refs, var)
    }

    /// Expands task `t`'s next line into its runs.
    fn expand(&mut self, t: usize) -> Result<(), RunError> {
        let task = &mut self.tasks[t];
        let Some(&line) = task.lines.get(task.next_line) else {
            return Ok(());
        };
        task.next_line += 1;
        let elements: Vec<Option<(String, Value)>> = match &line.for_each {
            Some((var, list)) => {
                eval_list(line.line, list, self.names, self.lists, self.budget, false)?
                    .into_iter()
                    .map(|v| Some((var.clone(), v)))
                    .collect()
            }
            None => vec![None],
        };
        expanded(&mut self.pending, line, elements.len());
        let task = &mut self.tasks[t];
        for var in elements {
            for _ in 0..line.repeat {
                task.items.push_back(Item {
                    line,
                    var: var.clone(),
                });
            }
        }
        Ok(())
    }

    /// The names as task `t`'s item sees them: the run's, with its `for` variable.
    fn names_for(&self, var: &Option<(String, Value)>) -> BTreeMap<String, Value> {
        let mut names = self.names.clone();
        if let Some((n, v)) = var {
            names.insert(n.clone(), v.clone());
        }
        names
    }

    /// The SLUB operation an item stands for, when it is one that races.
    fn smp_op(&self, rec: &Recorder, item: &Item<'_>) -> Result<Option<SmpOp>, RunError> {
        let line = item.line;
        let names = self.names_for(&item.var);
        let cache = |name: &String| crate::run::lookup_cache(rec, self.caches, line.line, name);
        Ok(Some(match &line.op {
            Op::Kmalloc {
                size,
                node,
                gfp,
                site,
            } => SmpOp::Kmalloc {
                size: *size,
                flags: translate::gfp(*gfp),
                caller: call_site_address(&call_site_name(site.as_deref(), line.line)),
                node: node.map(translate::node),
            },
            Op::KmemCacheAlloc { cache: c, node } => SmpOp::Alloc {
                cache: cache(c)?,
                node: node.map(translate::node),
            },
            Op::Kfree { obj } => SmpOp::Free {
                addr: addr_of(rec, &resolve(line.line, obj, &names, self.lists)?),
                cache: None,
            },
            Op::KmemCacheFree { cache: c, obj } => SmpOp::Free {
                addr: addr_of(rec, &resolve(line.line, obj, &names, self.lists)?),
                cache: Some(cache(c)?),
            },
            Op::KmemCacheAllocBulk { cache: c, count } => SmpOp::AllocBulk {
                cache: cache(c)?,
                n: *count,
            },
            Op::KmemCacheFreeBulk { cache: c, objs } => SmpOp::FreeBulk {
                cache: Some(cache(c)?),
                objs: resolve_list(line.line, objs, &names, self.lists)?
                    .iter()
                    .map(|v| addr_of(rec, v))
                    .collect(),
            },
            Op::KfreeBulk { objs } => SmpOp::FreeBulk {
                cache: None,
                objs: resolve_list(line.line, objs, &names, self.lists)?
                    .iter()
                    .map(|v| addr_of(rec, v))
                    .collect(),
            },
            Op::FlushCpuSlab { cache: c } => SmpOp::FlushCpuSlab { cache: cache(c)? },
            _ => return Ok(None),
        }))
    }
}

/// What an operation of the block returned.
type Out = Result<Option<OutValue>, RunError>;

/// A result to name: one value, or a bulk allocation's list.
pub(crate) enum OutValue {
    One(Value),
    List(Vec<Value>),
}

impl<'a> Program<'a> for BlockProgram<'_, '_> {
    type Out = Out;

    fn ready(&self, t: TaskId) -> Ready {
        if self.error.is_some() {
            return Ready::Done;
        }
        let task = &self.tasks[usize::from(t)];
        let waits = match task.items.front() {
            Some(item) => self.waits_for(
                op_refs(&item.line.op).into_iter(),
                item.var.as_ref().map(|(n, _)| n.as_str()),
            ),
            None => match task.lines.get(task.next_line) {
                None => return Ready::Done,
                Some(line) => {
                    let var = line.for_each.as_ref().map(|(v, _)| v.as_str());
                    let list = line
                        .for_each
                        .as_ref()
                        .map(|(_, l)| list_refs(l))
                        .unwrap_or_default();
                    self.waits_for(list.into_iter(), None)
                        .or_else(|| self.waits_for(op_refs(&line.op).into_iter(), var))
                }
            },
        };
        match waits {
            Some(name) => Ready::Waits(name),
            None => Ready::Yes,
        }
    }

    fn start(&mut self, t: TaskId, k: Ctx<'a>) -> (&'static str, OpFuture<'a, Out>) {
        let ti = usize::from(t);
        while self.tasks[ti].items.is_empty()
            && self.tasks[ti].next_line < self.tasks[ti].lines.len()
        {
            if let Err(e) = self.expand(ti) {
                self.error = Some(e);
                return ("(error)", Box::pin(async { Ok(None) }));
            }
        }
        let Some(item) = self.tasks[ti].items.pop_front() else {
            return ("(nothing)", Box::pin(async { Ok(None) }));
        };
        let index = self.summary.op_ends.len() as u32;
        self.summary.op_ends.push(0);
        self.summary.op_lines.push(item.line.line);
        *self
            .summary
            .ops
            .entry(item.line.op.name().to_string())
            .or_default() += 1;
        let name = item.line.op.name();
        k.with(|rec| rec.set_origin(Some(item.line.line), Some(index)));
        let smp = if self.slub {
            k.with(|rec| self.smp_op(rec, &item))
        } else {
            Ok(None)
        };
        let fut: OpFuture<'a, Out> = match smp {
            Err(e) => Box::pin(async move { Err(e) }),
            Ok(Some(op)) => {
                let run = op.run(k);
                Box::pin(async move {
                    Ok(match run.await {
                        SmpResult::Object(a) => object(a).map(OutValue::One),
                        // A bulk allocation's objects are a list, even one of one.
                        SmpResult::Objects(o) => Some(OutValue::List(
                            o.into_iter()
                                .map(|a| object(a).unwrap_or(Value::Null))
                                .collect(),
                        )),
                        SmpResult::Freed(_) | SmpResult::Done => None,
                    })
                })
            }
            Ok(None) => {
                // Whole, in this micro-step.
                let names = self.names_for(&item.var);
                let mut line = item.line.clone();
                line.repeat = 1;
                let lists = &mut *self.lists;
                let caches = self.caches;
                let result = k.with(|rec| step(rec, &line, caches, &names, lists));
                let out = result.map(|v| v.map(OutValue::One));
                Box::pin(async move { out })
            }
        };
        self.tasks[ti].running = Some((item, index));
        (name, fut)
    }

    fn finish(&mut self, t: TaskId, out: Out, at: usize) {
        let Some((item, index)) = self.tasks[usize::from(t)].running.take() else {
            return;
        };
        self.summary.op_ends[index as usize] = at;
        if let Some(target) = &item.line.target {
            let left = self
                .pending
                .entry(target_name(target).to_string())
                .or_default();
            *left = left.saturating_sub(1);
        }
        let value = match out {
            Ok(v) => v,
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        store_result(self.names, self.lists, item.line.target.as_ref(), value);
    }

    fn origin(&self, t: TaskId) -> (Option<u32>, Option<u32>) {
        let task = &self.tasks[usize::from(t)];
        match &task.running {
            Some((item, index)) => (Some(item.line.line), Some(*index)),
            None => (
                task.items
                    .front()
                    .map(|i| i.line.line)
                    .or_else(|| task.lines.get(task.next_line).map(|l| l.line)),
                None,
            ),
        }
    }
}

/// The run's state a block reads and adds to: the names, the lists, the summary and the
/// list elements left to build.
pub(crate) type RunState<'r> = (
    &'r mut BTreeMap<String, Value>,
    &'r mut BTreeMap<String, Vec<Value>>,
    &'r mut RunSummary,
    &'r mut usize,
);

/// Runs `block` of `scenario` under its schedule, or, given `choose`, under the decisions it
/// picks (the explorer's).
pub(crate) fn run_block(
    rec: &mut Recorder,
    scenario: &Scenario,
    block: &Block,
    caches: &BTreeMap<String, CacheId>,
    state: &mut RunState<'_>,
    choose: Option<&mut exec::Chooser<'_>>,
) -> Result<BlockRun, RunError> {
    let (names, lists, summary, budget) = state;
    let lines = &scenario.ops[block.first_op..block.end_op];
    // One task per (CPU, slot), in that order.
    let mut keys: Vec<(u16, TaskSlot)> = Vec::new();
    for l in lines {
        let key = (l.cpu.unwrap_or(0) as u16, l.task);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.sort_by_key(|(cpu, slot)| (*cpu, slot_order(*slot)));
    let tasks: Vec<Task<'_>> = keys
        .iter()
        .map(|&(cpu, slot)| Task {
            cpu,
            slot,
            lines: lines
                .iter()
                .filter(|l| l.cpu.unwrap_or(0) as u16 == cpu && l.task == slot)
                .collect(),
            next_line: 0,
            items: VecDeque::new(),
            running: None,
        })
        .collect();
    let specs: Vec<TaskSpec> = tasks
        .iter()
        .map(|t| TaskSpec {
            cpu: CpuId(t.cpu),
            kind: if t.slot == TaskSlot::Irq {
                TaskKind::Irq
            } else {
                TaskKind::Process
            },
        })
        .collect();
    let pending = block_pending(lines);
    let slub = allocator::ops(rec.machine()).kind() == Allocator::Slub;
    let start = rec.cursor();
    let mut program = BlockProgram {
        tasks,
        caches,
        names,
        lists,
        summary,
        budget,
        pending,
        slub,
        error: None,
    };
    let options = exec::Options {
        teaching: Teaching {
            no_tid: scenario.teaching_no_tid,
        },
        limit: MAX_BLOCK_STEPS,
        keep_taken: true,
    };
    let result = match choose {
        Some(choose) => exec::run_chosen(rec, &specs, options, &mut program, choose),
        None => exec::run(
            rec,
            &specs,
            &schedule(&block.schedule),
            options,
            &mut program,
        ),
    };
    if let Some(e) = program.error.take() {
        return Err(e);
    }
    let outcome = result.map_err(|(e, _)| exec_error(e, block.line, &keys))?;
    Ok(BlockRun {
        line: block.line,
        start,
        end: rec.cursor(),
        taken: outcome.taken,
        stats: outcome.stats,
        tasks: keys,
    })
}

/// An executor's early stop, as the run's error for the block at `line`.
fn exec_error(e: ExecError, line: u32, keys: &[(u16, TaskSlot)]) -> RunError {
    match e {
        ExecError::Deadlock { waits } => RunError::BlockDeadlock {
            line,
            waits: waits
                .into_iter()
                .map(|(t, name)| {
                    let (cpu, slot) = keys[usize::from(t)];
                    (task_label(cpu, slot), name)
                })
                .collect(),
        },
        ExecError::NotAllowed { index, choice } => RunError::ScheduleNotAllowed {
            line,
            index: index as u32 + 1,
            choice: choice_text(choice),
        },
        ExecError::TooLong { limit } => RunError::TooLong {
            line,
            what: "micro-steps",
            max: limit,
        },
    }
}

fn slot_order(slot: TaskSlot) -> u32 {
    match slot {
        TaskSlot::Main => 0,
        TaskSlot::Other(n) => n,
        TaskSlot::Irq => u32::MAX,
    }
}

/// `cpu0`, `cpu0 task 1`, `cpu0 irq`.
pub fn task_label(cpu: u16, slot: TaskSlot) -> String {
    match slot {
        TaskSlot::Main => format!("cpu{cpu}"),
        TaskSlot::Other(n) => format!("cpu{cpu} task {n}"),
        TaskSlot::Irq => format!("cpu{cpu} irq"),
    }
}

/// Decisions as a `schedule` line writes them, runs of one CPU as `cpuN:K`.
pub fn schedule_text(taken: &[Choice]) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut i = 0;
    while i < taken.len() {
        let c = taken[i];
        let mut n = 1;
        while matches!(c, Choice::Run { .. }) && taken.get(i + n) == Some(&c) {
            n += 1;
        }
        words.push(if n > 1 {
            format!("{}:{n}", choice_text(c))
        } else {
            choice_text(c)
        });
        i += n;
    }
    words.join(" ")
}

/// A decision as a `schedule` line writes it.
pub fn choice_text(c: Choice) -> String {
    match c {
        Choice::Run { cpu } => format!("cpu{cpu}"),
        Choice::Preempt { cpu, to } if cpu == to => format!("preempt(cpu{cpu})"),
        Choice::Preempt { cpu, to } => format!("preempt(cpu{cpu}, cpu{to})"),
        Choice::Irq { cpu } => format!("irq(cpu{cpu})"),
    }
}

/// What a block did, as text: its extent, the schedule it took (runs of one CPU written
/// `cpuN:K`, as a `schedule` line takes it back), its retries by site and its `list_lock`s.
pub fn block_text(rec: &Recorder, run: &BlockRun) -> String {
    let mut out = format!(
        "--- concurrent block at line {}: steps {} to {} ({} micro-steps)\n",
        run.line,
        run.start + 1,
        run.end,
        run.taken.len()
    );
    out.push_str(&format!("schedule {}\n", schedule_text(&run.taken)));
    let retries: Vec<String> = run
        .stats
        .retries
        .iter()
        .map(|((site, reason), n)| format!("{site} ({}) {n}", reason.word()))
        .collect();
    out.push_str(&format!(
        "retries: {}\n",
        if retries.is_empty() {
            "none".to_string()
        } else {
            retries.join(", ")
        }
    ));
    let name = |c: CacheId| rec.machine().cache_name(c).unwrap_or("?").to_string();
    let locks: Vec<String> = run
        .stats
        .locks
        .iter()
        .map(|((c, n), (taken, waits))| {
            format!("{} node {n}: taken {taken}, spins {waits}", name(*c))
        })
        .collect();
    out.push_str(&format!(
        "list_lock: {}\n",
        if locks.is_empty() {
            "not taken".to_string()
        } else {
            locks.join(", ")
        }
    ));
    out
}
