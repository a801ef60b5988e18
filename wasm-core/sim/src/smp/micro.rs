//! Micro-steps: what one access of a kernel path did (`Micro`), the access each boundary of
//! the racing code comes before (`Access`), and a run's counts of retries and lock waits
//! (`Stats`).

use crate::ids::{CacheId, CpuId, NodeId, Pfn};
use crate::trace::Arg;
use serde::Serialize;
use std::collections::BTreeMap;

/// The access a boundary of the racing code comes before (`Ctx::at`, `Ctx::step`): it names,
/// where the code suspends, which of the kernel's accesses the schedule may put another CPU
/// in front of. Read by people, not at run time: what a micro-step did is its `Micro`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `READ_ONCE(c->tid)`.
    ReadTid,
    /// `c->freelist`, `c->slab` (or `c->partial`) read.
    ReadCpu,
    /// `get_freepointer_safe(s, object)`: a load from a free object.
    GetFreepointer,
    /// `set_freepointer()` into an object the task holds.
    SetFreepointer,
    /// `this_cpu_try_cmpxchg_freelist()` on this CPU's (freelist, tid).
    CmpxchgCpu,
    /// `slab->freelist` and `slab->counters` read.
    ReadSlab,
    /// `n->nr_partial` read without the lock.
    ReadNode,
    /// `slab_update_freelist()`: cmpxchg on a slab's (freelist, counters).
    CmpxchgSlab,
    /// `spin_lock_irqsave(&n->list_lock)`.
    SpinLock,
    /// `spin_unlock_irqrestore(&n->list_lock)`.
    SpinUnlock,
    /// `local_lock_irqsave(&s->cpu_slab->lock)`.
    LocalLock,
    /// `local_unlock_irqrestore(&s->cpu_slab->lock)`.
    LocalUnlock,
    /// `local_trylock(&s->cpu_sheaves->lock)` or `local_lock()` of it (6.18+).
    PcsLock,
    /// `local_unlock(&s->cpu_sheaves->lock)`.
    PcsUnlock,
    /// `spin_lock_irqsave(&barn->lock)` (6.18+).
    BarnLock,
    /// `spin_unlock_irqrestore(&barn->lock)`.
    BarnUnlock,
    /// Work on what the task holds or has locked (a new slab from the page allocator, a node
    /// list changed under its lock, a cpu slab changed under the local lock).
    Work,
    /// The first micro-step of an operation.
    Start,
}

/// Why a cmpxchg failed, as the simulator knows it; `note_cmpxchg_failure()` can tell only
/// the first (the tid's CPU changed) from the rest (its event count changed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "snake_case")]
pub enum RetryReason {
    /// The task moved to another CPU after reading the tid ("due to cpu change").
    Migrated,
    /// Other code ran on this CPU in between ("due to cpu running other code"): the task
    /// was preempted and another task ran.
    Preempted,
    /// As above, an interrupt handler on this CPU.
    Interrupted,
    /// As above, another operation of this task's CPU (in the simulator: another task
    /// scheduled on the CPU without a preemption of this one).
    OtherOperation,
    /// A slab's freelist or counters changed under the cmpxchg (another CPU freed to it, or
    /// took its freelist).
    SlabChanged,
}

impl RetryReason {
    /// Its name in captions and tables.
    pub fn word(self) -> &'static str {
        match self {
            RetryReason::Migrated => "migrated",
            RetryReason::Preempted => "preempted",
            RetryReason::Interrupted => "interrupted",
            RetryReason::OtherOperation => "other operation",
            RetryReason::SlabChanged => "slab changed",
        }
    }
}

