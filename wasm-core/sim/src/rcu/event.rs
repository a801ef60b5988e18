//! RCU's events (wrapped in `Event::Rcu`). Like every event they are past-tense facts;
//! `Machine::apply_rcu` is the only code that applies them.

use super::state::RcuFunc;
use crate::ids::CpuId;
use crate::machine::Pfn;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "rcu_event")]
pub enum RcuEvent {
    /// `call_rcu()` on `cpu`: `func` joined the tail of the CPU's callback list, to run once
    /// grace period `gp` has ended. For a slab (`free_slab()` of a `SLAB_TYPESAFE_BY_RCU`
    /// cache) its pages now wait there: still a slab's pages to the page allocator, but of no
    /// cache's lists or counters.
    CallbackQueued { cpu: CpuId, gp: u32, func: RcuFunc },
    /// A grace period ended; `completed` have ended since boot.
    GracePeriodElapsed { completed: u32 },
    /// `rcu_do_batch()` on `cpu` invoked its oldest callback, `func`, which left the list. A
    /// slab's pages are ordinary pages again (`__free_slab()`: `__folio_clear_slab()`), freed
    /// next.
    CallbackInvoked { cpu: CpuId, func: RcuFunc },
    /// `add_ptr_to_bulk_krc_lock()`: a pointer page joined the head of `cpu`'s queued pages,
    /// taken from its page cache (`cached`) or just allocated.
    KrcPageAttached { cpu: CpuId, pfn: Pfn, cached: bool },
    /// `bnode->records[bnode->nr_records++] = ptr` in the newest queued page, whose `gp_snap`
    /// is now `gp`.
    KrcPointerRecorded { cpu: CpuId, addr: u64, gp: u32 },
    /// `kvfree_call_rcu()` without a page: the object was chained at `krcp->head` through its
    /// own `rcu_head` (channel 3); `head_gp_snap` is now `gp`.
    KrcObjectChained { cpu: CpuId, addr: u64, gp: u32 },
    /// `monitor_work` was armed (`schedule_delayed_monitor_work()`), or ran.
    KrcMonitorSet { cpu: CpuId, pending: bool },
    /// `kfree_rcu_monitor()` moved every queued page and chained object into `krw_arr[batch]`.
    KrcBatchDetached { cpu: CpuId, batch: u8 },
    /// `kfree_rcu_work()` took `krw_arr[batch]`'s lists into its own (`list_replace_init()`).
    KrcBatchTaken { cpu: CpuId, batch: u8 },
    /// `kvfree_rcu_drain_ready()` took the `pages` oldest queued pages (their grace period has
    /// ended) and, with `head`, the chained objects into its own lists.
    KrcReadyTaken { cpu: CpuId, pages: u32, head: bool },
    /// `kvfree_rcu_bulk()` is done with the page at `pfn`: it went back to the page cache
    /// (`put_cached_bnode()`, `cached`) or is freed next (`free_page()`).
    KrcPageReleased { cpu: CpuId, pfn: Pfn, cached: bool },
    /// `kvfree_rcu_list()` took the next chained object off its list.
    KrcObjectUnchained { cpu: CpuId, addr: u64 },
    /// `fill_page_cache_func()`: a freshly allocated empty page joined the page cache.
    KrcPageCached { cpu: CpuId, pfn: Pfn },
}
