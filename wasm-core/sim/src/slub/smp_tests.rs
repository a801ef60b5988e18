//! Interleaved runs of SLUB's racing paths: every retry the kernel makes, the invariants
//! after every micro-step under random schedules, and the ABA problem without the tid.

use super::task::{SmpOp, SmpResult};
use super::tests::{boot, cache};
use crate::ids::{CacheId, CpuId};
use crate::machine::check::{FullChecks, TraceCheck};
use crate::smp::exec::{self, OpFuture, Outcome, Program, Ready, TaskKind, TaskSpec};
use crate::smp::schedule::Schedule;
use crate::smp::{Ctx, TaskId, Teaching};
use crate::trace::Recorder;

/// A test operation: objects are named by small numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TOp {
    Alloc(usize),
    Free(usize),
    Flush,
}

/// Tasks of test operations on one cache; a free waits until its object is allocated.
pub(super) struct TestProgram {
    cache: CacheId,
    ops: Vec<Vec<TOp>>,
    next: Vec<usize>,
    pub names: Vec<Option<u64>>,
    pending: Vec<Option<TOp>>,
    /// Objects held by callers now.
    live: std::collections::BTreeSet<u64>,
    /// Objects an allocation returned while a caller still held them.
    pub handed_out_twice: Vec<u64>,
}

impl TestProgram {
    pub fn new(cache: CacheId, ops: Vec<Vec<TOp>>) -> Self {
        let names = ops
            .iter()
            .flatten()
            .filter_map(|o| match o {
                TOp::Alloc(n) | TOp::Free(n) => Some(*n + 1),
                TOp::Flush => None,
            })
            .max()
            .unwrap_or(0);
        let n = ops.len();
        TestProgram {
            cache,
            ops,
            next: vec![0; n],
            names: vec![None; names],
            pending: vec![None; n],
            live: std::collections::BTreeSet::new(),
            handed_out_twice: Vec::new(),
        }
    }
}

impl<'a> Program<'a> for TestProgram {
    type Out = SmpResult;

    fn ready(&self, t: TaskId) -> Ready {
        let t = usize::from(t);
        match self.ops[t].get(self.next[t]) {
            None => Ready::Done,
            Some(TOp::Free(n)) if self.names[*n].is_none() => Ready::Waits(format!("object {n}")),
            Some(_) => Ready::Yes,
        }
    }

    fn start(&mut self, t: TaskId, k: Ctx<'a>) -> (&'static str, OpFuture<'a, SmpResult>) {
        let ti = usize::from(t);
        let op = self.ops[ti][self.next[ti]];
        self.next[ti] += 1;
        self.pending[ti] = Some(op);
        let smp = match op {
            TOp::Alloc(_) => SmpOp::Alloc {
                cache: self.cache,
                node: None,
            },
            TOp::Free(n) => {
                let addr = self.names[n].expect("ready checked it");
                // The caller gives the object up when it calls kfree(): once the free's cmpxchg
                // has put it on a freelist another CPU may allocate it before this call
                // returns (a 6.8+ get_partial_node() that took the slab off the node list
                // freezes it after this free, outside list_lock).
                self.live.remove(&addr);
                SmpOp::Free {
                    addr,
                    cache: Some(self.cache),
                }
            }
            TOp::Flush => SmpOp::FlushCpuSlab { cache: self.cache },
        };
        (smp.name(), smp.run(k))
    }

    fn finish(&mut self, t: TaskId, out: SmpResult, _at: usize) {
        // A free gave its object up when it started (`start`).
        if let (Some(TOp::Alloc(n)), SmpResult::Object(object)) =
            (self.pending[usize::from(t)], out)
        {
            if object != 0 && !self.live.insert(object) {
                self.handed_out_twice.push(object);
            }
            self.names[n] = Some(object);
        }
    }

    fn origin(&self, _t: TaskId) -> (Option<u32>, Option<u32>) {
        (None, None)
    }
}

