//! The interleaving executor: runs tasks (each a list of operations on a CPU, or a CPU's
//! interrupt handlers) as async kernel code, one micro-step at a time, in the order a
//! `Schedule` picks, recording one step per micro-step.
//!
//! Rules:
//! - A decision is one of `Choice`; the executor lists the decisions the kernel allows at
//!   each point (`choices`) and the schedule picks one. The decisions taken are returned:
//!   replayed as an explicit schedule, they give the same run.
//! - Each CPU runs one process task at a time (the front of its queue) and, on top of it, at
//!   most one interrupt handler; a preempted task goes to the back of the queue of the CPU
//!   it will go on on.
//! - An operation that cannot start yet (it names an object another task has not returned)
//!   waits; when every task waits, or the run exceeds its bound, the run stops with a message.

use super::micro::{Micro, Stats};
use super::schedule::{Choice, Picker, Schedule};
use super::{Ctx, Shared, TaskId, Teaching};
use crate::ids::CpuId;
use crate::trace::Recorder;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// An operation running as kernel code.
pub type OpFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

/// Whether a task is a CPU's process context or its interrupt handlers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskKind {
    Process,
    Irq,
}

/// A task as the caller declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskSpec {
    pub cpu: CpuId,
    pub kind: TaskKind,
}

/// Whether a task's next operation can start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ready {
    Yes,
    /// It needs what another task has not produced yet (said for a person).
    Waits(String),
    /// The task has no operation left.
    Done,
}

/// The operations of a run's tasks, as the caller keeps them.
pub trait Program<'a> {
    type Out;
    /// Whether task `t`'s next operation can start.
    fn ready(&self, t: TaskId) -> Ready;
    /// Starts task `t`'s next operation (`ready` said yes): its name (the step that begins
    /// it is named after it) and its kernel code.
    fn start(&mut self, t: TaskId, k: Ctx<'a>) -> (&'static str, OpFuture<'a, Self::Out>);
    /// Task `t`'s operation returned `out`, in the step that ends at cursor `at`.
    fn finish(&mut self, t: TaskId, out: Self::Out, at: usize);
    /// The scenario line and operation index task `t`'s current operation comes from.
    fn origin(&self, t: TaskId) -> (Option<u32>, Option<u32>);
    /// Whether starting or finishing one task's operation can change whether another task's
    /// next operation can start (one names an object another returns): then the executor
    /// looks at every CPU again after each.
    fn tasks_depend(&self) -> bool {
        true
    }
}

/// How an interleaved run goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub teaching: Teaching,
    /// Micro-steps it may take.
    pub limit: usize,
    /// Keep the decisions taken (`Outcome::taken`), to replay the run.
    pub keep_taken: bool,
}

/// How an interleaved run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The decisions taken, in order.
    pub taken: Vec<Choice>,
    pub stats: Stats,
    /// Micro-steps taken.
    pub steps: usize,
}

/// Why an interleaved run stopped early (the steps so far stay recorded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// Every task that has work left waits for another.
    Deadlock { waits: Vec<(TaskId, String)> },
    /// Decision `index` of an explicit schedule is not one the kernel allows there.
    NotAllowed { index: usize, choice: Choice },
    /// More micro-steps than `limit`.
    TooLong { limit: usize },
}

struct Slot<'a, T> {
    fut: Option<OpFuture<'a, T>>,
    name: &'static str,
    done: bool,
}

/// What one CPU allows at a decision (`Exec::entries`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CpuEntry {
    /// Its current process task (`Exec::current`).
    current: Option<TaskId>,
    /// It can take a micro-step (its interrupt handler's, or its current task's).
    run: bool,
    /// An interrupt can come in.
    irq: bool,
    /// Its current task can be preempted (in the middle of an operation, preemption and
    /// interrupts on): whether it is pinned to its CPU.
    preempt: Option<bool>,
    /// Another process task waits for the CPU.
    more_queued: bool,
}

struct CpuState {
    /// Process tasks on this CPU, in the order they get it.
    queue: VecDeque<TaskId>,
    /// The one that has it (until it is preempted, or sleeps on an operation that waits).
    running: Option<TaskId>,
    /// The interrupt handler running on it, if any.
    irq: Option<TaskId>,
    /// Interrupt tasks of this CPU.
    irq_tasks: Vec<TaskId>,
}

