//! The live memory: SLUB's words as atomics that several threads share (docs/live.md).
//!
//! What is shared and what is owned (the `#[dual]` rule: between two boundaries a path touches
//! only what its CPU owns):
//! - `kmem_cache_cpu` (`CpuWords`): owned by its CPU. `c->freelist` and `c->tid` are one
//!   `AtomicU64` changed with a compare-exchange, as `this_cpu_cmpxchg_double()` changes the
//!   pair; no other thread ever touches it (a live run has no preemption and no interrupts).
//! - a slab's (freelist, counters) (`SlabWords::word`): shared. Read with a load, changed only
//!   with a compare-exchange (`slab_update_freelist()`).
//! - a slab's other fields: written when the slab is made (under the page allocator's lock,
//!   before any other CPU can reach it), `next`/`slabs` by the CPU whose partial stack holds it,
//!   the node-list links under that node's `list_lock`.
//! - an object's free pointer (`PageWords::fp`): owned by whoever holds the object (its
//!   freer, or the CPU whose freelist it is on); published to other CPUs only through a slab's
//!   compare-exchange or a lock.
//! - `kmem_cache_node` (`NodeWords`): the lock word is taken with a compare-exchange; the list,
//!   `nr_partial` and the counts change only under it (`nr_partial` is also read without it,
//!   as the kernel does).
//! - the page allocator: the deterministic one (`crate::page_alloc`), the same code, behind one
//!   lock (`LiveMem::pages`), standing for `zone->lock` and the per-CPU page lists' locks.
//!
//! Every word is an atomic, the owned ones touched with relaxed loads and stores, so nothing is
//! undefined even if a path broke the rule; a broken rule shows as a replay mismatch.
//!
//! Pointers are kept in 32 bits: the physical address's 8-byte word plus one (0 is NULL), which
//! covers 32 GiB of simulated memory.

use crate::ids::{CacheId, CpuId, NodeId, Pfn};
use crate::machine::{Machine, DIRECT_MAP_BASE};
use crate::slub::state::{KmemCacheCpu, ReciprocalValue, Slab, SlabFields, TID_STEP};
use crate::trace::Recorder;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

/// No pfn (`Option<Pfn>` in 32 bits: pfn + 1, 0 for none).
const NO_PFN: u32 = 0;

pub(crate) fn pfn_enc(p: Option<Pfn>) -> u32 {
    p.map_or(NO_PFN, |p| p.0 + 1)
}

pub(crate) fn pfn_dec(v: u32) -> Option<Pfn> {
    (v != NO_PFN).then(|| Pfn(v - 1))
}

/// A pointer in 32 bits (see the module documentation).
pub(crate) fn ptr_enc(addr: u64) -> u32 {
    if addr == 0 {
        0
    } else {
        (((addr - DIRECT_MAP_BASE) >> 3) + 1) as u32
    }
}

pub(crate) fn ptr_dec(v: u32) -> u64 {
    if v == 0 {
        0
    } else {
        DIRECT_MAP_BASE + (u64::from(v - 1) << 3)
    }
}

/// A slab's (freelist, counters) in one word: the freelist (32 bits), `inuse` (16), `objects`
/// (15), `frozen` (1). The kernel's double word holds the same four fields, compared and
/// exchanged together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    pub freelist: u64,
    pub inuse: u32,
    pub objects: u32,
    pub frozen: bool,
}

impl Word {
    pub fn pack(self) -> u64 {
        (u64::from(ptr_enc(self.freelist)) << 32)
            | (u64::from(self.inuse & 0xffff) << 16)
            | (u64::from(self.objects & 0x7fff) << 1)
            | u64::from(self.frozen)
    }

    pub fn unpack(w: u64) -> Word {
        Word {
            freelist: ptr_dec((w >> 32) as u32),
            inuse: ((w >> 16) & 0xffff) as u32,
            objects: ((w >> 1) & 0x7fff) as u32,
            frozen: w & 1 != 0,
        }
    }
}

/// `struct kmem_cache_cpu` of one CPU for one cache, on a cache line of its own (two CPUs'
/// words on one line would make every fast path of one CPU invalidate the other's).
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct CpuWords {
    /// (`c->freelist`, `c->tid`): the pointer in the high half, the tid's low 32 bits in the
    /// low half (a tid wraps after 2^32 / `TID_STEP` operations of one CPU, far beyond a live
    /// run).
    pub pair: AtomicU64,
    pub slab: AtomicU32,
    pub partial: AtomicU32,
}

