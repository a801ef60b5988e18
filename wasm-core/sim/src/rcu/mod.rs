//! RCU where the slab allocators meet it (kernel/rcu/tree.c, mm/slab_common.c, v6.6): the
//! grace period, `call_rcu()` callbacks, `synchronize_rcu()`, `rcu_barrier()`, and
//! `kfree_rcu()` (`kfree.rs`).
//!
//! Rules:
//! - As everywhere in the simulator, these functions read the machine and record what the
//!   kernel function they are named after does, as events (`RcuEvent`); the recorder applies
//!   them.
//! - The clock is the scenario's. A grace period ends only in a `synchronize_rcu` or
//!   `rcu_barrier` operation (or in `kmem_cache_destroy()` of a `SLAB_TYPESAFE_BY_RCU` cache,
//!   whose work calls `rcu_barrier()`); callbacks run only in `rcu_barrier()`; the
//!   `kfree_rcu()` monitor's delayed work (`KFREE_DRAIN_JIFFIES`, 5 s) runs only in a
//!   `kfree_rcu_monitor` operation. Work the kernel queues without a delay (the page-cache
//!   refill, `kfree_rcu_work()` once its grace period is over, the cache-destroy work) runs
//!   within the operation that queued it: nothing else could run in between.
//! - Callbacks run on the CPU that queued them (no `rcu_nocbs=` CPUs), oldest first, so the
//!   pages of a slab go back to that CPU's pcp lists.
//! - A CPU's `kfree_rcu()` monitor runs on that CPU (`kfree_rcu_monitor() on cpuN`, or on each
//!   CPU in turn). Differs from v6.6 on purpose: the kernel's monitor is delayed work on an
//!   unbound `system_wq` and may fire on any CPU, whose `call_rcu()`, `kfree_rcu_work()` and
//!   `kfree_bulk()` then run there; pinning it keeps a scenario's pages where it can say.
//! - `synchronize_rcu()` waits for a grace period and runs no callback; `rcu_barrier()` waits
//!   until every callback queued before it has run, which needs at most one grace period;
//!   neither waits for `kfree_rcu()` pointers that no monitor has handed to RCU yet (6.6 has
//!   no `kvfree_rcu_barrier()`).
//! - Not modelled: expedited and polled grace periods as separate kinds, lazy callbacks
//!   (`CONFIG_RCU_LAZY`), callback offloading, the `kfree_rcu()` shrinker, vmalloc pointers
//!   (channel 2).

mod apply;
pub mod check;
pub mod event;
mod kfree;
pub mod state;

pub use kfree::{kfree_rcu_monitor, kvfree_call_rcu, KfreeRcuOutcome};

use crate::ids::{CacheId, CpuId, TiVec};
use crate::machine::Pfn;
use crate::page_alloc::free_pages;
use crate::trace::{Event, Recorder};
use event::RcuEvent;
use state::RcuFunc;

/// Records an RCU event.
pub(crate) fn emit(rec: &mut Recorder, e: RcuEvent) {
    rec.emit(Event::Rcu(e));
}

/// `call_rcu()` on `cpu`, inside the caller's step: `func` runs once the next grace period
/// has ended. For a slab, its pages wait in the "waiting for RCU" state until then.
pub(crate) fn call_rcu(rec: &mut Recorder, cpu: CpuId, func: RcuFunc) {
    let gp = rec.machine().rcu.next_gp();
    rec.arg("gp", gp);
    emit(rec, RcuEvent::CallbackQueued { cpu, gp, func });
}

/// `free_slab()` of a slab of a `SLAB_TYPESAFE_BY_RCU` cache (SLUB) or `slab_destroy()`
/// (SLAB), inside the caller's step: `call_rcu(&slab->rcu_head, rcu_free_slab)`.
#[doc(alias = "free_slab")]
pub(crate) fn free_slab_rcu(rec: &mut Recorder, cpu: CpuId, cache: CacheId, pfn: Pfn, order: u8) {
    call_rcu(rec, cpu, RcuFunc::FreeSlab { cache, pfn, order });
}

/// Ends one grace period.
fn grace_period(rec: &mut Recorder) {
    let completed = rec.machine().rcu.completed + 1;
    rec.arg("gp", completed);
    emit(rec, RcuEvent::GracePeriodElapsed { completed });
}

