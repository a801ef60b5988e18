//! The live standard workload: the mix of `npm run bench` (`crate::workload`), one thread per
//! CPU, and its replay on the interleaving engine with the states compared.

use super::mem::{with_short_tids, LiveMem, LiveRefusal};
use super::record::{merge, ThreadLog};
use super::stats::LiveStats;
use super::{KmallocTable, LiveCpu};
use crate::gfp::GFP_KERNEL;
use crate::ids::CpuId;
use crate::machine::{Machine, MachineConfig};
use crate::slub::task::{SmpOp, SmpResult};
use crate::smp::exec::{self, OpFuture, Program, Ready, TaskKind, TaskSpec};
use crate::smp::schedule::Schedule;
use crate::smp::{Ctx, TaskId, Teaching};
use crate::trace::Recorder;
use crate::workload::{booted, standard_machine};
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::sync::Mutex;

/// Which objects a thread frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Frees {
    /// Its own: every free is to a slab of its CPU's (the per-CPU fast path and its own
    /// slabs' `__slab_free()`).
    Local,
    /// Any thread's: each allocation is freed by a thread picked at random, so with N threads
    /// N-1 frees in N are remote, as in the standard workload. An object for another thread
    /// waits in a batch of `BATCH` that is then handed over whole.
    Remote,
}

/// The machine of the live standard workload on `threads` CPUs: the standard machine's
/// memory and nodes (two, or one for one CPU), its CPUs spread over the nodes in order.
pub fn live_machine(threads: u32) -> MachineConfig {
    let nodes = threads.min(2);
    MachineConfig {
        cpus: threads,
        nodes,
        cpu_node: (0..threads).map(|c| c * nodes / threads).collect(),
        ..standard_machine()
    }
}

/// What one operation of a live run was, in the order its CPU ran it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveOp {
    /// `kmalloc(size)`, which returned `addr`.
    Kmalloc { size: u64, addr: u64 },
    /// `kfree(addr)`.
    Free { addr: u64 },
}

/// Objects one thread allocated for another to free go over in batches of this many: the
/// hand-over is the workload's, not the kernel's, and one lock taken per object (or a cache
/// line passed back and forth per object) would cost the threads more than the kernel's
/// paths do.
const BATCH: usize = 64;

/// A thread's inbox: the batches of objects other threads allocated for it to free, with the
/// number of times it was changed (a recorded run's order of hand-overs), on cache lines of
/// its own.
#[derive(Default)]
#[repr(align(64))]
struct Inbox {
    batches: Mutex<(Vec<Vec<u64>>, u64)>,
    /// Whether batches wait (read without the lock, so that a thread with nothing coming
    /// takes no lock).
    waiting: AtomicBool,
}

/// How a live run went.
pub struct LiveRun {
    /// The machine it started from.
    pub base: Machine,
    pub mem: LiveMem,
    /// Per CPU: its counts and, recorded, its operations and its log.
    pub stats: Vec<LiveStats>,
    pub ops: Vec<Vec<LiveOp>>,
    pub logs: Vec<ThreadLog>,
    /// Each thread's wall-clock seconds.
    pub seconds: Vec<f64>,
    /// Epochs the run took (see `LiveJob`); `ops` and `logs` are the last one's.
    pub epochs: u32,
    /// A recorded run's replay, epoch by epoch: micro-steps in all, the first difference, the
    /// replayed machine and what the invariant checks found at the end.
    pub replayed: Option<Replay>,
}

impl LiveRun {
    /// Counts over all threads.
    pub fn total(&self) -> LiveStats {
        let mut t = LiveStats::default();
        for s in &self.stats {
            t.add(s);
        }
        t
    }
}

/// Boots the live workload's machine.
pub fn boot(threads: u32) -> Recorder {
    booted(live_machine(threads), false)
}

