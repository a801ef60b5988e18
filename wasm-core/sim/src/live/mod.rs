//! Live mode: SLUB run by real threads, one per simulated CPU, over one shared memory whose
//! shared words are real atomics (docs/live.md). The kernel code is the `#[dual]` modules'
//! `sync` twins, the same text the interleaving engine runs, over `LiveCtx`.

mod compare;
mod ctx;
pub mod mem;
pub mod record;
pub mod report;
pub mod run;
pub mod stats;

use crate::gfp::GFP_KERNEL;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::slub::kmalloc_slab;
use crate::trace::Recorder;
pub use compare::first_difference;
use ctx::LiveCtx;
pub use mem::{with_short_tids, LiveMem, LiveRefusal};
use record::ThreadLog;
pub use stats::LiveStats;
use std::cell::RefCell;

/// The kmalloc cache of each size up to the largest kmalloc cache, as `kmalloc_slab()` picks
/// them (live mode refuses random kmalloc caches, so the caller's address plays no part).
pub struct KmallocTable {
    by_size: Vec<Option<CacheId>>,
}

impl KmallocTable {
    /// The table of the machine `rec` holds.
    pub fn new(rec: &Recorder) -> KmallocTable {
        let max = 2 * rec.machine().page.page_size as u64;
        KmallocTable {
            by_size: (0..=max)
                .map(|size| match kmalloc_slab(rec, size, GFP_KERNEL, 0) {
                    Ok(Ok((cache, _))) if size > 0 => Some(cache),
                    _ => None,
                })
                .collect(),
        }
    }

    /// The cache `kmalloc(size)` allocates from (`None`: size 0, or above the kmalloc caches).
    pub fn cache(&self, size: u64) -> Option<CacheId> {
        self.by_size.get(size as usize).copied().flatten()
    }
}

/// Why an address cannot be freed live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotAnObject {
    /// Not the start of an object of a slab.
    NotInASlab,
    /// An object that is free (a double free).
    Free,
}

/// One CPU's thread of a live run: its context, and its log when the run is recorded.
pub struct LiveCpu<'a> {
    mem: &'a LiveMem,
    cpu: CpuId,
    stats: RefCell<LiveStats>,
    log: Option<RefCell<ThreadLog>>,
}

impl<'a> LiveCpu<'a> {
    /// CPU `cpu` of `mem`, logging its micro-steps if `record`.
    pub fn new(mem: &'a LiveMem, cpu: CpuId, record: bool) -> Self {
        LiveCpu {
            mem,
            cpu,
            stats: RefCell::new(LiveStats::default()),
            log: record.then(|| RefCell::new(ThreadLog::default())),
        }
    }

    /// CPU `cpu` of `mem`, recorded, logging into `log` (an empty log, its memory kept from an
    /// earlier epoch).
    pub fn with_log(mem: &'a LiveMem, cpu: CpuId, log: ThreadLog) -> Self {
        LiveCpu {
            mem,
            cpu,
            stats: RefCell::new(LiveStats::default()),
            log: Some(RefCell::new(log)),
        }
    }

    fn ctx(&self) -> LiveCtx<'_> {
        LiveCtx {
            mem: self.mem,
            cpu: self.cpu,
            stats: &self.stats,
            log: self.log.as_ref(),
        }
    }

    /// Runs `f` on the log, if the run is recorded.
    pub fn log<R>(&self, f: impl FnOnce(&mut ThreadLog) -> R) -> Option<R> {
        self.log.as_ref().map(|l| f(&mut l.borrow_mut()))
    }

    /// The log (empty when not recorded).
    pub fn into_log(self) -> ThreadLog {
        self.log.map(RefCell::into_inner).unwrap_or_default()
    }

    /// `kmem_cache_alloc(cache)` (`slab_alloc_node()` with no node): the object, or NULL.
    pub fn alloc(&self, cache: CacheId) -> u64 {
        self.alloc_node(cache, None)
    }

    /// `kmem_cache_alloc_node(cache, node)`: the object, or NULL.
    pub fn alloc_node(&self, cache: CacheId, node: Option<NodeId>) -> u64 {
        self.stats.borrow_mut().ops += 1;
        self.log(|l| l.begin_op(self.mem));
        let object = crate::slub::alloc::sync::slab_alloc(self.ctx(), cache, node);
        self.log(|l| l.release(self.mem));
        object
    }

    /// `flush_cpu_slab(cache)` on this CPU: its cpu slab deactivated, its partial stack
    /// unfrozen onto the node lists.
    pub fn flush(&self, cache: CacheId) {
        self.stats.borrow_mut().ops += 1;
        self.log(|l| l.begin_op(self.mem));
        crate::slub::partial::sync::flush_cpu_slab_k(self.ctx(), cache);
        self.log(|l| l.release(self.mem));
    }

    /// An operation that runs no kernel path (`kfree(NULL)`): one micro-step.
    pub fn nothing(&self) {
        self.stats.borrow_mut().ops += 1;
        self.log(|l| l.begin_op(self.mem));
        self.log(|l| l.release(self.mem));
    }

    /// Where `addr` is: the cache of the slab it is an allocated object of, or why it is not
    /// one (an address outside slabs or inside an object, or an object that is free).
    pub fn object_cache(&self, addr: u64) -> Result<CacheId, NotAnObject> {
        let (_, cache, _) = self.mem.place_of(addr).ok_or(NotAnObject::NotInASlab)?;
        if self.mem.is_allocated(cache, addr) {
            Ok(cache)
        } else {
            Err(NotAnObject::Free)
        }
    }

    /// `kfree(addr)` of an object this run handed out and nobody freed since (the caller's
    /// promise: a live run checks nothing that the kernel would only find with `slub_debug`).
    /// False, and nothing freed, when `addr` is not an allocated object of a slab.
    pub fn free(&self, addr: u64) -> bool {
        let Some((pfn, cache, index)) = self.mem.place_of(addr) else {
            return false;
        };
        // The simulator's note that the object is allocated goes first, in one atomic step
        // (two threads freeing one object: one of them finds it free): once the kernel's path
        // puts the object on a freelist another CPU may allocate it at once, and that CPU's
        // note must not be undone by this one's.
        if !self.mem.set_allocated(cache, addr, false) {
            return false;
        }
        self.stats.borrow_mut().ops += 1;
        self.log(|l| l.begin_op(self.mem));
        crate::slub::free::sync::do_slab_free(self.ctx(), cache, pfn, &[(addr, index)]);
        self.log(|l| l.release(self.mem));
        true
    }

    /// The thread's counts so far.
    pub fn stats(&self) -> LiveStats {
        self.stats.borrow().clone()
    }
}

#[cfg(test)]
mod tests;