pub(crate) fn pair_pack(freelist: u64, tid: u64) -> u64 {
    (u64::from(ptr_enc(freelist)) << 32) | (tid & 0xffff_ffff)
}

pub(crate) fn pair_unpack(p: u64) -> (u64, u64) {
    (ptr_dec((p >> 32) as u32), p & 0xffff_ffff)
}

/// `struct kmem_cache_node` of one node for one cache, on a cache line of its own.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct NodeWords {
    /// `list_lock`: its acquisitions so far, shifted left by one, and 1 while held (which also
    /// gives `Machine::list_lock_taken`, summed per node).
    pub lock: AtomicU64,
    /// `nr_partial` in the low half; in the high half, a version that every change of the
    /// list bumps (under the lock), which a recorded read notes.
    pub nr_partial: AtomicU64,
    /// The partial list's ends (pfn + 1); the links are in the slabs.
    pub head: AtomicU32,
    pub tail: AtomicU32,
    pub nr_slabs: AtomicU64,
    pub total_objects: AtomicU64,
    /// In a recorded run: the partial list's readers (the count) or its writer (`WRITER`),
    /// each until its micro-step ends.
    pub rlock: AtomicU32,
    /// In a recorded run: held by the micro-step that looked at, took or dropped `lock`, until
    /// it ends.
    pub lrlock: AtomicU32,
}

/// `NodeWords::rlock`'s writer bit.
pub(crate) const WRITER: u32 = 1 << 31;

/// A counter of one CPU, on a cache line of its own.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct CpuCounter(pub std::sync::atomic::AtomicI64);

/// `struct slab`, at its first page's pfn, on a cache line of its own.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct SlabWords {
    pub word: AtomicU64,
    /// In a recorded run: held (1) by the micro-step that accesses `word` until that
    /// micro-step ends, and the accesses to `word` so far, numbered under it.
    pub rlock: AtomicU32,
    pub aseq: AtomicU32,
    /// The cache + 1 (0: no slab here).
    pub cache: AtomicU32,
    pub order: AtomicU32,
    pub node: AtomicU32,
    /// The per-CPU partial stack's link and depth (`slab->next`, `slab->slabs`).
    pub next: AtomicU32,
    pub slabs: AtomicU32,
    /// The node partial list's links (`slab->slab_list`).
    pub lnext: AtomicU32,
    pub lprev: AtomicU32,
    /// For every page: the first page of the slab holding it, + 1 (`compound_head()`).
    pub head: AtomicU32,
}

/// The words of one page of memory that the live memory keeps: each 8-byte word's free
/// pointer (where an object's `s->offset` puts it), with, in its top bit (`ALLOCATED`), whether
/// the object is allocated. The kernel keeps no such note; the simulator's is kept in the word
/// the kernel's paths touch anyway, so that it shares no cache line with another object's (a
/// bitmap would put a page's objects on one line, which every CPU allocating or freeing there
/// would pass back and forth).
pub(crate) struct PageWords {
    pub fp: Box<[AtomicU32]>,
}

/// In a free pointer's word: the object is allocated (see `PageWords`).
const ALLOCATED: u32 = 1 << 31;

/// Bytes of memory a live run can address: free pointers are 31 bits, in 8-byte words.
pub const MAX_LIVE_BYTES: u64 = ((ALLOCATED as u64) - 1) << 3;

/// What the live memory keeps of a cache: fixed while a live run goes.
#[derive(Clone, Debug)]
pub(crate) struct CacheConf {
    pub debug: bool,
    pub cpu_partial_slabs: u32,
    pub min_partial: u64,
    pub order: u32,
    pub store_user: bool,
    pub remote_node_defrag_ratio: u32,
    pub size: u32,
    pub offset: u32,
    pub reciprocal_size: ReciprocalValue,
}