/// What one micro-step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "micro", rename_all = "snake_case")]
pub enum Micro {
    /// The operation begins on `cpu`.
    Start {
        cpu: CpuId,
    },
    /// `c = raw_cpu_ptr(s->cpu_slab); tid = READ_ONCE(c->tid)`: `c` is `of`'s.
    ReadTid {
        cache: CacheId,
        cpu: CpuId,
        of: CpuId,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        tid: u64,
    },
    /// `object = c->freelist; slab = c->slab` of `of`'s `kmem_cache_cpu`.
    ReadCpu {
        cache: CacheId,
        cpu: CpuId,
        of: CpuId,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        freelist: u64,
        slab: Option<Pfn>,
    },
    /// `c->slab` of `of`'s `kmem_cache_cpu`.
    ReadCpuSlab {
        cache: CacheId,
        cpu: CpuId,
        of: CpuId,
        slab: Option<Pfn>,
    },
    /// `READ_ONCE(c->freelist)` of `of`'s `kmem_cache_cpu`.
    ReadCpuFreelist {
        cache: CacheId,
        cpu: CpuId,
        of: CpuId,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        freelist: u64,
    },
    /// `n->nr_partial` read without the lock ("Racy check").
    ReadNode {
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
        nr_partial: u32,
    },
    /// `next = get_freepointer_safe(s, object)`.
    GetFreepointer {
        cpu: CpuId,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        object: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        next: u64,
    },
    /// `set_freepointer(s, object, value)`.
    SetFreepointer {
        cpu: CpuId,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        object: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        value: u64,
    },
    /// `this_cpu_try_cmpxchg_freelist()` on `cpu`'s (freelist, tid): expected (`old`,
    /// `old_tid`), found (`found`, `found_tid`), stored `new` when `ok`.
    CmpxchgCpu {
        cache: CacheId,
        cpu: CpuId,
        ok: bool,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        old: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        old_tid: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        found: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        found_tid: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        new: u64,
        /// Compared without the tid (the teaching switch).
        no_tid: bool,
        /// Why it failed (`note_cmpxchg_failure()`); the path goes back to `redo`.
        reason: Option<RetryReason>,
        /// When it failed: the step (from 1) that first changed this CPU's pair after the
        /// task read its tid, from which on the cmpxchg was bound to fail.
        changed_at: Option<u32>,
    },
    /// `prior = slab->freelist; counters = slab->counters`.
    ReadSlab {
        cpu: CpuId,
        pfn: Pfn,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        freelist: u64,
        inuse: u32,
        frozen: bool,
    },
    /// `slab_update_freelist()` (or `__slab_update_freelist()`) named `site` by its caller:
    /// cmpxchg of the slab's (freelist, counters) from what was read to the new values.
    CmpxchgSlab {
        cpu: CpuId,
        pfn: Pfn,
        site: &'static str,
        ok: bool,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        old: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "string"))]
        #[serde(serialize_with = "addr")]
        new: u64,
        inuse: u32,
        frozen: bool,
        /// When it failed: the step (from 1) that first changed the slab's (freelist,
        /// counters) after the task read them.
        changed_at: Option<u32>,
    },
    SpinLock {
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
    },
    /// `cpu` spins on the lock `holder` holds.
    SpinWait {
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
        holder: CpuId,
    },
    SpinUnlock {
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
    },
    LocalLock {
        cache: CacheId,
        cpu: CpuId,
    },
    LocalUnlock {
        cache: CacheId,
        cpu: CpuId,
    },
    /// `local_trylock(&s->cpu_sheaves->lock)` (6.18+): `ok` false when code this CPU
    /// interrupted holds it (the caller takes the slab path instead).
    PcsTrylock {
        cache: CacheId,
        cpu: CpuId,
        ok: bool,
    },
    PcsUnlock {
        cache: CacheId,
        cpu: CpuId,
    },
    /// `spin_lock_irqsave(&barn->lock)` of the barn of `node`.
    BarnLock {
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
    },
    /// `cpu` spins on the barn lock `holder` holds.
    BarnWait {
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
        holder: CpuId,
    },
    BarnUnlock {
        cache: CacheId,
        node: NodeId,
        cpu: CpuId,
    },
    /// Work on what the task holds or has locked (see `Access::Work`).
    Work {
        cpu: CpuId,
    },
    /// The task was preempted on `cpu` and will resume on `to`.
    Preempted {
        cpu: CpuId,
        to: CpuId,
    },
    /// An interrupt came in on `cpu`; its handler runs the next operations of the CPU's
    /// interrupt list.
    IrqEnter {
        cpu: CpuId,
    },
    IrqExit {
        cpu: CpuId,
    },
}

