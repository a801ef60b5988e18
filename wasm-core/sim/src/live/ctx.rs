//! `LiveCtx`: the context a live thread runs SLUB's racing paths with (the `sync` twins of the
//! `#[dual]` modules), over the live memory. Its boundaries pass at once: between them the
//! thread runs at the machine's speed, and the other threads run at the same time.

use super::mem::{next_tid32, pair_pack, pair_unpack, pfn_dec, pfn_enc, LiveMem, Word};
use super::mem::{Pages, WRITER};
use super::record::{Class, Held, Res, ThreadLog};
use super::stats::LiveStats;
use crate::geometry::SlubVersion;
use crate::ids::SheafId;
use crate::ids::{CacheId, CpuId, NodeId, Pfn};
use crate::slub::cmpxchg::{SlabRead, SlabWord};
use crate::slub::mem::{Detached, SlubMem};
use crate::slub::sheaf::{PcsSlot, PercpuSheaves};
use crate::slub::state::{KmemCacheCpu, SlabFields};
use crate::slub::NewSlabPages;
use crate::smp::micro::{Access, Micro, RetryReason};
use crate::smp::{CallGuard, Kernel, Teaching};
use crate::trace::{End, Event, Recorder};
use std::cell::RefCell;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};
use std::sync::MutexGuard;

/// One thread's context: the CPU it is, the shared memory, its own counters and, when the run
/// is recorded, its log.
#[derive(Clone, Copy)]
pub(crate) struct LiveCtx<'a> {
    pub mem: &'a LiveMem,
    pub cpu: CpuId,
    pub stats: &'a RefCell<LiveStats>,
    pub log: Option<&'a RefCell<ThreadLog>>,
}

impl<'a> LiveCtx<'a> {
    /// The page allocator, under its lock (a recorded run holds its recording lock until the
    /// micro-step ends, and notes where in the lock's order it came).
    fn pages(self) -> MutexGuard<'a, Pages> {
        if let Some(log) = self.log {
            let mut log = log.borrow_mut();
            if !log.held.contains(&Held::Pages) {
                spin_acquire(&self.mem.pages_rlock);
                log.held.push(Held::Pages);
            }
        }
        let mut p = self
            .mem
            .pages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        p.seq += 1;
        self.mark(Res::pages(), p.seq, Class::Write);
        p
    }

    #[inline(always)]
    fn mark(self, res: Res, seq: u64, class: Class) {
        if let Some(log) = self.log {
            log.borrow_mut().mark(res, seq, class);
        }
    }

    /// `f` on the slab's (freelist, counters) word; a recorded run numbers the access in the
    /// word's order, atomically with it.
    #[inline(always)]
    fn slab_access<R>(self, pfn: Pfn, f: impl FnOnce(&AtomicU64) -> R) -> R {
        let s = self.mem.slab(pfn);
        let Some(log) = self.log else {
            return f(&s.word);
        };
        let mut log = log.borrow_mut();
        if !log.held.contains(&Held::Slab(pfn)) {
            spin_acquire(&s.rlock);
            log.held.push(Held::Slab(pfn));
        }
        let r = f(&s.word);
        let seq = s.aseq.load(Relaxed);
        s.aseq.store(seq + 1, Relaxed);
        log.mark(Res::slab(pfn), u64::from(seq), Class::Write);
        r
    }

    /// A recorded micro-step's hold on a node's `list_lock` word (its first access).
    fn hold_lock_word(self, cache: CacheId, node: NodeId) {
        if let Some(log) = self.log {
            spin_acquire(&self.mem.node(cache, node).lrlock);
            log.borrow_mut().held.push(Held::LockWord(cache, node));
        }
    }

    /// A recorded micro-step's hold on a node's list: shared with other readers for `Read`,
    /// alone for `Write` (taken over from its own read hold, if it has one).
    fn hold_node(self, cache: CacheId, node: NodeId, class: Class) {
        let Some(log) = self.log else {
            return;
        };
        let mut log = log.borrow_mut();
        let lock = &self.mem.node(cache, node).rlock;
        let (read, write) = (Held::NodeRead(cache, node), Held::NodeWrite(cache, node));
        if log.held.contains(&write) || (class == Class::Read && log.held.contains(&read)) {
            return;
        }
        match class {
            Class::Read => {
                let mut spins = 0;
                loop {
                    let w = lock.load(Relaxed);
                    if w & WRITER == 0
                        && lock
                            .compare_exchange_weak(w, w + 1, Acquire, Relaxed)
                            .is_ok()
                    {
                        log.held.push(read);
                        break;
                    }
                    relax(&mut spins);
                }
            }
            Class::Write => {
                // Alone: every reader gone (its own read hold, if any, becomes the write hold).
                let mine = u32::from(log.held.contains(&read));
                let mut spins = 0;
                while lock
                    .compare_exchange_weak(mine, WRITER, Acquire, Relaxed)
                    .is_err()
                {
                    relax(&mut spins);
                }
                log.held.retain(|&h| h != read);
                log.held.push(write);
            }
        }
    }

    /// `n->nr_partial`, noting (recorded) the list's version it saw.
    #[inline(always)]
    fn read_nr_partial(self, cache: CacheId, node: NodeId) -> usize {
        self.hold_node(cache, node, Class::Read);
        let w = self.mem.node(cache, node).nr_partial.load(Relaxed);
        self.mark(Res::node_list(cache, node), w >> 32, Class::Read);
        (w & 0xffff_ffff) as usize
    }

    /// Changes `n->nr_partial` by `delta` (under the lock), bumping the list's version.
    #[inline(always)]
    fn change_list(self, cache: CacheId, node: NodeId, delta: i64) {
        self.hold_node(cache, node, Class::Write);
        let nr = &self.mem.node(cache, node).nr_partial;
        let w = nr.load(Relaxed);
        let version = (w >> 32) + 1;
        let count = ((w & 0xffff_ffff) as i64 + delta) as u64;
        nr.store((version << 32) | count, Relaxed);
        self.mark(Res::node_list(cache, node), version, Class::Write);
    }

    /// An object goes to a caller (`hand_out()`).
    fn hand_out(self, cache: CacheId, object: u64) {
        if self.mem.set_allocated(cache, object, true) {
            // Only a damaged freelist hands an object out twice; a live run has none.
            self.stats.borrow_mut().handed_out_twice += 1;
        } else {
            self.mem.live_objects[usize::from(self.cpu)]
                .0
                .fetch_add(1, Relaxed);
        }
    }
}

