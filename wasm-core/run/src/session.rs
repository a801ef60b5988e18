//! `Session`: one scenario, run and recorded, as the visualizer steps through it.
//!
//! Role: everything the web app asks about a run — its steps, the snapshot at any cursor, the
//! kernel files at any cursor, and the life of one object or one page frame — answered from
//! the recorder. Nothing here changes the run.
//!
//! Rules:
//! - The object history (who allocated and freed each address, in which step, operation and on
//!   which CPU) is built once from the trace; the kernel keeps no such record, the trace does.
//! - Stepping forward continues from the last machine built when that is shorter than the
//!   replay from a keyframe, so playing costs one step's events per frame.

use crate::run::{micro_steps_of, run_with_progress, RunError, RunProgress};
use crate::translate;
use serde::Serialize;
use slabscope_scenario::{parse, ParseError, PrintFile, Scenario};
use slabscope_sim::boot::Allocator;
use slabscope_sim::buddyinfo::buddyinfo;
use slabscope_sim::ids::{CacheId, CpuId, NodeId};
use slabscope_sim::machine::{Machine, Pfn};
use slabscope_sim::rcu::event::RcuEvent;
use slabscope_sim::rcu::state::RcuFunc;
use slabscope_sim::slab::event::SlabEvent;
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::smp::micro::Micro;
use slabscope_sim::snapshot::{
    block_owner_at, hex, owner_block, snapshot, BlockOwner, History, LockHolders, Mark, Snapshot,
    SnapshotQuery, StepAt,
};
use slabscope_sim::sysfs::{sysfs_dir, sysfs_slab_dir, sysfs_slab_dir_text};
use slabscope_sim::trace::{Caption, Event, Recorder};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

/// Why a scenario could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionError {
    Parse(ParseError),
    Run(RunError),
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Parse(e) => write!(f, "{e}"),
            SessionError::Run(e) => write!(f, "{e}"),
        }
    }
}

/// One operation of the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct OpInfo {
    /// The scenario line it comes from (1-based) and that line's text.
    pub line: u32,
    pub text: String,
    /// The cursor after it.
    pub end: u32,
}

/// A `print` line of the scenario: where it reads its file (no step of its own; the viewer
/// jumps there to show the file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct PrintInfo {
    /// The scenario line (1-based) and that line's text.
    pub line: u32,
    pub text: String,
    /// The cursor it reads the file at.
    pub cursor: u32,
    pub file: PrintFile,
}

/// What the viewer needs to know about a run before drawing anything.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct RunOutline {
    pub allocator: Allocator,
    pub steps: u32,
    pub cpus: u32,
    pub nodes: u32,
    /// The cursor where the first operation starts (boot and cache creation come before).
    pub ops_start: u32,
    pub ops: Vec<OpInfo>,
    /// The scenario's `print` lines, in run order.
    pub prints: Vec<PrintInfo>,
    /// The scenario's `concurrent` blocks, in run order.
    pub blocks: Vec<BlockInfo>,
}

/// A `concurrent` block of the run: its line, its steps (from `start`, exclusive, to `end`:
/// cursors `start + 1 ..= end` are after its micro-steps) and its tasks (`cpu0`,
/// `cpu0 task 1`, `cpu1 irq`, …), in lane order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct BlockInfo {
    pub line: u32,
    pub start: u32,
    pub end: u32,
    pub tasks: Vec<String>,
}

/// One micro-step of a block's lanes: the step, the task (lane) that took it, what it did
/// (`micro.*` key) and its caption, and the kernel function it was in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct LaneStep {
    pub step: u32,
    pub task: u16,
    pub function: &'static str,
    pub caption: Caption,
}

/// The kernel's files at one cursor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct KernelFiles {
    pub slabinfo: String,
    pub buddyinfo: String,
    /// `/sys/kernel/slab/<cache>/`: (attribute, contents), or why there is none.
    pub sysfs: Result<Vec<(String, String)>, SysfsMissing>,
    /// `/sys/kernel/slab/` itself, one entry a line (`name/` for a directory, `name -> target`
    /// for a symlink), or why there is none (SLAB has no /sys/kernel/slab).
    pub slab_dir: Result<String, SysfsMissing>,
}

