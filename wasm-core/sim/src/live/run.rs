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
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Mutex;

/// Which objects a thread frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum Frees {
    /// Its own: every free is to a slab of its CPU's (the per-CPU fast path and its own
    /// slabs' `__slab_free()`).
    Local,
    /// Any thread's: each free takes an object from the pool of a thread picked at random
    /// (each thread's allocations go to its own pool), so with N threads N-1 frees in N are
    /// remote, as in the standard workload.
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

/// A pool of live objects (the workload's, not the kernel's), on cache lines of its own so
/// that two threads' pools never share one; with the number of times it was changed (a
/// recorded run's order of hand-overs).
#[derive(Default)]
#[repr(align(64))]
struct Pool(Mutex<(Vec<u64>, u64)>, std::sync::atomic::AtomicUsize);

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
/// CPU running `ops / threads` operations, the workload's own choices drawn from `seed`:
/// `run_cpu(t)` is thread `t`'s work (natively a `std::thread`, in the browser a Web Worker
/// over the shared memory), and `finish` gathers what they did.
pub struct LiveJob {
    base: Machine,
    mem: LiveMem,
    table: KmallocTable,
    pools: Vec<Pool>,
    frees: Frees,
    per_thread: u64,
    seed: u64,
    record: bool,
    done: Vec<Mutex<Option<CpuDone>>>,
}

