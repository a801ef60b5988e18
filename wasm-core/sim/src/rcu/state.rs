//! RCU's state as the slab allocators meet it (kernel/rcu/tree.c, v6.6): a count of grace
//! periods, each CPU's list of `call_rcu()` callbacks, and each CPU's `struct kfree_rcu_cpu`
//! (`krc`), where `kfree_rcu()` batches pointers.
//!
//! Grace periods are numbered from 1. Something that waits for "the next grace period" stores
//! the number `completed + 1` at the time it starts waiting (the kernel's cookie from
//! `get_state_synchronize_rcu()`); it may go on once `completed` has reached that number
//! (`poll_state_synchronize_rcu()`).

use crate::ids::{CacheId, CpuId, NodeId, SheafId, TiVec};
use crate::machine::Pfn;
use serde::Serialize;

/// `KFREE_N_BATCHES`: batches (`krw_arr[]`) a CPU may have waiting for a grace period at once.
pub const KFREE_N_BATCHES: usize = 2;
/// `rcu_min_cached_objs`: empty pointer pages a CPU keeps for reuse (the module parameter's
/// default).
pub const RCU_MIN_CACHED_OBJS: usize = 5;
/// `sizeof(struct kvfree_rcu_bulk_data)` before its `records[]` on 64-bit: a `list_head`, a
/// `struct rcu_gp_oldstate` (two words) and `nr_records`.
const BULK_DATA_HEADER: u32 = 16 + 16 + 8;

/// `KVFREE_BULK_MAX_ENTR`: pointers one page of `kvfree_rcu_bulk_data` holds (507 with 4 KiB
/// pages).
pub fn kvfree_bulk_max_entr(page_size: u32) -> u32 {
    (page_size - BULK_DATA_HEADER) / 8
}

/// What a callback does when it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "func", rename_all = "snake_case")]
pub enum RcuFunc {
    /// SLUB's `rcu_free_slab()` / SLAB's `kmem_rcu_free()`: the pages of a slab of a
    /// `SLAB_TYPESAFE_BY_RCU` cache go back to the page allocator.
    FreeSlab { cache: CacheId, pfn: Pfn, order: u8 },
    /// `rcu_work_rcufn()` of `krw_arr[batch]` of the CPU's `krc` (`queue_rcu_work()`): it
    /// queues `kfree_rcu_work()`, which frees the batch.
    KfreeRcuWork { batch: u8 },
    /// 6.18+: `rcu_free_sheaf()` of a cache's `rcu_free` sheaf, submitted full by
    /// `__kfree_rcu_sheaf()` (afterwards it goes to the barn of `node`, or is flushed), or with
    /// `barn: false` `rcu_free_sheaf_nobarn()` of one a flush submitted (flushed to the slabs
    /// and freed).
    RcuFreeSheaf {
        cache: CacheId,
        sheaf: SheafId,
        node: NodeId,
        barn: bool,
    },
}

/// One `call_rcu()` callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RcuCallback {
    /// The grace period it waits for.
    pub gp: u32,
    pub func: RcuFunc,
}

/// One page of `struct kvfree_rcu_bulk_data`: pointers waiting for a grace period.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BulkData {
    /// The page it lives in.
    pub pfn: Pfn,
    /// `gp_snap`: the grace period its newest pointer waits for.
    pub gp: u32,
    /// `records[0..nr_records]`, oldest first.
    pub records: Vec<u64>,
}

/// Pages of pointers and chained objects, the lists every stage of `kfree_rcu()` holds: the
/// `krc` itself (`bulk_head[0]`, `head`), a batch (`bulk_head_free[0]`, `head_free`), and the
/// lists `kfree_rcu_work()` and `kvfree_rcu_drain_ready()` take them into while freeing.
/// Channel 2 (vmalloc pointers) is not modelled: the simulator has no vmalloc.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KrcLists {
    /// Pages of pointers, newest first (`list_add()` puts a new page at the head).
    pub bulk: Vec<BulkData>,
    /// Objects chained through their own `rcu_head` (channel 3), newest first.
    pub head: Vec<u64>,
    /// The grace period the newest chained object waits for (`head_gp_snap`).
    pub head_gp: u32,
}

impl KrcLists {
    pub fn is_empty(&self) -> bool {
        self.bulk.is_empty() && self.head.is_empty()
    }

    /// Pointers held, in pages and chained.
    pub fn objects(&self) -> usize {
        self.bulk.iter().map(|b| b.records.len()).sum::<usize>() + self.head.len()
    }