/// A live run of the standard mix (`crate::workload`) set up for `threads` threads, each a
/// CPU running `ops / threads` operations, the workload's own choices drawn from `seed`.
///
/// A run goes in epochs of `EPOCH_OPS` operations (a recorded run's log is kept one epoch at a
/// time, so its memory does not grow with the run): `run_cpu(t)` is thread `t`'s share of the
/// epoch (natively a `std::thread`, in the browser a Web Worker over the shared memory); once
/// every thread has returned, `end_epoch` replays the epoch on the interleaving engine (where
/// the last epoch's replay left it) and compares the states, and says whether another epoch
/// follows; `finish` gathers what the threads did. Between epochs no thread runs: each epoch's
/// micro-steps all come after the last one's, so replaying epoch after epoch is replaying the
/// run.
pub struct LiveJob {
    base: Machine,
    mem: LiveMem,
    table: KmallocTable,
    inboxes: Vec<Inbox>,
    frees: Frees,
    record: bool,
    /// Operations per thread per epoch.
    epoch_ops: u64,
    cpus: Vec<Mutex<CpuState>>,
    replayed: Mutex<Replayed>,
}

/// One thread's state between epochs, on cache lines of its own.
#[repr(align(64))]
struct CpuState {
    rng: Pcg32,
    /// Operations still to run.
    left: u64,
    /// The objects this thread is to free (its own, and those others handed over).
    mine: Vec<u64>,
    /// Per thread, the batch of objects this one allocated for it to free, not yet handed
    /// over.
    out: Vec<Vec<u64>>,
    stats: LiveStats,
    seconds: f64,
    /// This epoch's operations and log (a recorded run).
    ops: Vec<LiveOp>,
    log: ThreadLog,
}

/// The replay so far, epoch by epoch.
struct Replayed {
    /// The replaying machine (made at the first epoch's end).
    rec: Option<Recorder>,
    micro_steps: usize,
    mismatch: Option<String>,
    epochs: u32,
}

/// Operations per epoch, over all threads: about 25 MB of log (and its merge) at a time.
pub const EPOCH_OPS: u64 = 1 << 18;

/// Bounds of live runs (a recorded run keeps about 100 bytes per operation).
pub const MAX_THREADS: u32 = 16;
pub const MAX_OPS: u64 = 100_000_000;

impl LiveJob {
    pub fn new(
        threads: u32,
        ops: u64,
        seed: u64,
        frees: Frees,
        record: bool,
    ) -> Result<LiveJob, LiveRefusal> {
        if threads == 0 || threads > MAX_THREADS {
            return Err(LiveRefusal::Bounds(format!(
                "{threads} threads: a live run has 1 to {MAX_THREADS}"
            )));
        }
        if ops > MAX_OPS {
            return Err(LiveRefusal::Bounds(format!(
                "{ops} operations: a live run has at most {MAX_OPS}"
            )));
        }
        let rec = boot(threads);
        let base = rec.machine().clone();
        let table = KmallocTable::new(&rec);
        let mem = LiveMem::new(&base)?;
        let inboxes = (0..threads).map(|_| Inbox::default()).collect();
        let per_thread = ops / u64::from(threads);
        Ok(LiveJob {
            base,
            mem,
            table,
            inboxes,
            frees,
            record,
            epoch_ops: (EPOCH_OPS / u64::from(threads)).max(1),
            cpus: (0..threads)
                .map(|t| {
                    Mutex::new(CpuState {
                        rng: Pcg32::seed_from_u64(seed ^ (u64::from(t) << 32)),
                        left: per_thread,
                        mine: Vec::new(),
                        out: vec![Vec::new(); threads as usize],
                        stats: LiveStats::default(),
                        seconds: 0.0,
                        ops: Vec::new(),
                        log: ThreadLog::default(),
                    })
                })
                .collect(),
            replayed: Mutex::new(Replayed {
                rec: None,
                micro_steps: 0,
                mismatch: None,
                epochs: 0,
            }),
        })
    }

    /// The job with epochs of `ops` operations per thread (tests: several epochs in a short
    /// run).
    pub fn with_epoch_ops(mut self, ops: u64) -> LiveJob {
        self.epoch_ops = ops.max(1);
        self
    }

    /// Threads of the run.
    pub fn threads(&self) -> u32 {
        self.cpus.len() as u32
    }

