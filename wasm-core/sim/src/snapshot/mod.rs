//! `Snapshot`: the machine at one cursor, as the views consume it.
//!
//! Role: the web app draws every structure from one snapshot alone (a view never consults the
//! step before or after). This module turns a `Machine` (and the events of the step that led to
//! it) into plain data with kernel names; it draws nothing and decides nothing about layout.
//!
//! Rules:
//! - Addresses cross as hex strings (`0xffff888000123000`): they do not fit a JavaScript number.
//! - One cache is shown in full (`SnapshotQuery::cache`, else the cache the step worked on, else
//!   the busiest); every cache is listed briefly. One slab is shown slot by slot
//!   (`SnapshotQuery::slab`, else the slab the step touched, else CPU 0's cpu slab).
//! - Lists are in kernel order, head first; chains are cut at the slab's object count so a
//!   corrupted freelist cannot make a snapshot unbounded.
//! - `transient` holds what exists only during the step that led here (the detached freelist
//!   of a bulk free, buddy pairs merged or split, locks taken): the views show it once.

mod buddy;
mod rcu;
mod slab;
mod slub;

pub(crate) use slab::{briefs as slab_briefs, cache_view as slab_cache_view};
pub(crate) use slub::{briefs as slub_briefs, cache_view as slub_cache_view};

use crate::boot::Allocator;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::kmalloc_caches::KmallocType;
use crate::machine::{Machine, Pfn};
use crate::rcu::event::RcuEvent;
use crate::rcu::state::RcuFunc;
use crate::smp::micro::Micro;
use crate::trace::{Event, Splice};
use serde::{Deserialize, Serialize};

pub use buddy::{
    block_owner_at, owner_block, BlockOwner, BlockView, BuddyView, FreeAreaView, PcpView, ZoneView,
};
pub use rcu::{KrcListsView, KrcPageView, KrcView, RcuCallbackView, RcuCpuView, RcuView};

/// What the viewer asks to see in full.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SnapshotQuery {
    /// A cache name; `None` follows the step.
    #[serde(default)]
    pub cache: Option<String>,
    /// The first pfn of a slab of that cache; `None` follows the step.
    #[serde(default)]
    pub slab: Option<Pfn>,
}

/// Who allocated or freed an object, found in the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Mark {
    /// The step (0-based) that did it.
    pub step: u32,
    /// The scenario operation (0-based) that step belongs to; `None` for boot steps.
    pub op: Option<u32>,
    pub cpu: CpuId,
}

/// Looks up the last allocation and free of an object before a cursor.
pub trait History {
    /// `(last allocation, last free after it)` of `addr` among the first `cursor` steps.
    fn marks(&self, addr: u64, cursor: usize) -> (Option<Mark>, Option<Mark>);
}

/// No history (a machine without a trace).
pub struct NoHistory;

impl History for NoHistory {
    fn marks(&self, _addr: u64, _cursor: usize) -> (Option<Mark>, Option<Mark>) {
        (None, None)
    }
}

/// The whole picture at one cursor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Snapshot {
    pub cursor: u32,
    pub allocator: Allocator,
    pub page_size: u32,
    /// Node of each CPU.
    pub cpu_node: Vec<NodeId>,
    /// Every cache, oldest first.
    pub caches: Vec<CacheBrief>,
    /// The cache shown in full.
    pub cache: Option<CacheView>,
    pub buddy: BuddyView,
    /// Grace periods, callbacks waiting to run, and each CPU's `kfree_rcu()` pointers.
    pub rcu: RcuView,
    pub transient: Transient,
}

/// One line about a cache (what `/proc/slabinfo` would say, and a little more).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct CacheBrief {
    pub id: CacheId,
    pub name: String,
    pub object_size: u32,
    pub size: u32,
    pub objs_per_slab: u32,
    pub order: u32,
    /// Objects held by callers.
    pub live_objects: u32,
    pub slabs: u32,
    /// The kmalloc type of a kmalloc cache (`None` for a cache the scenario declared).
    pub kmalloc: Option<KmallocType>,
    pub destroyed: bool,
}

