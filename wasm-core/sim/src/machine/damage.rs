//! Known damage: what a bad operation the kernel does not check did to the kernel's structures,
//! carried by the run so that `check_machine` reports it. Today one operation does it: a free
//! to the wrong cache when `cache_from_obj()` does not look (no `CONFIG_SLAB_FREELIST_HARDENED`,
//! no `SLAB_CONSISTENCY_CHECKS`), and what the named cache's code later does with the other
//! cache's slab or object.
//!
//! Rules:
//! - A record is added by an event (`Event::DamageRecorded`), like every change of the machine,
//!   at the step where the damage is done, and is never removed: the kernel's structures stay
//!   wrong, whatever later steps hide.
//! - The simulator keeps its own structures well formed where the kernel's are not (a free
//!   pointer stored at another offset, counters of the wrong cache): it follows the kernel's
//!   path as far as its model can, and each record says what the kernel has instead, so that
//!   nothing later panics and nothing else is lost.
//! - `check_records` words every record for a person, and the allocators' own checks say what
//!   the damage left where (`slub::check::check_cpu`: another cache's slab on a CPU's lists;
//!   the node lists; SLAB's arrays). Every check, full or of what a step touched, reports every
//!   record first (there are few, and the run stays damaged from the step that did it on).

use super::check::{hex, problem, Problem};
use super::{Machine, Pfn};
use crate::ids::{CacheId, CpuId, NodeId};
use serde::Serialize;

/// One piece of known damage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Damage {
    /// `kmem_cache_free(cache, addr)` (or a bulk free naming `cache`) of an object of
    /// `slab_cache`: `cache_from_obj()` returned `cache` without looking, and `cache`'s code
    /// freed the object into its slab at `pfn`.
    WrongCacheFree {
        /// The cache the caller named (`s`), whose code ran.
        cache: CacheId,
        /// The cache the object's slab belongs to (`slab->slab_cache`).
        slab_cache: CacheId,
        addr: u64,
        pfn: Pfn,
        /// SLUB: `s->offset` where the free pointer was stored, and the offset the slab's own
        /// cache reads it from. `None` under SLAB, which keeps no pointer in the object.
        offsets: Option<(u32, u32)>,
    },
    /// SLUB: `discard_slab()` of `cache` freed the slab at `pfn` of `slab_cache`.
    /// `dec_slabs_node()` took one slab and `objects` objects off `cache`'s node `node`
    /// counters, which never counted it; `slab_cache`'s still count it. (The simulator takes the
    /// count from `slab_cache`, so that its own counters still add up.)
    ForeignSlabDiscarded {
        cache: CacheId,
        slab_cache: CacheId,
        pfn: Pfn,
        node: NodeId,
        objects: u32,
    },
    /// SLAB: `free_block()` of `cache` took back `addr`, an object of `slab_cache`'s slab at
    /// `pfn`. The kernel computes its index with `cache`'s object size and moves the slab onto
    /// `cache`'s node `node` lists and counts; the simulator, which cannot hold an index of
    /// another geometry, returns the object to its own slab, lists and counts.
    ForeignObjectFreed {
        cache: CacheId,
        slab_cache: CacheId,
        addr: u64,
        pfn: Pfn,
        node: NodeId,
    },
    /// The teaching switch `no_tid`: a fast path's cmpxchg compared `c->freelist` only and
    /// succeeded with a stale next pointer, so `cpu`'s `c->freelist` of `cache` became
    /// `object`, which a caller holds (the ABA problem the tid prevents). The next allocation
    /// there hands `object` out a second time.
    StaleCpuFreelist {
        cache: CacheId,
        cpu: CpuId,
        object: u64,
    },
    /// After such damage, `cpu` handed `object` of `cache`, which a caller still held, to a
    /// second caller: two users now write the same memory. (The simulator keeps one holder.)
    HandedOutTwice {
        cache: CacheId,
        cpu: CpuId,
        object: u64,
    },
}

/// Every record, worded, into `bad`: nothing when nothing is known to be damaged.
pub fn check_records(m: &Machine, bad: &mut Vec<Problem>) {
    bad.extend(m.damage.iter().map(|d| damage_problem(m, d)));
}