impl Micro {
    /// The CPU that took the micro-step.
    pub fn cpu(&self) -> CpuId {
        match *self {
            Micro::Start { cpu }
            | Micro::ReadTid { cpu, .. }
            | Micro::ReadCpu { cpu, .. }
            | Micro::ReadCpuSlab { cpu, .. }
            | Micro::ReadCpuFreelist { cpu, .. }
            | Micro::ReadNode { cpu, .. }
            | Micro::GetFreepointer { cpu, .. }
            | Micro::SetFreepointer { cpu, .. }
            | Micro::CmpxchgCpu { cpu, .. }
            | Micro::ReadSlab { cpu, .. }
            | Micro::CmpxchgSlab { cpu, .. }
            | Micro::SpinLock { cpu, .. }
            | Micro::SpinWait { cpu, .. }
            | Micro::SpinUnlock { cpu, .. }
            | Micro::LocalLock { cpu, .. }
            | Micro::LocalUnlock { cpu, .. }
            | Micro::PcsTrylock { cpu, .. }
            | Micro::PcsUnlock { cpu, .. }
            | Micro::BarnLock { cpu, .. }
            | Micro::BarnWait { cpu, .. }
            | Micro::BarnUnlock { cpu, .. }
            | Micro::Work { cpu }
            | Micro::Preempted { cpu, .. }
            | Micro::IrqEnter { cpu }
            | Micro::IrqExit { cpu } => cpu,
        }
    }

