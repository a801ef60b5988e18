//! Recording a live run, and the schedule that replays it (docs/live.md, "Record and replay").
//!
//! Each thread logs every micro-step it takes: one as an operation starts, and one at every
//! boundary (the micro-step that begins there). A micro-step that touches a shared word also
//! logs a mark for it: which word (`Res`) and where its access fell in that word's own order
//! (`seq`), taken atomically with the access:
//!
//! - a slab's (freelist, counters): every load and compare-exchange of it, in order, numbered
//!   by a counter beside it (`SlabWords::aseq`);
//! - a node's partial list: a version in the high half of `nr_partial`'s word, bumped by every
//!   change (made under `list_lock`); a read, locked or not, notes the version it saw;
//! - `list_lock`: the lock word counts acquisitions; an acquisition and its release are marks,
//!   and a look that finds the lock held notes which acquisition holds it;
//! - the page allocator and the workload's inboxes of objects handed over: a counter under
//!   their lock.
//!
//! A micro-step of the interleaving engine makes all its accesses at once. On real threads a
//! micro-step that touches two shared words (a slab's and a node's, or a node's and the page
//! allocator) could have another CPU's micro-step fall between its two accesses, and no order
//! of whole micro-steps would then agree with both. So a recorded micro-step holds a recording
//! lock on each word it touches (a node's list shared among readers), from its access to the
//! micro-step's end (two-phase locking: the micro-steps are serializable). Words are taken in
//! an order no two micro-steps reverse (`list_lock`'s word, only ever a micro-step's first
//! access; a slab's; a node's list; the page allocator), so nobody deadlocks. The inboxes are
//! single accesses at an operation's edges and need none. The
//! locks stay on the words the run already shares: recording costs little, and the races are
//! still the machine's own (the gap between a CPU's read of a slab and its cmpxchg is two
//! micro-steps, and another CPU's free lands in it).
//!
//! The merge builds the partial order the marks give (each CPU's own order; each word's order;
//! a read between the write it saw and the next) and takes a topological order of it: an
//! explicit schedule for the interleaving engine. Any such order replays the same accesses with
//! the same values.

use crate::ids::{CacheId, CpuId, NodeId, Pfn};
use crate::smp::schedule::Choice;

/// A shared word (or group of words under one lock), packed in 64 bits: its kind in the top
/// bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Res(u64);

impl Res {
    pub fn slab(pfn: Pfn) -> Res {
        Res(u64::from(pfn.0))
    }

    pub fn node_list(cache: CacheId, node: NodeId) -> Res {
        Res((1 << 60) | (u64::from(cache.0) << 16) | u64::from(node.0))
    }

    pub fn list_lock(cache: CacheId, node: NodeId) -> Res {
        Res((2 << 60) | (u64::from(cache.0) << 16) | u64::from(node.0))
    }

    pub fn pages() -> Res {
        Res(3 << 60)
    }

    pub fn inbox(i: u32) -> Res {
        Res((4 << 60) | u64::from(i))
    }

    /// A name (or list) of a scenario that a `concurrent` block's lines give a value to.
    pub fn name(i: u32) -> Res {
        Res((5 << 60) | u64::from(i))
    }
}

/// Whether a mark changes its word (ordered among the writes) or only reads it (between the
/// write it saw and the next).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Write = 0,
    Read = 1,
}

/// One access to a shared word: where it fell in the word's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub res: Res,
    pub seq: u64,
    pub class: Class,
}

/// A recording lock a micro-step holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    LockWord(CacheId, NodeId),
    Slab(Pfn),
    NodeRead(CacheId, NodeId),
    NodeWrite(CacheId, NodeId),
    Pages,
}

/// One thread's log.
#[derive(Default)]
pub struct ThreadLog {
    /// Per micro-step, the index of its first mark.
    pub(crate) steps: Vec<u32>,
    pub(crate) marks: Vec<Mark>,
    /// Marks for the next operation's first micro-step (a taken object, the names it reads).
    pending: Vec<Mark>,
    /// The recording locks the current micro-step holds.
    pub(crate) held: Vec<Held>,
    /// The micro-step each operation began with.
    pub(crate) op_starts: Vec<u32>,
}

