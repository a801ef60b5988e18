//! Per-CPU page lists: `rmqueue_pcplist()` with `rmqueue_bulk()`, `free_unref_page_commit()`
//! with `nr_pcp_high()`/`nr_pcp_free()`, and `free_pcppages_bulk()` (mm/page_alloc.c, v6.6;
//! spec 4.4). No zone is ever under reclaim here, so `nr_pcp_high()` never lowers `high`.
//!
//! 6.7+ (`pcp_auto_tuning()`, spec after 6.6, section 5): `high` moves between `high_min` and
//! `high_max`, refills fetch `batch << alloc_factor` pages (doubling while allocations run
//! without frees) and frees past `high` return as many pages as were freed in a row
//! (`free_count`). Not modelled: `ZONE_BELOW_HIGH` and reclaim (no watermark is ever crossed
//! here), the vmstat tick's `decay_pcp_high()` (no time passes), and `PCPF_FREE_HIGH_BATCH`,
//! which depends on the CPU's cache size (taken as small: the flag is off).

use super::buddy::{__free_one_page, __rmqueue_smallest};
use super::PCP_MAX_ORDER;
use crate::ids::{CpuId, NodeId};
use crate::machine::{Pfn, PCP_ORDERS};
use crate::trace::{End, Event, Recorder};

/// `rmqueue_pcplist()` → `__rmqueue_pcplist()`: the first block of this CPU's list for the
/// zone, refilling the list from the buddy lists when it is empty; `then` takes the block in
/// the same step (the caller's `PagesAllocated`). `None` sends the caller to
/// `rmqueue_buddy()`. The versions differ only in how many blocks a refill asks for and in what
/// an allocation does to the list's tunables (`Damping`).
pub(super) fn rmqueue_pcplist<R>(
    rec: &mut Recorder,
    cpu: CpuId,
    node: NodeId,
    order: u8,
    then: impl FnOnce(&mut Recorder, Pfn) -> R,
) -> Option<R> {
    let index = rec.machine().pcp_index(cpu, node);
    let pcp = &rec.machine().pcp[index];
    let empty = pcp.lists[order as usize].is_empty();
    let (n, damping) = if rec.machine().profile.slub.pcp_auto_tuning() {
        // 6.7+: on allocation, fewer pages are batch freed (`free_count >>= 1`), and a refill
        // asks for nr_pcp_alloc() blocks.
        let mut t = Tuning::of(rec, cpu, node);
        t.free_count >>= 1;
        let n = if empty {
            nr_pcp_alloc(&mut t, pcp, order)
        } else {
            0
        };
        (n, Damping::Tuned(t))
    } else {
        // 6.6: `batch` pages' worth of blocks, at least two.
        let n = if pcp.batch > 1 {
            (pcp.batch >> order).max(2)
        } else {
            pcp.batch
        };
        (n, Damping::FreeFactor(pcp.free_factor))
    };
    if empty {
        // rmqueue_bulk(): `n` blocks, each appended at the tail in the order expand() leaves them.
        let got = rec.call("rmqueue_bulk", "pcp refill", "step.rmqueue_bulk", |rec| {
            rec.arg("cpu", cpu);
            rec.arg("node", node);
            rec.arg("order", order);
            rec.arg("batch", n);
            damping.apply(rec, cpu, node);
            let mut got = 0u32;
            for _ in 0..n {
                let Some(pfn) = __rmqueue_smallest(rec, node, order) else {
                    break;
                };
                rec.emit(Event::PcpBlockAdded {
                    cpu,
                    node,
                    pfn,
                    order,
                    end: End::Tail,
                });
                got += 1;
            }
            rec.arg("got", got);
            got
        });
        if got == 0 {
            return None;
        }
    }
    let path = if empty { "pcp refilled" } else { "pcp hit" };
    let taken = rec.call("__rmqueue_pcplist", path, "step.pcp_take", |rec| {
        if !empty {
            damping.apply(rec, cpu, node);
        }
        rec.arg("cpu", cpu);
        rec.arg("node", node);
        rec.arg("order", order);
        let pfn = rec.machine().pcp[index].lists[order as usize].first;
        rec.emit(Event::PcpBlockRemoved {
            cpu,
            node,
            pfn,
            order,
        });
        then(rec, pfn)
    });
    Some(taken)
}

/// What an allocation from a CPU's list does to its tunables.
#[derive(Clone, Copy)]
enum Damping {
    /// 6.6: `pcp->free_factor >>= 1`; the factor before it.
    FreeFactor(u32),
    /// 6.7+: the tunables after `free_count >>= 1` and, for a refill, `nr_pcp_alloc()`.
    Tuned(Tuning),
}

impl Damping {
    fn apply(self, rec: &mut Recorder, cpu: CpuId, node: NodeId) {
        match self {
            Damping::FreeFactor(free_factor) => halve_free_factor(rec, cpu, node, free_factor),
            Damping::Tuned(t) => t.set(rec, cpu, node),
        }
    }
}