/// The shared memory of a live run.
pub struct LiveMem {
    pub(crate) caches: Vec<CacheConf>,
    pub(crate) cpus: usize,
    pub(crate) nodes: usize,
    pub(crate) page_shift: u32,
    /// Pfns per node (`Machine::span`).
    pub(crate) span: u32,
    pub(crate) cpu_node: Vec<NodeId>,
    pub(crate) zonelists: Vec<Vec<NodeId>>,
    /// `[cache * cpus + cpu]`.
    pub(crate) cpu: Vec<CpuWords>,
    /// `[cache * nodes + node]`.
    pub(crate) node: Vec<NodeWords>,
    /// `[pfn]`.
    pub(crate) slab: Vec<SlabWords>,
    pub(crate) pages_words: Vec<OnceLock<PageWords>>,
    /// The page allocator (and the kernel's random number generator) under one lock: a
    /// machine of which only those parts are used.
    pub(crate) pages: Mutex<Pages>,
    /// In a recorded run: held by the micro-step that uses the page allocator until it ends.
    pub(crate) pages_rlock: AtomicU32,
    /// Per CPU: objects it handed out less objects it took back (`Machine::live_objects`
    /// sums them).
    pub(crate) live_objects: Vec<CpuCounter>,
}

/// The page allocator's machine, and how many times its lock was taken (a recorded run's
/// order of them).
pub(crate) struct Pages {
    pub rec: Recorder,
    pub seq: u64,
}

/// Why a live run cannot start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiveRefusal {
    /// Cache `.0` hardens or shuffles its freelist (live mode runs neither).
    Hardened(String),
    /// Cache `.0` has `slub_debug` flags (its paths take `list_lock` for every change).
    Debug(String),
    /// A bound of the standard workload's live run (threads, operations), said for a person.
    Bounds(String),
    /// The machine runs another kernel profile than linux-6.6 (`.0`), whose paths live mode
    /// does not run yet.
    Profile(&'static str),
}

impl std::fmt::Display for LiveRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LiveRefusal::Hardened(cache) => {
                write!(f, "cache {cache} hardens or shuffles its freelist")
            }
            LiveRefusal::Debug(cache) => write!(f, "cache {cache} has slub_debug flags"),
            LiveRefusal::Bounds(why) => write!(f, "{why}"),
            LiveRefusal::Profile(id) => write!(
                f,
                "the machine runs {id}: live runs on threads model linux-6.6 only"
            ),
        }
    }
}

impl LiveMem {
    /// The live memory holding `m`'s state (a machine running SLUB, with or without slabs).
    pub fn new(m: &Machine) -> Result<LiveMem, LiveRefusal> {
        if m.profile.slub != crate::geometry::SlubVersion::V6_6 {
            return Err(LiveRefusal::Profile(m.profile.id));
        }
        let st = m.slub();
        for s in st.caches.iter() {
            if s.hardened || s.random_seq.is_some() {
                return Err(LiveRefusal::Hardened(s.name.clone()));
            }
            if s.debug() {
                return Err(LiveRefusal::Debug(s.name.clone()));
            }
        }
        let cpus = m.config.cpus as usize;
        let nodes = m.config.nodes as usize;
        let caches: Vec<CacheConf> = st
            .caches
            .iter()
            .map(|s| CacheConf {
                debug: s.debug(),
                cpu_partial_slabs: s.geometry.cpu_partial_slabs,
                min_partial: u64::from(s.geometry.min_partial),
                order: s.geometry.order,
                store_user: s.flags.store_user,
                remote_node_defrag_ratio: s.remote_node_defrag_ratio,
                size: s.geometry.size,
                offset: s.geometry.offset,
                reciprocal_size: s.reciprocal_size,
            })
            .collect();
        let cpu = (0..caches.len() * cpus)
            .map(|i| {
                let c = &st.caches[CacheId::from(i / cpus)].cpu[CpuId::from(i % cpus)];
                let w = CpuWords::default();
                w.pair.store(pair_pack(c.freelist, c.tid), Relaxed);
                w
            })
            .collect();
        let frames = m.frames.len();
        let bytes = (frames as u64) << m.page.page_shift;
        if bytes > MAX_LIVE_BYTES {
            return Err(LiveRefusal::Bounds(format!(
                "{} MiB of memory: a live run has at most {} MiB",
                bytes >> 20,
                MAX_LIVE_BYTES >> 20
            )));
        }
        let mem = LiveMem {
            cpus,
            nodes,
            page_shift: m.page.page_shift,
            span: m.span,
            cpu_node: m.cpu_node.iter().copied().collect(),
            zonelists: m.zonelists.iter().cloned().collect(),
            cpu,
            node: (0..caches.len() * nodes)
                .map(|_| NodeWords::default())
                .collect(),
            slab: (0..frames).map(|_| SlabWords::default()).collect(),
            pages_words: (0..frames).map(|_| OnceLock::new()).collect(),
            pages: Mutex::new(Pages {
                rec: Recorder::new(m.clone(), false),
                seq: 0,
            }),
            pages_rlock: AtomicU32::new(0),
            live_objects: (0..cpus).map(|_| CpuCounter::default()).collect(),
            caches,
        };
        mem.load(m);
        Ok(mem)
    }