    /// Thread `t`'s share of the epoch: its CPU's next operations, racing the other threads'.
    pub fn run_cpu(&self, t: u32) {
        const LOW: usize = 2048;
        const HIGH: usize = 8192;
        let Some(slot) = self.cpus.get(t as usize) else {
            return;
        };
        let mut state = lock(slot);
        let state = &mut *state;
        let n = state.left.min(self.epoch_ops);
        state.left -= n;
        let threads = self.threads();
        let cpu = if self.record {
            LiveCpu::with_log(&self.mem, CpuId::new(t), std::mem::take(&mut state.log))
        } else {
            LiveCpu::new(&self.mem, CpuId::new(t), false)
        };
        let inbox = &self.inboxes[t as usize];
        // Each thread keeps its share of the workload's band of live objects.
        let band = |n: usize| n * threads as usize;
        // The generator, the lists of objects and of operations live on this thread's stack
        // while it runs: two threads' states may share a cache line.
        let mut rng = state.rng.clone();
        let rng = &mut rng;
        let mut mine = std::mem::take(&mut state.mine);
        let mut out = std::mem::take(&mut state.out);
        // The operations, for the replay (an unrecorded run keeps none: they would only take memory).
        let mut ops = std::mem::take(&mut state.ops);
        let done = &mut ops;
        if self.record {
            done.reserve(n as usize);
        }
        for _ in 0..n {
            // Batches handed over are taken all at once, under the inbox's lock, noting its
            // turn: the replay orders the next operation after the allocations that gave them.
            if inbox.waiting.load(Acquire) {
                let mut b = lock(&inbox.batches);
                b.1 += 1;
                inbox.waiting.store(false, Release);
                for batch in b.0.drain(..) {
                    mine.extend(batch);
                }
                cpu.log(|l| l.took(t, b.1));
            }
            let roll = rng.next_u32() % 4;
            let alloc = match band(mine.len()) {
                0 => true,
                n if n < LOW => roll != 0,
                n if n > HIGH => roll == 0,
                _ => roll < 2,
            };
            if !alloc {
                let i = (rng.next_u32() % mine.len() as u32) as usize;
                let addr = mine.swap_remove(i);
                cpu.free(addr);
                if self.record {
                    done.push(LiveOp::Free { addr });
                }
                continue;
            }
            let size = u64::from(rng.next_u32() % 2048 + 1);
            let cache = self
                .table
                .cache(size)
                .expect("sizes up to 2 KiB have a cache");
            let addr = cpu.alloc(cache);
            if self.record {
                done.push(LiveOp::Kmalloc { size, addr });
            }
            if addr == 0 {
                continue;
            }
            let to = match self.frees {
                Frees::Local => t,
                Frees::Remote => rng.next_u32() % threads,
            };
            if to == t {
                mine.push(addr);
                continue;
            }
            let batch = &mut out[to as usize];
            batch.push(addr);
            if batch.len() == BATCH {
                // The batch goes over after the allocation that filled it (its last
                // micro-step comes before the taker's next operation).
                let other = &self.inboxes[to as usize];
                let mut b = lock(&other.batches);
                b.0.push(std::mem::replace(batch, Vec::with_capacity(BATCH)));
                b.1 += 1;
                other.waiting.store(true, Release);
                cpu.log(|l| l.gave(to, b.1));
            }
        }
        state.rng = rng.clone();
        state.mine = mine;
        state.out = out;
        state.ops = ops;
        state.stats.add(&cpu.stats());
        state.log = cpu.into_log();
    }

    /// Every thread has run its share of the epoch, thread `t` in `seconds[t]`: the epoch is
    /// replayed, unless it is the last (`finish` replays that one), and the states compared.
    /// True when another epoch follows.
    pub fn end_epoch(&self, seconds: &[f64]) -> bool {
        let mut more = false;
        for (t, slot) in self.cpus.iter().enumerate() {
            let mut state = lock(slot);
            state.seconds += seconds.get(t).copied().unwrap_or(0.0);
            more |= state.left > 0;
        }
        let mut replayed = lock(&self.replayed);
        replayed.epochs += 1;
        if more && self.record {
            let (logs, ops): (Vec<ThreadLog>, Vec<Vec<LiveOp>>) = self
                .cpus
                .iter()
                .map(|slot| {
                    let mut state = lock(slot);
                    (
                        std::mem::take(&mut state.log),
                        std::mem::take(&mut state.ops),
                    )
                })
                .unzip();
            let r = &mut *replayed;
            let rec = r
                .rec
                .get_or_insert_with(|| Recorder::new(self.base.clone(), false));
            if r.mismatch.is_none() {
                let (steps, mismatch) = replay_into(rec, &logs, &ops);
                r.micro_steps += steps;
                r.mismatch = mismatch.or_else(|| {
                    let live = self.mem.to_machine(&self.base);
                    super::compare::first_difference(&live, &with_short_tids(rec.machine().clone()))
                        .map(|d| format!("after epoch {}: {d}", r.epochs))
                });
            }
            // The threads log the next epoch into the same memory: no growing again.
            for ((slot, mut log), mut ops) in self.cpus.iter().zip(logs).zip(ops) {
                log.clear();
                ops.clear();
                let mut state = lock(slot);
                state.log = log;
                state.ops = ops;
            }
        }
        more
    }