/// One record, worded.
fn damage_problem(m: &Machine, d: &Damage) -> Problem {
    let name = |id: CacheId| m.cache_name(id).unwrap_or("?").to_string();
    match *d {
        Damage::WrongCacheFree {
            cache,
            slab_cache,
            addr,
            pfn,
            offsets,
        } => wrong_cache_free(name(cache), name(slab_cache), addr, pfn, offsets),
        Damage::ForeignSlabDiscarded {
            cache,
            slab_cache,
            pfn,
            node,
            objects,
        } => problem!(
            "damage.foreign_slab_discarded",
            "known damage: {cache}'s discard_slab() freed slab {pfn} of {slab_cache}: the \
             kernel took 1 slab and {objects} objects off {cache}'s node {node} counters, which \
             never counted them, and {slab_cache}'s still count them (the simulator takes them \
             off {slab_cache}'s)",
            cache = name(cache),
            pfn = hex(pfn),
            slab_cache = name(slab_cache),
            objects = objects,
            node = node
        ),
        Damage::ForeignObjectFreed {
            cache,
            slab_cache,
            addr,
            pfn,
            node,
        } => problem!(
            "damage.foreign_object_freed",
            "known damage: {cache}'s free_block() took back {addr}, an object of {slab_cache}: \
             the kernel puts an index computed with {cache}'s object size into slab {pfn} and \
             moves that slab onto {cache}'s node {node} lists (the simulator returns the object \
             to {slab_cache}'s slab and lists)",
            cache = name(cache),
            addr = hex(addr),
            slab_cache = name(slab_cache),
            pfn = hex(pfn),
            node = node
        ),
        Damage::StaleCpuFreelist { cache, cpu, object } => problem!(
            "damage.stale_cpu_freelist",
            "known damage: cpu{cpu}'s c->freelist of {cache} points at {object}, which a caller \
             holds: without the tid the fast path's cmpxchg saw the same c->freelist as it had \
             read and swapped in the next pointer it had read before, which is stale (ABA); the \
             next allocation on cpu{cpu} hands {object} out again",
            cpu = cpu,
            cache = name(cache),
            object = hex(object)
        ),
        Damage::HandedOutTwice { cache, cpu, object } => problem!(
            "damage.handed_out_twice",
            "known damage: cpu{cpu} handed {object} of {cache} to a caller while another caller \
             still held it: two users of one object (the simulator keeps one holder)",
            cpu = cpu,
            object = hex(object),
            cache = name(cache)
        ),
    }
}

/// `Damage::WrongCacheFree`, worded by what the named cache's code did with the pointer.
fn wrong_cache_free(
    cache: String,
    slab_cache: String,
    addr: u64,
    pfn: Pfn,
    offsets: Option<(u32, u32)>,
) -> Problem {
    match offsets {
        Some((at, read)) if at != read => problem!(
            "damage.wrong_cache_free_offset",
            "known damage: {addr}, an object of {slab_cache} (slab {pfn}), was freed with \
                 {cache}'s code; cache_from_obj() does not look without \
                 CONFIG_SLAB_FREELIST_HARDENED or slub_debug=F, so the kernel did not notice; \
                 the free pointer went to offset {at} of the object, where {slab_cache} reads \
                 offset {read}: {slab_cache}'s freelist goes on from it through whatever those \
                 bytes held (the simulator links it as if stored at offset {read})",
            addr = hex(addr),
            slab_cache = slab_cache,
            pfn = hex(pfn),
            cache = cache,
            at = at,
            read = read
        ),
        Some(_) => problem!(
            "damage.wrong_cache_free",
            "known damage: {addr}, an object of {slab_cache} (slab {pfn}), was freed with \
                 {cache}'s code; cache_from_obj() does not look without \
                 CONFIG_SLAB_FREELIST_HARDENED or slub_debug=F, so the kernel did not notice",
            addr = hex(addr),
            slab_cache = slab_cache,
            pfn = hex(pfn),
            cache = cache
        ),
        None => problem!(
            "damage.wrong_cache_free_array",
            "known damage: {addr}, an object of {slab_cache} (slab {pfn}), was freed with \
                 {cache}'s code; cache_from_obj() does not look without \
                 CONFIG_SLAB_FREELIST_HARDENED or slub_debug=F, so the kernel did not notice; \
                 the pointer sits in {cache}'s arrays, so {cache} hands the object out as its \
                 own",
            addr = hex(addr),
            slab_cache = slab_cache,
            pfn = hex(pfn),
            cache = cache
        ),
    }
}
