//! The standard workload that `npm run bench` times (natively and in wasm): a documented,
//! seeded random mix of `kmalloc`/`kfree` on a NUMA machine, so figures from different builds
//! and machines measure the same thing.
//!
//! The workload (docs/bench.md):
//! - machine: 4 CPUs on 2 nodes (cpu0-1 on node 0, cpu2-3 on node 1), 4 KiB pages, 64 Ki pages
//!   (256 MiB) per node, the kernel's own pcp batch and high;
//! - every operation is one `kmalloc` or one `kfree`; a `kmalloc` asks for a size drawn
//!   uniformly from 1..=2048 bytes (so every kmalloc class up to kmalloc-2k is used, 96 and 192
//!   included) on a random CPU; a `kfree` frees a random live object on a random CPU, so three
//!   frees in four are remote (another CPU) and one in two crosses nodes;
//! - the number of live objects wanders between 2,048 and 8,192: below the lower bound three
//!   operations in four allocate, above the upper bound one in four does, else one in two.
//!
//! The workload's own choices come from a PCG32 seeded with `seed`; the machine's randomness
//! (none with the default boot options) is separate.

use crate::boot::BootOptions;
use crate::gfp::GFP_KERNEL;
use crate::ids::CpuId;
use crate::machine::{Machine, MachineConfig};
use crate::slub::task::{SmpOp, SmpResult};
use crate::slub::{create_kmalloc_caches, kfree, kmalloc, FreeOutcome};
use crate::smp::exec::{self, OpFuture, Program, Ready, TaskKind, TaskSpec};
use crate::smp::schedule::Schedule;
use crate::smp::{Ctx, TaskId, Teaching};
use crate::trace::Recorder;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;

/// What a run of the standard workload did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WorkloadReport {
    pub ops: u64,
    pub allocs: u64,
    pub frees: u64,
    /// Steps taken (recorded or not).
    pub steps: u64,
    /// Events in the recorded trace (0 when not recording).
    pub events: u64,
    pub live_at_end: u64,
    pub slabs_at_end: u64,
}

/// The machine of the standard workload.
pub fn standard_machine() -> MachineConfig {
    MachineConfig {
        cpus: 4,
        nodes: 2,
        cpu_node: vec![0, 0, 1, 1],
        page_size: 4096,
        pages_per_node: 1 << 16,
        pcp_batch: None,
        pcp_high: None,
    }
}

/// Boots the standard machine with its kmalloc caches, ready for `run_standard_ops`.
pub fn standard_recorder(record: bool) -> Recorder {
    booted(standard_machine(), record)
}

/// Boots the standard machine under another kernel profile (`npm run bench` times each).
pub fn standard_recorder_under(
    profile: &'static crate::profile::KernelProfile,
    record: bool,
) -> Recorder {
    booted_under(standard_machine(), profile, record)
}

/// Boots `config` (a variant of the standard machine) with its kmalloc caches.
pub fn booted(config: MachineConfig, record: bool) -> Recorder {
    booted_under(config, &crate::profile::LINUX_6_6, record)
}

/// `booted` under `profile`.
fn booted_under(
    config: MachineConfig,
    profile: &'static crate::profile::KernelProfile,
    record: bool,
) -> Recorder {
    let machine = Machine::new(config)
        .expect("a standard machine is valid")
        .with_profile(profile);
    let mut rec = Recorder::new(machine, record);
    create_kmalloc_caches(&mut rec, &BootOptions::default()).expect("kmalloc caches fit");
    rec
}