/// Runs `tasks` under `schedule`, at most `limit` micro-steps.
pub fn run<'r, P>(
    rec: &'r mut Recorder,
    tasks: &[TaskSpec],
    schedule: &Schedule,
    options: Options,
    program: &mut P,
) -> Result<Outcome, (ExecError, Outcome)>
where
    P: for<'a> Program<'a>,
{
    match schedule {
        // One decision in 16 (with `preempt`, when the kernel allows one) preempts: uniform
        // among the preemptions; else uniform among the CPUs that can run and the interrupts
        // that can come. The preemptions are counted, and only the one drawn is listed.
        Schedule::Random { seed, preempt } => {
            let random = Random {
                picker: Picker::new(*seed),
                preempt: *preempt,
            };
            drive(rec, tasks, options, program, Decide::Random(random))
        }
        _ => {
            let mut rr = 0;
            let cpus = rec.machine().config.cpus as usize;
            let mut choose =
                |index: usize, choices: &[Choice], now: &dyn Fn(CpuId) -> CpuNow| match schedule {
                    Schedule::Explicit { choices: list } if index < list.len() => {
                        let c = list[index];
                        if choices.contains(&c) {
                            Ok(c)
                        } else {
                            Err(ExecError::NotAllowed { index, choice: c })
                        }
                    }
                    _ => Ok(round_robin(&mut rr, cpus, choices, &|c| now(c).mid_op)),
                };
            run_chosen(rec, tasks, options, program, &mut choose)
        }
    }
}

/// A random schedule's generator and whether it preempts.
struct Random {
    picker: Picker,
    preempt: bool,
}

/// How `drive` takes each decision.
enum Decide<'d, 'c> {
    Chooser(&'d mut Chooser<'c>),
    Random(Random),
}

/// What a chooser can ask of a CPU at a decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuNow {
    /// A task of the CPU is in the middle of an operation.
    pub mid_op: bool,
    /// Its running task spins on a `list_lock` another task holds: running it again only
    /// spins once more (a bounded search owes it no switch to leave it).
    pub spinning: bool,
}

/// What picks each decision: given its index, the decisions the kernel allows, and what each
/// CPU is doing, the one to take (or why none can be).
pub type Chooser<'c> =
    dyn FnMut(usize, &[Choice], &dyn Fn(CpuId) -> CpuNow) -> Result<Choice, ExecError> + 'c;

/// Runs `tasks`, each decision picked by `choose`, at most `limit` micro-steps.
pub fn run_chosen<'r, P>(
    rec: &'r mut Recorder,
    tasks: &[TaskSpec],
    options: Options,
    program: &mut P,
    choose: &mut Chooser<'_>,
) -> Result<Outcome, (ExecError, Outcome)>
where
    P: for<'a> Program<'a>,
{
    drive(rec, tasks, options, program, Decide::Chooser(choose))
}

fn drive<'r, P>(
    rec: &'r mut Recorder,
    tasks: &[TaskSpec],
    options: Options,
    program: &mut P,
    mut decide: Decide<'_, '_>,
) -> Result<Outcome, (ExecError, Outcome)>
where
    P: for<'a> Program<'a>,
{
    let cpus = rec.machine().config.cpus as usize;
    let Options {
        teaching,
        limit,
        keep_taken,
    } = options;
    let sh = Shared::new(rec, teaching);
    let mut ex = Exec {
        sh: &sh,
        slots: Vec::new(),
        cpus: (0..cpus)
            .map(|_| CpuState {
                queue: VecDeque::new(),
                running: None,
                irq: None,
                irq_tasks: Vec::new(),
            })
            .collect(),
        taken: Vec::new(),
        keep_taken,
        steps: 0,
        finished: u64::MAX,
        entries: vec![CpuEntry::default(); cpus],
        stale: u64::MAX,
        preempts_allowed: 0,
    };
    for spec in tasks {
        let t = sh.add_task(spec.cpu);
        let cpu = usize::from(spec.cpu);
        match spec.kind {
            TaskKind::Process => ex.cpus[cpu].queue.push_back(t),
            TaskKind::Irq => ex.cpus[cpu].irq_tasks.push(t),
        }
        ex.slots.push(Slot {
            fut: None,
            name: "",
            done: false,
        });
    }
    let (mut choices, mut preempts) = (Vec::new(), Vec::new());
    loop {
        if ex.finished != 0 {
            ex.retire(program);
        }
        let listing = matches!(decide, Decide::Chooser(_));
        ex.choices(program, &mut choices, &mut preempts, listing);
        if choices.is_empty() {
            let waits = ex.waits(program);
            let outcome = ex.outcome();
            return if waits.is_empty() {
                Ok(outcome)
            } else {
                Err((ExecError::Deadlock { waits }, outcome))
            };
        }
        if ex.steps >= limit {
            return Err((ExecError::TooLong { limit }, ex.outcome()));
        }
        let index = ex.steps;
        let now = |cpu: CpuId| {
            let c = &ex.cpus[usize::from(cpu)];
            CpuNow {
                mid_op: c
                    .queue
                    .iter()
                    .any(|&t| ex.slots[usize::from(t)].fut.is_some()),
                spinning: c
                    .irq
                    .or(c.running)
                    .is_some_and(|t| sh.il().tasks.borrow()[usize::from(t)].spinning),
            }
        };
        let picked = match &mut decide {
            Decide::Chooser(choose) => choose(index, &choices, &now),
            Decide::Random(r) => Ok(ex.pick_random(&mut r.picker, &choices, r.preempt)),
        };
        let choice = match picked {
            Ok(c) => c,
            Err(e) => return Err((e, ex.outcome())),
        };
        ex.take(choice, program);
    }
}