/// Why a /sys/kernel/slab file is not there: a key the web app words in the reader's language
/// (`SysfsError::key_args`), the cache it names, and the English wording.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SysfsMissing {
    pub key: &'static str,
    pub cache: Option<String>,
    pub message: String,
}

impl std::fmt::Display for SysfsMissing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<slabscope_sim::sysfs::SysfsError> for SysfsMissing {
    fn from(e: slabscope_sim::sysfs::SysfsError) -> Self {
        let (key, cache) = e.key_args();
        SysfsMissing {
            key,
            cache: cache.map(str::to_string),
            message: e.to_string(),
        }
    }
}

/// One allocation or free of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct ObjectMark {
    pub allocated: bool,
    pub cache: CacheId,
    pub mark: Mark,
}

/// A page frame's owner from a step on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct PageSpan {
    /// The first step (0-based) in this state; `None`: since boot.
    pub step: Option<u32>,
    pub op: Option<u32>,
    /// The block holding the page then, and who owned it.
    pub block: Pfn,
    pub owner: BlockOwner,
}

/// The life of one object or page across the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Lane {
    /// The object followed (hex), if an object.
    pub object: Option<String>,
    pub pfn: Pfn,
    pub marks: Vec<ObjectMark>,
    pub page: Vec<PageSpan>,
}

/// Every allocation and free of every address, in step order: (step, allocated, cpu, cache).
#[derive(Default)]
struct ObjectHistory {
    by_addr: BTreeMap<u64, Vec<(u32, bool, CpuId, CacheId)>>,
    /// The operation each step belongs to, as the step records it (`u32::MAX`: none). In a
    /// `concurrent` block the operations' steps interleave, so the operation is the step's,
    /// never found from where operations end.
    step_ops: Vec<u32>,
}

impl ObjectHistory {
    /// The operation step `step` (0-based) belongs to.
    fn op_of(&self, step: u32) -> Option<u32> {
        self.step_ops
            .get(step as usize)
            .copied()
            .filter(|&op| op != u32::MAX)
    }

    fn mark(&self, step: u32, cpu: CpuId) -> Mark {
        Mark {
            step,
            op: self.op_of(step),
            cpu,
        }
    }

    fn build(rec: &Recorder) -> ObjectHistory {
        let mut h = ObjectHistory {
            by_addr: BTreeMap::new(),
            step_ops: (0..rec.step_count())
                .map(|i| rec.step_op(i).unwrap_or(u32::MAX))
                .collect(),
        };
        // SLAB's object events name (slab, index); the address needs the slab's colour and the
        // cache's slot size as they were then.
        let mut slab_size: BTreeMap<CacheId, u32> = BTreeMap::new();
        let mut slab_colour: BTreeMap<Pfn, u32> = BTreeMap::new();
        // Any machine of the run knows the address layout (`Machine::object_addr`).
        let m = rec.machine();
        for step in 0..rec.step_count() {
            for event in rec.step_events(step) {
                let (addr, allocated, cpu, cache) = match event {
                    Event::ObjectAllocated {
                        cache, cpu, addr, ..
                    } => (*addr, true, *cpu, *cache),
                    Event::ObjectFreed {
                        cache, cpu, addr, ..
                    } => (*addr, false, *cpu, *cache),
                    Event::Slab(SlabEvent::CacheCreated(new)) => {
                        slab_size.insert(new.id, new.geometry.size);
                        continue;
                    }
                    Event::Slab(SlabEvent::SlabCreated(new)) => {
                        slab_colour.insert(new.pfn, new.colour_off);
                        continue;
                    }
                    Event::Slab(
                        SlabEvent::ObjectAllocated {
                            cache,
                            cpu,
                            pfn,
                            index,
                        }
                        | SlabEvent::ObjectFreed {
                            cache,
                            cpu,
                            pfn,
                            index,
                        },
                    ) => {
                        let allocated =
                            matches!(event, Event::Slab(SlabEvent::ObjectAllocated { .. }));
                        let size = slab_size.get(cache).copied().unwrap_or(0);
                        let colour = slab_colour.get(pfn).copied().unwrap_or(0);
                        let addr = m.object_addr(*pfn, size, *index) + u64::from(colour);
                        (addr, allocated, *cpu, *cache)
                    }
                    _ => continue,
                };
                h.by_addr
                    .entry(addr)
                    .or_default()
                    .push((step as u32, allocated, cpu, cache));
            }
        }
        h
    }
}