/// One cache in full.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct CacheView {
    pub id: CacheId,
    pub name: String,
    pub object_size: u32,
    pub size: u32,
    pub objs_per_slab: u32,
    pub order: u32,
    /// SLUB: `s->offset`, where a free object stores its free pointer.
    pub offset: u32,
    /// SLUB `CONFIG_SLAB_FREELIST_HARDENED` (stored pointers encoded) / SLAB's double-free
    /// check on the array top.
    pub hardened: bool,
    /// SLUB: `s->random`, the hardening key.
    pub random: Option<String>,
    /// Freelist randomisation is on.
    pub randomized: bool,
    /// SLUB: `s->min_partial`, `s->cpu_partial_slabs`; SLAB: 0.
    pub min_partial: u32,
    pub cpu_partial_slabs: u32,
    /// SLUB: the version has `struct kmem_cache_cpu` (a cpu slab, `c->freelist`, the tid and,
    /// with it, the cpu partial list): every version before 7.0. SLAB: false.
    pub cpu_slab: bool,
    /// SLUB 6.18+: `s->sheaf_capacity` (0: the cache has no sheaves); before 6.18 and SLAB: 0.
    pub sheaf_capacity: u32,
    /// Sheaves of the cache on no CPU and in no barn: one an operation is refilling or
    /// flushing with the CPU's lock dropped.
    pub held_sheaves: Vec<SheafView>,
    /// 6.18+: `rcu_free` sheaves of the cache submitted with `call_rcu()`, oldest first,
    /// waiting for their grace period (objects `kfree_rcu()` freed).
    pub rcu_sheaves: Vec<SheafView>,
    pub cpus: Vec<CpuView>,
    pub nodes: Vec<NodeView>,
    /// Every slab of the cache, in pfn order.
    pub slabs: Vec<SlabBrief>,
    /// The slab shown slot by slot.
    pub slab: Option<SlabView>,
}

/// A CPU's part of the cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CpuView {
    /// `struct kmem_cache_cpu`.
    Slub {
        cpu: CpuId,
        node: NodeId,
        /// `c->freelist` followed through the stored free pointers, head first.
        freelist: Vec<String>,
        /// `c->tid`.
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        tid: u64,
        /// `c->slab`.
        slab: Option<Pfn>,
        /// `c->partial` from the top, with each slab's `slabs` count.
        partial: Vec<PartialSlab>,
        /// 6.18+, a cache with sheaves: `s->cpu_sheaves` of this CPU.
        sheaves: Option<PcsView>,
    },
    /// `cpu_cache` (`struct array_cache`).
    Slab {
        cpu: CpuId,
        node: NodeId,
        ac: ArrayView,
    },
}

/// One sheaf (`struct slab_sheaf`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SheafView {
    /// The simulator's name for it, kept while it moves between a CPU and the barn.
    pub id: u32,
    pub capacity: u32,
    /// `objects[0 .. size]`, bottom first: the last is the next one handed out.
    pub objects: Vec<String>,
}

/// A CPU's `struct slub_percpu_sheaves`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct PcsView {
    /// `pcs->main`: allocations take from its top and frees push onto it.
    pub main: Option<SheafView>,
    /// `pcs->spare`: an empty or full sheaf swapped with main before the barn is asked.
    pub spare: Option<SheafView>,
    /// `pcs->rcu_free`: objects `kfree_rcu()` gathers until a grace period.
    pub rcu_free: Option<SheafView>,
    /// Inside a `concurrent` block: a task of this CPU holds `s->cpu_sheaves->lock` (its
    /// `local_trylock()` succeeded and it has not unlocked yet).
    pub locked: bool,
}

/// A node's `struct node_barn`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct BarnView {
    /// `barn->sheaves_full`, oldest first; its length is `nr_full`.
    pub full: Vec<SheafView>,
    /// `barn->sheaves_empty`, oldest first; its length is `nr_empty`.
    pub empty: Vec<SheafView>,
    /// `MAX_FULL_SHEAVES`, `MAX_EMPTY_SHEAVES`.
    pub max_full: u32,
    pub max_empty: u32,
    /// Inside a `concurrent` block: the CPU holding `barn->lock` at this cursor.
    pub held_by: Option<CpuId>,
}

/// A slab on a per-CPU partial stack.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct PartialSlab {
    pub pfn: Pfn,
    /// `slab->slabs`: slabs from this one to the bottom of the stack.
    pub slabs: u32,
    pub inuse: u32,
    pub objects: u32,
}

/// `struct array_cache`: `entry` bottom first, the last is the hottest (next out).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct ArrayView {
    pub avail: u32,
    pub limit: u32,
    pub batchcount: u32,
    pub touched: bool,
    pub entry: Vec<String>,
}

/// An alien cache of a node: objects of node `remote` freed here.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct AlienView {
    pub remote: NodeId,
    pub ac: ArrayView,
}

