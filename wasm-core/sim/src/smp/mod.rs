//! SMP: the kernel paths that other CPUs (or an interrupt on the same CPU) can race with, as
//! sequences of micro-steps, and an executor that interleaves CPUs at those micro-steps.
//!
//! Rules:
//! - Such a path is an `async fn` taking a `Ctx`. Every access to memory that another CPU or
//!   an interrupt can touch goes through a `Ctx` method that is a micro-step boundary, at the
//!   kernel's own points: a load of a shared word, a cmpxchg, a lock taken, waited on or
//!   dropped (`micro::Access`). Between two boundaries the code touches only what its task
//!   owns: its locals, objects and slabs it holds, structures under a lock it holds.
//! - The paths are written once, in a `#[dual]` module (`slabscope-dual`): the async code, and
//!   its synchronous twin (`sync`, with `SyncCtx`). Run sequentially (`run_sync!`), the twin
//!   passes every boundary at once: the path runs straight through and records the same
//!   kernel-function steps as it always did; each micro-step is noted inside its step when
//!   the recorder keeps micro-steps (`Recorder::keep_micro`).
//! - Interleaved (`exec::run`), the async code suspends at every boundary; the schedule picks
//!   which task resumes, and that task's micro-step (the access, then what the task computes
//!   up to its next access) is one step of the trace, named by the micro-step.
//! - Preemption and interrupts are injected only where the kernel allows them: a task can be
//!   preempted (and migrated) at a boundary where its preempt count is 0 and interrupts are on;
//!   an interrupt comes in at a boundary where interrupts are on.
//! - Lock state (who holds which `list_lock`) lives here, not in the `Machine`: the trace names
//!   every acquisition, wait and release as a micro-step, so a view rebuilds it from them.

pub mod exec;
pub mod micro;
pub mod schedule;

use crate::ids::{CacheId, CpuId, NodeId, Pfn};
use crate::machine::Machine;
use crate::trace::{Event, Recorder};
use micro::{Access, Micro, RetryReason, Stats};
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A task's index in its executor (0 in a sequential run).
pub type TaskId = u16;

/// A teaching switch, never a kernel option: what the model changes to show why the kernel is
/// as it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Teaching {
    /// `teaching_no_tid`: the fast paths' cmpxchg compares `c->freelist` only, as if the
    /// (freelist, tid) pair were a single word, so the ABA problem the tid exists to stop can
    /// happen.
    pub no_tid: bool,
}

/// What one task is doing, as the executor and the paths' boundaries see it.
#[derive(Clone, Debug)]
pub(crate) struct TaskState {
    /// `smp_processor_id()`: the CPU the task runs on now (it can change at a preemption).
    pub cpu: CpuId,
    /// Preemption disabled (`preempt_count`): `local_lock`, `spin_lock`, `get_cpu_ptr()`.
    pub preempt_off: u16,
    /// Interrupts disabled (`local_irq_save` depth): `local_lock_irqsave`, `spin_lock_irqsave`.
    pub irqs_off: u16,
    /// The kernel functions the task is in, outermost first (interleaved only): the innermost
    /// names its micro-steps.
    pub calls: Vec<Frame>,
    /// Bound to its CPU (a per-CPU work item: `flush_cpu_slab()` runs from one): it can be
    /// preempted, not migrated.
    pub pinned: bool,
    /// Since the task last read a tid: it was preempted, or an interrupt ran on its CPU.
    pub preempted: bool,
    pub interrupted: bool,
    /// The step (0-based) in which the task last read a tid, and a slab's (freelist,
    /// counters) with its pfn: where a failed cmpxchg looks for what changed the word since.
    pub tid_read_at: usize,
    pub slab_read_at: Option<(Pfn, usize)>,
    /// Its last micro-step found the `list_lock` it wants held by another task.
    pub spinning: bool,
}

/// A kernel function a task is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    pub function: &'static str,
    pub path: &'static str,
}

/// What the tasks of an interleaved run share besides the recorder.
#[derive(Default)]
pub(crate) struct Interleaving {
    pub tasks: RefCell<Vec<TaskState>>,
    /// `n->list_lock` holders: (cache, node, task).
    pub list_locks: RefCell<Vec<(CacheId, NodeId, TaskId)>>,
    /// `s->cpu_sheaves->lock` holders (6.18+): (cache, cpu, task).
    pub pcs_locks: RefCell<Vec<(CacheId, CpuId, TaskId)>>,
    /// `barn->lock` holders: (cache, node, task).
    pub barn_locks: RefCell<Vec<(CacheId, NodeId, TaskId)>>,
    pub stats: RefCell<Stats>,
    /// Micro-steps noted since the executor last looked.
    pub noted: Cell<u32>,
    /// The kernel function (and path) the task was in at the first micro-step noted since
    /// the executor last looked: what names the step.
    pub frame: Cell<Option<Frame>>,
    /// Diagnostics to record as steps of their own after the current micro-step.
    pub diagnostics: RefCell<Vec<Diagnostic>>,
    /// The running task changed what its CPU allows the executor (preemption or interrupts
    /// turned on or off, pinned or freed) since the executor last looked.
    pub boundary_changed: Cell<bool>,
}

