//! A slab's (freelist, counters) double word: how SLUB reads it and changes it with a cmpxchg
//! (`slab_update_freelist()`, `__slab_update_freelist()`; mm/slub.c, v6.6).
//!
//! On x86_64 the pair is 16 bytes, changed by `cmpxchg16b` (`system_has_freelist_aba()`), so
//! the `slab_lock()` fallback is never taken. `counters` packs `inuse`, `objects` and
//! `frozen`; `objects` never changes, so the simulator compares `freelist`, `inuse` and
//! `frozen`.

use super::state::Slab;
use crate::ids::{CpuId, NodeId, Pfn};
use crate::slub::mem::SlubMem;
use crate::smp::micro::{Access, Micro, RetryReason};
use crate::smp::Ctx;
use std::future::Future;

/// The double word as a task read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlabRead {
    pub freelist: u64,
    pub inuse: u32,
    pub frozen: bool,
    pub objects: u32,
    pub node: NodeId,
}

/// The new value a cmpxchg stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlabWord {
    pub freelist: u64,
    pub inuse: u32,
    pub frozen: bool,
}

impl SlabRead {
    /// The slab's double word (with `objects` and its node).
    #[inline(always)]
    pub(crate) fn of(slab: &Slab) -> SlabRead {
        SlabRead {
            freelist: slab.freelist,
            inuse: slab.inuse,
            frozen: slab.frozen,
            objects: slab.objects,
            node: slab.node,
        }
    }
}

/// The paths that race with other CPUs: written once, run as async code by the
/// interleaving executor and as its synchronous twin (`sync`) by sequential runs.
#[slabscope_dual::dual]
pub(crate) mod asyn {
    use super::*;

    /// `prior = slab->freelist; counters = slab->counters` (one micro-step: the two words are
    /// read back to back, and the cmpxchg that follows checks both).
    #[inline(always)]
    pub(crate) fn read_slab(k: Ctx<'_>, pfn: Pfn) -> impl Future<Output = SlabRead> + '_ {
        k.step(Access::ReadSlab, move || {
            // A slab read here is held by the task (an object it frees, its cpu slab, a slab under
            // a lock it holds), so it cannot have been freed; a damaged run may still get here,
            // and reads zeros rather than stopping.
            let read = k.slab_word(pfn).unwrap_or(SlabRead {
                freelist: 0,
                inuse: 0,
                frozen: false,
                objects: 0,
                node: NodeId(0),
            });
            k.slab_read(pfn);
            k.note(|| Micro::ReadSlab {
                cpu: k.cpu(),
                pfn,
                freelist: read.freelist,
                inuse: read.inuse,
                frozen: read.frozen,
            });
            read
        })
    }

    /// `slab_update_freelist(s, slab, old.freelist, old.counters, new.freelist, new.counters,
    /// site)`: if the slab still holds what was read (`old`), it takes `new` (with `unlink`,
    /// its cpu partial link is cleared at the same moment, as `__unfreeze_partials()` does under
    /// its lock) and this returns true; else nothing changes, the failure is counted for
    /// `site`, and the caller goes round its loop.
    #[inline(always)]
    pub(crate) fn slab_update_freelist<'a>(
        k: Ctx<'a>,
        pfn: Pfn,
        old: &SlabRead,
        new: SlabWord,
        site: &'static str,
        unlink: bool,
    ) -> impl Future<Output = bool> + 'a {
        let old = *old;
        k.step(Access::CmpxchgSlab, move || {
            let ok = k.slab_cmpxchg(pfn, &old, new, unlink);
            if !ok {
                k.count_retry(site, RetryReason::SlabChanged);
            }
            let changed_at = if ok { None } else { k.slab_changed_at(pfn) };
            let cpu: CpuId = k.cpu();
            k.note(|| Micro::CmpxchgSlab {
                cpu,
                pfn,
                site,
                ok,
                old: old.freelist,
                new: new.freelist,
                inuse: new.inuse,
                frozen: new.frozen,
                changed_at,
            });
            ok
        })
    }
}