    /// What the threads did, and, recorded, the replay of the last epoch (from where the
    /// others left it) with the states compared and the invariants checked on both.
    pub fn finish(self) -> LiveRun {
        let replayed = self
            .replayed
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut run = LiveRun {
            base: self.base,
            mem: self.mem,
            stats: Vec::new(),
            ops: Vec::new(),
            logs: Vec::new(),
            seconds: Vec::new(),
            epochs: replayed.epochs.max(1),
            replayed: None,
        };
        for slot in self.cpus {
            let s = slot
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            run.stats.push(s.stats);
            run.seconds.push(s.seconds);
            run.ops.push(s.ops);
            run.logs.push(s.log);
        }
        if self.record {
            let mut rec = replayed
                .rec
                .unwrap_or_else(|| Recorder::new(run.base.clone(), false));
            let (mut micro_steps, mut mismatch) = (replayed.micro_steps, replayed.mismatch);
            if mismatch.is_none() {
                let (steps, m) = replay_into(&mut rec, &run.logs, &run.ops);
                micro_steps += steps;
                mismatch = m;
            }
            let machine = with_short_tids(rec.machine().clone());
            run.replayed = Some(verdict(&run, machine, micro_steps, mismatch));
        }
        run
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `job` natively, one `std::thread` per CPU, epoch after epoch; `timed(work)` runs one
/// thread's work and says how many seconds it took (the simulator has no clock: the caller
/// brings one).
pub fn run_threads(job: LiveJob, timed: impl Fn(&dyn Fn()) -> f64 + Sync) -> LiveRun {
    let threads = job.threads();
    loop {
        let seconds: Vec<f64> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (job, timed) = (&job, &timed);
                    scope.spawn(move || timed(&|| job.run_cpu(t)))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a live thread never panics"))
                .collect()
        });
        if !job.end_epoch(&seconds) {
            break;
        }
    }
    job.finish()
}

/// `run_threads` of a new job, untimed (tests).
pub fn run_workload(
    threads: u32,
    ops: u64,
    seed: u64,
    frees: Frees,
    record: bool,
) -> Result<LiveRun, LiveRefusal> {
    let job = LiveJob::new(threads, ops, seed, frees, record)?;
    Ok(run_threads(job, |work| {
        work();
        0.0
    }))
}

/// A replay's verdict.
#[derive(Debug)]
pub struct Replay {
    /// Micro-steps replayed.
    pub micro_steps: usize,
    /// The first difference found, if any, said for a person, with both states' values.
    pub mismatch: Option<String>,
    /// The replayed machine (tids cut to 32 bits, as the live memory keeps them).
    pub machine: Machine,
    /// What the invariant checks found on the live state and on the replayed one (the first
    /// few; none in a sound run).
    pub violations: Vec<String>,
}

/// Replays a recorded live run of one epoch on the interleaving engine, from the machine it
/// started from, with the schedule its log gives; compares every allocation's address and the
/// final state. (A run of several epochs is replayed as it goes: `LiveRun::replayed`.)
pub fn replay(run: &LiveRun) -> Replay {
    let mut rec = Recorder::new(run.base.clone(), false);
    let (micro_steps, mismatch) = replay_into(&mut rec, &run.logs, &run.ops);
    let machine = with_short_tids(rec.machine().clone());
    verdict(run, machine, micro_steps, mismatch)
}

