//! Recording a live run, and the schedule that replays it (docs/live.md, "Record and replay").
//!
//! Each thread logs every micro-step it takes: one entry as an operation starts, and one at
//! every boundary (the micro-step that begins there). A micro-step that touches a shared word
//! (`shared`) runs under the recording lock and takes a stamp from one shared counter, so the
//! stamps order all of them as they really happened, each word's accesses included. A
//! micro-step that touches only what its CPU owns has no stamp; it can sit anywhere between
//! its CPU's neighbouring stamped micro-steps. Handing an object from one thread to another
//! (the workload's pool) is stamped the same way, so the free of an object comes after the
//! allocation that returned it.

use crate::ids::CpuId;
use crate::smp::micro::Access;
use crate::smp::schedule::Choice;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, MutexGuard};

/// Whether the micro-step that begins at a boundary before `next` touches a word other CPUs
/// touch: a slab's (freelist, counters), a node's `nr_partial`, list or `list_lock`, or the
/// page allocator. The others (`c->tid`, `c->freelist`, `c->slab`, the local lock, the free
/// pointer of an object the task holds) belong to the CPU (see `mem`).
pub(crate) fn shared(next: Access) -> bool {
    match next {
        Access::ReadSlab
        | Access::CmpxchgSlab
        | Access::ReadNode
        | Access::SpinLock
        | Access::SpinUnlock
        | Access::Work => true,
        Access::ReadTid
        | Access::ReadCpu
        | Access::GetFreepointer
        | Access::SetFreepointer
        | Access::CmpxchgCpu
        | Access::LocalLock
        | Access::LocalUnlock
        | Access::Start => false,
    }
}

/// What the threads of a recorded run share: the lock a shared micro-step runs under, and the
/// counter that stamps it.
#[derive(Default)]
pub struct Recording {
    lock: Mutex<()>,
    stamp: AtomicU64,
}

impl Recording {
    fn lock(&self) -> MutexGuard<'_, ()> {
        self.lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stamps taken so far.
    pub fn stamps(&self) -> u64 {
        self.stamp.load(Relaxed)
    }
}

/// No stamp: a micro-step on what its CPU owns.
const OWNED: u64 = 0;

/// One thread's log.
pub struct ThreadLog<'a> {
    recording: &'a Recording,
    /// One entry per micro-step, in order: `OWNED`, or its stamp + 1.
    pub(crate) entries: Vec<u64>,
    /// The recording lock, while a shared micro-step runs.
    held: Option<MutexGuard<'a, ()>>,
    /// The stamp of a hand-over that the next operation's first micro-step follows.
    pending: Option<u64>,
}

impl<'a> ThreadLog<'a> {
    pub fn new(recording: &'a Recording) -> Self {
        ThreadLog {
            recording,
            entries: Vec::new(),
            held: None,
            pending: None,
        }
    }

    fn stamp(&self) -> u64 {
        self.recording.stamp.fetch_add(1, Relaxed)
    }

    /// A boundary before `next`: the micro-step before it ends, the one after it begins.
    #[inline]
    pub(crate) fn boundary(&mut self, next: Access) {
        self.held = None;
        if shared(next) {
            let guard = self.recording.lock();
            let s = self.stamp();
            self.held = Some(guard);
            self.entries.push(s + 1);
        } else {
            self.entries.push(OWNED);
        }
    }

    /// An operation begins: its first micro-step (up to its first boundary).
    pub fn begin_op(&mut self) {
        self.held = None;
        let entry = self.pending.take().map_or(OWNED, |s| s + 1);
        self.entries.push(entry);
    }

    /// The operation returned: its last micro-step ends.
    pub fn end_op(&mut self) {
        self.held = None;
    }

    /// `f` takes an object from another thread (under the recording lock, stamped): the next
    /// operation's first micro-step comes after it.
    pub fn take<R>(&mut self, f: impl FnOnce() -> R) -> R {
        self.held = None;
        let _guard = self.recording.lock();
        let r = f();
        self.pending = Some(self.stamp());
        r
    }

    /// `f` gives what the last operation returned to other threads (under the recording
    /// lock, stamped): the operation's last micro-step comes before any taker's.
    pub fn give<R>(&mut self, f: impl FnOnce() -> R) -> R {
        self.held = None;
        let _guard = self.recording.lock();
        let r = f();
        let s = self.stamp();
        if let Some(last) = self.entries.last_mut() {
            if *last == OWNED {
                *last = s + 1;
            }
        }
        r
    }

    /// A take found nothing: no operation follows it.
    pub fn drop_pending(&mut self) {
        self.pending = None;
    }

    /// Micro-steps logged.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The schedule that replays a recorded run: every CPU's micro-steps in its own order, each
/// stamped one where its stamp puts it, the unstamped ones just before their CPU's next
/// stamped one (or at the end). `logs[c]` is CPU `c`'s log.
pub fn merge(logs: &[Vec<u64>]) -> Vec<Choice> {
    let total: usize = logs.iter().map(Vec::len).sum();
    let mut stamped: Vec<(u64, usize, usize)> = Vec::new();
    for (c, log) in logs.iter().enumerate() {
        for (i, &e) in log.iter().enumerate() {
            if e != OWNED {
                stamped.push((e - 1, c, i));
            }
        }
    }
    stamped.sort_unstable();
    let mut next = vec![0usize; logs.len()];
    let mut out = Vec::with_capacity(total);
    let run = |c: usize| Choice::Run {
        cpu: CpuId(c as u16),
    };
    for (_, c, i) in stamped {
        while next[c] <= i {
            out.push(run(c));
            next[c] += 1;
        }
    }
    for (c, log) in logs.iter().enumerate() {
        while next[c] < log.len() {
            out.push(run(c));
            next[c] += 1;
        }
    }
    out
}