/// `n->list_lock` of the shown cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct LockView {
    /// The step that led here took it.
    pub taken_now: bool,
    /// Inside a `concurrent` block: the CPU that holds it at this cursor (taken in an earlier
    /// micro-step and not yet dropped).
    pub held_by: Option<CpuId>,
    /// Acquisitions of any cache's `list_lock` on this node so far.
    #[cfg_attr(feature = "ts-export", ts(type = "number"))]
    pub taken_total: u64,
}

/// A node's part of the cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NodeView {
    /// SLUB's `struct kmem_cache_node`.
    Slub {
        node: NodeId,
        /// `n->partial`, head first; its length is `nr_partial`.
        partial: Vec<SlabBrief>,
        /// `n->full` (debug caches with `SLAB_STORE_USER` only).
        full: Vec<SlabBrief>,
        nr_partial: u32,
        min_partial: u32,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        nr_slabs: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        total_objects: u64,
        list_lock: LockView,
        /// 6.18+, a cache with sheaves: `n->barn`.
        barn: Option<BarnView>,
    },
    /// SLAB's `struct kmem_cache_node`.
    Slab {
        node: NodeId,
        slabs_partial: Vec<SlabBrief>,
        slabs_full: Vec<SlabBrief>,
        slabs_free: Vec<SlabBrief>,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        total_slabs: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        free_slabs: u64,
        #[cfg_attr(feature = "ts-export", ts(type = "number"))]
        free_objects: u64,
        free_limit: u32,
        shared: Option<ArrayView>,
        alien: Vec<AlienView>,
        list_lock: LockView,
    },
}

/// Where a slab is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SlabPlace {
    /// SLUB: some CPU's `c->slab`.
    CpuSlab {
        cpu: CpuId,
    },
    /// SLUB: on some CPU's partial stack.
    CpuPartial {
        cpu: CpuId,
    },
    /// SLUB: `n->partial`.
    NodePartial,
    /// SLUB: `n->full`.
    NodeFull,
    /// SLAB: `slabs_partial`, `slabs_full`, `slabs_free`.
    SlabsPartial,
    SlabsFull,
    SlabsFree,
    /// On no list (a full SLUB slab of a non-debug cache: nobody tracks it).
    Unlisted,
}

/// A slab's counters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SlabBrief {
    pub pfn: Pfn,
    pub node: NodeId,
    pub order: u8,
    pub objects: u32,
    /// SLUB `inuse`; SLAB `active`.
    pub inuse: u32,
    pub frozen: bool,
    pub place: SlabPlace,
}

/// One slab, slot by slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SlabView {
    pub brief: SlabBrief,
    /// Address of the slab's first byte.
    pub addr: String,
    /// SLUB `slab->freelist`; SLAB `slab->freelist` (where the index array is stored).
    pub freelist: Option<String>,
    /// SLAB: the colour offset of the first object.
    pub colour_off: u32,
    /// Free object indices in the order they will be handed out (SLUB: `slab->freelist`'s
    /// chain; SLAB: `freelist[active..]`).
    pub free_order: Vec<u32>,
    pub slots: Vec<SlotView>,
}

/// State of an object slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SlotState {
    /// A caller holds it.
    Allocated,
    /// On the slab's own free list.
    Free,
    /// SLUB: on `c->freelist` of this CPU (the slab is its cpu slab).
    CpuFreelist { cpu: CpuId },
    /// SLAB: out of the slab but parked in an array cache (free to callers, `active` to the
    /// slab).
    Cached,
    /// SLUB 6.18+: in a sheaf (free to callers, in use to the slab): on `cpu`'s main, spare
    /// or rcu_free sheaf, or (`cpu` null) in the barn or a sheaf a task holds.
    Sheaf { cpu: Option<CpuId> },
    /// SLUB 6.18+: taken off a sheaf by the operation at work, in an array of its own on the
    /// way back to its slab (`sheaf_flush_main()`, a refill's leftovers): in use to the slab.
    Stacked,
}

/// One object slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SlotView {
    pub index: u32,
    pub addr: String,
    pub state: SlotState,
    /// SLUB, free objects: the decoded free pointer's object index in this slab (`None`: NULL).
    pub next: Option<u32>,
    /// SLUB, free objects: the decoded free pointer.
    pub next_addr: Option<String>,
    /// SLUB, free objects of a hardened cache: the word as stored at `s->offset`.
    pub stored: Option<String>,
    pub allocated_by: Option<Mark>,
    pub freed_by: Option<Mark>,
}