/// Runs `ops` (one task per CPU, in order; `irqs[c]` the interrupt handlers of CPU `c`) and
/// checks every invariant after every micro-step.
pub(super) fn run_checked(
    rec: &mut Recorder,
    cache: CacheId,
    ops: Vec<Vec<TOp>>,
    irqs: Vec<(u16, Vec<TOp>)>,
    schedule: &Schedule,
    teaching: Teaching,
) -> (Outcome, TestProgram) {
    let mut specs: Vec<TaskSpec> = (0..ops.len())
        .map(|c| TaskSpec {
            cpu: CpuId(c as u16),
            kind: TaskKind::Process,
        })
        .collect();
    let mut all = ops;
    for (cpu, list) in irqs {
        specs.push(TaskSpec {
            cpu: CpuId(cpu),
            kind: TaskKind::Irq,
        });
        all.push(list);
    }
    let mut program = TestProgram::new(cache, all);
    let before = rec.step_count();
    let options = exec::Options {
        teaching,
        limit: 100_000,
        keep_taken: true,
    };
    let outcome = exec::run(rec, &specs, schedule, options, &mut program)
        .unwrap_or_else(|(e, _)| panic!("{e:?}"));
    assert_eq!(rec.step_count() - before, outcome.steps);
    let mut check = TraceCheck::new(rec, FullChecks::EVERY_STEP).expect("booted consistent");
    for i in 0..rec.step_count() {
        let found = check.check_step(rec).expect("a recorded step");
        let step = rec.step(i).expect("recorded");
        let bad: Vec<&String> = found
            .local
            .iter()
            .chain(found.full.iter().flatten())
            .collect();
        assert!(
            bad.is_empty(),
            "after step {i} ({} {:?}): {bad:#?}",
            step.function,
            step.micro
        );
    }
    (outcome, program)
}

#[test]
fn two_cpus_round_robin_free_each_others_objects() {
    let mut rec = boot(2, 1, 256);
    let c = cache(&mut rec, "test", 256);
    let ops = vec![
        vec![TOp::Alloc(0), TOp::Alloc(1), TOp::Free(2), TOp::Free(3)],
        vec![TOp::Alloc(2), TOp::Alloc(3), TOp::Free(0), TOp::Free(1)],
    ];
    let (outcome, program) = run_checked(
        &mut rec,
        c,
        ops,
        vec![],
        &Schedule::RoundRobin,
        Teaching::default(),
    );
    assert!(program.names.iter().all(Option::is_some));
    assert!(outcome.steps > 8);
}

/// A random program: a sequential list of operations on `names` objects (each allocated once
/// and freed at most once, after its allocation), dealt out to `cpus` process tasks and, with
/// `irq`, an interrupt task on CPU 0. Dealt in order, every task waits only on operations
/// earlier in the list, so no run can deadlock.
/// Each process task's operations, and each interrupt task's (with its CPU).
type Tasks = (Vec<Vec<TOp>>, Vec<(u16, Vec<TOp>)>);

fn random_program(cpus: usize, irq: bool, picks: &[(u8, u8)]) -> Tasks {
    let mut tasks = vec![Vec::new(); cpus];
    let mut handler = Vec::new();
    let mut allocated: Vec<usize> = Vec::new();
    let mut next = 0;
    for &(what, whom) in picks {
        let op = match what % 8 {
            0..=3 => {
                next += 1;
                allocated.push(next - 1);
                TOp::Alloc(next - 1)
            }
            4..=6 if !allocated.is_empty() => {
                let i = usize::from(whom) % allocated.len();
                TOp::Free(allocated.swap_remove(i))
            }
            7 => TOp::Flush,
            _ => continue,
        };
        let to = usize::from(whom) % (cpus + usize::from(irq));
        if to == cpus {
            if op != TOp::Flush {
                handler.push(op);
            }
        } else {
            tasks[to].push(op);
        }
    }
    let irqs = if handler.is_empty() {
        vec![]
    } else {
        vec![(0, handler)]
    };
    (tasks, irqs)
}