impl History for ObjectHistory {
    fn marks(&self, addr: u64, cursor: usize) -> (Option<Mark>, Option<Mark>) {
        let Some(list) = self.by_addr.get(&addr) else {
            return (None, None);
        };
        let seen = &list[..list.partition_point(|e| (e.0 as usize) < cursor)];
        let Some(last_alloc) = seen.iter().rposition(|e| e.1) else {
            return (None, None);
        };
        let (step, _, cpu, _) = seen[last_alloc];
        let freed = seen[last_alloc + 1..]
            .iter()
            .find(|e| !e.1)
            .map(|e| self.mark(e.0, e.2));
        (Some(self.mark(step, cpu)), freed)
    }
}

/// A recorded run and what the viewer asked last.
/// One micro-step of a step, as a viewer shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct MicroStepCaption {
    pub caption: Caption,
    /// How many of the step's events had been applied when it was over.
    pub events_through: u32,
    pub task: u16,
}

pub struct Session {
    /// The scenario, to run again for what the trace does not keep (`micro_steps`).
    scenario: Scenario,
    rec: Recorder,
    outline: RunOutline,
    history: ObjectHistory,
    /// The machine last built, and its cursor.
    last: RefCell<Option<(usize, Machine)>>,
}

/// How far a viewer may step forward from its last machine before a keyframe is cheaper.
const CONTINUE_LIMIT: usize = 512;

impl Session {
    /// Parses and runs `text`, recording every step.
    pub fn open(text: &str) -> Result<Session, SessionError> {
        Self::open_with_progress(text, &mut |_| {})
    }

    /// `open`, telling `progress` how far the run has got (see `RunProgress`).
    pub fn open_with_progress(
        text: &str,
        progress: &mut dyn FnMut(&RunProgress),
    ) -> Result<Session, SessionError> {
        let scenario = parse(text).map_err(SessionError::Parse)?;
        let (rec, summary) =
            run_with_progress(&scenario, true, progress).map_err(SessionError::Run)?;
        let lines: Vec<&str> = text.lines().collect();
        let text_of = |line: u32| {
            lines
                .get(line.saturating_sub(1) as usize)
                .map_or_else(String::new, |l| l.trim().to_string())
        };
        let ops = summary
            .op_ends
            .iter()
            .zip(&summary.op_lines)
            .map(|(&end, &line)| OpInfo {
                line,
                text: text_of(line),
                end: end as u32,
            })
            .collect();
        let prints = summary
            .prints
            .iter()
            .map(|p| PrintInfo {
                line: p.line,
                text: text_of(p.line),
                cursor: p.cursor as u32,
                file: p.file.clone(),
            })
            .collect();
        let blocks = summary
            .blocks
            .iter()
            .map(|b| BlockInfo {
                line: b.line,
                start: b.start as u32,
                end: b.end as u32,
                tasks: b
                    .tasks
                    .iter()
                    .map(|&(cpu, slot)| crate::concurrent::task_label(cpu, slot))
                    .collect(),
            })
            .collect();
        let m = rec.machine();
        let outline = RunOutline {
            allocator: translate::allocator(scenario.allocator),
            steps: rec.step_count() as u32,
            cpus: m.config.cpus,
            nodes: m.config.nodes,
            ops_start: summary.ops_start as u32,
            ops,
            prints,
            blocks,
        };
        let history = ObjectHistory::build(&rec);
        Ok(Session {
            scenario,
            rec,
            outline,
            history,
            last: RefCell::new(None),
        })
    }