/// A CPU's list's tunables (6.7+), as `PcpTuned` sets them.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Tuning {
    high: u32,
    alloc_factor: u32,
    free_count: u32,
    prev_free_high_order: bool,
}

impl Tuning {
    fn of(rec: &Recorder, cpu: CpuId, node: NodeId) -> Tuning {
        let m = rec.machine();
        let p = &m.pcp[m.pcp_index(cpu, node)];
        Tuning {
            high: p.high,
            alloc_factor: p.alloc_factor,
            free_count: p.free_count,
            prev_free_high_order: p.prev_free_high_order,
        }
    }

    /// Records `self` when it differs from what the list has.
    fn set(self, rec: &mut Recorder, cpu: CpuId, node: NodeId) {
        if Tuning::of(rec, cpu, node) != self {
            rec.emit(Event::PcpTuned {
                cpu,
                node,
                high: self.high,
                alloc_factor: self.alloc_factor,
                free_count: self.free_count,
                prev_free_high_order: self.prev_free_high_order,
            });
        }
    }
}

/// The kernel's `clamp()`: `min(max(v, lo), hi)`, so the upper bound wins when the bounds
/// cross (a small zone's low watermark split over its CPUs can exceed an eighth of it).
fn kclamp(v: u32, lo: u32, hi: u32) -> u32 {
    v.max(lo).min(hi)
}

/// `PCP_BATCH_SCALE_MAX` (`CONFIG_PCP_BATCH_SCALE_MAX`, default 5).
const PCP_BATCH_SCALE_MAX: u32 = 5;

/// `nr_pcp_alloc()` (mm/page_alloc.c, v6.12.117): how many blocks of `order` a refill asks
/// for; it raises `high` by the request (up to `high_max`) and doubles the next order-0 refill
/// while there is room below `high`.
fn nr_pcp_alloc(t: &mut Tuning, p: &crate::machine::PerCpuPages, order: u8) -> u32 {
    let base = p.batch;
    let mut high = kclamp(t.high, p.high_min, p.high_max);
    t.high = high;
    if high < base {
        return 1;
    }
    let mut batch = if order > 0 {
        base
    } else {
        base << t.alloc_factor
    };
    if p.high_min != p.high_max {
        high = (high + batch).min(p.high_max);
        t.high = high;
    }
    if order == 0 {
        let max_nr_alloc =
            (i64::from(high) - i64::from(p.count) - i64::from(base)).max(i64::from(base));
        if i64::from(batch) <= max_nr_alloc && t.alloc_factor < PCP_BATCH_SCALE_MAX {
            t.alloc_factor += 1;
        }
        batch = (i64::from(batch).min(max_nr_alloc)) as u32;
    }
    if batch > 1 {
        batch = (batch >> order).max(2);
    }
    batch
}

/// `free_unref_page_commit()` of 6.7+ (mm/page_alloc.c, v6.12.117; the `free_high` test of
/// v6.15+ for 6.18 and 7.2): the block goes to the head of the list; `alloc_factor` halves,
/// `free_count` grows; past `nr_pcp_high()`, `nr_pcp_free()` pages go back to the buddy
/// lists.
fn free_unref_page_tuned(rec: &mut Recorder, cpu: CpuId, node: NodeId, pfn: Pfn, order: u8) {
    let half_min = rec.machine().profile.slub.pcp_free_high_half_min();
    let (count, high, batch, free_high, free_count) = rec.call(
        "free_unref_page_commit",
        "to pcp",
        "step.free_to_pcp",
        |rec| {
            rec.arg("cpu", cpu);
            rec.arg("pfn", pfn);
            rec.arg("order", order);
            rec.emit(Event::PagesReleased { pfn, order });
            rec.emit(Event::PcpBlockAdded {
                cpu,
                node,
                pfn,
                order,
                end: End::Head,
            });
            let index = rec.machine().pcp_index(cpu, node);
            let p = rec.machine().pcp[index].clone();
            let mut t = Tuning::of(rec, cpu, node);
            t.alloc_factor >>= 1;
            let batch = p.batch;
            let mut free_high = false;
            if order > 0 && order <= PCP_MAX_ORDER {
                let enough = if half_min {
                    t.free_count >= batch + p.high_min / 2
                } else {
                    t.free_count >= batch
                };
                // PCPF_FREE_HIGH_BATCH is off (see the module's header).
                free_high = enough && t.prev_free_high_order;
                t.prev_free_high_order = true;
            } else {
                t.prev_free_high_order = false;
            }
            if t.free_count < batch << PCP_BATCH_SCALE_MAX {
                t.free_count += 1 << order;
            }
            // nr_pcp_high()
            let clamped = kclamp(t.high, p.high_min, p.high_max);
            t.high = clamped;
            let high = if clamped == 0 {
                0
            } else if free_high {
                t.high = clamped
                    .saturating_sub(batch << PCP_BATCH_SCALE_MAX)
                    .max(p.high_min);
                0
            } else {
                if p.high_min != p.high_max && p.count >= clamped {
                    let need = t.free_count + batch;
                    if t.high < need {
                        t.high = kclamp(need, p.high_min, p.high_max);
                    }
                }
                clamped
            };
            t.set(rec, cpu, node);
            rec.arg("count", p.count);
            (p.count, high, batch, free_high, t.free_count)
        },
    );
    if count < high {
        return;
    }
    // nr_pcp_free()
    let to_free: i64 = if free_high {
        i64::from(count.min(batch << PCP_BATCH_SCALE_MAX))
    } else if high < batch {
        1
    } else {
        // clamp_t(): the upper bound wins when the bounds cross.
        i64::from(free_count)
            .max(i64::from(batch))
            .min(i64::from(high - batch))
    };
    free_pcppages_bulk(
        rec,
        cpu,
        node,
        to_free,
        order as usize,
        "free_unref_page_commit",
    );
}