/// Runs `ops` operations of the standard workload on `rec` (booted by `standard_recorder`).
pub fn run_standard_ops(rec: &mut Recorder, ops: u64, seed: u64) -> WorkloadReport {
    const LOW: usize = 2048;
    const HIGH: usize = 8192;
    let mut rng = Pcg32::seed_from_u64(seed);
    let cpus = rec.machine().config.cpus;
    let start_cursor = rec.cursor() as u64;
    let mut live: Vec<u64> = Vec::with_capacity(HIGH + 1);
    let (mut allocs, mut frees) = (0, 0);
    for _ in 0..ops {
        let roll = rng.next_u32() % 4;
        let alloc = match live.len() {
            0 => true,
            n if n < LOW => roll != 0,
            n if n > HIGH => roll == 0,
            _ => roll < 2,
        };
        let cpu = CpuId::new(rng.next_u32() % cpus);
        if alloc {
            let size = u64::from(rng.next_u32() % 2048 + 1);
            let addr = kmalloc(rec, size, cpu, None);
            if addr != 0 {
                live.push(addr);
            }
            allocs += 1;
        } else {
            let i = (rng.next_u32() % live.len() as u32) as usize;
            let addr = live.swap_remove(i);
            let outcome = kfree(rec, addr, cpu, None);
            debug_assert_eq!(outcome, FreeOutcome::Freed);
            frees += 1;
        }
    }
    WorkloadReport {
        ops,
        allocs,
        frees,
        steps: rec.cursor() as u64 - start_cursor,
        events: rec.event_count() as u64,
        live_at_end: live.len() as u64,
        slabs_at_end: rec.machine().slub().slabs.len() as u64,
    }
}

/// The standard workload's mix run as 4 tasks at once, one per CPU, each of `ops / 4`
/// operations, interleaved at SLUB's micro-steps by a random schedule seeded with `seed`
/// (with preemption and migration): the concurrent workload of `npm run bench`. A task's
/// `kfree` takes a random live object (another task's, three times in four), never one an
/// unfinished operation holds.
pub fn run_concurrent_ops(rec: &mut Recorder, ops: u64, seed: u64) -> ConcurrentReport {
    let cpus = rec.machine().config.cpus;
    let per_task = ops / u64::from(cpus);
    let start_cursor = rec.cursor() as u64;
    let mut program = Mix {
        rngs: (0..cpus)
            .map(|c| Pcg32::seed_from_u64(seed ^ (u64::from(c) << 32)))
            .collect(),
        left: vec![per_task; cpus as usize],
        live: Vec::with_capacity(8193),
        allocs: 0,
        frees: 0,
        pending: vec![false; cpus as usize],
    };
    let specs: Vec<TaskSpec> = (0..cpus)
        .map(|c| TaskSpec {
            cpu: CpuId::new(c),
            kind: TaskKind::Process,
        })
        .collect();
    let schedule = Schedule::Random {
        seed,
        preempt: true,
    };
    let outcome = exec::run(
        rec,
        &specs,
        &schedule,
        exec::Options {
            teaching: Teaching::default(),
            limit: usize::MAX,
            keep_taken: false,
        },
        &mut program,
    )
    .map_err(|(e, _)| e)
    .expect("the concurrent workload never waits");
    ConcurrentReport {
        ops: program.allocs + program.frees,
        micro_steps: outcome.steps as u64,
        steps: rec.cursor() as u64 - start_cursor,
        events: rec.event_count() as u64,
        retries: outcome.stats.total_retries(),
        lock_spins: outcome.stats.total_waits(),
        live_at_end: program.live.len() as u64,
    }
}

/// What a run of the concurrent workload did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ConcurrentReport {
    pub ops: u64,
    pub micro_steps: u64,
    /// Steps taken (each micro-step is one; recorded or not).
    pub steps: u64,
    pub events: u64,
    pub retries: u64,
    pub lock_spins: u64,
    pub live_at_end: u64,
}

/// The concurrent workload's tasks.
struct Mix {
    rngs: Vec<Pcg32>,
    left: Vec<u64>,
    live: Vec<u64>,
    allocs: u64,
    frees: u64,
    /// Each task's operation in flight is an allocation (its object joins `live` at the end).
    pending: Vec<bool>,
}

impl<'a> Program<'a> for Mix {
    type Out = SmpResult;

    fn ready(&self, t: TaskId) -> Ready {
        if self.left[usize::from(t)] == 0 {
            Ready::Done
        } else {
            Ready::Yes
        }
    }