    /// The micro-steps step `step` (0-based) is made of, captioned: a concurrent block's step
    /// is one, kept in the trace; a sequential step's are found by running the scenario again
    /// (the run is deterministic), when a person asks for them.
    pub fn micro_steps(&self, step: usize) -> Result<Vec<MicroStepCaption>, SessionError> {
        let mut entries = self.rec.step(step).map(|s| s.micro).unwrap_or_default();
        if entries.is_empty() && step < self.rec.step_count() {
            entries = micro_steps_of(&self.scenario, step).map_err(SessionError::Run)?;
        }
        Ok(entries
            .iter()
            .map(|e| MicroStepCaption {
                caption: self.rec.micro_caption(&e.micro),
                events_through: e.events_through,
                task: e.task,
            })
            .collect())
    }

    /// The micro-steps of `concurrent` block `index` (of `RunOutline::blocks`), one a step, for
    /// its CPU lanes; a diagnostic step of the block is in the lane of the task before it.
    pub fn lanes(&self, index: usize) -> Option<Vec<LaneStep>> {
        let b = self.outline.blocks.get(index)?;
        let mut task = 0;
        Some(
            (b.start as usize..b.end as usize)
                .filter_map(|i| {
                    let step = self.rec.step(i)?;
                    let caption = match step.micro.first() {
                        Some(m) => {
                            task = m.task;
                            self.rec.micro_caption(&m.micro)
                        }
                        None => step.caption.clone(),
                    };
                    Some(LaneStep {
                        step: i as u32,
                        task,
                        function: step.function,
                        caption,
                    })
                })
                .collect(),
        )
    }

    /// What each step did, at a glance (`overview`): for the overview strip and breakpoints.
    pub fn overview(&self) -> crate::overview::Overview {
        crate::overview::overview(&self.rec)
    }

    pub fn outline(&self) -> &RunOutline {
        &self.outline
    }

    pub fn recorder(&self) -> &Recorder {
        &self.rec
    }

    /// The machine after `cursor` steps (`None` past the end).
    pub fn machine_at(&self, cursor: usize) -> Option<Machine> {
        if cursor > self.rec.step_count() {
            return None;
        }
        let mut last = self.last.borrow_mut();
        let machine = match last.take() {
            Some((at, mut m))
                if at <= cursor
                    && cursor - at <= CONTINUE_LIMIT
                    && at >= self.rec.keyframe_before(cursor) =>
            {
                self.rec.replay(&mut m, at, cursor);
                m
            }
            _ => self.rec.snapshot_at(cursor)?,
        };
        *last = Some((cursor, machine.clone()));
        Some(machine)
    }

    /// The snapshot after `cursor` steps.
    pub fn snapshot(&self, cursor: usize, query: &SnapshotQuery) -> Option<Snapshot> {
        let m = self.machine_at(cursor)?;
        let (events, micro) = match cursor {
            0 => (&[][..], Vec::new()),
            c => (
                self.rec.step_events(c - 1),
                self.rec.step_micro(c - 1).map(|e| e.micro).collect(),
            ),
        };
        let holders = self.lock_holders(cursor);
        let step = StepAt {
            events,
            micro: &micro,
            holders: &holders,
        };
        Some(snapshot(&m, cursor, step, query, &self.history))
    }

    /// The locks held after `cursor` steps, inside a `concurrent` block: its micro-steps up to
    /// the cursor, each lock taken and not yet dropped (the machine keeps no lock state; the
    /// trace names every acquisition and release).
    fn lock_holders(&self, cursor: usize) -> LockHolders {
        let Some(b) = self
            .outline
            .blocks
            .iter()
            .find(|b| (b.start as usize) < cursor && cursor <= b.end as usize)
        else {
            return LockHolders::default();
        };
        let mut held = LockHolders::default();
        for i in b.start as usize..cursor {
            for e in self.rec.step_micro(i) {
                match e.micro {
                    Micro::SpinLock { cache, node, cpu } => held.list_lock.push((cache, node, cpu)),
                    Micro::SpinUnlock { cache, node, .. } => held
                        .list_lock
                        .retain(|h: &(CacheId, NodeId, CpuId)| !(h.0 == cache && h.1 == node)),
                    Micro::BarnLock { cache, node, cpu } => held.barn.push((cache, node, cpu)),
                    Micro::BarnUnlock { cache, node, .. } => held
                        .barn
                        .retain(|h: &(CacheId, NodeId, CpuId)| !(h.0 == cache && h.1 == node)),
                    Micro::PcsTrylock {
                        cache,
                        cpu,
                        ok: true,
                    } => held.pcs.push((cache, cpu)),
                    Micro::PcsUnlock { cache, cpu } => held.pcs.retain(|h| *h != (cache, cpu)),
                    _ => {}
                }
            }
        }
        held
    }