/// The CPUs below `n` whose bits are set in `mask` (bit `c` for CPU `c`), lowest first.
fn cpus_in(mut mask: u64, n: usize) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let c = mask.trailing_zeros() as usize;
        mask &= mask - 1;
        (c < n).then_some(c)
    })
}

/// Whether the current task of CPU `c` (preemptible, `pinned` or not) may be preempted and go
/// on on CPU `to`: in place, it can only let another task run first (`more_queued`: another
/// task waits for the CPU).
fn may_preempt_to(c: usize, to: usize, pinned: bool, more_queued: bool) -> bool {
    if to == c {
        more_queued
    } else {
        !pinned
    }
}

/// Round-robin: a pending interrupt first (on the next CPU that has one, if that CPU is in
/// the middle of an operation or has nothing else to run), else the next CPU that can run.
fn round_robin(
    rr: &mut usize,
    n: usize,
    choices: &[Choice],
    mid_op: &dyn Fn(CpuId) -> bool,
) -> Choice {
    for i in 0..n {
        let cpu = CpuId(((*rr + i) % n) as u16);
        let irq = Choice::Irq { cpu };
        if choices.contains(&irq) && (mid_op(cpu) || !choices.contains(&Choice::Run { cpu })) {
            return irq;
        }
    }
    for i in 0..n {
        let cpu = CpuId(((*rr + i) % n) as u16);
        if choices.contains(&Choice::Run { cpu }) {
            *rr = (usize::from(cpu) + 1) % n;
            return Choice::Run { cpu };
        }
    }
    choices[0]
}

struct Exec<'a, T> {
    sh: &'a Shared<'a>,
    slots: Vec<Slot<'a, T>>,
    cpus: Vec<CpuState>,
    taken: Vec<Choice>,
    keep_taken: bool,
    steps: usize,
    /// The CPUs on which an operation finished in the last decision (a task may be done; bit
    /// `c` for CPU `c`, every bit at the start).
    finished: u64,
    /// What `choices` found for each CPU (its current task, what it allows), kept while
    /// nothing changes there: the decision taken right after reads it.
    entries: Vec<CpuEntry>,
    /// The CPUs whose entry is to be found again (bit `c` for CPU `c`; at most 64 CPUs).
    stale: u64,
    /// The preemptions `choices` counted without listing them.
    preempts_allowed: usize,
}

impl<'a, T> Exec<'a, T> {
    fn outcome(&self) -> Outcome {
        Outcome {
            taken: self.taken.clone(),
            stats: self.sh.il().stats.borrow().clone(),
            steps: self.steps,
        }
    }