/// The replay's verdict: with no difference found on the way, the final states compared; the
/// invariants checked on both.
fn verdict(
    run: &LiveRun,
    machine: Machine,
    micro_steps: usize,
    mut mismatch: Option<String>,
) -> Replay {
    let live = run.mem.to_machine(&run.base);
    if mismatch.is_none() {
        mismatch = super::compare::first_difference(&live, &machine);
    }
    let mut violations = Vec::new();
    for (which, m) in [("live", &live), ("replay", &machine)] {
        let found = crate::slub::check::check_slub(m)
            .into_iter()
            .chain(crate::machine::check::check_page_allocator(m));
        violations.extend(found.take(5).map(|v| format!("{which}: {v}")));
    }
    Replay {
        micro_steps,
        mismatch,
        machine,
        violations,
    }
}

/// Replays logs `logs` of the operations `ops` (per CPU) on `rec`, from where it is: the
/// micro-steps replayed and the first difference (an allocation that returned another
/// address, a log that admits no order, a replay that stopped or left operations).
fn replay_into(
    rec: &mut Recorder,
    logs: &[ThreadLog],
    ops: &[Vec<LiveOp>],
) -> (usize, Option<String>) {
    let cpus = ops.len();
    let specs: Vec<TaskSpec> = (0..cpus)
        .map(|c| TaskSpec {
            cpu: CpuId(c as u16),
            kind: TaskKind::Process,
        })
        .collect();
    let choices = match merge(logs) {
        Ok(c) => c,
        Err(e) => {
            return (
                0,
                Some(format!(
                    "the micro-steps cannot be put in one order: {} of {} placed\n{}",
                    e.placed, e.total, e.cycle
                )),
            )
        }
    };
    let micro_steps = choices.len();
    let mut program = ReplayProgram {
        ops: ops.iter().map(|o| o.iter().copied().collect()).collect(),
        current: vec![None; cpus],
        mismatch: None,
    };
    let outcome = exec::run(
        rec,
        &specs,
        &Schedule::Explicit { choices },
        exec::Options {
            teaching: Teaching::default(),
            limit: usize::MAX,
            keep_taken: false,
        },
        &mut program,
    );
    let mut mismatch = program.mismatch.take();
    if let Err((e, _)) = outcome {
        mismatch.get_or_insert(format!("the replay stopped: {e:?}"));
    }
    if mismatch.is_none() && program.ops.iter().any(|q| !q.is_empty()) {
        mismatch = Some("the replay ended with operations left".to_string());
    }
    (micro_steps, mismatch)
}

/// The live run's operations as tasks of the interleaving engine.
struct ReplayProgram {
    ops: Vec<VecDeque<LiveOp>>,
    current: Vec<Option<LiveOp>>,
    mismatch: Option<String>,
}

impl<'a> Program<'a> for ReplayProgram {
    type Out = SmpResult;

    fn ready(&self, t: TaskId) -> Ready {
        if self.ops[usize::from(t)].is_empty() {
            Ready::Done
        } else {
            Ready::Yes
        }
    }

    fn start(&mut self, t: TaskId, k: Ctx<'a>) -> (&'static str, OpFuture<'a, SmpResult>) {
        let op = self.ops[usize::from(t)]
            .pop_front()
            .expect("ready said an operation is left");
        self.current[usize::from(t)] = Some(op);
        let smp = match op {
            LiveOp::Kmalloc { size, .. } => SmpOp::Kmalloc {
                size,
                flags: GFP_KERNEL,
                caller: 0,
                node: None,
            },
            LiveOp::Free { addr } => SmpOp::Free { addr, cache: None },
        };
        (smp.name(), smp.run(k))
    }

    fn finish(&mut self, t: TaskId, out: SmpResult, _at: usize) {
        let op = self.current[usize::from(t)].take();
        if let (Some(LiveOp::Kmalloc { addr, size }), SmpResult::Object(got)) = (op, &out) {
            if *got != addr && self.mismatch.is_none() {
                self.mismatch = Some(format!(
                    "cpu{t}: kmalloc({size}) returned {addr:#x} live and {got:#x} in the replay"
                ));
            }
        }
    }

    fn origin(&self, _t: TaskId) -> (Option<u32>, Option<u32>) {
        (None, None)
    }

    fn tasks_depend(&self) -> bool {
        false
    }
}