/// What one thread did.
struct CpuDone {
    stats: LiveStats,
    ops: Vec<LiveOp>,
    log: ThreadLog,
}

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
            return Err(LiveRefusal::Unsupported(format!(
                "{threads} threads: a live run has 1 to {MAX_THREADS}"
            )));
        }
        if ops > MAX_OPS {
            return Err(LiveRefusal::Unsupported(format!(
                "{ops} operations: a live run has at most {MAX_OPS}"
            )));
        }
        let rec = boot(threads);
        let base = rec.machine().clone();
        let table = KmallocTable::new(&rec);
        let mem = LiveMem::new(&base)?;
        let pools = (0..threads).map(|_| Pool::default()).collect();
        Ok(LiveJob {
            base,
            mem,
            table,
            pools,
            frees,
            per_thread: ops / u64::from(threads),
            seed,
            record,
            done: (0..threads).map(|_| Mutex::new(None)).collect(),
        })
    }

    /// Threads of the run.
    pub fn threads(&self) -> u32 {
        self.done.len() as u32
    }

    /// Thread `t`'s work: its CPU's operations, racing the other threads' (a second call for
    /// the same `t` does nothing).
    pub fn run_cpu(&self, t: u32) {
        const LOW: usize = 2048;
        const HIGH: usize = 8192;
        let Some(slot) = self.done.get(t as usize) else {
            return;
        };
        if lock(slot).is_some() {
            return;
        }
        let threads = self.threads();
        let cpu = LiveCpu::new(&self.mem, CpuId::new(t), self.record);
        let own = &self.pools[t as usize];
        // Each thread keeps its share of the workload's band of live objects.
        let band = |n: usize| n * threads as usize;
        let mut rng = Pcg32::seed_from_u64(self.seed ^ (u64::from(t) << 32));
        // The operations, for the replay (an unrecorded run keeps none: they would only take memory).
        let mut done = Vec::with_capacity(if self.record {
            self.per_thread as usize
        } else {
            0
        });
        // A free takes a random object from a pool: under the lock, noting the pool's turn
        // (a hand-over the replay orders after the allocation that gave the object).
        let take = |which: u32, pick: u32| {
            let pool = &self.pools[which as usize];
            let mut p = lock(&pool.0);
            if p.0.is_empty() {
                return None;
            }
            let i = (pick % p.0.len() as u32) as usize;
            let addr = p.0.swap_remove(i);
            p.1 += 1;
            pool.1.store(p.0.len(), Relaxed);
            cpu.log(|l| l.took(which, p.1));
            Some(addr)
        };
        for _ in 0..self.per_thread {
            let roll = rng.next_u32() % 4;
            let alloc = match band(own.1.load(Relaxed)) {
                0 => true,
                n if n < LOW => roll != 0,
                n if n > HIGH => roll == 0,
                _ => roll < 2,
            };
            let freed = if alloc {
                None
            } else {
                let pick = rng.next_u32();
                let which = match self.frees {
                    Frees::Local => t,
                    Frees::Remote => rng.next_u32() % threads,
                };
                // Another thread's pool may be empty: then one of this thread's own objects.
                take(which, pick).or_else(|| (which != t).then(|| take(t, pick)).flatten())
            };
            match freed {
                Some(addr) => {
                    cpu.free(addr);
                    if self.record {
                        done.push(LiveOp::Free { addr });
                    }
                }
                // An allocation (or a free that found nothing to free: the same).
                None => {
                    let size = u64::from(rng.next_u32() % 2048 + 1);
                    let cache = self
                        .table
                        .cache(size)
                        .expect("sizes up to 2 KiB have a cache");
                    let addr = cpu.alloc(cache);
                    if addr != 0 {
                        let mut p = lock(&own.0);
                        p.0.push(addr);
                        p.1 += 1;
                        own.1.store(p.0.len(), Relaxed);
                        cpu.log(|l| l.gave(t, p.1));
                    }
                    if self.record {
                        done.push(LiveOp::Kmalloc { size, addr });
                    }
                }
            }
        }
        let stats = cpu.stats();
        *lock(slot) = Some(CpuDone {
            stats,
            ops: done,
            log: cpu.into_log(),
        });
    }

    /// What the threads did (a thread that never ran did nothing). `seconds[t]` is thread
    /// `t`'s time, as its caller measured it.
    pub fn finish(self, seconds: &[f64]) -> LiveRun {
        let mut run = LiveRun {
            base: self.base,
            mem: self.mem,
            stats: Vec::new(),
            ops: Vec::new(),
            logs: Vec::new(),
            seconds: seconds.to_vec(),
        };
        for slot in self.done {
            let d = slot
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let d = d.unwrap_or(CpuDone {
                stats: LiveStats::default(),
                ops: Vec::new(),
                log: ThreadLog::default(),
            });
            run.stats.push(d.stats);
            run.ops.push(d.ops);
            run.logs.push(d.log);
        }
        run
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `job` natively, one `std::thread` per CPU; `timed(work)` runs one thread's work and
/// says how many seconds it took (the simulator has no clock: the caller brings one).
pub fn run_threads(job: LiveJob, timed: impl Fn(&dyn Fn()) -> f64 + Sync) -> LiveRun {
    let threads = job.threads();
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
    job.finish(&seconds)
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
}

/// Replays a recorded live run on the interleaving engine, from the machine it started from,
/// with the schedule its log gives; compares every allocation's address and the final state.
pub fn replay(run: &LiveRun) -> Replay {
    let mut rec = Recorder::new(run.base.clone(), false);
    let cpus = run.ops.len();
    let specs: Vec<TaskSpec> = (0..cpus)
        .map(|c| TaskSpec {
            cpu: CpuId(c as u16),
            kind: TaskKind::Process,
        })
        .collect();
    let choices = match merge(&run.logs) {
        Ok(c) => c,
        Err(e) => {
            return Replay {
                micro_steps: 0,
                mismatch: Some(format!(
                    "the micro-steps cannot be put in one order: {} of {} placed\n{}",
                    e.placed, e.total, e.cycle
                )),
                machine: with_short_tids(run.base.clone()),
            }
        }
    };
    let micro_steps = choices.len();
    let mut program = ReplayProgram {
        ops: run
            .ops
            .iter()
            .map(|o| o.iter().copied().collect())
            .collect(),
        current: vec![None; cpus],
        mismatch: None,
    };
    let outcome = exec::run(
        &mut rec,
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
    let machine = with_short_tids(rec.machine().clone());
    if mismatch.is_none() {
        let live = run.mem.to_machine(&run.base);
        mismatch = super::compare::first_difference(&live, &machine);
    }
    Replay {
        micro_steps,
        mismatch,
        machine,
    }
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
