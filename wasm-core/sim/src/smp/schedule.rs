//! Schedules: which CPU takes each micro-step of an interleaved run, and when the kernel's
//! preemptions and interrupts come.

use crate::ids::CpuId;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use serde::Serialize;

/// One decision of a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Choice {
    /// `cpu` takes its next micro-step (its interrupt handler's, if one runs).
    Run { cpu: CpuId },
    /// The task running on `cpu` is preempted (`CONFIG_PREEMPTION`) where the kernel lets it
    /// be, and will go on on `to` (the same CPU, or another: a migration).
    Preempt { cpu: CpuId, to: CpuId },
    /// An interrupt comes in on `cpu`: its handler runs the next operation of the CPU's
    /// interrupt list.
    Irq { cpu: CpuId },
}

impl Choice {
    pub fn cpu(self) -> CpuId {
        match self {
            Choice::Run { cpu } | Choice::Preempt { cpu, .. } | Choice::Irq { cpu } => cpu,
        }
    }
}

/// How an interleaved run picks its decisions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Schedule {
    /// The CPUs in turn, one micro-step each; an interrupt comes in at the first point its CPU
    /// takes one (in the middle of an operation, when there is one); no preemption.
    RoundRobin,
    /// A uniform pick among the CPUs that can run and the interrupts that can come, from a
    /// generator seeded with `seed`; with `preempt`, one decision in 16 preempts a task that
    /// can be preempted (moving it to a CPU picked the same way).
    Random {
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        seed: u64,
        preempt: bool,
    },
    /// These decisions in order, then round-robin.
    Explicit { choices: Vec<Choice> },
}

/// The schedule's own generator (the machine's is kept for the kernel's own randomness, so a
/// schedule never changes what the kernel draws).
#[derive(Clone, Debug)]
pub(crate) struct Picker(Pcg32);

impl Picker {
    pub fn new(seed: u64) -> Self {
        Picker(Pcg32::seed_from_u64(seed))
    }

    /// Uniform in `0..n` (`n > 0`): the draw modulo `n` (a mask when `n` is a power of two,
    /// the same number without a division).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        let x = self.0.next_u64();
        let n = n as u64;
        (if n.is_power_of_two() {
            x & (n - 1)
        } else {
            x % n
        }) as usize
    }
}