impl ThreadLog {
    /// A micro-step begins (at a boundary): the one before it lets go of its locks.
    #[inline(always)]
    pub(crate) fn step(&mut self, mem: &crate::live::LiveMem) {
        self.release(mem);
        self.steps.push(self.marks.len() as u32);
    }

    /// The current micro-step ends: its recording locks go.
    #[inline(always)]
    pub(crate) fn release(&mut self, mem: &crate::live::LiveMem) {
        use std::sync::atomic::Ordering::Release;
        for h in self.held.drain(..) {
            match h {
                Held::LockWord(c, n) => mem.node(c, n).lrlock.store(0, Release),
                Held::Slab(pfn) => mem.slab(pfn).rlock.store(0, Release),
                Held::NodeRead(c, n) => {
                    mem.node(c, n).rlock.fetch_sub(1, Release);
                }
                Held::NodeWrite(c, n) => mem.node(c, n).rlock.store(0, Release),
                Held::Pages => mem.pages_rlock.store(0, Release),
            }
        }
    }

    /// An access of the current micro-step.
    #[inline(always)]
    pub(crate) fn mark(&mut self, res: Res, seq: u64, class: Class) {
        self.marks.push(Mark { res, seq, class });
    }

    /// An operation begins: its first micro-step.
    pub fn begin_op(&mut self, mem: &crate::live::LiveMem) {
        self.op_starts.push(self.steps.len() as u32);
        self.step(mem);
        self.marks.append(&mut self.pending);
    }

    /// The thread took the objects waiting in inbox `inbox` (`seq` in the inbox's order): the
    /// next operation's first micro-step comes after that.
    pub fn took(&mut self, inbox: u32, seq: u64) {
        self.pending.push(Mark {
            res: Res::inbox(inbox),
            seq,
            class: Class::Write,
        });
    }

    /// The next operation reads name `name` as its `seq`th value: its first micro-step comes
    /// after the one that gave that value.
    pub fn saw(&mut self, name: u32, seq: u64) {
        self.pending.push(Mark {
            res: Res::name(name),
            seq,
            class: Class::Read,
        });
    }

    /// The last operation gave name `name` its `seq`th value (a list, its `seq`th element):
    /// its last micro-step comes before any that reads it.
    pub fn named(&mut self, name: u32, seq: u64) {
        self.mark(Res::name(name), seq, Class::Write);
    }

    /// The thread handed over a batch ending with what its last operation returned (`seq` in
    /// inbox `inbox`'s order): that operation's last micro-step comes before any taker's.
    pub fn gave(&mut self, inbox: u32, seq: u64) {
        self.mark(Res::inbox(inbox), seq, Class::Write);
    }

    /// The log emptied, its memory kept for the next epoch.
    pub(crate) fn clear(&mut self) {
        self.steps.clear();
        self.marks.clear();
        self.pending.clear();
        self.held.clear();
        self.op_starts.clear();
    }

    /// The micro-step (of this log) each operation began with.
    pub fn op_starts(&self) -> &[u32] {
        &self.op_starts
    }

    /// Micro-steps logged.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

/// Why a log cannot be merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unordered {
    /// Micro-steps that could be placed before the order closed on itself.
    pub placed: usize,
    pub total: usize,
    /// (Tests) the micro-steps of one cycle, with their marks.
    pub cycle: String,
}

/// The schedule that replays the threads' logs (`logs[c]` is CPU `c`'s): a topological order of
/// the partial order their marks give; among the micro-steps that may go next, the lowest CPU's
/// (a deterministic choice).
pub fn merge(logs: &[ThreadLog]) -> Result<Vec<Choice>, Unordered> {
    let base: Vec<u32> = logs
        .iter()
        .scan(0u32, |acc, l| {
            let b = *acc;
            *acc += l.steps.len() as u32;
            Some(b)
        })
        .collect();
    let total = logs.iter().map(|l| l.steps.len()).sum::<usize>();
    let mut edges = order_edges(logs, &base);
    edges.sort_unstable();
    edges.dedup();
    let cpu_of = |n: u32| base.partition_point(|&b| b <= n) - 1;
    let (order, indegree) = topological(total, &edges);
    if order.len() == total {
        return Ok(order
            .into_iter()
            .map(|n| Choice::Run {
                cpu: CpuId(cpu_of(n) as u16),
            })
            .collect());
    }
    Err(Unordered {
        placed: order.len(),
        total,
        cycle: if cfg!(test) {
            explain_cycle(logs, &base, &edges, &indegree)
        } else {
            String::new()
        },
    })
}