    /// Takes in the slabs `m` holds (a run that made some before it went live): each slab's
    /// words and objects, each CPU's cpu slab and partial stack, each node's partial list and
    /// counts. `to_machine` gives them back unchanged.
    fn load(&self, m: &Machine) {
        let st = m.slub();
        for (pfn, slab) in st.slabs.iter() {
            let s = self.slab(pfn);
            let me = pfn_enc(Some(pfn));
            for p in pfn.0..pfn.0 + (1 << slab.order) {
                self.slab(Pfn(p)).head.store(me, Relaxed);
            }
            s.order.store(u32::from(slab.order), Relaxed);
            s.node.store(u32::from(slab.node.0), Relaxed);
            s.next.store(pfn_enc(slab.next), Relaxed);
            s.slabs.store(slab.slabs, Relaxed);
            let word = Word {
                freelist: slab.freelist,
                inuse: slab.inuse,
                objects: slab.objects,
                frozen: slab.frozen,
            };
            s.word.store(word.pack(), Relaxed);
            s.cache.store(u32::from(slab.cache) + 1, Relaxed);
            let first = self.page_addr(pfn);
            for i in 0..slab.objects as usize {
                let obj = first + i as u64 * u64::from(slab.size);
                self.set_fp(slab.cache, obj, slab.words[i]);
                self.set_allocated(slab.cache, obj, slab.allocated[i]);
            }
        }
        for (ci, s) in st.caches.iter().enumerate() {
            let cache = CacheId::from(ci);
            for (c, cc) in s.cpu.iter().enumerate() {
                let w = self.cpu(cache, CpuId::from(c));
                w.slab.store(pfn_enc(cc.slab), Relaxed);
                w.partial.store(pfn_enc(cc.partial), Relaxed);
            }
            for (n, nn) in s.node.iter().enumerate() {
                let w = self.node(cache, NodeId::from(n));
                w.nr_slabs.store(nn.nr_slabs, Relaxed);
                w.total_objects.store(nn.total_objects, Relaxed);
                w.nr_partial.store(nn.partial.len() as u64, Relaxed);
                let mut prev = NO_PFN;
                for &p in &nn.partial {
                    let me = pfn_enc(Some(p));
                    self.slab(p).lprev.store(prev, Relaxed);
                    match pfn_dec(prev) {
                        Some(q) => self.slab(q).lnext.store(me, Relaxed),
                        None => w.head.store(me, Relaxed),
                    }
                    prev = me;
                }
                w.tail.store(prev, Relaxed);
            }
        }
    }

    #[inline(always)]
    pub(crate) fn cpu(&self, cache: CacheId, c: CpuId) -> &CpuWords {
        &self.cpu[usize::from(cache) * self.cpus + usize::from(c)]
    }

    #[inline(always)]
    pub(crate) fn node(&self, cache: CacheId, n: NodeId) -> &NodeWords {
        &self.node[usize::from(cache) * self.nodes + usize::from(n)]
    }

    #[inline(always)]
    pub(crate) fn slab(&self, pfn: Pfn) -> &SlabWords {
        &self.slab[pfn.0 as usize]
    }

    #[inline(always)]
    pub(crate) fn conf(&self, cache: CacheId) -> &CacheConf {
        &self.caches[usize::from(cache)]
    }

    /// The page frame holding `addr`, if in memory.
    #[inline(always)]
    pub(crate) fn addr_pfn(&self, addr: u64) -> Option<Pfn> {
        let pfn = addr.checked_sub(DIRECT_MAP_BASE)? >> self.page_shift;
        (pfn < self.slab.len() as u64).then_some(Pfn(pfn as u32))
    }

    #[inline(always)]
    pub(crate) fn page_addr(&self, pfn: Pfn) -> u64 {
        DIRECT_MAP_BASE + (u64::from(pfn.0) << self.page_shift)
    }