    fn start(&mut self, t: TaskId, k: Ctx<'a>) -> (&'static str, OpFuture<'a, SmpResult>) {
        const LOW: usize = 2048;
        const HIGH: usize = 8192;
        let ti = usize::from(t);
        self.left[ti] -= 1;
        let rng = &mut self.rngs[ti];
        let roll = rng.next_u32() % 4;
        let alloc = match self.live.len() {
            0 => true,
            n if n < LOW => roll != 0,
            n if n > HIGH => roll == 0,
            _ => roll < 2,
        };
        self.pending[ti] = alloc;
        let op = if alloc {
            self.allocs += 1;
            SmpOp::Kmalloc {
                size: u64::from(rng.next_u32() % 2048 + 1),
                flags: GFP_KERNEL,
                caller: 0,
                node: None,
            }
        } else {
            self.frees += 1;
            let i = (rng.next_u32() % self.live.len() as u32) as usize;
            SmpOp::Free {
                addr: self.live.swap_remove(i),
                cache: None,
            }
        };
        (op.name(), op.run(k))
    }

    fn finish(&mut self, t: TaskId, out: SmpResult, _at: usize) {
        if let (true, SmpResult::Object(a)) = (self.pending[usize::from(t)], out) {
            if a != 0 {
                self.live.push(a);
            }
        }
    }

    fn origin(&self, _t: TaskId) -> (Option<u32>, Option<u32>) {
        (None, None)
    }

    /// A task's next operation can always start (it frees only objects already returned).
    fn tasks_depend(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::check::check_page_allocator;
    use crate::slub::check::check_slub;

    #[test]
    fn the_standard_workload_is_deterministic_and_leaves_a_consistent_machine() {
        let mut a = standard_recorder(false);
        let ra = run_standard_ops(&mut a, 20_000, 7);
        let mut b = standard_recorder(true);
        let rb = run_standard_ops(&mut b, 20_000, 7);
        assert_eq!(
            a.machine(),
            b.machine(),
            "recording does not change the run"
        );
        assert_eq!(ra.allocs + ra.frees, 20_000);
        assert_eq!((ra.allocs, ra.live_at_end), (rb.allocs, rb.live_at_end));
        assert_eq!(ra.live_at_end, a.machine().live_objects);
        assert!(rb.events > rb.steps, "every step records events");
        assert!(
            (2048..=8192 + 1).contains(&(ra.live_at_end as usize)),
            "live objects stay in their band, got {}",
            ra.live_at_end
        );
        assert_eq!(check_page_allocator(a.machine()), Vec::<String>::new());
        assert_eq!(check_slub(a.machine()), Vec::<String>::new());
        // Remote frees happen: some slab's freelist is non-empty while it is a cpu slab, or
        // slabs sit on node partial lists.
        let partial: usize = a
            .machine()
            .slub()
            .caches
            .iter()
            .flat_map(|c| c.node.iter())
            .map(|n| n.partial.len())
            .sum();
        assert!(partial > 0);
    }

    /// The concurrent workload: deterministic, every invariant at the end, and it races
    /// (retries happen).
    #[test]
    fn the_concurrent_workload_is_deterministic_races_and_leaves_a_consistent_machine() {
        let mut a = standard_recorder(false);
        let ra = run_concurrent_ops(&mut a, 20_000, 3);
        let mut b = standard_recorder(false);
        let rb = run_concurrent_ops(&mut b, 20_000, 3);
        assert_eq!(ra, rb);
        assert_eq!(a.machine(), b.machine());
        assert_eq!(ra.ops, 20_000);
        assert!(ra.micro_steps > 4 * ra.ops, "{ra:?}");
        assert!(ra.retries > 0, "{ra:?}");
        assert_eq!(ra.live_at_end, a.machine().live_objects);
        assert_eq!(check_page_allocator(a.machine()), Vec::<String>::new());
        assert_eq!(check_slub(a.machine()), Vec::<String>::new());
    }
}