/// The edges of the partial order, between global micro-step numbers (CPU `c`'s step `i` is
/// `base[c] + i`): each CPU's own order, and each word's (writes in order, each read after the
/// write before it and before the next).
fn order_edges(logs: &[ThreadLog], base: &[u32]) -> Vec<(u32, u32)> {
    let mut marks: Vec<(Res, u64, Class, u32)> = Vec::new();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for (c, log) in logs.iter().enumerate() {
        for (i, &first) in log.steps.iter().enumerate() {
            let node = base[c] + i as u32;
            if i > 0 {
                edges.push((node - 1, node));
            }
            let end = log
                .steps
                .get(i + 1)
                .map_or(log.marks.len(), |&e| e as usize);
            for m in &log.marks[first as usize..end] {
                marks.push((m.res, m.seq, m.class, node));
            }
        }
    }
    marks.sort_unstable_by_key(|&(r, s, c, n)| (r, s, c, n));
    for word in marks.chunk_by(|a, b| a.0 == b.0) {
        let mut last_write: Option<u32> = None;
        let mut reads: Vec<u32> = Vec::new();
        for &(_, _, class, node) in word {
            if let Some(w) = last_write.filter(|&w| w != node) {
                edges.push((w, node));
            }
            if class == Class::Write {
                edges.extend(reads.drain(..).filter(|&r| r != node).map(|r| (r, node)));
                last_write = Some(node);
            } else {
                reads.push(node);
            }
        }
    }
    edges
}

/// Kahn's algorithm over sorted, deduplicated `edges`: the order (lowest ready node first), and
/// what is left of each node's in-degree (non-zero on a cycle).
fn topological(total: usize, edges: &[(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    let mut indegree = vec![0u32; total];
    let mut start = vec![0u32; total + 1];
    for &(from, to) in edges {
        indegree[to as usize] += 1;
        start[from as usize + 1] += 1;
    }
    for k in 1..=total {
        start[k] += start[k - 1];
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<u32>> = indegree
        .iter()
        .enumerate()
        .filter(|(_, &d)| d == 0)
        .map(|(n, _)| std::cmp::Reverse(n as u32))
        .collect();
    let mut out = Vec::with_capacity(total);
    while let Some(std::cmp::Reverse(n)) = ready.pop() {
        out.push(n);
        for &(_, to) in &edges[start[n as usize] as usize..start[n as usize + 1] as usize] {
            indegree[to as usize] -= 1;
            if indegree[to as usize] == 0 {
                ready.push(std::cmp::Reverse(to));
            }
        }
    }
    (out, indegree)
}

/// (Tests) one cycle among the micro-steps left unplaced, with the marks of those that have
/// any.
fn explain_cycle(
    logs: &[ThreadLog],
    base: &[u32],
    edges: &[(u32, u32)],
    indegree: &[u32],
) -> String {
    let cpu_of = |n: u32| base.partition_point(|&b| b <= n) - 1;
    let mut into = std::collections::BTreeMap::new();
    for &(from, to) in edges {
        if indegree[from as usize] > 0 && indegree[to as usize] > 0 {
            into.insert(to, from);
        }
    }
    let Some((&start, _)) = into.iter().next() else {
        return String::new();
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut n = start;
    while seen.insert(n) {
        n = into[&n];
    }
    let (first, mut out) = (n, String::new());
    loop {
        let c = cpu_of(n);
        let i = (n - base[c]) as usize;
        let log = &logs[c];
        let end = log
            .steps
            .get(i + 1)
            .map_or(log.marks.len(), |&e| e as usize);
        let ms = &log.marks[log.steps[i] as usize..end];
        if !ms.is_empty() && out.len() < 4000 {
            out += &format!("cpu{c} step {i}: {ms:?}\n");
        }
        n = into[&n];
        if n == first {
            return out;
        }
    }
}
