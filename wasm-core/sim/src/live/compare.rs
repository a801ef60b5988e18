//! Comparing a live run's final state with its replay's: the first difference, said for a
//! person with both values.

use crate::machine::Machine;
use std::fmt::Debug;

fn differ<T: PartialEq + Debug>(what: &str, live: &T, replay: &T) -> Option<String> {
    (live != replay).then(|| format!("{what}: live {live:?}, replay {replay:?}"))
}

/// The first part of the two machines that differs (`None`: they are equal).
pub fn first_difference(live: &Machine, replay: &Machine) -> Option<String> {
    if live == replay {
        return None;
    }
    let (l, r) = (live.slub(), replay.slub());
    for (lc, rc) in l.caches.iter().zip(r.caches.iter()) {
        for (cpu, (a, b)) in lc.cpu.iter().zip(rc.cpu.iter()).enumerate() {
            if let Some(d) = differ(&format!("{} cpu{cpu} kmem_cache_cpu", lc.name), a, b) {
                return Some(d);
            }
        }
        for (node, (a, b)) in lc.node.iter().zip(rc.node.iter()).enumerate() {
            if let Some(d) = differ(&format!("{} node{node} kmem_cache_node", lc.name), a, b) {
                return Some(d);
            }
        }
    }
    for (pfn, a) in l.slabs.iter() {
        match r.slabs.get(&pfn) {
            None => return Some(format!("slab at pfn {pfn}: live has one, the replay none")),
            Some(b) => {
                if let Some(d) = differ(&format!("slab at pfn {pfn}"), &a.fields(), &b.fields())
                    .or_else(|| {
                        differ(
                            &format!("slab at pfn {pfn}: allocated"),
                            &a.allocated,
                            &b.allocated,
                        )
                    })
                    .or_else(|| {
                        differ(
                            &format!("slab at pfn {pfn}: free pointers"),
                            &a.words,
                            &b.words,
                        )
                    })
                {
                    return Some(d);
                }
            }
        }
    }
    for (pfn, _) in r.slabs.iter() {
        if l.slabs.get(&pfn).is_none() {
            return Some(format!("slab at pfn {pfn}: the replay has one, live none"));
        }
    }
    differ("live objects", &live.live_objects, &replay.live_objects)
        .or_else(|| {
            differ(
                "list_lock acquisitions per node",
                &live.list_lock_taken,
                &replay.list_lock_taken,
            )
        })
        .or_else(|| differ("the page frames", &live.frames, &replay.frames))
        .or_else(|| differ("the zones' free areas", &live.zones, &replay.zones))
        .or_else(|| differ("the per-CPU page lists", &live.pcp, &replay.pcp))
        .or_else(|| differ("the random number generator", &live.rng, &replay.rng))
        .or_else(|| Some("the machines differ elsewhere".to_string()))
}
