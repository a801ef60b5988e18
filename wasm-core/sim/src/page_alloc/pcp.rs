//! Per-CPU page lists: `rmqueue_pcplist()` with `rmqueue_bulk()`, `free_unref_page_commit()`
//! with `nr_pcp_high()`/`nr_pcp_free()`, and `free_pcppages_bulk()` (mm/page_alloc.c, v6.6;
//! spec 4.4). No zone is ever under reclaim here, so `nr_pcp_high()` never lowers `high`.

use super::buddy::{__free_one_page, __rmqueue_smallest};
use super::PCP_MAX_ORDER;
use crate::ids::{CpuId, NodeId};
use crate::machine::{Pfn, PCP_ORDERS};
use crate::trace::{End, Event, Recorder};

/// `rmqueue_pcplist()`: the first block of this CPU's list for the zone, refilling the list
/// from the buddy lists when it is empty; `then` takes the block in the same step (the
/// caller's `PagesAllocated`). `None` sends the caller to `rmqueue_buddy()`.
pub(super) fn rmqueue_pcplist<R>(
    rec: &mut Recorder,
    cpu: CpuId,
    node: NodeId,
    order: u8,
    then: impl FnOnce(&mut Recorder, Pfn) -> R,
) -> Option<R> {
    let index = rec.machine().pcp_index(cpu, node);
    let pcp = &rec.machine().pcp[index];
    let (free_factor, batch) = (pcp.free_factor, pcp.batch);
    let empty = pcp.lists[order as usize].is_empty();
    if empty {
        // rmqueue_bulk(): `n` blocks, each appended at the tail in the order expand() leaves them.
        let n = if batch > 1 {
            (batch >> order).max(2)
        } else {
            batch
        };
        let got = rec.call("rmqueue_bulk", "pcp refill", "step.rmqueue_bulk", |rec| {
            rec.arg("cpu", cpu);
            rec.arg("node", node);
            rec.arg("order", order);
            rec.arg("batch", n);
            halve_free_factor(rec, cpu, node, free_factor);
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
            halve_free_factor(rec, cpu, node, free_factor);
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