/// `synchronize_rcu()`: waits for a full grace period. Callbacks whose grace period ends here
/// become ready, but none runs: that is RCU's softirq's work later (`rcu_barrier()` here).
pub fn synchronize_rcu(rec: &mut Recorder) {
    rec.call(
        "synchronize_rcu",
        "grace period",
        "step.synchronize_rcu",
        |rec| {
            grace_period(rec);
            let m = rec.machine();
            let ready = m
                .rcu
                .cblist
                .iter()
                .flatten()
                .filter(|c| m.rcu.elapsed(c.gp))
                .count() as u32;
            rec.arg("ready", ready);
        },
    );
}

/// `rcu_barrier()`: every callback queued before it, on every CPU, has run when it returns.
/// A grace period ends first if one of them still waits; then each CPU invokes its callbacks
/// in order (`rcu_do_batch()`). Callbacks those queue (a slab a `kfree_rcu()` batch empties)
/// are not waited for.
pub fn rcu_barrier(rec: &mut Recorder) {
    let m = &rec.machine().rcu;
    let counts: TiVec<CpuId, usize> = m.cblist.iter().map(Vec::len).collect();
    let total: usize = counts.iter().sum();
    if total == 0 {
        rec.call(
            "rcu_barrier",
            "no callbacks",
            "step.rcu_barrier_idle",
            |_| {},
        );
        return;
    }
    let waiting = m.cblist.iter().flatten().any(|c| !m.elapsed(c.gp));
    rec.call(
        "rcu_barrier",
        if waiting {
            "wait for a grace period"
        } else {
            "callbacks already ready"
        },
        "step.rcu_barrier",
        |rec| {
            rec.arg("callbacks", total as u32);
            if waiting {
                grace_period(rec);
            }
        },
    );
    for (cpu, n) in counts.into_iter_enumerated() {
        for _ in 0..n {
            rcu_do_batch(rec, cpu);
        }
    }
}

/// `rcu_do_batch()` on `cpu` for its oldest callback (whose grace period has ended).
fn rcu_do_batch(rec: &mut Recorder, cpu: CpuId) {
    let Some(&cb) = rec.machine().rcu.cblist[cpu].first() else {
        return;
    };
    match cb.func {
        RcuFunc::FreeSlab { cache, pfn, .. } => {
            // The callback is the allocator's: rcu_free_slab() (SLUB) or kmem_rcu_free() (SLAB).
            let func = crate::allocator::ops(rec.machine()).rcu_free_slab_fn();
            rec.call("rcu_do_batch", func, "step.rcu_free_slab", |rec| {
                rec.arg_cache("cache", cache);
                rec.arg("cpu", cpu);
                rec.arg("pfn", pfn);
                emit(rec, RcuEvent::CallbackInvoked { cpu, func: cb.func });
                let _ = free_pages(rec, cpu, pfn);
            });
        }
        // rcu_work_rcufn() queues kfree_rcu_work() on this CPU's system_wq pool; it runs at
        // once, in the same step.
        RcuFunc::KfreeRcuWork { batch } => kfree::kfree_rcu_work(rec, cpu, batch),
        // 6.18+: a cache's rcu_free sheaf, back to the barn or flushed.
        RcuFunc::RcuFreeSheaf {
            cache,
            sheaf,
            node,
            barn,
        } => crate::smp::run_sync!(rec, cpu, |k| crate::slub::sheaves::sync::rcu_free_sheaf(
            k, cache, sheaf, node, barn
        )),
    }
}

/// `kmem_cache_destroy()` of a `SLAB_TYPESAFE_BY_RCU` cache, after `shutdown_cache()`: the
/// cache went on `slab_caches_to_rcu_destroy` and `slab_caches_to_rcu_destroy_workfn()` was
/// scheduled; that work calls `rcu_barrier()`, so the pages of the slabs just freed are back
/// before `kmem_cache_release()`. It runs within the operation.
pub(crate) fn slab_caches_to_rcu_destroy_workfn(rec: &mut Recorder, cache: CacheId) {
    rec.call(
        "slab_caches_to_rcu_destroy_workfn",
        "rcu_barrier before release",
        "step.rcu_destroy_work",
        |rec| {
            rec.arg_cache("cache", cache);
        },
    );
    rcu_barrier(rec);
}

#[cfg(test)]
mod tests;