/// Random programs under random schedules, with preemption, migration and an interrupt
/// handler: every invariant holds after every micro-step, every allocation returns an object
/// nobody else holds, and every free reaches its slab. About 10^5 micro-steps in all
/// (`PROPTEST_CASES` raises the number of programs; docs/testing.md).
#[test]
fn random_schedules_keep_every_invariant() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(96);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let strategy = (
        2usize..=4,
        proptest::bool::ANY,
        0u64..1_000_000,
        proptest::sample::select(vec![64u32, 256, 1024]),
        proptest::collection::vec((0u8..8, 0u8..255), 40..400),
    );
    let total = std::cell::Cell::new(0usize);
    runner
        .run(&strategy, |(cpus, irq, seed, size, picks)| {
            let mut rec = boot(cpus as u32, 1, 512);
            let c = cache(&mut rec, "test", size);
            let (ops, irqs) = random_program(cpus, irq, &picks);
            let schedule = Schedule::Random {
                seed,
                preempt: true,
            };
            let (outcome, program) =
                run_checked(&mut rec, c, ops, irqs, &schedule, Teaching::default());
            total.set(total.get() + outcome.steps);
            prop_assert!(program.handed_out_twice.is_empty());
            prop_assert!(program.names.iter().all(|n| n.is_some_and(|a| a != 0)));
            Ok(())
        })
        .unwrap();
    if cases >= 96 {
        assert!(total.get() >= 100_000, "{} micro-steps", total.get());
    }
}

/// Random programs under random schedules with preemption, migration and an interrupt handler,
/// under the later profiles: linux-6.12 (delayed freezing), linux-6.18 (the cache asks for
/// sheaves) and linux-7.2 (sheaves, no cpu slab). The sheaves' local_trylock fails when the
/// handler interrupts a task that holds it, and the barn's lock is spun on. Every invariant
/// holds after every micro-step and no object goes to two callers.
#[test]
fn random_schedules_keep_every_invariant_under_the_later_profiles() {
    use crate::boot::BootOptions;
    use crate::machine::{Machine, MachineConfig};
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(48);
    let mut runner = TestRunner::new(Config {
        cases,
        ..Config::default()
    });
    let profiles = [
        &crate::profile::LINUX_6_12,
        &crate::profile::LINUX_6_18,
        &crate::profile::LINUX_7_2,
    ];
    let strategy = (
        0usize..3,
        2usize..=4,
        proptest::bool::ANY,
        0u64..1_000_000,
        proptest::sample::select(vec![64u32, 256, 1024]),
        proptest::collection::vec((0u8..8, 0u8..255), 40..400),
    );
    let total = std::cell::Cell::new(0usize);
    runner
        .run(&strategy, |(p, cpus, irq, seed, size, picks)| {
            let profile = profiles[p];
            let m = Machine::new(MachineConfig {
                cpus: cpus as u32,
                nodes: 1,
                cpu_node: vec![],
                page_size: 4096,
                pages_per_node: 768,
                pcp_batch: Some(3),
                pcp_high: Some(12),
            })
            .unwrap()
            .with_profile(profile);
            let mut rec = Recorder::new(m, true);
            crate::slub::create_kmalloc_caches(&mut rec, &BootOptions::default()).unwrap();
            let args = crate::allocator::CacheArgs {
                name: "test",
                size,
                align: 0,
                flags: Default::default(),
                useroffset: 0,
                usersize: 0,
                ctor: false,
                freeptr_offset: None,
                sheaf_capacity: (profile.slub == crate::geometry::SlubVersion::V6_18).then_some(8),
            };
            let c = super::create::kmem_cache_create_args(&mut rec, &args, &BootOptions::default())
                .unwrap();
            let (ops, irqs) = random_program(cpus, irq, &picks);
            let schedule = Schedule::Random {
                seed,
                preempt: true,
            };
            let (outcome, program) =
                run_checked(&mut rec, c, ops, irqs, &schedule, Teaching::default());
            total.set(total.get() + outcome.steps);
            prop_assert!(program.handed_out_twice.is_empty());
            prop_assert!(program.names.iter().all(|n| n.is_some_and(|a| a != 0)));
            Ok(())
        })
        .unwrap();
    if cases >= 48 {
        assert!(total.get() >= 50_000, "{} micro-steps", total.get());
    }
}