    /// Drops finished process tasks from their CPUs (those an operation finished on: only the
    /// task that finished one can have none left).
    fn retire<P: Program<'a, Out = T>>(&mut self, program: &P) {
        for c in cpus_in(std::mem::take(&mut self.finished), self.cpus.len()) {
            let slots = &mut self.slots;
            self.cpus[c].queue.retain(|&t| {
                let slot = &mut slots[usize::from(t)];
                slot.done = slot.fut.is_none() && program.ready(t) == Ready::Done;
                !slot.done
            });
            if self.cpus[c]
                .running
                .is_some_and(|t| self.slots[usize::from(t)].done)
            {
                self.cpus[c].running = None;
            }
        }
    }

    /// The process task `cpu` runs now (its interrupt handler, if one runs, comes first): the
    /// one that has it, else the first of its queue that can run (a task whose next operation
    /// waits sleeps, and the next one runs).
    fn current<P: Program<'a, Out = T>>(&self, cpu: usize, program: &P) -> Option<TaskId> {
        let c = &self.cpus[cpu];
        c.running
            .filter(|&t| self.can_run(t, program))
            .or_else(|| c.queue.iter().copied().find(|&t| self.can_run(t, program)))
    }

    fn can_run<P: Program<'a, Out = T>>(&self, t: TaskId, program: &P) -> bool {
        self.slots[usize::from(t)].fut.is_some() || matches!(program.ready(t), Ready::Yes)
    }

    /// The task's state at its boundary: (preemptible, interruptible, pinned to its CPU).
    fn at_boundary(&self, t: TaskId) -> (bool, bool, bool) {
        let tasks = self.sh.il().tasks.borrow();
        let s = &tasks[usize::from(t)];
        (
            s.preempt_off == 0 && s.irqs_off == 0,
            s.irqs_off == 0,
            s.pinned,
        )
    }

    /// What CPU `c` allows now (see `CpuEntry`).
    fn entry<P: Program<'a, Out = T>>(&self, c: usize, program: &P) -> CpuEntry {
        let current = self.current(c, program);
        let cs = &self.cpus[c];
        let more_queued = cs.queue.len() > 1;
        // The interrupt handler, if one runs (it always can: it started its operation), else
        // the current task (which `current` found able to run).
        let run = cs.irq.is_some() || current.is_some();
        if cs.irq.is_some() {
            return CpuEntry {
                current,
                run,
                irq: false,
                preempt: None,
                more_queued,
            };
        }
        // A task in the middle of an operation, at its boundary: (preemptible, interruptible,
        // pinned).
        let mid_op = current.filter(|&t| self.slots[usize::from(t)].fut.is_some());
        let (preemptible, interruptible, pinned) = match mid_op {
            Some(t) => self.at_boundary(t),
            None => (false, true, false),
        };
        let irq = interruptible
            && cs
                .irq_tasks
                .iter()
                .any(|&t| matches!(program.ready(t), Ready::Yes));
        CpuEntry {
            current,
            run,
            irq,
            preempt: (mid_op.is_some() && preemptible).then_some(pinned),
            more_queued,
        }
    }

    /// Every decision the kernel allows now, into `out` (the same buffer at every call): the
    /// CPUs' next micro-steps and the interrupts first, the preemptions after them (`preempts`,
    /// a buffer, holds them meanwhile). What a CPU allows is found again only after something
    /// changed there (`Exec::stale`: an interrupt's entry changes its CPU, a preemption two, a
    /// micro-step its own CPU when it changes the task's boundary, the start or the end of an
    /// operation its own CPU, or every CPU when tasks wait on each other's operations), and
    /// `out` is rebuilt only when that changed what a CPU allows.
    /// Unless `listing`, the preemptions are only counted (`preempts_allowed`): a random
    /// schedule lists the one it draws (`nth_preempt`).
    fn choices<P: Program<'a, Out = T>>(
        &mut self,
        program: &P,
        out: &mut Vec<Choice>,
        preempts: &mut Vec<Choice>,
        listing: bool,
    ) {
        // Every entry starts as one that allows nothing, as the empty buffer does.
        let mut changed = false;
        for c in cpus_in(std::mem::take(&mut self.stale), self.cpus.len()) {
            let e = self.entry(c, program);
            if e != self.entries[c] {
                self.entries[c] = e;
                changed = true;
            }
        }
        // What was kept is what would be found now (checked in debug builds: the property
        // tests run every executor path through it).
        debug_assert!(
            (0..self.cpus.len()).all(|c| self.entries[c] == self.entry(c, program)),
            "an executor entry was kept after its CPU changed"
        );
        if !changed {
            return;
        }
        out.clear();
        preempts.clear();
        self.preempts_allowed = 0;
        let n = self.cpus.len();
        for (c, e) in self.entries.iter().enumerate() {
            let cpu = CpuId(c as u16);
            if e.run {
                out.push(Choice::Run { cpu });
            }
            if e.irq {
                out.push(Choice::Irq { cpu });
            }
            if let Some(pinned) = e.preempt {
                if listing {
                    for to in 0..n {
                        if may_preempt_to(c, to, pinned, e.more_queued) {
                            preempts.push(Choice::Preempt {
                                cpu,
                                to: CpuId(to as u16),
                            });
                        }
                    }
                } else {
                    // What the loop above would list: in place when another task waits for
                    // this CPU, and to every other CPU unless pinned.
                    self.preempts_allowed +=
                        usize::from(e.more_queued) + if pinned { 0 } else { n - 1 };
                }
            }
        }
        if listing {
            out.append(preempts);
        }
    }

    /// The `k`-th preemption `choices` would have listed (same order: by CPU, then by the CPU
    /// it moves to).
    fn nth_preempt(&self, mut k: usize) -> Option<Choice> {
        let n = self.cpus.len();
        for (c, e) in self.entries.iter().enumerate() {
            let Some(pinned) = e.preempt else {
                continue;
            };
            for to in 0..n {
                if may_preempt_to(c, to, pinned, e.more_queued) {
                    if k == 0 {
                        return Some(Choice::Preempt {
                            cpu: CpuId(c as u16),
                            to: CpuId(to as u16),
                        });
                    }
                    k -= 1;
                }
            }
        }
        None
    }

    /// A random schedule's decision (see `run`), over `others` (the CPUs and interrupts) and
    /// the preemptions `choices` counted.
    fn pick_random(&self, p: &mut Picker, others: &[Choice], preempt: bool) -> Choice {
        let n = self.preempts_allowed;
        if preempt && n > 0 && p.below(16) == 0 {
            let k = p.below(n);
            if let Some(c) = self.nth_preempt(k) {
                return c;
            }
        }
        others[p.below(others.len())]
    }

    /// Takes one decision: one step of the trace.
    fn take<P: Program<'a, Out = T>>(&mut self, choice: Choice, program: &mut P) {
        if self.keep_taken {
            self.taken.push(choice);
        }
        self.steps += 1;
        // A micro-step changes what its CPU allows only when it starts or ends an operation
        // or changes the task's boundary (`run_cpu` says so).
        match choice {
            Choice::Run { .. } => {}
            Choice::Irq { cpu } => self.stale |= 1 << cpu.0,
            Choice::Preempt { cpu, to } => self.stale |= (1 << cpu.0) | (1 << to.0),
        }
        match choice {
            Choice::Run { cpu } => self.run_cpu(usize::from(cpu), program),
            Choice::Preempt { cpu, to } => {
                let c = usize::from(cpu);
                let Some(t) = self.entries[c].current else {
                    return;
                };
                self.cpus[c].queue.retain(|&q| q != t);
                self.cpus[c].running = None;
                self.cpus[usize::from(to)].queue.push_back(t);
                {
                    let mut tasks = self.sh.il().tasks.borrow_mut();
                    let s = &mut tasks[usize::from(t)];
                    s.cpu = to;
                    s.preempted = true;
                }
                self.note_step(t, program, Micro::Preempted { cpu, to });
            }
            Choice::Irq { cpu } => {
                let c = usize::from(cpu);
                let Some(&t) = self.cpus[c]
                    .irq_tasks
                    .iter()
                    .find(|&&t| program.ready(t) == Ready::Yes)
                else {
                    return;
                };
                self.cpus[c].irq = Some(t);
                if let Some(current) = self.entries[c].current {
                    self.sh.il().tasks.borrow_mut()[usize::from(current)].interrupted = true;
                }
                self.note_step(t, program, Micro::IrqEnter { cpu });
            }
        }
    }

    /// A step that is only a note (a preemption, an interrupt's entry).
    fn note_step<P: Program<'a, Out = T>>(&mut self, t: TaskId, program: &P, micro: Micro) {
        let (line, op) = program.origin(t);
        self.sh.with(|rec| {
            rec.set_origin(line, op);
            rec.open_micro_step();
            rec.micro(t, micro);
        });
        // Named as the kernel names where it happens, not after the function the task was in:
        // an interrupt enters through irq_enter(); a task with preemption enabled is preempted
        // on the way out of an interrupt, in preempt_schedule_irq() (CONFIG_PREEMPTION).
        let (function, path) = match micro {
            Micro::IrqEnter { .. } => ("irq_enter", "interrupt"),
            Micro::Preempted { .. } => ("preempt_schedule_irq", "preempted"),
            _ => self.frame(t),
        };
        self.sh.with(|rec| rec.close_micro_step(function, path));
    }

    /// The kernel function the task is in, for naming its step.
    fn frame(&self, t: TaskId) -> (&'static str, &'static str) {
        let tasks = self.sh.il().tasks.borrow();
        match tasks[usize::from(t)].calls.last() {
            Some(f) => (f.function, f.path),
            None => (self.slots[usize::from(t)].name, ""),
        }
    }

    /// One micro-step of the task running on `cpu`: the start of its next operation (up to
    /// its first boundary), or the next micro-step of the one it is in.
    fn run_cpu<P: Program<'a, Out = T>>(&mut self, c: usize, program: &mut P) {
        let Some(t) = self.cpus[c].irq.or(self.entries[c].current) else {
            return;
        };
        let ti = usize::from(t);
        // Tasks of this CPU caught mid-operation wait while this one runs: preempted, as the
        // kernel would say of them.
        if self.cpus[c].queue.len() > 1 {
            for &q in &self.cpus[c].queue {
                if q != t && self.slots[usize::from(q)].fut.is_some() {
                    self.sh.il().tasks.borrow_mut()[usize::from(q)].preempted = true;
                }
            }
        }
        if self.cpus[c].irq != Some(t) {
            self.cpus[c].running = Some(t);
        }
        let starting = self.slots[ti].fut.is_none();
        // Which CPUs an operation's start or end can change: its own, or every one when
        // tasks wait on each other's operations.
        let op_bound = if program.tasks_depend() {
            u64::MAX
        } else {
            1 << c
        };
        if starting {
            self.stale |= op_bound;
        }
        let (line, op) = program.origin(t);
        self.sh.with(|rec| {
            rec.set_origin(line, op);
            rec.open_micro_step();
        });
        if starting {
            let k = Ctx::new(self.sh, t);
            let (name, fut) = program.start(t, k);
            self.slots[ti].name = name;
            self.slots[ti].fut = Some(fut);
            let (line, op) = program.origin(t);
            let cpu = CpuId(c as u16);
            self.sh.with(|rec| {
                rec.set_step_origin(line, op);
                rec.micro(t, Micro::Start { cpu });
            });
        }
        let il = self.sh.il();
        il.noted.set(0);
        il.frame.set(None);
        let poll = match self.slots[ti].fut.as_mut() {
            Some(f) => f.as_mut().poll(&mut Context::from_waker(Waker::noop())),
            None => Poll::Pending,
        };
        // Named after where the task was at its first micro-step here (its frames may be gone
        // if the operation returned in this step).
        let (function, path) = match il.frame.get() {
            Some(f) if il.noted.get() > 0 => (f.function, f.path),
            _ => self.frame(t),
        };
        if il.boundary_changed.replace(false) {
            self.stale |= 1 << c;
        }
        if let Poll::Ready(out) = poll {
            self.finished |= 1 << c;
            self.stale |= op_bound;
            self.slots[ti].fut = None;
            let at = self.sh.with(|rec| rec.cursor()) + 1;
            program.finish(t, out, at);
            if self.cpus[c].irq == Some(t) {
                self.cpus[c].irq = None;
                let cpu = CpuId(c as u16);
                self.sh.with(|rec| rec.micro(t, Micro::IrqExit { cpu }));
            }
        }
        self.sh.with(|rec| rec.close_micro_step(function, path));
        if !self.sh.il().diagnostics.borrow().is_empty() {
            let found: Vec<_> = self.sh.il().diagnostics.borrow_mut().drain(..).collect();
            for d in found {
                self.sh.with(|rec| d.record(rec));
            }
        }
    }

    /// What each task with work left waits for (empty when none has work left).
    fn waits<P: Program<'a, Out = T>>(&self, program: &P) -> Vec<(TaskId, String)> {
        (0..self.slots.len())
            .filter_map(|i| {
                let t = i as TaskId;
                match program.ready(t) {
                    Ready::Waits(w) if self.slots[i].fut.is_none() => Some((t, w)),
                    _ => None,
                }
            })
            .collect()
    }
}