/// A diagnostic step: what the kernel (or the simulator's checker) would report; `args` adds
/// its caption arguments.
pub struct Diagnostic {
    pub function: &'static str,
    pub path: &'static str,
    pub key: &'static str,
    pub args: Box<dyn FnOnce(&mut Recorder)>,
}

impl Diagnostic {
    /// Records it: a step of its own, or a call joining the open step.
    pub(crate) fn record(self, rec: &mut Recorder) {
        rec.call(self.function, self.path, self.key, self.args);
    }
}

/// Everything the tasks of one run share: the recorder (the machine), the tasks' states, the
/// locks, the counters.
pub(crate) struct Shared<'a> {
    rec: RefCell<&'a mut Recorder>,
    il: Interleaving,
    pub teaching: Teaching,
    /// The recorder keeps micro-steps (read once: a run that keeps none does not even build
    /// them). A recorded interleaved run always keeps them: each is a step.
    keep_micro: bool,
}

impl<'a> Shared<'a> {
    pub(crate) fn new(rec: &'a mut Recorder, teaching: Teaching) -> Self {
        let keep_micro = rec.keeps_micro() || rec.recording();
        Shared {
            keep_micro,
            rec: RefCell::new(rec),
            il: Interleaving::default(),
            teaching,
        }
    }

    /// The interleaved run's state.
    #[inline(always)]
    pub(crate) fn il(&self) -> &Interleaving {
        &self.il
    }

    pub(crate) fn add_task(&self, cpu: CpuId) -> TaskId {
        let mut tasks = self.il().tasks.borrow_mut();
        tasks.push(TaskState {
            cpu,
            preempt_off: 0,
            irqs_off: 0,
            calls: Vec::new(),
            pinned: false,
            preempted: false,
            interrupted: false,
            tid_read_at: 0,
            slab_read_at: None,
            spinning: false,
        });
        (tasks.len() - 1) as TaskId
    }

    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        f(&mut self.rec.borrow_mut())
    }
}