/// What only the step that led here shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Transient {
    /// The cache the step worked on, if any.
    pub cache: Option<CacheId>,
    /// Slabs the step changed (first pfns).
    pub slabs: Vec<Pfn>,
    /// Objects the step allocated or freed.
    pub objects: Vec<String>,
    /// Objects the step handed to a caller (`ObjectAllocated`): the scenario's, or the kernel
    /// itself (SLAB's off-slab index array comes from a kmalloc cache).
    pub handed_out: Vec<HandedOut>,
    /// `list_lock`s taken: (cache, node).
    pub list_locks: Vec<(CacheId, NodeId)>,
    /// Inside a `concurrent` block, the `list_lock`s held at this cursor: (cache, node, CPU).
    pub list_lock_holders: Vec<(CacheId, NodeId, CpuId)>,
    /// Likewise `barn->lock` (cache, node, CPU) and a CPU's sheaves lock (cache, CPU).
    pub barn_holders: Vec<(CacheId, NodeId, CpuId)>,
    pub pcs_holders: Vec<(CacheId, CpuId)>,
    pub merges: Vec<BuddyPair>,
    pub splits: Vec<BuddyPair>,
    pub detached: Vec<DetachedView>,
}

/// An object a step handed to a caller.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct HandedOut {
    pub addr: String,
    pub cache: CacheId,
    /// The CPU that ran the allocation.
    pub cpu: CpuId,
}

/// Two buddies: merged into the block at `pfn` of `order + 1`, or split from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct BuddyPair {
    pub node: NodeId,
    pub pfn: Pfn,
    pub buddy: Pfn,
    pub order: u8,
}

/// A detached freelist `build_detached_freelist()` gathered during a bulk free.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct DetachedView {
    pub cache: CacheId,
    pub slab: Pfn,
    /// The CPU running the bulk free, and where the list went: onto its `c->freelist`, onto
    /// `slab->freelist`, or (a debug cache) through the node's list lock.
    pub cpu: CpuId,
    pub splice: Splice,
    /// Whether this is the step of `slab_free_freelist_hook()`, which reversed the list.
    pub reversed: bool,
    /// The objects gathered, head first: as `build_detached_freelist()` linked them, or, when
    /// `reversed`, as the hook relinked them for `do_slab_free()` (spliced onto the slab with
    /// one cmpxchg).
    pub objects: Vec<String>,
    /// Entries of the array examined.
    pub scanned: u32,
    /// Misses the lookahead budget still allowed when the scan stopped.
    pub lookahead_left: u32,
    /// The array after its swaps; entries from `done_from` on are finished.
    pub array: Vec<String>,
    pub done_from: u32,
}

/// An address as it crosses to JavaScript.
pub fn hex(addr: u64) -> String {
    format!("{addr:#x}")
}

/// An address as `hex` writes it (the `0x` is optional), back to a number.
pub fn parse_addr(text: &str) -> Option<u64> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// What the step that led to a cursor did, and what a concurrent block holds there.
#[derive(Clone, Copy)]
pub struct StepAt<'a> {
    pub events: &'a [Event],
    /// Its micro-steps, when it kept them (every step of a `concurrent` block does).
    pub micro: &'a [Micro],
    /// The locks held at the cursor.
    pub holders: &'a LockHolders,
}

static NO_HOLDERS: LockHolders = LockHolders {
    list_lock: Vec::new(),
    barn: Vec::new(),
    pcs: Vec::new(),
};

impl Default for StepAt<'_> {
    fn default() -> Self {
        StepAt {
            events: &[],
            micro: &[],
            holders: &NO_HOLDERS,
        }
    }
}

/// Inside a `concurrent` block, the locks held at a cursor: taken in an earlier micro-step and
/// not yet dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LockHolders {
    /// `n->list_lock`: (cache, node, CPU).
    pub list_lock: Vec<(CacheId, NodeId, CpuId)>,
    /// `barn->lock`: (cache, node, CPU).
    pub barn: Vec<(CacheId, NodeId, CpuId)>,
    /// `s->cpu_sheaves->lock`: (cache, CPU).
    pub pcs: Vec<(CacheId, CpuId)>,
}