    /// Its caption arguments (`micro.<name>` captions name them).
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per kind of micro-step, each naming the fields its caption shows"
    )]
    pub fn args(&self) -> Vec<(&'static str, Arg)> {
        let mut a: Vec<(&'static str, Arg)> = vec![("cpu", self.cpu().into())];
        match *self {
            Micro::Start { .. }
            | Micro::Work { .. }
            | Micro::IrqEnter { .. }
            | Micro::IrqExit { .. } => {}
            Micro::ReadTid { cache, of, tid, .. } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("of", of.into()));
                a.push(("tid", tid.into()));
            }
            Micro::ReadCpu {
                cache,
                of,
                freelist,
                slab,
                ..
            } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("of", of.into()));
                a.push(("freelist", Arg::Addr(freelist)));
                a.push(("slab", slab.map_or(Arg::Word("NULL"), Arg::from)));
            }
            Micro::ReadCpuSlab {
                cache, of, slab, ..
            } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("of", of.into()));
                a.push(("slab", slab.map_or(Arg::Word("NULL"), Arg::from)));
            }
            Micro::ReadCpuFreelist {
                cache,
                of,
                freelist,
                ..
            } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("of", of.into()));
                a.push(("freelist", Arg::Addr(freelist)));
            }
            Micro::ReadNode {
                cache,
                node,
                nr_partial,
                ..
            } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("node", node.into()));
                a.push(("nr_partial", nr_partial.into()));
            }
            Micro::GetFreepointer { object, next, .. } => {
                a.push(("object", Arg::Addr(object)));
                a.push(("next", Arg::Addr(next)));
            }
            Micro::SetFreepointer { object, value, .. } => {
                a.push(("object", Arg::Addr(object)));
                a.push(("value", Arg::Addr(value)));
            }
            Micro::CmpxchgCpu {
                cache,
                old,
                old_tid,
                found,
                found_tid,
                new,
                reason,
                changed_at,
                ..
            } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("old", Arg::Addr(old)));
                a.push(("old_tid", old_tid.into()));
                a.push(("found", Arg::Addr(found)));
                a.push(("found_tid", found_tid.into()));
                a.push(("new", Arg::Addr(new)));
                if let Some(r) = reason {
                    a.push(("reason", Arg::Word(r.word())));
                }
                if let Some(step) = changed_at {
                    a.push(("changed_at", step.into()));
                }
            }
            Micro::ReadSlab {
                pfn,
                freelist,
                inuse,
                frozen,
                ..
            } => {
                a.push(("pfn", pfn.into()));
                a.push(("freelist", Arg::Addr(freelist)));
                a.push(("inuse", inuse.into()));
                a.push(("frozen", u32::from(frozen).into()));
            }
            Micro::CmpxchgSlab {
                pfn,
                site,
                old,
                new,
                inuse,
                frozen,
                changed_at,
                ..
            } => {
                a.push(("pfn", pfn.into()));
                a.push(("site", Arg::Word(site)));
                if let Some(step) = changed_at {
                    a.push(("changed_at", step.into()));
                }
                a.push(("old", Arg::Addr(old)));
                a.push(("new", Arg::Addr(new)));
                a.push(("inuse", inuse.into()));
                a.push(("frozen", u32::from(frozen).into()));
            }
            Micro::SpinLock { cache, node, .. } | Micro::SpinUnlock { cache, node, .. } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("node", node.into()));
            }
            Micro::SpinWait {
                cache,
                node,
                holder,
                ..
            } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("node", node.into()));
                a.push(("holder", holder.into()));
            }
            Micro::LocalLock { cache, .. }
            | Micro::LocalUnlock { cache, .. }
            | Micro::PcsTrylock { cache, .. }
            | Micro::PcsUnlock { cache, .. } => {
                a.push(("cache", Arg::Cache(cache)));
            }
            Micro::BarnLock { cache, node, .. } | Micro::BarnUnlock { cache, node, .. } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("node", node.into()));
            }
            Micro::BarnWait {
                cache,
                node,
                holder,
                ..
            } => {
                a.push(("cache", Arg::Cache(cache)));
                a.push(("node", node.into()));
                a.push(("holder", holder.into()));
            }
            Micro::Preempted { to, .. } => a.push(("to", to.into())),
        }
        a
    }

    /// Its caption key (`micro.<name>` in the i18n tables).
    pub fn key(&self) -> &'static str {
        match self {
            Micro::Start { .. } => "micro.start",
            Micro::ReadTid { .. } => "micro.read_tid",
            Micro::ReadCpu { .. } => "micro.read_cpu",
            Micro::ReadCpuSlab { .. } => "micro.read_cpu_slab",
            Micro::ReadCpuFreelist { .. } => "micro.read_cpu_freelist",
            Micro::ReadNode { .. } => "micro.read_node",
            Micro::GetFreepointer { .. } => "micro.get_freepointer",
            Micro::SetFreepointer { .. } => "micro.set_freepointer",
            Micro::CmpxchgCpu { ok: true, .. } => "micro.cmpxchg_cpu_ok",
            Micro::CmpxchgCpu {
                ok: false,
                changed_at: Some(_),
                ..
            } => "micro.cmpxchg_cpu_failed_at",
            Micro::CmpxchgCpu { ok: false, .. } => "micro.cmpxchg_cpu_failed",
            Micro::ReadSlab { .. } => "micro.read_slab",
            Micro::CmpxchgSlab { ok: true, .. } => "micro.cmpxchg_slab_ok",
            Micro::CmpxchgSlab {
                ok: false,
                changed_at: Some(_),
                ..
            } => "micro.cmpxchg_slab_failed_at",
            Micro::CmpxchgSlab { ok: false, .. } => "micro.cmpxchg_slab_failed",
            Micro::SpinLock { .. } => "micro.spin_lock",
            Micro::SpinWait { .. } => "micro.spin_wait",
            Micro::SpinUnlock { .. } => "micro.spin_unlock",
            Micro::LocalLock { .. } => "micro.local_lock",
            Micro::LocalUnlock { .. } => "micro.local_unlock",
            Micro::PcsTrylock { ok: true, .. } => "micro.pcs_trylock_ok",
            Micro::PcsTrylock { ok: false, .. } => "micro.pcs_trylock_failed",
            Micro::PcsUnlock { .. } => "micro.pcs_unlock",
            Micro::BarnLock { .. } => "micro.barn_lock",
            Micro::BarnWait { .. } => "micro.barn_wait",
            Micro::BarnUnlock { .. } => "micro.barn_unlock",
            Micro::Work { .. } => "micro.work",
            Micro::Preempted { .. } => "micro.preempted",
            Micro::IrqEnter { .. } => "micro.irq_enter",
            Micro::IrqExit { .. } => "micro.irq_exit",
        }
    }
}

