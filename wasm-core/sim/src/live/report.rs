//! A live run's figures, as the CLI prints them and the app shows them.

use super::run::{Frees, LiveRun};
use super::stats::LiveStats;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a live run is asked to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LiveRequest {
    /// Threads, one per simulated CPU.
    pub threads: u32,
    /// Operations over all threads.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub ops: u64,
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub seed: u64,
    pub frees: Frees,
    /// Record (and replay, and compare).
    pub record: bool,
}

/// One thread's figures.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ThreadFigures {
    pub cpu: u32,
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub ops: u64,
    pub seconds: f64,
    pub ops_per_sec: f64,
}

/// What the replay found.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct ReplayFigures {
    /// Micro-steps replayed on the interleaving engine.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub micro_steps: u64,
    /// `None`: every allocation returned the same address and the final states are equal.
    pub mismatch: Option<String>,
    /// What the invariant checks found on the live state and on the replayed one at the end
    /// (the first few of each; empty in a sound run).
    pub violations: Vec<String>,
    /// Epochs the run was replayed in (its log kept one epoch at a time).
    pub epochs: u32,
}

/// A live run's figures.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LiveReport {
    pub threads: u32,
    /// Whose objects the workload's threads free (none for a scenario's block).
    pub frees: Option<Frees>,
    pub recorded: bool,
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub ops: u64,
    pub per_thread: Vec<ThreadFigures>,
    /// All operations over the slowest thread's time.
    pub ops_per_sec: f64,
    /// Failed cmpxchgs per million operations, by the kernel's site name.
    pub retries_per_million: BTreeMap<String, f64>,
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub retries: u64,
    /// Fast-path cmpxchgs that failed because the tid moved on (0 when nothing preempts or
    /// interrupts a CPU, as in a live run: see docs/live.md).
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub tid_mismatches: u64,
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub list_lock_taken: u64,
    /// Looks at a `list_lock` another CPU held.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub list_lock_waits: u64,
    /// Micro-steps the threads took.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub micro_steps: u64,
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub out_of_memory: u64,
    /// The replay's verdict (recorded runs).
    pub replay: Option<ReplayFigures>,
}

impl LiveReport {
    /// The figures of `run` (started with `frees`), with its replay's verdict when it was
    /// recorded.
    pub fn of(run: &LiveRun, frees: Frees) -> LiveReport {
        let replay = run.replayed.as_ref().map(|r| ReplayFigures {
            micro_steps: r.micro_steps as u64,
            mismatch: r.mismatch.clone(),
            violations: r.violations.clone(),
            epochs: run.epochs,
        });
        let cpus: Vec<u32> = (0..run.stats.len() as u32).collect();
        LiveReport::from_parts(&cpus, &run.stats, &run.seconds, Some(frees), replay)
    }

    /// The figures of threads that ran CPUs `cpus`, with their counts and times (`seconds`),
    /// and, for a recorded run, the replay's verdict.
    pub fn from_parts(
        cpus: &[u32],
        stats: &[LiveStats],
        seconds: &[f64],
        frees: Option<Frees>,
        replay: Option<ReplayFigures>,
    ) -> LiveReport {
        let recorded = replay.is_some();
        let mut total = LiveStats::default();
        for s in stats {
            total.add(s);
        }
        let slowest = seconds.iter().copied().fold(0.0, f64::max);
        let rate = |ops: u64, s: f64| if s > 0.0 { ops as f64 / s } else { 0.0 };
        let per_million = |n: u64| {
            if total.ops == 0 {
                0.0
            } else {
                n as f64 * 1e6 / total.ops as f64
            }
        };
        LiveReport {
            threads: stats.len() as u32,
            frees,
            recorded,
            ops: total.ops,
            per_thread: stats
                .iter()
                .zip(cpus)
                .enumerate()
                .map(|(i, (s, &cpu))| {
                    let seconds = seconds.get(i).copied().unwrap_or(0.0);
                    ThreadFigures {
                        cpu,
                        ops: s.ops,
                        seconds,
                        ops_per_sec: rate(s.ops, seconds),
                    }
                })
                .collect(),
            ops_per_sec: rate(total.ops, slowest),
            retries_per_million: total
                .retries
                .iter()
                .map(|(&site, &n)| (site.to_string(), per_million(n)))
                .collect(),
            retries: total.total_retries(),
            tid_mismatches: total.tid_mismatches,
            list_lock_taken: total.lock_taken,
            list_lock_waits: total.lock_waits,
            micro_steps: total.boundaries + total.ops,
            out_of_memory: total.out_of_memory,
            replay,
        }
    }
}