/// The snapshot of `m` at `cursor`, `step` being what the step that led there did (nothing at
/// cursor 0).
pub fn snapshot(
    m: &Machine,
    cursor: usize,
    step: StepAt<'_>,
    query: &SnapshotQuery,
    history: &dyn History,
) -> Snapshot {
    let mut transient = transient(m, step.events);
    micro_transient(m, step.micro, &mut transient);
    transient.list_lock_holders = step.holders.list_lock.clone();
    transient.barn_holders = step.holders.barn.clone();
    transient.pcs_holders = step.holders.pcs.clone();
    let ops = crate::allocator::ops(m);
    let caches = ops.briefs(m);
    let chosen = query
        .cache
        .as_deref()
        .and_then(|name| caches.iter().find(|c| c.name == name))
        .or_else(|| {
            let id = transient.cache?;
            caches.iter().find(|c| c.id == id)
        })
        .or_else(|| {
            caches
                .iter()
                .filter(|c| !c.destroyed)
                .max_by_key(|c| (c.slabs, std::cmp::Reverse(c.id)))
        })
        .map(|c| c.id);
    let wanted_slab = query.slab.or_else(|| transient.slabs.first().copied());
    let cache = chosen.map(|id| {
        let view = View {
            m,
            cursor,
            transient: &transient,
            history,
        };
        ops.cache_view(&view, id, wanted_slab)
    });
    Snapshot {
        cursor: cursor as u32,
        allocator: m.allocator(),
        page_size: m.page.page_size,
        cpu_node: m.cpu_node.raw.clone(),
        caches,
        cache,
        buddy: buddy::buddy_view(m),
        rcu: rcu::rcu_view(m),
        transient,
    }
}

/// What the per-allocator builders need.
/// What a cache view is drawn from: the machine at the cursor and the step's transient facts.
pub struct View<'a> {
    m: &'a Machine,
    cursor: usize,
    transient: &'a Transient,
    history: &'a dyn History,
}

impl View<'_> {
    fn lock(&self, cache: CacheId, node: NodeId) -> LockView {
        LockView {
            taken_now: self.transient.list_locks.contains(&(cache, node)),
            held_by: self
                .transient
                .list_lock_holders
                .iter()
                .find(|(c, n, _)| *c == cache && *n == node)
                .map(|h| h.2),
            taken_total: self.m.list_lock_taken.get(node).copied().unwrap_or(0),
        }
    }
}

/// What a step's micro-steps touched without changing it (a read of a CPU's words or of a
/// slab, a free pointer read): the cache and the slab the views then show.
fn micro_transient(m: &Machine, micro: &[Micro], t: &mut Transient) {
    for mi in micro {
        let (cache, pfn) = match *mi {
            Micro::ReadTid { cache, .. }
            | Micro::ReadCpu { cache, .. }
            | Micro::ReadCpuSlab { cache, .. }
            | Micro::ReadCpuFreelist { cache, .. }
            | Micro::ReadNode { cache, .. }
            | Micro::CmpxchgCpu { cache, .. }
            | Micro::SpinLock { cache, .. }
            | Micro::SpinWait { cache, .. }
            | Micro::SpinUnlock { cache, .. }
            | Micro::LocalLock { cache, .. }
            | Micro::LocalUnlock { cache, .. } => (Some(cache), None),
            Micro::ReadSlab { pfn, .. } | Micro::CmpxchgSlab { pfn, .. } => (None, Some(pfn)),
            Micro::GetFreepointer { object, .. } | Micro::SetFreepointer { object, .. } => {
                (None, crate::slub::place_of(m, object).map(|p| p.pfn))
            }
            _ => (None, None),
        };
        if let Some(pfn) = pfn {
            if !t.slabs.contains(&pfn) {
                t.slabs.push(pfn);
            }
        }
        let cache = cache.or_else(|| pfn.and_then(|p| m.slub().slabs.get(&p).map(|s| s.cache)));
        if let Some(cache) = cache {
            t.cache.get_or_insert(cache);
        }
    }
}