    /// The words of the page holding `addr` (made when first needed), and the index of the
    /// 8-byte word of `addr` in it.
    #[inline(always)]
    fn words_at(&self, addr: u64) -> Option<(&PageWords, usize)> {
        let pfn = self.addr_pfn(addr)?;
        let words = 1usize << (self.page_shift - 3);
        let page = self.pages_words[pfn.0 as usize].get_or_init(|| PageWords {
            fp: (0..words).map(|_| AtomicU32::new(0)).collect(),
        });
        Some((page, ((addr - self.page_addr(pfn)) >> 3) as usize))
    }

    /// The free pointer stored in object `obj` of `cache` (`get_freepointer()`).
    #[inline(always)]
    pub(crate) fn get_fp(&self, cache: CacheId, obj: u64) -> u64 {
        let at = obj + u64::from(self.conf(cache).offset);
        self.words_at(at)
            .map_or(0, |(p, i)| ptr_dec(p.fp[i].load(Relaxed) & !ALLOCATED))
    }

    /// `set_freepointer()`: only ever of a free object (the kernel links free objects; a free
    /// clears the object's allocated note before its path runs), so the note is left clear.
    #[inline(always)]
    pub(crate) fn set_fp(&self, cache: CacheId, obj: u64, value: u64) {
        let at = obj + u64::from(self.conf(cache).offset);
        if let Some((p, i)) = self.words_at(at) {
            p.fp[i].store(ptr_enc(value), Relaxed);
        }
    }

    /// Marks object `obj` of `cache` allocated or free; returns what it was.
    #[inline(always)]
    pub(crate) fn set_allocated(&self, cache: CacheId, obj: u64, allocated: bool) -> bool {
        let at = obj + u64::from(self.conf(cache).offset);
        let Some((p, i)) = self.words_at(at) else {
            return false;
        };
        let old = if allocated {
            p.fp[i].fetch_or(ALLOCATED, Relaxed)
        } else {
            p.fp[i].fetch_and(!ALLOCATED, Relaxed)
        };
        old & ALLOCATED != 0
    }

    #[inline(always)]
    pub(crate) fn is_allocated(&self, cache: CacheId, obj: u64) -> bool {
        let at = obj + u64::from(self.conf(cache).offset);
        self.words_at(at)
            .is_some_and(|(p, i)| p.fp[i].load(Relaxed) & ALLOCATED != 0)
    }

    /// The slab holding `pfn` (`compound_head()`), if any.
    #[inline(always)]
    pub(crate) fn head_of(&self, pfn: Pfn) -> Option<Pfn> {
        pfn_dec(self.slab(pfn).head.load(Relaxed))
    }

    /// The slab's cache, if there is a slab at `pfn`.
    #[inline(always)]
    pub(crate) fn slab_cache(&self, pfn: Pfn) -> Option<CacheId> {
        match self.slab(pfn).cache.load(Relaxed) {
            0 => None,
            c => Some(CacheId(c - 1)),
        }
    }

    /// Where object `addr` lies: its slab, its cache and its index (`virt_to_slab()` and
    /// `obj_to_index()`); `None` outside slabs or in a slab's tail.
    #[inline(always)]
    pub(crate) fn place_of(&self, addr: u64) -> Option<(Pfn, CacheId, u32)> {
        let head = self.head_of(self.addr_pfn(addr)?)?;
        let cache = self.slab_cache(head)?;
        let delta = (addr - self.page_addr(head)) as u32;
        let index = self.conf(cache).reciprocal_size.divide(delta);
        let objects = Word::unpack(self.slab(head).word.load(Relaxed)).objects;
        (index < objects && index * self.conf(cache).size == delta).then_some((head, cache, index))
    }

    /// The slab's fields (`Machine`'s `SlabFields`).
    pub(crate) fn fields(&self, pfn: Pfn) -> SlabFields {
        let s = self.slab(pfn);
        let w = Word::unpack(s.word.load(Relaxed));
        SlabFields {
            cache: self.slab_cache(pfn).unwrap_or(CacheId(0)),
            order: s.order.load(Relaxed) as u8,
            node: NodeId(s.node.load(Relaxed) as u16),
            objects: w.objects,
            inuse: w.inuse,
            frozen: w.frozen,
            freelist: w.freelist,
            next: pfn_dec(s.next.load(Relaxed)),
            slabs: s.slabs.load(Relaxed),
        }
    }

