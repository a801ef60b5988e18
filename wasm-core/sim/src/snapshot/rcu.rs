//! RCU as the snapshot shows it: the grace periods ended so far, and per CPU the `call_rcu()`
//! callbacks waiting to run (slabs of `SLAB_TYPESAFE_BY_RCU` caches, `kfree_rcu()` batches) and
//! the `kfree_rcu()` pointers its `krc` holds.

use super::hex;
use crate::ids::{CacheId, CpuId};
use crate::machine::{Machine, Pfn};
use crate::rcu::state::{KrcLists, RcuFunc};
use serde::Serialize;

/// Pointers of one page or list listed in full up to this many (the count is always exact).
const LISTED_POINTERS: usize = 64;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct RcuView {
    /// Grace periods ended since boot.
    pub completed: u32,
    /// One per CPU.
    pub cpus: Vec<RcuCpuView>,
}

/// A CPU's part of RCU.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct RcuCpuView {
    pub cpu: CpuId,
    /// Callbacks `call_rcu()` queued here, oldest first; they run here.
    pub callbacks: Vec<RcuCallbackView>,
    /// `krc`: this CPU's `kfree_rcu()` pointers.
    pub krc: KrcView,
}

/// One `call_rcu()` callback.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct RcuCallbackView {
    /// The function: `rcu_free_slab` (SLUB), `kmem_rcu_free` (SLAB) or `rcu_work_rcufn` (a
    /// `kfree_rcu()` batch).
    pub func: String,
    /// The grace period it waits for, and whether that has ended.
    pub gp: u32,
    pub ready: bool,
    /// A slab's first pfn, its cache and its pages (slab callbacks).
    pub pfn: Option<Pfn>,
    pub cache: Option<CacheId>,
    pub pages: u32,
    /// The `krw_arr[]` batch (`rcu_work_rcufn`).
    pub batch: Option<u32>,
}

/// A page of `kfree_rcu()` pointers (`struct kvfree_rcu_bulk_data`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct KrcPageView {
    pub pfn: Pfn,
    /// `nr_records`.
    pub nr_records: u32,
    /// `records[]`, oldest first (at most 64).
    pub records: Vec<String>,
    /// The grace period its newest pointer waits for has ended (`gp_snap`).
    pub ready: bool,
}

/// Pages of pointers and objects chained through their `rcu_head`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct KrcListsView {
    /// Newest page first.
    pub pages: Vec<KrcPageView>,
    /// Chained objects, newest first (at most 64).
    pub head: Vec<String>,
    /// How many are chained.
    pub head_count: u32,
    /// Every pointer held, in pages and chained.
    pub objects: u32,
}

/// `struct kfree_rcu_cpu`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct KrcView {
    /// Queued by `kfree_rcu()`, not yet handed to RCU by the monitor.
    pub queued: KrcListsView,
    /// `krw_arr[]`: batches waiting for their grace period.
    pub batches: Vec<KrcListsView>,
    /// What `kfree_rcu_work()` is freeing right now (empty between operations).
    pub work: KrcListsView,
    /// `bkvcache`: empty pointer pages kept for reuse, the next one taken first.
    pub cached_pages: Vec<Pfn>,
    /// The monitor's delayed work is pending.
    pub monitor_pending: bool,
}

fn lists(m: &Machine, l: &KrcLists) -> KrcListsView {
    KrcListsView {
        pages: l
            .bulk
            .iter()
            .map(|b| KrcPageView {
                pfn: b.pfn,
                nr_records: b.records.len() as u32,
                records: b
                    .records
                    .iter()
                    .take(LISTED_POINTERS)
                    .map(|&a| hex(a))
                    .collect(),
                ready: m.rcu.elapsed(b.gp),
            })
            .collect(),
        head: l
            .head
            .iter()
            .take(LISTED_POINTERS)
            .map(|&a| hex(a))
            .collect(),
        head_count: l.head.len() as u32,
        objects: l.objects() as u32,
    }
}

pub(super) fn rcu_view(m: &Machine) -> RcuView {
    let free_slab = crate::allocator::ops(m).rcu_free_slab_fn();
    let cpus = m
        .rcu
        .cblist
        .iter_enumerated()
        .zip(&m.rcu.krc)
        .map(|((cpu, cbs), krc)| RcuCpuView {
            cpu,
            callbacks: cbs
                .iter()
                .map(|cb| {
                    let (func, pfn, cache, pages, batch) = match cb.func {
                        RcuFunc::FreeSlab { cache, pfn, order } => {
                            (free_slab, Some(pfn), Some(cache), 1 << order, None)
                        }
                        RcuFunc::KfreeRcuWork { batch } => {
                            ("rcu_work_rcufn", None, None, 0, Some(u32::from(batch)))
                        }
                        RcuFunc::RcuFreeSheaf { cache, barn, .. } => {
                            let func = if barn {
                                "rcu_free_sheaf"
                            } else {
                                "rcu_free_sheaf_nobarn"
                            };
                            (func, None, Some(cache), 0, None)
                        }
                    };
                    RcuCallbackView {
                        func: func.to_string(),
                        gp: cb.gp,
                        ready: m.rcu.elapsed(cb.gp),
                        pfn,
                        cache,
                        pages,
                        batch,
                    }
                })
                .collect(),
            krc: KrcView {
                queued: lists(m, &krc.queued),
                batches: krc.krw_arr.iter().map(|b| lists(m, b)).collect(),
                work: lists(m, &krc.work),
                cached_pages: krc.bkvcache.iter().rev().copied().collect(),
                monitor_pending: krc.monitor_pending,
            },
        })
        .collect();
    RcuView {
        completed: m.rcu.completed,
        cpus,
    }
}