#[allow(
    clippy::too_many_lines,
    reason = "one arm per event kind that shows something only at its own step (a slab changed, an object, a lock, a merge or split, a detached freelist)"
)]
fn transient(m: &Machine, events: &[Event]) -> Transient {
    use crate::slab::event::SlabEvent;
    let mut t = Transient::default();
    let slab = |t: &mut Transient, pfn: Pfn| {
        if !t.slabs.contains(&pfn) {
            t.slabs.push(pfn);
        }
    };
    for event in events {
        match event {
            Event::ObjectAllocated {
                cache,
                cpu,
                addr,
                pfn,
                ..
            } => {
                t.cache.get_or_insert(*cache);
                slab(&mut t, *pfn);
                t.objects.push(hex(*addr));
                t.handed_out.push(HandedOut {
                    addr: hex(*addr),
                    cache: *cache,
                    cpu: *cpu,
                });
            }
            Event::ObjectFreed {
                cache, addr, pfn, ..
            } => {
                t.cache.get_or_insert(*cache);
                slab(&mut t, *pfn);
                t.objects.push(hex(*addr));
            }
            Event::SlabCreated { cache, pfn, .. }
            | Event::NodePartialAdded { cache, pfn, .. }
            | Event::NodePartialRemoved { cache, pfn, .. }
            | Event::NodeFullAdded { cache, pfn, .. }
            | Event::NodeFullRemoved { cache, pfn, .. } => {
                t.cache.get_or_insert(*cache);
                slab(&mut t, *pfn);
            }
            Event::SlabStateSet { pfn, .. }
            | Event::SlabPartialLinked { pfn, .. }
            | Event::SlabHeld { pfn, .. } => slab(&mut t, *pfn),
            Event::CpuFreelistSet { cache, .. }
            | Event::CpuSlabSet { cache, .. }
            | Event::CpuPartialSet { cache, .. } => {
                t.cache.get_or_insert(*cache);
            }
            Event::ListLockTaken { cache, node } => {
                t.cache.get_or_insert(*cache);
                if !t.list_locks.contains(&(*cache, *node)) {
                    t.list_locks.push((*cache, *node));
                }
            }
            Event::BuddiesMerged {
                node,
                pfn,
                buddy,
                order,
            } => t.merges.push(BuddyPair {
                node: *node,
                pfn: *pfn,
                buddy: *buddy,
                order: *order,
            }),
            Event::BlockSplit {
                node,
                pfn,
                upper,
                order,
            } => t.splits.push(BuddyPair {
                node: *node,
                pfn: *pfn,
                buddy: *upper,
                order: *order,
            }),
            Event::DetachedFreelistBuilt(d) | Event::DetachedFreelistReversed(d) => {
                t.cache.get_or_insert(d.cache);
                slab(&mut t, d.slab);
                t.detached.push(DetachedView {
                    reversed: matches!(event, Event::DetachedFreelistReversed(_)),
                    cache: d.cache,
                    slab: d.slab,
                    cpu: d.cpu,
                    splice: d.splice,
                    objects: d.objects.iter().map(|&a| hex(a)).collect(),
                    scanned: d.scanned,
                    lookahead_left: d.lookahead_left,
                    array: d.array.iter().map(|&a| hex(a)).collect(),
                    done_from: d.done_from,
                });
            }
            Event::Rcu(RcuEvent::CallbackQueued {
                func: RcuFunc::FreeSlab { cache, .. },
                ..
            })
            | Event::Rcu(RcuEvent::CallbackInvoked {
                func: RcuFunc::FreeSlab { cache, .. },
                ..
            }) => {
                t.cache.get_or_insert(*cache);
            }
            Event::Slab(e) => match e {
                SlabEvent::ObjectAllocated {
                    cache,
                    cpu,
                    pfn,
                    index,
                } => {
                    t.cache.get_or_insert(*cache);
                    slab(&mut t, *pfn);
                    if let Some(addr) = slab::object_addr(m, *pfn, *index) {
                        t.objects.push(hex(addr));
                        t.handed_out.push(HandedOut {
                            addr: hex(addr),
                            cache: *cache,
                            cpu: *cpu,
                        });
                    }
                }
                SlabEvent::ObjectFreed {
                    cache, pfn, index, ..
                } => {
                    t.cache.get_or_insert(*cache);
                    slab(&mut t, *pfn);
                    if let Some(addr) = slab::object_addr(m, *pfn, *index) {
                        t.objects.push(hex(addr));
                    }
                }
                SlabEvent::AcPushed { cache, .. }
                | SlabEvent::AcPopped { cache, .. }
                | SlabEvent::AcMoved { cache, .. }
                | SlabEvent::AcDropped { cache, .. }
                | SlabEvent::AlienLockTaken { cache, .. } => {
                    t.cache.get_or_insert(*cache);
                }
                SlabEvent::SlabListed { cache, pfn, .. }
                | SlabEvent::SlabUnlisted { cache, pfn } => {
                    t.cache.get_or_insert(*cache);
                    slab(&mut t, *pfn);
                }
                SlabEvent::ObjGot { pfn } | SlabEvent::ObjPut { pfn, .. } => slab(&mut t, *pfn),
                _ => {}
            },
            _ => {}
        }
    }
    t
}