/// The context kernel code runs in: one task (a CPU's process context, or an interrupt
/// handler) of a run.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    sh: &'a Shared<'a>,
    task: TaskId,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(sh: &'a Shared<'a>, task: TaskId) -> Self {
        Ctx { sh, task }
    }

    /// Runs `f` on the recorder (never across a boundary).
    #[inline]
    pub fn with<R>(self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        self.sh.with(f)
    }

    /// Reads the machine.
    #[inline]
    pub fn m<R>(self, f: impl FnOnce(&Machine) -> R) -> R {
        self.sh.with(|rec| f(rec.machine()))
    }

    /// `smp_processor_id()`.
    #[inline]
    pub fn cpu(self) -> CpuId {
        self.sh.il().tasks.borrow()[usize::from(self.task)].cpu
    }

    pub fn task(self) -> TaskId {
        self.task
    }

    /// An executor interleaves this run's tasks (the sequential twin's `SyncCtx` says no).
    #[inline]
    pub fn interleaved(self) -> bool {
        true
    }

    pub fn teaching(self) -> Teaching {
        self.sh.teaching
    }

    /// A micro-step boundary before `next`: the task stops here until the schedule picks it.
    #[inline(always)]
    pub fn at(self, _next: Access) -> At {
        At { suspend: true }
    }

    /// One micro-step: a boundary before `next`, then `f`, the access and what follows it up
    /// to the next boundary. A plain future (no nested state machine).
    #[inline(always)]
    pub fn step<T, F: FnOnce() -> T + Unpin>(self, _next: Access, f: F) -> StepFuture<F> {
        StepFuture {
            suspend: true,
            f: Some(f),
        }
    }

    /// Notes what the micro-step just taken did (`Recorder::micro`).
    #[inline(always)]
    pub fn note(self, micro: impl FnOnce() -> Micro) {
        let il = self.sh.il();
        if il.noted.replace(il.noted.get() + 1) == 0 {
            il.frame.set(
                il.tasks.borrow()[usize::from(self.task)]
                    .calls
                    .last()
                    .copied(),
            );
        }
        if self.sh.keep_micro {
            let task = self.task;
            let micro = micro();
            self.with(|rec| rec.micro(task, micro));
        }
    }

    /// The task has just read a tid: what disturbs it from now on makes its cmpxchg fail.
    pub fn tid_read(self) {
        let at = self.sh.with(|rec| rec.cursor());
        let mut tasks = self.sh.il().tasks.borrow_mut();
        let t = &mut tasks[usize::from(self.task)];
        t.preempted = false;
        t.interrupted = false;
        t.tid_read_at = at;
    }

    /// The task has just read the slab at `pfn`'s (freelist, counters).
    pub fn slab_read(self, pfn: Pfn) {
        let at = self.sh.with(|rec| rec.cursor());
        self.sh.il().tasks.borrow_mut()[usize::from(self.task)].slab_read_at = Some((pfn, at));
    }

    /// After a failed cmpxchg of `cache`'s (c->freelist, c->tid) on `cpu`: the step (numbered
    /// as the trace shows it, from 1) that first changed that pair after the task read its
    /// tid, from which on the cmpxchg was bound to fail. None when the trace is not kept or
    /// no step of this CPU changed it (the task migrated: the pair it compares is another
    /// CPU's).
    pub fn cpu_pair_changed_at(self, cache: CacheId, cpu: CpuId) -> Option<u32> {
        let since = self.sh.il().tasks.borrow()[usize::from(self.task)].tid_read_at;
        self.first_change(since, |e| {
            matches!(e, Event::CpuFreelistSet { cache: c, cpu: p, .. } if *c == cache && *p == cpu)
        })
    }

    /// After a failed cmpxchg of the slab at `pfn`: the step (from 1) that first changed its
    /// (freelist, counters) after the task read them.
    pub fn slab_changed_at(self, pfn: Pfn) -> Option<u32> {
        let (read, since) = self.sh.il().tasks.borrow()[usize::from(self.task)].slab_read_at?;
        if read != pfn {
            return None;
        }
        self.first_change(
            since,
            |e| matches!(e, Event::SlabStateSet { pfn: p, .. } if *p == pfn),
        )
    }

    /// The first recorded step after step `since` (0-based) and before the open one with an
    /// event `changed` accepts, numbered from 1.
    fn first_change(self, since: usize, changed: impl Fn(&Event) -> bool) -> Option<u32> {
        self.sh.with(|rec| {
            (since + 1..rec.cursor())
                .find(|&i| rec.step_events(i).iter().any(&changed))
                .map(|i| i as u32 + 1)
        })
    }

    /// Reports a diagnostic (see `Diagnostic`) as a step of its own right after this
    /// micro-step.
    pub fn diagnose(
        self,
        function: &'static str,
        path: &'static str,
        key: &'static str,
        args: impl FnOnce(&mut Recorder) + 'static,
    ) {
        self.sh.il().diagnostics.borrow_mut().push(Diagnostic {
            function,
            path,
            key,
            args: Box::new(args),
        });
    }

    /// Binds the task to its CPU, or frees it (see `TaskState::pinned`).
    pub fn pin(self, pinned: bool) {
        self.sh.il().tasks.borrow_mut()[usize::from(self.task)].pinned = pinned;
        self.sh.il().boundary_changed.set(true);
    }

    /// What ran on the task's CPU since it read its tid, for a cmpxchg that failed on the
    /// same CPU.
    pub fn disturbance(self) -> RetryReason {
        let t = &self.sh.il().tasks.borrow()[usize::from(self.task)];
        if t.interrupted {
            RetryReason::Interrupted
        } else if t.preempted {
            RetryReason::Preempted
        } else {
            RetryReason::OtherOperation
        }
    }

    /// Names the task's micro-steps after kernel function `function` while the guard lives
    /// (a sequential run's steps are named by `call`).
    pub fn frame(self, function: &'static str) -> FrameGuard<'a> {
        self.sh.il().tasks.borrow_mut()[usize::from(self.task)]
            .calls
            .push(Frame { function, path: "" });
        FrameGuard { ctx: self }
    }

    /// The task now holds the slab at `pfn` (with the detached freelist `freelist`, 0 for
    /// none) between micro-steps (`SlubState::held`).
    pub fn hold(self, pfn: Pfn, freelist: u64) {
        let cpu = self.cpu();
        self.with(|rec| {
            let count = crate::slub::freelist_len(rec.machine(), freelist);
            rec.emit(Event::SlabHeld {
                pfn,
                cpu: Some(cpu),
                freelist,
                count,
            });
        });
    }

    /// The task no longer holds the slab at `pfn`.
    pub fn release(self, pfn: Pfn) {
        self.with(|rec| {
            rec.emit(Event::SlabHeld {
                pfn,
                cpu: None,
                freelist: 0,
                count: 0,
            });
        });
    }

    /// Counts a retry of the kernel's at `site` (only an interleaved run retries).
    pub fn count_retry(self, site: &'static str, reason: RetryReason) {
        self.sh.il().stats.borrow_mut().retry(site, reason);
    }

    /// Enters kernel function `function` taking `path` (with caption `key` in a sequential
    /// run): a frame that names the task's micro-steps until the returned guard drops.
    pub fn call(self, function: &'static str, path: &'static str, _key: &'static str) -> Call<'a> {
        self.sh.il().tasks.borrow_mut()[usize::from(self.task)]
            .calls
            .push(Frame { function, path });
        Call {
            il: self.sh.il(),
            task: self.task,
            left: false,
        }
    }

    /// A caption argument of a sequential step: an interleaved step is captioned by its
    /// micro-step, so nothing is kept.
    #[inline(always)]
    pub fn arg(self, _name: &'static str, _value: impl Into<crate::trace::Arg>) {}

    #[inline(always)]
    pub fn arg_cache(self, _name: &'static str, _cache: CacheId) {}

    #[inline(always)]
    pub fn arg_addr(self, _name: &'static str, _addr: u64) {}

    #[inline(always)]
    pub fn arg_zonelist(self, _name: &'static str, _node: NodeId) {}

    /// `local_lock_irqsave(&s->cpu_slab->lock, flags)` on this CPU: interrupts and preemption
    /// off until the matching unlock. Never contended (only this CPU takes it, and its
    /// interrupts are off while it is held); other CPUs still run.
    #[inline(always)]
    pub fn local_lock_irqsave(self, cache: CacheId) -> StepFuture<impl FnOnce() + Unpin + 'a> {
        self.step(Access::LocalLock, move || {
            self.adjust(1, 1);
            let cpu = self.cpu();
            self.note(|| Micro::LocalLock { cache, cpu });
        })
    }

    /// `local_unlock_irqrestore(&s->cpu_slab->lock, flags)`.
    #[inline(always)]
    pub fn local_unlock_irqrestore(self, cache: CacheId) -> StepFuture<impl FnOnce() + Unpin + 'a> {
        self.step(Access::LocalUnlock, move || {
            let cpu = self.cpu();
            self.adjust(-1, -1);
            self.note(|| Micro::LocalUnlock { cache, cpu });
        })
    }

    /// `preempt_disable()` / `preempt_enable()` (`slub_get_cpu_ptr()` and its put): no
    /// boundary of its own.
    pub fn preempt(self, disable: bool) {
        self.adjust(if disable { 1 } else { -1 }, 0);
    }

    fn adjust(self, preempt: i32, irqs: i32) {
        let mut tasks = self.sh.il().tasks.borrow_mut();
        let t = &mut tasks[usize::from(self.task)];
        t.preempt_off = (i32::from(t.preempt_off) + preempt) as u16;
        t.irqs_off = (i32::from(t.irqs_off) + irqs) as u16;
        self.sh.il().boundary_changed.set(true);
    }

    /// One look at a spin lock of `locks` (`n->list_lock` or a barn's lock) of `cache` on
    /// `node`: taken when free (preemption and interrupts off, the task no longer spinning),
    /// else the CPU of the task holding it (and the task is spinning).
    fn try_spin(
        self,
        locks: &RefCell<Vec<(CacheId, NodeId, TaskId)>>,
        cache: CacheId,
        node: NodeId,
    ) -> Result<(), CpuId> {
        let holder = locks
            .borrow()
            .iter()
            .find(|l| l.0 == cache && l.1 == node)
            .map(|l| l.2);
        let spinning = holder.is_some();
        self.sh.il().tasks.borrow_mut()[usize::from(self.task)].spinning = spinning;
        match holder {
            None => {
                locks.borrow_mut().push((cache, node, self.task));
                self.adjust(1, 1);
                Ok(())
            }
            Some(t) => Err(self.sh.il().tasks.borrow()[usize::from(t)].cpu),
        }
    }

    /// `spin_lock_irqsave(&n->list_lock, flags)`: takes the lock, or spins (one micro-step per
    /// look at the held lock, each a visible wait) until its holder drops it.
    pub async fn spin_lock_irqsave(self, cache: CacheId, node: NodeId) {
        loop {
            self.at(Access::SpinLock).await;
            let cpu = self.cpu();
            match self.try_spin(&self.sh.il().list_locks, cache, node) {
                Ok(()) => {
                    self.sh.il().stats.borrow_mut().lock_taken(cache, node);
                    self.with(|rec| rec.emit(Event::ListLockTaken { cache, node }));
                    self.note(|| Micro::SpinLock { cache, node, cpu });
                    return;
                }
                Err(holder) => {
                    self.sh.il().stats.borrow_mut().lock_waited(cache, node);
                    self.note(|| Micro::SpinWait {
                        cache,
                        node,
                        cpu,
                        holder,
                    });
                }
            }
        }
    }

    /// `spin_unlock_irqrestore(&n->list_lock, flags)`.
    pub async fn spin_unlock_irqrestore(self, cache: CacheId, node: NodeId) {
        self.at(Access::SpinUnlock).await;
        self.sh
            .il()
            .list_locks
            .borrow_mut()
            .retain(|l| !(l.0 == cache && l.1 == node));
        self.adjust(-1, -1);
        let cpu = self.cpu();
        self.note(|| Micro::SpinUnlock { cache, node, cpu });
    }

    /// `local_trylock(&s->cpu_sheaves->lock)` (6.18+): on a kernel without PREEMPT_RT it
    /// disables preemption and fails only when code this CPU interrupted holds the lock. With
    /// `trylock` false, `local_lock()`: the flush paths, which never run in an interrupt.
    pub async fn pcs_lock(self, cache: CacheId, trylock: bool) -> bool {
        self.at(Access::PcsLock).await;
        let cpu = self.cpu();
        let held = self
            .sh
            .il()
            .pcs_locks
            .borrow()
            .iter()
            .any(|l| l.0 == cache && l.1 == cpu);
        let ok = !(held && trylock);
        if ok {
            self.sh
                .il()
                .pcs_locks
                .borrow_mut()
                .push((cache, cpu, self.task));
            self.adjust(1, 0);
        }
        self.note(|| Micro::PcsTrylock { cache, cpu, ok });
        ok
    }

    /// `local_unlock(&s->cpu_sheaves->lock)`.
    pub async fn pcs_unlock(self, cache: CacheId) {
        self.at(Access::PcsUnlock).await;
        let task = self.task;
        self.sh
            .il()
            .pcs_locks
            .borrow_mut()
            .retain(|l| !(l.0 == cache && l.2 == task));
        self.adjust(-1, 0);
        let cpu = self.cpu();
        self.note(|| Micro::PcsUnlock { cache, cpu });
    }

    /// `spin_lock_irqsave(&barn->lock)`: takes the lock, or spins until its holder drops it.
    pub async fn barn_lock(self, cache: CacheId, node: NodeId) {
        loop {
            self.at(Access::BarnLock).await;
            let cpu = self.cpu();
            match self.try_spin(&self.sh.il().barn_locks, cache, node) {
                Ok(()) => {
                    self.note(|| Micro::BarnLock { cache, node, cpu });
                    return;
                }
                Err(holder) => self.note(|| Micro::BarnWait {
                    cache,
                    node,
                    cpu,
                    holder,
                }),
            }
        }
    }

    /// `spin_unlock_irqrestore(&barn->lock)`.
    pub async fn barn_unlock(self, cache: CacheId, node: NodeId) {
        self.at(Access::BarnUnlock).await;
        self.sh
            .il()
            .barn_locks
            .borrow_mut()
            .retain(|l| !(l.0 == cache && l.1 == node));
        self.adjust(-1, -1);
        let cpu = self.cpu();
        self.note(|| Micro::BarnUnlock { cache, node, cpu });
    }
}

/// Adds the caption argument `name` to the open step (for `SlubMem::arg_always`, which passes
/// on the name its caller gave).
pub(crate) fn pass_arg(rec: &mut Recorder, name: &'static str, value: u32) {
    rec.arg(name, value);
}

/// An open kernel-function call of an interleaved task (see `Ctx::call`): its frame names the
/// task's micro-steps; dropping it pops the frame.
pub struct Call<'a> {
    il: &'a Interleaving,
    task: TaskId,
    /// Its frame was popped early (`leave`).
    left: bool,
}

impl Call<'_> {
    /// The task is back in the calling function, whose name its next micro-steps take, while
    /// the sequential step this call stands for (`SyncCall`) would stay open until it drops
    /// (it also holds what the caller does next, in the same step).
    pub fn leave(&mut self) {
        if !self.left {
            self.il.tasks.borrow_mut()[usize::from(self.task)]
                .calls
                .pop();
            self.left = true;
        }
    }

    /// The path, once the function has found which it takes.
    pub fn set_path(&self, path: &'static str) {
        if self.left {
            return;
        }
        let mut tasks = self.il.tasks.borrow_mut();
        if let Some(f) = tasks[usize::from(self.task)].calls.last_mut() {
            f.path = path;
        }
    }
}

impl Drop for Call<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        if !self.left {
            self.il.tasks.borrow_mut()[usize::from(self.task)]
                .calls
                .pop();
        }
    }
}