/// Allocations damp the free batching: `pcp->free_factor >>= 1`.
fn halve_free_factor(rec: &mut Recorder, cpu: CpuId, node: NodeId, free_factor: u32) {
    if free_factor != 0 {
        rec.emit(Event::PcpFreeFactorSet {
            cpu,
            node,
            free_factor: free_factor >> 1,
        });
    }
}

/// `free_unref_page()` → `free_unref_page_commit()`: the block goes to the head of this CPU's
/// list; past `high`, a batch goes back to the buddy lists.
pub(super) fn free_unref_page(rec: &mut Recorder, cpu: CpuId, node: NodeId, pfn: Pfn, order: u8) {
    if rec.machine().profile.slub.pcp_auto_tuning() {
        free_unref_page_tuned(rec, cpu, node, pfn, order);
        return;
    }
    let (count, batch, pcp_high, free_factor) = rec.call(
        "free_unref_page_commit",
        "to pcp",
        "step.free_to_pcp",
        |rec| {
            rec.arg("cpu", cpu);
            rec.arg("pfn", pfn);
            rec.arg("order", order);
            rec.emit(Event::PagesReleased { pfn, order });
            rec.emit(Event::PcpBlockAdded {
                cpu,
                node,
                pfn,
                order,
                end: End::Head,
            });
            let index = rec.machine().pcp_index(cpu, node);
            let pcp = &rec.machine().pcp[index];
            let fields = (pcp.count, pcp.batch, pcp.high, pcp.free_factor);
            rec.arg("count", fields.0);
            fields
        },
    );

    // nr_pcp_high(): high-order frees while freeing without allocations flush everything.
    let free_high = free_factor != 0 && order > 0 && order <= PCP_MAX_ORDER;
    let high = if pcp_high == 0 || free_high {
        0
    } else {
        pcp_high
    };
    if count < high {
        return;
    }
    // nr_pcp_free()
    let to_free: i64 = if free_high {
        i64::from(count)
    } else if high < batch {
        1
    } else {
        let (min_nr_free, max_nr_free) = (i64::from(batch), i64::from(high - batch));
        let scaled = i64::from(batch) << free_factor.min(32);
        if scaled < max_nr_free {
            rec.call(
                "nr_pcp_free",
                "free_factor++",
                "step.free_factor_up",
                |rec| {
                    rec.arg("cpu", cpu);
                    rec.emit(Event::PcpFreeFactorSet {
                        cpu,
                        node,
                        free_factor: free_factor + 1,
                    });
                },
            );
        }
        // clamp(): the upper bound wins when the bounds cross, as the kernel macro does.
        scaled.max(min_nr_free).min(max_nr_free)
    };
    free_pcppages_bulk(
        rec,
        cpu,
        node,
        to_free,
        order as usize,
        "free_unref_page_commit",
    );
}

/// `free_pcppages_bulk()`: returns up to `count` pages, starting with list `pindex` and going
/// round-robin over the non-empty lists, each from its tail (the coldest entries).
pub(super) fn free_pcppages_bulk(
    rec: &mut Recorder,
    cpu: CpuId,
    node: NodeId,
    count: i64,
    pindex: usize,
    caller: &'static str,
) {
    let index = rec.machine().pcp_index(cpu, node);
    let mut count = count.min(i64::from(rec.machine().pcp[index].count));
    let mut pindex = (pindex + PCP_ORDERS - 1) % PCP_ORDERS;
    while count > 0 {
        loop {
            pindex = (pindex + 1) % PCP_ORDERS;
            if !rec.machine().pcp[index].lists[pindex].is_empty() {
                break;
            }
        }
        let order = pindex as u8;
        loop {
            let pfn = rec.machine().pcp[index].lists[pindex].last;
            rec.call("free_pcppages_bulk", caller, "step.pcp_to_buddy", |rec| {
                rec.arg("cpu", cpu);
                rec.arg("pfn", pfn);
                rec.arg("order", order);
                rec.emit(Event::PcpBlockRemoved {
                    cpu,
                    node,
                    pfn,
                    order,
                });
                __free_one_page(rec, pfn, order, false);
            });
            count -= 1 << order;
            if count <= 0 || rec.machine().pcp[index].lists[pindex].is_empty() {
                break;
            }
        }
    }
}