    /// `c`'s `kmem_cache_cpu` for `cache`, with the tid's low 32 bits.
    #[inline(always)]
    pub(crate) fn cpu_state(&self, cache: CacheId, c: CpuId) -> KmemCacheCpu {
        let w = self.cpu(cache, c);
        let (freelist, tid) = pair_unpack(w.pair.load(Relaxed));
        KmemCacheCpu {
            freelist,
            tid,
            slab: pfn_dec(w.slab.load(Relaxed)),
            partial: pfn_dec(w.partial.load(Relaxed)),
        }
    }

    /// The state as a `Machine`: `base` (the machine the live memory was made from, booted
    /// the same way) with the page allocator, the random number generator and every SLUB
    /// structure taken from the live memory. A tid keeps only its low 32 bits
    /// (`compare_machine` compares tids that way). Call when no thread runs.
    pub fn to_machine(&self, base: &Machine) -> Machine {
        let mut m = self
            .pages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .rec
            .machine()
            .clone();
        let live: i64 = self.live_objects.iter().map(|c| c.0.load(Relaxed)).sum();
        m.live_objects = base.live_objects.wrapping_add_signed(live);
        for (ci, _) in self.caches.iter().enumerate() {
            for (n, taken) in m.list_lock_taken.iter_mut().enumerate() {
                *taken += self
                    .node(CacheId::from(ci), NodeId::from(n))
                    .lock
                    .load(Relaxed)
                    >> 1;
            }
        }
        let frames = self.slab.len();
        let st = m.alloc.slub_mut();
        st.slabs = crate::machine::SlabTable::new(frames);
        for pfn in 0..frames as u32 {
            let pfn = Pfn(pfn);
            if self.head_of(pfn) != Some(pfn) {
                continue;
            }
            let Some(cache) = self.slab_cache(pfn) else {
                continue;
            };
            let f = self.fields(pfn);
            let conf = self.conf(cache);
            let base_addr = self.page_addr(pfn);
            let objs = |i: u32| base_addr + u64::from(i) * u64::from(conf.size);
            st.slabs.insert(
                pfn,
                Slab {
                    cache,
                    order: f.order,
                    node: f.node,
                    objects: f.objects,
                    size: conf.size,
                    reciprocal_size: conf.reciprocal_size,
                    inuse: f.inuse,
                    frozen: f.frozen,
                    freelist: f.freelist,
                    next: f.next,
                    slabs: f.slabs,
                    words: (0..f.objects)
                        .map(|i| self.get_fp(cache, objs(i)))
                        .collect(),
                    allocated: (0..f.objects)
                        .map(|i| self.is_allocated(cache, objs(i)))
                        .collect(),
                },
            );
        }
        for (ci, s) in st.caches.iter_mut().enumerate() {
            let cache = CacheId::from(ci);
            for (c, cc) in s.cpu.iter_mut().enumerate() {
                *cc = self.cpu_state(cache, CpuId::from(c));
            }
            for (n, nn) in s.node.iter_mut().enumerate() {
                let w = self.node(cache, NodeId::from(n));
                nn.nr_slabs = w.nr_slabs.load(Relaxed);
                nn.total_objects = w.total_objects.load(Relaxed);
                debug_assert_eq!(
                    w.nr_partial.load(Relaxed) & 0xffff_ffff,
                    self.list_len(cache, NodeId::from(n)) as u64
                );
                nn.partial.clear();
                let mut at = pfn_dec(w.head.load(Relaxed));
                while let Some(p) = at {
                    nn.partial.push(p);
                    at = pfn_dec(self.slab(p).lnext.load(Relaxed));
                }
            }
        }
        m
    }
}

impl LiveMem {
    /// The length of a node's partial list, walked.
    fn list_len(&self, cache: CacheId, node: NodeId) -> usize {
        let mut n = 0;
        let mut at = pfn_dec(self.node(cache, node).head.load(Relaxed));
        while let Some(p) = at {
            n += 1;
            at = pfn_dec(self.slab(p).lnext.load(Relaxed));
        }
        n
    }
}

/// `m` with every tid cut to its low 32 bits, as the live memory keeps them.
pub fn with_short_tids(mut m: Machine) -> Machine {
    for s in m.alloc.slub_mut().caches.iter_mut() {
        for c in s.cpu.iter_mut() {
            c.tid &= 0xffff_ffff;
        }
    }
    m
}

/// The tid a CPU's pair holds after `next_tid()`.
#[inline(always)]
pub(crate) fn next_tid32(tid: u64) -> u64 {
    (tid + TID_STEP) & 0xffff_ffff
}