    /// Every pointer held.
    pub fn iter_objects(&self) -> impl Iterator<Item = u64> + '_ {
        self.bulk
            .iter()
            .flat_map(|b| b.records.iter().copied())
            .chain(self.head.iter().copied())
    }
}

/// `struct kfree_rcu_cpu` of one CPU.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KfreeRcuCpu {
    /// What `kvfree_call_rcu()` queued and no monitor has handed to RCU yet.
    pub queued: KrcLists,
    /// `krw_arr[]`: batches handed to RCU by `kfree_rcu_monitor()` (`queue_rcu_work()`), each
    /// waiting for its callback.
    pub krw_arr: [KrcLists; KFREE_N_BATCHES],
    /// The lists `kfree_rcu_work()` or `kvfree_rcu_drain_ready()` is freeing; empty between
    /// operations.
    pub work: KrcLists,
    /// `bkvcache`: empty pointer pages kept for reuse, the next one taken first.
    pub bkvcache: Vec<Pfn>,
    /// `monitor_work` is pending: `kvfree_call_rcu()` armed it; a `kfree_rcu_monitor`
    /// operation runs it.
    pub monitor_pending: bool,
}

impl KfreeRcuCpu {
    /// Every pointer page this CPU holds, wherever it is.
    pub fn pages(&self) -> impl Iterator<Item = Pfn> + '_ {
        self.lists()
            .flat_map(|l| l.bulk.iter().map(|b| b.pfn))
            .chain(self.bkvcache.iter().copied())
    }

    /// The queued lists, the batches and the work lists.
    pub fn lists(&self) -> impl Iterator<Item = &KrcLists> {
        std::iter::once(&self.queued)
            .chain(self.krw_arr.iter())
            .chain(std::iter::once(&self.work))
    }

    /// The pointers waiting to be freed: queued and in the batches (not those the work lists
    /// are freeing, which are empty between operations).
    pub fn waiting_objects(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::once(&self.queued)
            .chain(self.krw_arr.iter())
            .flat_map(KrcLists::iter_objects)
    }

    /// How many pointers wait to be freed (`waiting_objects()`).
    pub fn waiting(&self) -> usize {
        self.queued.objects() + self.krw_arr.iter().map(KrcLists::objects).sum::<usize>()
    }
}

/// Everything RCU keeps that the simulator models.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RcuState {
    /// Grace periods completed since boot.
    pub completed: u32,
    /// Per CPU: callbacks `call_rcu()` queued there and not yet invoked, oldest first (the
    /// kernel's segmented `rdp->cblist`, which is first in, first out).
    pub cblist: TiVec<CpuId, Vec<RcuCallback>>,
    /// Per CPU: `krc`.
    pub krc: TiVec<CpuId, KfreeRcuCpu>,
}

impl RcuState {
    /// The state at boot on `cpus` CPUs: nothing queued.
    pub fn new(cpus: u32) -> Self {
        RcuState {
            completed: 0,
            cblist: vec![Vec::new(); cpus as usize].into(),
            krc: vec![KfreeRcuCpu::default(); cpus as usize].into(),
        }
    }

    /// The grace period something that starts waiting now waits for.
    pub fn next_gp(&self) -> u32 {
        self.completed + 1
    }

    /// Whether grace period `gp` has ended (`poll_state_synchronize_rcu()`).
    pub fn elapsed(&self, gp: u32) -> bool {
        self.completed >= gp
    }

    /// Callbacks queued on every CPU.
    pub fn pending(&self) -> usize {
        self.cblist.iter().map(Vec::len).sum()
    }

    /// Heap bytes held (for the trace's memory account).
    pub fn heap_bytes(&self) -> usize {
        let lists = |l: &KrcLists| {
            l.bulk.capacity() * std::mem::size_of::<BulkData>()
                + l.bulk
                    .iter()
                    .map(|b| b.records.capacity() * 8)
                    .sum::<usize>()
                + l.head.capacity() * 8
        };
        self.cblist
            .iter()
            .map(|c| c.capacity() * std::mem::size_of::<RcuCallback>())
            .sum::<usize>()
            + self
                .krc
                .iter()
                .map(|k| k.lists().map(lists).sum::<usize>() + k.bkvcache.capacity() * 4)
                .sum::<usize>()
            + self.krc.capacity() * std::mem::size_of::<KfreeRcuCpu>()
    }
}