    /// `/proc/slabinfo`, `/proc/buddyinfo` and `/sys/kernel/slab/<cache>/` after `cursor` steps.
    pub fn files(&self, cursor: usize, cache: Option<&str>) -> Option<KernelFiles> {
        let m = self.machine_at(cursor)?;
        let sysfs = match cache {
            None => Err(SysfsMissing {
                key: "sysfs.no_cache",
                cache: None,
                message: "no cache chosen".to_string(),
            }),
            Some(name) => sysfs_dir(&m, name)
                .map(|d| d.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                .map_err(SysfsMissing::from),
        };
        let slab_dir = sysfs_slab_dir(&m)
            .map(|entries| sysfs_slab_dir_text(&entries))
            .map_err(SysfsMissing::from);
        Some(KernelFiles {
            slabinfo: slabinfo(&m),
            buddyinfo: buddyinfo(&m),
            sysfs,
            slab_dir,
        })
    }

    /// The life of the object at `addr`: every allocation and free, and its page's owners.
    pub fn object_lane(&self, addr: u64) -> Option<Lane> {
        let m = self.rec.machine();
        let pfn = m.addr_pfn(addr)?;
        let marks = self
            .history
            .by_addr
            .get(&addr)
            .map(|list| {
                list.iter()
                    .map(|&(step, allocated, cpu, cache)| ObjectMark {
                        allocated,
                        cache,
                        mark: self.history.mark(step, cpu),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Lane {
            object: Some(hex(addr)),
            pfn,
            marks,
            page: self.page_spans(pfn)?,
        })
    }

    /// The life of page frame `pfn`: each owner of the block holding it, from boot on.
    pub fn page_lane(&self, pfn: Pfn) -> Option<Lane> {
        Some(Lane {
            object: None,
            pfn,
            marks: Vec::new(),
            page: self.page_spans(pfn)?,
        })
    }

    fn page_spans(&self, pfn: Pfn) -> Option<Vec<PageSpan>> {
        let boot = self.rec.snapshot_at(0)?;
        let (block, owner) = block_owner_at(&boot, pfn)?;
        let mut spans = vec![PageSpan {
            step: None,
            op: None,
            block,
            owner,
        }];
        let covers = |p: Pfn, order: u8| p <= pfn && pfn < p + (1 << order);
        for step in 0..self.rec.step_count() {
            for event in self.rec.step_events(step) {
                let found = match *event {
                    Event::FreeBlockAdded { pfn: p, order, .. } if covers(p, order) => {
                        (p, BlockOwner::Buddy { order })
                    }
                    Event::PcpBlockAdded {
                        cpu, pfn: p, order, ..
                    } if covers(p, order) => (p, BlockOwner::Pcp { cpu, order }),
                    Event::PagesAllocated {
                        pfn: p,
                        order,
                        owner,
                    } if covers(p, order) => (p, owner_block(order, owner)),
                    Event::Rcu(RcuEvent::CallbackQueued {
                        func:
                            RcuFunc::FreeSlab {
                                cache,
                                pfn: p,
                                order,
                            },
                        ..
                    }) if covers(p, order) => (p, BlockOwner::SlabRcu { cache, order }),
                    _ => continue,
                };
                let last = spans.last().expect("the boot span is there");
                if (last.block, last.owner) != found {
                    spans.push(PageSpan {
                        step: Some(step as u32),
                        op: self.history.op_of(step as u32),
                        block: found.0,
                        owner: found.1,
                    });
                }
            }
        }
        Some(spans)
    }
}

#[cfg(test)]
mod tests;