/// A run's retries by site and reason, and its `list_lock` acquisitions and waits by lock.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Stats {
    /// (site, reason) → retries.
    #[cfg_attr(feature = "ts-export", ts(type = "Array<[string, string, number]>"))]
    #[serde(serialize_with = "triples")]
    pub retries: BTreeMap<(&'static str, RetryReason), u64>,
    /// (cache, node) → (acquisitions, spins while held).
    #[cfg_attr(
        feature = "ts-export",
        ts(type = "Array<[number, number, number, number]>")
    )]
    #[serde(serialize_with = "lock_rows")]
    pub locks: BTreeMap<(CacheId, NodeId), (u64, u64)>,
}

impl Stats {
    pub fn retry(&mut self, site: &'static str, reason: RetryReason) {
        *self.retries.entry((site, reason)).or_default() += 1;
    }

    pub fn lock_taken(&mut self, cache: CacheId, node: NodeId) {
        self.locks.entry((cache, node)).or_default().0 += 1;
    }

    pub fn lock_waited(&mut self, cache: CacheId, node: NodeId) {
        self.locks.entry((cache, node)).or_default().1 += 1;
    }

    /// Adds `other`'s counts to these (the blocks of one run).
    pub fn merge(&mut self, other: &Stats) {
        for (k, n) in &other.retries {
            *self.retries.entry(*k).or_default() += n;
        }
        for (k, (t, w)) in &other.locks {
            let e = self.locks.entry(*k).or_default();
            e.0 += t;
            e.1 += w;
        }
    }

    /// Every spin on a held `list_lock`.
    pub fn total_lock_waits(&self) -> u64 {
        self.locks.values().map(|(_, w)| w).sum()
    }

    /// Every retry.
    pub fn total_retries(&self) -> u64 {
        self.retries.values().sum()
    }

    /// Every spin on a held lock.
    pub fn total_waits(&self) -> u64 {
        self.locks.values().map(|l| l.1).sum()
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Stats) {
        for (k, v) in &other.retries {
            *self.retries.entry(*k).or_default() += v;
        }
        for (k, v) in &other.locks {
            let e = self.locks.entry(*k).or_default();
            e.0 += v.0;
            e.1 += v.1;
        }
    }
}

/// An address as it crosses to JavaScript (a JSON number would lose its low bits): `0x…`.
fn addr<S: serde::Serializer>(a: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::snapshot::hex(*a))
}

fn triples<S: serde::Serializer>(
    m: &BTreeMap<(&'static str, RetryReason), u64>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(m.iter().map(|((site, reason), n)| (site, reason, n)))
}

fn lock_rows<S: serde::Serializer>(
    m: &BTreeMap<(CacheId, NodeId), (u64, u64)>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(m.iter().map(|((c, n), (t, w))| (c, n, t, w)))
}