/// The context the sequential twin of a `#[dual]` module runs with (see `slabscope_dual`):
/// every boundary passes at once and every micro-step returns its value directly. Its methods
/// are `Ctx`'s, name for name. Two memories implement it (`SlubMem`): the machine of a
/// sequential run (`SyncCtx`, through the recorder) and the shared memory of a live run, where
/// each CPU runs on its own thread (docs/live.md).
pub(crate) trait Kernel: Copy + crate::slub::mem::SlubMem {
    /// What `call` gives: a step of the trace while it lives (sequential), or nothing (live).
    type Call: CallGuard;
    /// What `frame` gives.
    type Frame;
    /// `smp_processor_id()`.
    fn cpu(self) -> CpuId;
    /// An executor interleaves this run's tasks: never, for a twin.
    #[inline(always)]
    fn interleaved(self) -> bool {
        false
    }
    fn teaching(self) -> Teaching;
    /// A micro-step boundary before `next`.
    fn at(self, next: Access);
    /// A boundary before `next`, then the access `f`.
    fn step<T>(self, next: Access, f: impl FnOnce() -> T) -> T;
    /// Notes what the micro-step just taken did.
    fn note(self, micro: impl FnOnce() -> Micro);
    // What only the interleaving executor keeps (`Ctx`): which step a failed cmpxchg's word
    // changed at, and the slabs a task holds between micro-steps. A twin runs each operation
    // straight through, so it keeps none of it.
    #[inline(always)]
    fn tid_read(self) {}
    #[inline(always)]
    fn slab_read(self, _pfn: Pfn) {}
    fn cpu_pair_changed_at(self, _cache: CacheId, _cpu: CpuId) -> Option<u32> {
        None
    }
    fn slab_changed_at(self, _pfn: Pfn) -> Option<u32> {
        None
    }
    #[inline(always)]
    fn hold(self, _pfn: Pfn, _freelist: u64) {}
    #[inline(always)]
    fn release(self, _pfn: Pfn) {}
    fn disturbance(self) -> RetryReason;
    fn frame(self, function: &'static str) -> Self::Frame;
    fn count_retry(self, site: &'static str, reason: RetryReason);
    fn call(self, function: &'static str, path: &'static str, key: &'static str) -> Self::Call;
    fn arg(self, name: &'static str, value: impl Into<crate::trace::Arg>);
    fn arg_cache(self, name: &'static str, cache: CacheId);
    /// The caption argument `name`: an object's address.
    fn arg_addr(self, name: &'static str, addr: u64);
    /// The caption argument `name`: `node`'s zonelist, as text.
    fn arg_zonelist(self, name: &'static str, node: NodeId);
    fn local_lock_irqsave(self, cache: CacheId);
    fn local_unlock_irqrestore(self, cache: CacheId);
    /// `preempt_disable()`/`preempt_enable()` and a work item's binding to its CPU: only the
    /// executor decides preemptions, so a twin has nothing to keep.
    #[inline(always)]
    fn preempt(self, _disable: bool) {}
    #[inline(always)]
    fn pin(self, _pinned: bool) {}
    fn diagnose(
        self,
        function: &'static str,
        path: &'static str,
        key: &'static str,
        args: impl FnOnce(&mut Recorder) + 'static,
    );
    fn spin_lock_irqsave(self, cache: CacheId, node: NodeId);
    fn spin_unlock_irqrestore(self, cache: CacheId, node: NodeId);
    /// `local_trylock()` (or, without `trylock`, `local_lock()`) of `s->cpu_sheaves->lock`.
    fn pcs_lock(self, cache: CacheId, trylock: bool) -> bool;
    fn pcs_unlock(self, cache: CacheId);
    fn barn_lock(self, cache: CacheId, node: NodeId);
    fn barn_unlock(self, cache: CacheId, node: NodeId);
}

/// An open kernel-function call of a twin (`Kernel::call`).
pub(crate) trait CallGuard {
    /// As `Call::leave`.
    fn leave(&mut self);
    /// As `Call::set_path`.
    fn set_path(&self, path: &'static str);
}

/// The context of sequential kernel code: the `sync` twin of a `#[dual]` module runs with it
/// where the async code has a `Ctx`. One task on one CPU; every boundary passes at once and
/// every micro-step returns its value directly. Its methods mirror `Ctx`'s, name for name.
/// `MICRO`: the run keeps micro-steps (`Recorder::keeps_micro`). A compile-time constant, so
/// the instance that keeps none has no trace of them: testing a flag at every boundary costs
/// a sequential run about a sixth of its time (`run_sync!` picks the instance).
#[derive(Clone, Copy)]
pub struct SyncCtx<'a, const MICRO: bool> {
    sh: &'a SyncShared<'a>,
    cpu: CpuId,
}

/// What a sequential run's kernel code shares: the recorder and what it keeps.
pub struct SyncShared<'a> {
    /// The recorder, lent to one closure at a time (`with`).
    rec: Cell<Option<&'a mut Recorder>>,
    teaching: Teaching,
    keep_args: bool,
}

impl SyncShared<'_> {
    #[inline(always)]
    fn with<R>(&self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        let rec = self
            .rec
            .take()
            .expect("the recorder is lent to one closure at a time");
        let out = f(&mut *rec);
        self.rec.set(Some(rec));
        out
    }
}

impl<const MICRO: bool> SyncCtx<'_, MICRO> {
    #[inline(always)]
    fn with<R>(self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        self.sh.with(f)
    }
}

impl<'a, const MICRO: bool> Kernel for SyncCtx<'a, MICRO> {
    type Call = SyncCall<'a>;
    type Frame = NoFrame;

    #[inline(always)]
    fn cpu(self) -> CpuId {
        self.cpu
    }

    #[inline(always)]
    fn teaching(self) -> Teaching {
        self.sh.teaching
    }

    /// A micro-step boundary: the micro-step before it ends here.
    #[inline(always)]
    fn at(self, _next: Access) {
        if MICRO {
            self.sh.with(Recorder::micro_boundary);
        }
    }

    #[inline(always)]
    fn step<T>(self, next: Access, f: impl FnOnce() -> T) -> T {
        self.at(next);
        f()
    }

    #[inline(always)]
    fn note(self, micro: impl FnOnce() -> Micro) {
        if MICRO {
            let micro = micro();
            self.sh.with(|rec| rec.micro(0, micro));
        }
    }

    /// Nothing interrupts a sequential task, so a failed cmpxchg cannot happen; were it to,
    /// it would be another operation of this CPU.
    fn disturbance(self) -> RetryReason {
        RetryReason::OtherOperation
    }

    #[inline(always)]
    fn frame(self, _function: &'static str) -> NoFrame {
        NoFrame
    }

    /// A sequential run never retries.
    fn count_retry(self, _site: &'static str, _reason: RetryReason) {}

    #[inline(always)]
    fn call(self, function: &'static str, path: &'static str, key: &'static str) -> SyncCall<'a> {
        let opened = self.with(|rec| rec.open_call(function, path, key));
        SyncCall {
            sh: self.sh,
            opened,
        }
    }

    #[inline(always)]
    fn arg(self, name: &'static str, value: impl Into<crate::trace::Arg>) {
        if self.sh.keep_args {
            self.with(|rec| rec.arg(name, value));
        }
    }

    #[inline(always)]
    fn arg_cache(self, name: &'static str, cache: CacheId) {
        self.arg(name, crate::trace::Arg::Cache(cache));
    }

    fn arg_addr(self, name: &'static str, addr: u64) {
        self.arg(name, crate::trace::Arg::Addr(addr));
    }

    fn arg_zonelist(self, name: &'static str, node: NodeId) {
        if self.sh.keep_args {
            self.with(|rec| {
                let text =
                    crate::page_alloc::zonelist::zonelist_text(&rec.machine().zonelists[node]);
                rec.arg(name, text);
            });
        }
    }

    #[inline(always)]
    fn local_lock_irqsave(self, cache: CacheId) {
        self.at(Access::LocalLock);
        let cpu = self.cpu;
        self.note(|| Micro::LocalLock { cache, cpu });
    }

    #[inline(always)]
    fn local_unlock_irqrestore(self, cache: CacheId) {
        self.at(Access::LocalUnlock);
        let cpu = self.cpu;
        self.note(|| Micro::LocalUnlock { cache, cpu });
    }

    /// A sequential run's diagnostic joins the step it is found in.
    fn diagnose(
        self,
        function: &'static str,
        path: &'static str,
        key: &'static str,
        args: impl FnOnce(&mut Recorder) + 'static,
    ) {
        self.with(|rec| rec.call(function, path, key, args));
    }

    /// The only task: the lock is free.
    #[inline(always)]
    fn spin_lock_irqsave(self, cache: CacheId, node: NodeId) {
        self.at(Access::SpinLock);
        let cpu = self.cpu;
        self.with(|rec| rec.emit(Event::ListLockTaken { cache, node }));
        self.note(|| Micro::SpinLock { cache, node, cpu });
    }

    #[inline(always)]
    fn spin_unlock_irqrestore(self, cache: CacheId, node: NodeId) {
        self.at(Access::SpinUnlock);
        let cpu = self.cpu;
        self.note(|| Micro::SpinUnlock { cache, node, cpu });
    }

    /// The only task: nothing it interrupted holds the lock.
    #[inline(always)]
    fn pcs_lock(self, cache: CacheId, _trylock: bool) -> bool {
        self.at(Access::PcsLock);
        let cpu = self.cpu;
        self.note(|| Micro::PcsTrylock {
            cache,
            cpu,
            ok: true,
        });
        true
    }

    #[inline(always)]
    fn pcs_unlock(self, cache: CacheId) {
        self.at(Access::PcsUnlock);
        let cpu = self.cpu;
        self.note(|| Micro::PcsUnlock { cache, cpu });
    }

    #[inline(always)]
    fn barn_lock(self, cache: CacheId, node: NodeId) {
        self.at(Access::BarnLock);
        let cpu = self.cpu;
        self.note(|| Micro::BarnLock { cache, node, cpu });
    }

    #[inline(always)]
    fn barn_unlock(self, cache: CacheId, node: NodeId) {
        self.at(Access::BarnUnlock);
        let cpu = self.cpu;
        self.note(|| Micro::BarnUnlock { cache, node, cpu });
    }
}

/// An open kernel-function call of sequential code (see `SyncCtx::call`): a step of the
/// trace (or a call joining the open one); dropping it closes the call.
pub struct SyncCall<'a> {
    sh: &'a SyncShared<'a>,
    opened: bool,
}

impl CallGuard for SyncCall<'_> {
    /// As `Call::leave`: a sequential step stays open until the guard drops.
    #[inline(always)]
    fn leave(&mut self) {}

    /// As `Call::set_path`.
    fn set_path(&self, path: &'static str) {
        if self.opened {
            self.sh.with(|rec| rec.set_path(path));
        }
    }
}

impl Drop for SyncCall<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.sh.with(Recorder::close_call);
    }
}

/// What `SyncCtx::frame` gives: nothing to pop (a sequential run's steps are named by calls).
pub struct NoFrame;

/// Runs sequential kernel code `f` (a `sync` twin) on `cpu`, in the instance `MICRO` of it
/// (`run_sync!` picks it from the recorder).
#[inline(always)]
pub fn run_sync_as<R, const MICRO: bool>(
    rec: &mut Recorder,
    cpu: CpuId,
    f: impl FnOnce(SyncCtx<'_, MICRO>) -> R,
) -> R {
    debug_assert_eq!(MICRO, rec.keeps_micro());
    let keep_args = rec.recording();
    let teaching = rec.teaching();
    let sh = SyncShared {
        rec: Cell::new(Some(rec)),
        teaching,
        keep_args,
    };
    f(SyncCtx { sh: &sh, cpu })
}

/// `run_sync!(rec, cpu, |k| body)`: runs sequential kernel code (a `sync` twin) on `cpu`, in
/// the instance that keeps micro-steps when `rec` keeps them, else in the one that has none.
macro_rules! run_sync {
    ($rec:expr, $cpu:expr, |$k:ident| $body:expr) => {{
        let rec: &mut $crate::trace::Recorder = $rec;
        if rec.keeps_micro() {
            $crate::smp::run_sync_as::<_, true>(rec, $cpu, |$k| $body)
        } else {
            $crate::smp::run_sync_as::<_, false>(rec, $cpu, |$k| $body)
        }
    }};
}
pub(crate) use run_sync;

impl crate::slub::mem::RecMem for Ctx<'_> {
    #[inline(always)]
    fn rec<R>(self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        self.sh.with(f)
    }
}

impl<const MICRO: bool> crate::slub::mem::RecMem for SyncCtx<'_, MICRO> {
    #[inline(always)]
    fn rec<R>(self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        self.sh.with(f)
    }
}

/// A frame `Ctx::frame` pushed; dropping it pops it.
pub struct FrameGuard<'a> {
    ctx: Ctx<'a>,
}

impl Drop for FrameGuard<'_> {
    fn drop(&mut self) {
        self.ctx.sh.il().tasks.borrow_mut()[usize::from(self.ctx.task)]
            .calls
            .pop();
    }
}

/// The future of a micro-step (`Ctx::step`): `Pending` once (the executor
/// resumes the task when the schedule picks it), then the access `f`.
pub struct StepFuture<F> {
    suspend: bool,
    f: Option<F>,
}

impl<T, F: FnOnce() -> T + Unpin> Future for StepFuture<F> {
    type Output = T;

    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        if self.suspend {
            self.suspend = false;
            return Poll::Pending;
        }
        match self.f.take() {
            Some(f) => Poll::Ready(f()),
            None => unreachable!("a micro-step's future is polled after it completed"),
        }
    }
}

/// The future of a boundary (`Ctx::at`): `Pending` once, then `Ready`.
pub struct At {
    suspend: bool,
}

impl Future for At {
    type Output = ();

    #[inline(always)]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.suspend {
            self.suspend = false;
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}