/// Takes a recording lock (0 free, 1 held), spinning while another micro-step holds it.
fn spin_acquire(lock: &std::sync::atomic::AtomicU32) {
    let mut spins = 0u32;
    while lock.compare_exchange_weak(0, 1, Acquire, Relaxed).is_err() {
        relax(&mut spins);
    }
}

/// One turn of a wait for another thread: a pause, and after a while the processor given up
/// (the holder may be a thread the operating system put aside: with more threads than cores,
/// spinning on would only delay it).
#[inline]
pub(crate) fn relax(spins: &mut u32) {
    *spins += 1;
    if *spins < 64 {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// A live run's kernel-function call: nothing (there is no trace).
pub(crate) struct LiveCall;

impl CallGuard for LiveCall {
    #[inline(always)]
    fn leave(&mut self) {}

    #[inline(always)]
    fn set_path(&self, _path: &'static str) {}
}

impl Kernel for LiveCtx<'_> {
    type Call = LiveCall;
    type Frame = ();

    #[inline(always)]
    fn cpu(self) -> CpuId {
        self.cpu
    }

    #[inline(always)]
    fn teaching(self) -> Teaching {
        Teaching::default()
    }

    #[inline(always)]
    fn at(self, _next: Access) {
        self.stats.borrow_mut().boundary();
        if let Some(log) = self.log {
            log.borrow_mut().step(self.mem);
        }
    }

    #[inline(always)]
    fn step<T>(self, next: Access, f: impl FnOnce() -> T) -> T {
        self.at(next);
        f()
    }

    #[inline(always)]
    fn note(self, _micro: impl FnOnce() -> Micro) {}

    /// A live thread is never preempted or interrupted: only its own earlier operation could
    /// have moved its tid on.
    fn disturbance(self) -> RetryReason {
        RetryReason::OtherOperation
    }

    #[inline(always)]
    fn frame(self, _function: &'static str) {}

    fn count_retry(self, site: &'static str, reason: RetryReason) {
        self.stats.borrow_mut().retry(site, reason);
    }

    #[inline(always)]
    fn call(self, _function: &'static str, _path: &'static str, _key: &'static str) -> LiveCall {
        LiveCall
    }

    #[inline(always)]
    fn arg(self, _name: &'static str, _value: impl Into<crate::trace::Arg>) {}

    #[inline(always)]
    fn arg_cache(self, _name: &'static str, _cache: CacheId) {}

    #[inline(always)]
    fn arg_addr(self, _name: &'static str, _addr: u64) {}

    #[inline(always)]
    fn arg_zonelist(self, _name: &'static str, _node: NodeId) {}

    /// Only this CPU takes its local lock, and nothing interrupts it: the boundary is all.
    #[inline(always)]
    fn local_lock_irqsave(self, _cache: CacheId) {
        self.at(Access::LocalLock);
    }

    #[inline(always)]
    fn local_unlock_irqrestore(self, _cache: CacheId) {
        self.at(Access::LocalUnlock);
    }

    fn diagnose(
        self,
        _function: &'static str,
        _path: &'static str,
        _key: &'static str,
        _args: impl FnOnce(&mut Recorder) + 'static,
    ) {
        self.stats.borrow_mut().diagnostics += 1;
    }

    /// `spin_lock_irqsave(&n->list_lock)`: a compare-exchange of the lock word from free to
    /// held (counting the acquisition); each look that finds it held is a micro-step of its
    /// own (as in the interleaving engine), with a growing pause between looks.
    fn spin_lock_irqsave(self, cache: CacheId, node: NodeId) {
        let lock = &self.mem.node(cache, node).lock;
        let res = Res::list_lock(cache, node);
        let mut pause = 1u32;
        loop {
            self.at(Access::SpinLock);
            self.hold_lock_word(cache, node);
            // One look, a compare-exchange whether the lock looks free or not (as
            // `queued_spin_lock()`'s `atomic_try_cmpxchg_acquire()`): a locked instruction, so
            // the look cannot pass this CPU's own earlier release of another lock (a plain load
            // could, and two CPUs could each see the other's lock still held). A free lock is
            // taken (trying again at once if another CPU took and dropped it meanwhile); a held
            // one is noted with the acquisition that holds it.
            let mut w = lock.load(Relaxed) & !1;
            let taken = loop {
                match lock.compare_exchange(w, w + 3, SeqCst, SeqCst) {
                    Ok(_) => break true,
                    Err(now) if now & 1 == 1 => {
                        w = now;
                        break false;
                    }
                    Err(now) => w = now,
                }
            };
            if taken {
                self.mark(res, ((w >> 1) + 1) * 2, Class::Write);
                break;
            }
            self.mark(res, (w >> 1) * 2, Class::Read);
            self.stats.borrow_mut().lock_waited();
            // The look is done, and the rest of its micro-step (the pause) touches nothing:
            // its recording hold goes now, or the holder could not drop the lock meanwhile.
            if let Some(log) = self.log {
                log.borrow_mut().release(self.mem);
            }
            for _ in 0..pause {
                std::hint::spin_loop();
            }
            if pause < 1 << 10 {
                pause <<= 1;
            } else {
                std::thread::yield_now();
            }
        }
        self.stats.borrow_mut().lock_taken();
    }

    fn spin_unlock_irqrestore(self, cache: CacheId, node: NodeId) {
        self.at(Access::SpinUnlock);
        self.hold_lock_word(cache, node);
        let lock = &self.mem.node(cache, node).lock;
        let w = lock.load(Relaxed);
        lock.store(w & !1, SeqCst);
        self.mark(Res::list_lock(cache, node), (w >> 1) * 2 + 1, Class::Write);
    }

    // A live memory holds a linux-6.6 machine only (`LiveMem::new`): no cache has sheaves, so
    // these are never reached; they keep the per-CPU lock's meaning.
    fn pcs_lock(self, _cache: CacheId, _trylock: bool) -> bool {
        true
    }

    fn pcs_unlock(self, _cache: CacheId) {}

    fn barn_lock(self, _cache: CacheId, _node: NodeId) {}

    fn barn_unlock(self, _cache: CacheId, _node: NodeId) {}
}

impl SlubMem for LiveCtx<'_> {
    /// A live memory holds only a linux-6.6 machine (`LiveMem::new` refuses others).
    #[inline(always)]
    fn slub_version(self) -> SlubVersion {
        SlubVersion::V6_6
    }

    #[inline(always)]
    fn cache_debug(self, cache: CacheId) -> bool {
        self.mem.conf(cache).debug
    }

    #[inline(always)]
    fn has_cpu_partial(self, cache: CacheId) -> bool {
        !self.mem.conf(cache).debug
    }

    #[inline(always)]
    fn cpu_partial_slabs(self, cache: CacheId) -> u32 {
        self.mem.conf(cache).cpu_partial_slabs
    }

    #[inline(always)]
    fn min_partial(self, cache: CacheId) -> u64 {
        self.mem.conf(cache).min_partial
    }

    #[inline(always)]
    fn cache_order(self, cache: CacheId) -> u32 {
        self.mem.conf(cache).order
    }

    #[inline(always)]
    fn store_user(self, cache: CacheId) -> bool {
        self.mem.conf(cache).store_user
    }

    #[inline(always)]
    fn nr_nodes(self) -> u32 {
        self.mem.nodes as u32
    }

    #[inline(always)]
    fn cpu_to_node(self, cpu: CpuId) -> NodeId {
        self.mem.cpu_node[usize::from(cpu)]
    }

    #[inline(always)]
    fn cpu_slab(self, cache: CacheId, c: CpuId) -> KmemCacheCpu {
        self.mem.cpu_state(cache, c)
    }

    /// A real compare-exchange of the pair word (see `mem::CpuWords`).
    #[inline(always)]
    fn cpu_cmpxchg(
        self,
        cache: CacheId,
        c: CpuId,
        old: u64,
        tid: u64,
        new: u64,
        no_tid: bool,
    ) -> (bool, u64, u64) {
        let pair = &self.mem.cpu(cache, c).pair;
        debug_assert!(!no_tid, "a live run has no teaching switches");
        match pair.compare_exchange(
            pair_pack(old, tid),
            pair_pack(new, next_tid32(tid)),
            Relaxed,
            Relaxed,
        ) {
            Ok(_) => (true, old, tid),
            Err(found) => {
                let (f, t) = pair_unpack(found);
                (false, f, t)
            }
        }
    }

    #[inline(always)]
    fn set_cpu_freelist_tid(self, cache: CacheId, c: CpuId, freelist: u64, tid: u64) {
        self.mem
            .cpu(cache, c)
            .pair
            .store(pair_pack(freelist, tid), Relaxed);
    }

    #[inline(always)]
    fn set_cpu_freelist(self, cache: CacheId, c: CpuId, freelist: u64) {
        let pair = &self.mem.cpu(cache, c).pair;
        let (_, tid) = pair_unpack(pair.load(Relaxed));
        pair.store(pair_pack(freelist, next_tid32(tid)), Relaxed);
    }

    #[inline(always)]
    fn set_cpu_slab_ptr(self, cache: CacheId, c: CpuId, slab: Option<Pfn>) {
        self.mem.cpu(cache, c).slab.store(pfn_enc(slab), Relaxed);
    }

    #[inline(always)]
    fn set_cpu_partial(self, cache: CacheId, c: CpuId, top: Option<Pfn>) {
        self.mem.cpu(cache, c).partial.store(pfn_enc(top), Relaxed);
    }

    #[inline(always)]
    fn load_freelist(self, cache: CacheId, c: CpuId, freelist: u64) {
        let next = self.mem.get_fp(cache, freelist);
        self.set_cpu_freelist(cache, c, next);
        self.hand_out(cache, freelist);
    }

    #[inline(always)]
    fn object_handed_out(self, cache: CacheId, _cpu: CpuId, object: u64) {
        if self.mem.place_of(object).is_some() {
            self.hand_out(cache, object);
        }
    }

    /// Only under the teaching switch `no_tid`, which a live run never has.
    fn stale_cpu_freelist(self, _cache: CacheId, _cpu: CpuId, _new: u64) -> bool {
        false
    }

    #[inline(always)]
    fn slab_word(self, pfn: Pfn) -> Option<SlabRead> {
        let s = self.mem.slab(pfn);
        self.mem.slab_cache(pfn)?;
        let w = Word::unpack(self.slab_access(pfn, |w| w.load(Acquire)));
        Some(SlabRead {
            freelist: w.freelist,
            inuse: w.inuse,
            frozen: w.frozen,
            objects: w.objects,
            node: NodeId(s.node.load(Relaxed) as u16),
        })
    }

    /// A real compare-exchange of the slab's word (see `mem::Word`).
    #[inline(always)]
    fn slab_cmpxchg(self, pfn: Pfn, old: &SlabRead, new: SlabWord, unlink: bool) -> bool {
        let s = self.mem.slab(pfn);
        if self.mem.slab_cache(pfn).is_none() {
            return false;
        }
        let expected = Word {
            freelist: old.freelist,
            inuse: old.inuse,
            objects: old.objects,
            frozen: old.frozen,
        };
        let desired = Word {
            freelist: new.freelist,
            inuse: new.inuse,
            objects: old.objects,
            frozen: new.frozen,
        };
        let ok = self.slab_access(pfn, |w| {
            w.compare_exchange(expected.pack(), desired.pack(), AcqRel, Acquire)
                .is_ok()
        });
        if ok && unlink {
            s.next.store(0, Relaxed);
            s.slabs.store(0, Relaxed);
        }
        ok
    }

    #[inline(always)]
    fn slab_node(self, pfn: Pfn) -> Option<NodeId> {
        self.mem.slab_cache(pfn)?;
        Some(NodeId(self.mem.slab(pfn).node.load(Relaxed) as u16))
    }

    #[inline(always)]
    fn slab_fields(self, pfn: Pfn) -> SlabFields {
        self.mem.fields(pfn)
    }

    #[inline(always)]
    fn slab_next(self, pfn: Pfn) -> Option<Pfn> {
        self.mem.slab_cache(pfn)?;
        pfn_dec(self.mem.slab(pfn).next.load(Relaxed))
    }

    #[inline(always)]
    fn set_slab_partial_link(self, pfn: Pfn, next: Option<Pfn>, slabs: u32) {
        let s = self.mem.slab(pfn);
        s.next.store(pfn_enc(next), Relaxed);
        s.slabs.store(slabs, Relaxed);
    }

    #[inline(always)]
    fn get_freepointer_safe(self, object: u64) -> u64 {
        match self.mem.place_of(object) {
            Some((_, cache, _)) => self.mem.get_fp(cache, object),
            None => 0,
        }
    }

    #[inline(always)]
    fn set_freepointer_at(self, pfn: Pfn, index: u32, value: u64) {
        if let Some(cache) = self.mem.slab_cache(pfn) {
            let obj = self.object_addr(pfn, index);
            self.mem.set_fp(cache, obj, value);
        }
    }

    #[inline(always)]
    fn object_addr(self, pfn: Pfn, index: u32) -> u64 {
        let size = self
            .mem
            .slab_cache(pfn)
            .map_or(0, |c| self.mem.conf(c).size);
        self.mem.page_addr(pfn) + u64::from(index) * u64::from(size)
    }

    #[inline(always)]
    fn obj_to_index(self, pfn: Pfn, addr: u64) -> u32 {
        let cache = self.mem.slab_cache(pfn).unwrap_or(CacheId(0));
        let delta = (addr - self.mem.page_addr(pfn)) as u32;
        self.mem.conf(cache).reciprocal_size.divide(delta)
    }

    fn freelist_count_tail(self, head: u64) -> (u32, u64) {
        let (mut n, mut tail) = (0, head);
        let mut at = head;
        while at != 0 {
            n += 1;
            tail = at;
            at = self.get_freepointer_safe(at);
        }
        (n, tail)
    }

    #[inline(always)]
    fn objects_freed(self, _cache: CacheId, _cpu: CpuId, _pfn: Pfn, objs: &[(u64, u32)]) {
        // The objects' allocated bits were cleared before the path ran (`LiveCpu::free`):
        // here, after the compare-exchange that put them on a freelist, another CPU may
        // already have allocated them again.
        self.mem.live_objects[usize::from(self.cpu)]
            .0
            .fetch_sub(objs.len() as i64, Relaxed);
    }

    /// A look at `n->nr_partial` (the kernel reads it without the lock too).
    #[inline(always)]
    fn nr_partial(self, cache: CacheId, node: NodeId) -> usize {
        self.read_nr_partial(cache, node)
    }

    #[inline(always)]
    fn node_partial_first(self, cache: CacheId, node: NodeId) -> Option<Pfn> {
        pfn_dec(self.mem.node(cache, node).head.load(Relaxed))
    }

    /// `add_partial()`, under the node's lock.
    fn add_partial(self, cache: CacheId, node: NodeId, pfn: Pfn, end: End) {
        let n = self.mem.node(cache, node);
        let s = self.mem.slab(pfn);
        let me = pfn_enc(Some(pfn));
        let (head, tail) = (n.head.load(Relaxed), n.tail.load(Relaxed));
        match end {
            End::Head => {
                s.lprev.store(0, Relaxed);
                s.lnext.store(head, Relaxed);
                match pfn_dec(head) {
                    Some(h) => self.mem.slab(h).lprev.store(me, Relaxed),
                    None => n.tail.store(me, Relaxed),
                }
                n.head.store(me, Relaxed);
            }
            End::Tail => {
                s.lnext.store(0, Relaxed);
                s.lprev.store(tail, Relaxed);
                match pfn_dec(tail) {
                    Some(t) => self.mem.slab(t).lnext.store(me, Relaxed),
                    None => n.head.store(me, Relaxed),
                }
                n.tail.store(me, Relaxed);
            }
        }
        self.change_list(cache, node, 1);
    }

    /// `remove_partial()`, under the node's lock.
    fn remove_partial(self, cache: CacheId, node: NodeId, pfn: Pfn) {
        let n = self.mem.node(cache, node);
        let s = self.mem.slab(pfn);
        let (prev, next) = (s.lprev.load(Relaxed), s.lnext.load(Relaxed));
        match pfn_dec(prev) {
            Some(p) => self.mem.slab(p).lnext.store(next, Relaxed),
            None => n.head.store(next, Relaxed),
        }
        match pfn_dec(next) {
            Some(q) => self.mem.slab(q).lprev.store(prev, Relaxed),
            None => n.tail.store(prev, Relaxed),
        }
        s.lnext.store(0, Relaxed);
        s.lprev.store(0, Relaxed);
        self.change_list(cache, node, -1);
    }

    fn on_node_partial(self, cache: CacheId, node: NodeId, pfn: Pfn) -> bool {
        let mut at = pfn_dec(self.mem.node(cache, node).head.load(Relaxed));
        while let Some(p) = at {
            if p == pfn {
                return true;
            }
            at = pfn_dec(self.mem.slab(p).lnext.load(Relaxed));
        }
        false
    }

    fn any_partial_candidate(self, cache: CacheId, local: NodeId) -> (u32, Option<NodeId>) {
        let conf = self.mem.conf(cache);
        let candidate = self.mem.zonelists[usize::from(local)]
            .iter()
            .copied()
            .find(|&n| self.read_nr_partial(cache, n) as u64 > conf.min_partial);
        (conf.remote_node_defrag_ratio, candidate)
    }

    fn draw_below(self, n: u32) -> u32 {
        crate::slab_common::random::draw_below(&mut self.pages().rec, n)
    }

    fn new_slab(
        self,
        cache: CacheId,
        cpu: CpuId,
        node: Option<NodeId>,
        thisnode: bool,
    ) -> Option<NewSlabPages> {
        crate::slub::alloc::new_slab(&mut self.pages().rec, cache, cpu, node, thisnode)
    }

    /// The new slab's objects in address order (live mode refuses random freelists), each
    /// linked to the next.
    fn init_slab_objects(self, cache: CacheId, new: &NewSlabPages) {
        let mem = self.mem;
        let (pfn, order, objects) = (new.pfn, new.order, new.objects);
        let size = u64::from(mem.conf(cache).size);
        let base = mem.page_addr(pfn);
        for i in 0..objects {
            let obj = base + u64::from(i) * size;
            let next = if i + 1 < objects { obj + size } else { 0 };
            mem.set_fp(cache, obj, next);
        }
        let s = mem.slab(pfn);
        let me = pfn_enc(Some(pfn));
        for p in pfn.0..pfn.0 + (1 << order) {
            mem.slab(Pfn(p)).head.store(me, Relaxed);
        }
        s.order.store(u32::from(order), Relaxed);
        s.node.store(pfn.0 / mem.span, Relaxed);
        s.next.store(0, Relaxed);
        s.slabs.store(0, Relaxed);
        s.lnext.store(0, Relaxed);
        s.lprev.store(0, Relaxed);
        let word = Word {
            freelist: if objects > 0 { base } else { 0 },
            inuse: 0,
            objects,
            frozen: false,
        };
        s.word.store(word.pack(), Relaxed);
        s.cache.store(u32::from(cache) + 1, Release);
        // The page allocator's machine marks the pages as a slab's, as `free_pages()` expects
        // until `discard_slab()` clears the mark.
        self.pages().rec.emit(Event::SlabCreated {
            cache,
            pfn,
            order,
            freelist: (0..objects).collect(),
        });
    }

    fn take_new_slab_freelist(self, cache: CacheId, pfn: Pfn) -> u64 {
        let s = self.mem.slab(pfn);
        let w = Word::unpack(s.word.load(Relaxed));
        s.word.store(
            Word {
                freelist: 0,
                inuse: w.objects,
                objects: w.objects,
                frozen: true,
            }
            .pack(),
            Relaxed,
        );
        let node = NodeId(s.node.load(Relaxed) as u16);
        let n = self.mem.node(cache, node);
        n.nr_slabs.fetch_add(1, Relaxed);
        n.total_objects.fetch_add(u64::from(w.objects), Relaxed);
        w.freelist
    }

    fn slab_out_of_memory(self, _cache: CacheId) -> u64 {
        self.stats.borrow_mut().out_of_memory += 1;
        0
    }

    fn discard_slab(self, cache: CacheId, cpu: CpuId, pfn: Pfn) {
        let f = self.mem.fields(pfn);
        let n = self.mem.node(f.cache, f.node);
        n.nr_slabs.fetch_sub(1, Relaxed);
        n.total_objects.fetch_sub(u64::from(f.objects), Relaxed);
        let s = self.mem.slab(pfn);
        s.cache.store(0, Relaxed);
        for p in pfn.0..pfn.0 + (1 << f.order) {
            self.mem.slab(Pfn(p)).head.store(0, Relaxed);
        }
        let mut pages = self.pages();
        pages.rec.emit(Event::SlabDiscarded { cache, pfn });
        // A free of pages the page allocator holds as allocated cannot fail.
        let _ = crate::page_alloc::free_pages(&mut pages.rec, cpu, pfn);
    }

    // A debug cache's paths: never reached, as `LiveMem::new` refuses a machine with a
    // `slub_debug` cache (live mode does not run `n->full`, poisoning or red zones). Reaching one
    // would be a broken invariant of this module, not a bad operation.

    fn debug_take_first(self, _pfn: Pfn) -> (u64, SlabFields) {
        unreachable!("LiveMem::new refuses debug caches")
    }

    fn debug_list_new_slab(
        self,
        _cache: CacheId,
        _cpu: CpuId,
        _slab: &SlabFields,
        _pfn: Pfn,
        _object: u64,
    ) {
        unreachable!("LiveMem::new refuses debug caches")
    }

    fn debug_alloc_from_partial(self, _cache: CacheId, _node: NodeId, _cpu: CpuId) -> Option<u64> {
        unreachable!("LiveMem::new refuses debug caches")
    }

    fn debug_free_to_partial(
        self,
        _cache: CacheId,
        _node: NodeId,
        _cpu: CpuId,
        _pfn: Pfn,
        _objs: &[(u64, u32)],
        _prior: u64,
        _inuse: u32,
        _discard: bool,
    ) {
        unreachable!("LiveMem::new refuses debug caches")
    }

    #[inline(always)]
    fn arg_always(self, _name: &'static str, _value: u32) {}

    // `kmem_cache_free_bulk()`'s checks and detached freelists: never reached, as a live CPU
    // runs no bulk operation (`LiveCpu` has none).

    fn bulk_first_bad(self, _cache: Option<CacheId>, _objs: &[u64]) -> Option<u64> {
        unreachable!("a live CPU runs no bulk operation")
    }

    fn bulk_detach(
        self,
        _cache: Option<CacheId>,
        _p: &mut [u64],
        _size: usize,
        _cpu: CpuId,
        _hook: bool,
    ) -> Detached {
        unreachable!("a live CPU runs no bulk operation")
    }

    fn bulk_take_object(self, cache: CacheId, c: CpuId, object: u64, tid: u64) -> u64 {
        let next = self.mem.get_fp(cache, object);
        self.set_cpu_freelist_tid(cache, c, next, tid);
        self.hand_out(cache, object);
        object
    }

    // A live memory holds a linux-6.6 machine only (`LiveMem::new`): no cache has sheaves, so
    // the paths that use these never run on it. They answer as for a cache without sheaves.

    fn sheaf_capacity(self, _cache: CacheId) -> u32 {
        0
    }

    fn pcs(self, _cache: CacheId, _cpu: CpuId) -> PercpuSheaves {
        PercpuSheaves::default()
    }

    fn sheaf_size(self, _sheaf: SheafId) -> u32 {
        0
    }

    fn sheaf_top(self, _sheaf: SheafId) -> u64 {
        0
    }

    fn set_pcs(self, _cache: CacheId, _cpu: CpuId, _slot: PcsSlot, _sheaf: Option<SheafId>) {}

    fn alloc_empty_sheaf(self, _cache: CacheId) -> SheafId {
        SheafId(0)
    }

    fn free_empty_sheaf(self, _sheaf: SheafId) {}

    fn sheaf_hold(self, _sheaf: SheafId, _held: bool) {}

    // Live mode runs linux-6.6 only: no sheaves, so no rcu_free sheaf either.
    fn call_rcu_sheaf(
        self,
        _cpu: CpuId,
        _cache: CacheId,
        _sheaf: SheafId,
        _node: NodeId,
        _barn: bool,
    ) {
    }

    fn rcu_sheaf_invoked(
        self,
        _cpu: CpuId,
        _cache: CacheId,
        _sheaf: SheafId,
        _node: NodeId,
        _barn: bool,
    ) {
    }

    fn objects_given_back(
        self,
        cache: CacheId,
        cpu: CpuId,
        pfn: Pfn,
        objs: &[(u64, u32)],
        _from: crate::slub::sheaf::FreeFrom,
    ) {
        self.objects_freed(cache, cpu, pfn, objs);
    }

    fn objects_stacked(self, _objects: &[u64]) {}

    fn objects_unstacked(self, _objects: &[u64]) {}

    fn slab_isolated(self, _pfn: Pfn, _isolated: bool) {}

    fn sheaf_hand_out(self, _cache: CacheId, _cpu: CpuId, _sheaf: SheafId) -> u64 {
        0
    }

    fn sheaf_take_back(self, _cache: CacheId, _cpu: CpuId, _sheaf: SheafId, _object: u64) {}

    fn sheaf_objects(self, _sheaf: SheafId) -> Vec<u64> {
        Vec::new()
    }

    fn sheaf_take(self, _sheaf: SheafId, _n: u32) -> Vec<u64> {
        Vec::new()
    }

    fn sheaf_push(self, _sheaf: SheafId, _objects: &[u64]) {}

    fn barn_counts(self, _cache: CacheId, _node: NodeId) -> (usize, usize) {
        (0, 0)
    }

    fn barn_take(self, _cache: CacheId, _node: NodeId, _full: bool) -> Option<SheafId> {
        None
    }

    fn barn_put(self, _cache: CacheId, _node: NodeId, _sheaf: SheafId, _full: bool) {}

    fn freelist_objects(self, _head: u64, _max: u32) -> Vec<u64> {
        Vec::new()
    }

    fn new_slab_take(self, _cache: CacheId, _pfn: Pfn, _count: u32) -> Vec<u64> {
        Vec::new()
    }

    fn object_node(self, object: u64) -> Option<NodeId> {
        let pfn = self.mem.head_of(self.mem.addr_pfn(object)?)?;
        Some(NodeId::new(pfn.0 / self.mem.span))
    }
}
