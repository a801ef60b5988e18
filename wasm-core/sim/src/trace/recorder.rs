//! `Recorder`: owns the live `Machine`, applies every event to it and files the events into
//! steps; `snapshot_at(cursor)` rebuilds the machine at any step.
//!
//! Rules:
//! - Cursor 0 is the machine as booted; cursor `n` is the state after `n` steps.
//! - A step is what one press of "next" shows: one kernel-function-level action with a caption
//!   key and arguments (never text) and the events it made.
//! - Keyframes are copies of the machine; `snapshot_at` clones the nearest keyframe at or
//!   before the cursor and replays forward. A new keyframe is taken once at least
//!   `KEYFRAME_MIN_STEPS` steps and as many bytes of events as the last keyframe's size have
//!   been recorded since it: keyframes never cost more memory than the events, and replay to
//!   any step applies at most about one keyframe's worth of events. The policy is private to
//!   this file.
//! - With recording off, events are applied and dropped: the machine is the same, the trace is
//!   empty and `snapshot_at` only answers for the live cursor.
//! - A step is opened and closed by one call, `call(function, path, key, |rec| …)`: it opens
//!   the step, runs the closure and closes it, so no step can be left open. Steps nest: a
//!   `call` inside an open step (a kernel function calling another, e.g. `discard_slab()`
//!   freeing pages) files its events into the open step, and returning from it closes only
//!   what it opened. So every step boundary is a consistent state.
//! - Every step carries its origin: the scenario line and operation it belongs to, as set by
//!   `set_origin` before the scenario runs that line (none for boot; a line and no operation
//!   for a `cache` line's creation).

use super::arena::{Arena, Mark};
use super::Event;
use crate::ids::{CacheId, CpuId, NodeId, Pfn, TiVec};
use crate::machine::{AllocatorState, Machine};
use crate::slub::state::SlubState;
use crate::smp::micro::Micro;
use serde::Serialize;

const KEYFRAME_MIN_STEPS: usize = 64;
/// Keyframes may take this many times fewer bytes than the events recorded between them.
const EVENT_BYTES_PER_KEYFRAME_BYTE: usize = 2;
/// Events and caption arguments a step usually stays under (a longer step still works).
const EVENTS_ROOM: usize = 512;
const ARGS_ROOM: usize = 16;

/// A caption argument as recorded: no allocation for the common kinds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Num(u64),
    /// An address, shown in hex.
    Addr(u64),
    /// A cache, shown by name (cache ids are never reused, so the live machine names them).
    Cache(CacheId),
    /// A fixed word, e.g. `to head`.
    Word(&'static str),
    /// Any other text (rare: a name before its cache exists).
    Text(Box<str>),
}

impl From<u32> for Arg {
    fn from(v: u32) -> Self {
        Arg::Num(u64::from(v))
    }
}
impl From<Pfn> for Arg {
    fn from(v: Pfn) -> Self {
        Arg::Num(u64::from(v))
    }
}
impl From<CpuId> for Arg {
    fn from(v: CpuId) -> Self {
        Arg::Num(u64::from(v))
    }
}
impl From<NodeId> for Arg {
    fn from(v: NodeId) -> Self {
        Arg::Num(u64::from(v))
    }
}
impl From<u64> for Arg {
    fn from(v: u64) -> Self {
        Arg::Num(v)
    }
}
impl From<u8> for Arg {
    fn from(v: u8) -> Self {
        Arg::Num(u64::from(v))
    }
}
impl From<&'static str> for Arg {
    fn from(v: &'static str) -> Self {
        Arg::Word(v)
    }
}
impl From<String> for Arg {
    fn from(v: String) -> Self {
        Arg::Text(v.into_boxed_str())
    }
}

/// A caption argument as shown: a number or text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(untagged)]
pub enum Shown {
    Num(#[cfg_attr(feature = "ts-export", ts(type = "number"))] u64),
    Text(String),
}

/// A caption: an i18n key and its named arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Caption {
    pub key: &'static str,
    pub args: Vec<(&'static str, Shown)>,
}

/// One step, as read back from the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Step<'a> {
    /// The kernel function this step mirrors, e.g. `__free_one_page`.
    pub function: &'static str,
    /// The path taken, e.g. `pcp hit` or `refill from buddy`.
    pub path: &'static str,
    /// The scenario line (1-based) this step belongs to: its operation's line, or the `cache`
    /// line whose `kmem_cache_create()` it is; `None` for boot.
    pub line: Option<u32>,
    /// The operation (0-based, each run of a `repeat` or `for` line counted, as in
    /// `RunSummary::op_ends`) this step belongs to; `None` for boot and cache creation.
    pub op: Option<u32>,
    pub caption: Caption,
    /// The events, as the trace's JSON shows them (not typed for TypeScript: the views read
    /// the snapshot, not the events).
    #[cfg_attr(feature = "ts-export", ts(type = "Array<Record<string, unknown>>"))]
    pub events: &'a [Event],
    /// The micro-steps the step is made of, when the recorder keeps them (`keep_micro`; an
    /// interleaved run's steps are each one micro-step and always keep it); else empty.
    pub micro: Vec<MicroEntry>,
}

/// One micro-step inside a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct MicroEntry {
    /// The task that took it (an interleaved run's index; 0 in a sequential run).
    pub task: u16,
    pub micro: Micro,
    /// How many of the step's events had been applied when it was over: the machine after
    /// it is the step's start with `events[..events_through]` applied.
    pub events_through: u32,
}

/// Where steps come from: a scenario line and an operation index, each `NONE` when there is
/// none (lines and operations are far below `u32::MAX`; two words keep a step head small).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Origin {
    line: u32,
    op: u32,
}

impl Origin {
    const NONE: u32 = u32::MAX;
    const BOOT: Origin = Origin {
        line: Origin::NONE,
        op: Origin::NONE,
    };

    fn get(v: u32) -> Option<u32> {
        (v != Origin::NONE).then_some(v)
    }
}

/// A recorded step: its texts and where its events and arguments end in the arenas.
#[derive(Clone, Debug)]
struct StepHead {
    function: &'static str,
    path: &'static str,
    key: &'static str,
    origin: Origin,
    events: Mark,
    events_end: u32,
    args: Mark,
    args_end: u32,
}

/// The step being recorded.
#[derive(Clone, Debug)]
struct OpenStep {
    function: &'static str,
    path: &'static str,
    key: &'static str,
    origin: Origin,
    events: Mark,
    args: Mark,
}

impl OpenStep {
    const NONE: OpenStep = OpenStep {
        function: "",
        path: "",
        key: "",
        origin: Origin::BOOT,
        events: Mark { chunk: 0, index: 0 },
        args: Mark { chunk: 0, index: 0 },
    };
}

pub struct Recorder {
    machine: Machine,
    record: bool,
    heads: Arena<StepHead>,
    /// Every recorded event, step after step.
    events: Arena<Event>,
    /// Every recorded caption argument, step after step.
    args: Arena<(&'static str, Arg)>,
    /// `(cursor, machine at that cursor)`, in cursor order; the first is the booted machine.
    keyframes: Vec<(usize, Machine)>,
    /// Bytes the last keyframe holds.
    keyframe_bytes: usize,
    /// Bytes of events recorded since the last keyframe.
    bytes_since_keyframe: usize,
    /// The open step's texts and marks (meaningful only when recording and `depth > 0`).
    open: OpenStep,
    /// 0 when no step is open; else 1 plus the nested `begin`s inside the open step.
    depth: usize,
    /// `record || depth == 0`: an emitted event needs `file` (kept, or opening a step). Kept
    /// by `begin`/`end` so that `emit` tests one flag.
    filing: bool,
    /// `record && depth == 1`: caption arguments are kept. Kept by `begin`/`end` so that `arg`
    /// tests one flag.
    keeping_args: bool,
    /// Steps taken, recorded or not.
    cursor: usize,
    /// The origin of the steps recorded from now on.
    origin: Origin,
    /// Micro-steps are kept (`keep_micro`).
    /// The scenario's teaching switches, for every path it runs (sequential or interleaved).
    teaching: crate::smp::Teaching,
    keep_micro: bool,
    /// Micro-steps are kept for this step only (`keep_micro_of`).
    micro_of: Option<usize>,
    /// Every kept micro-step, in order (single-item runs: indexable).
    micro: Arena<MicroEntry>,
    /// Micro-steps kept since the last step closed: the next step to close takes them (a
    /// path's first loads come before the step its path opens).
    micro_since: u32,
    /// The open step is an interleaved run's micro-step (`open_micro_step`).
    in_micro_step: bool,
    /// Where each step's micro-steps end in `micro` (a step's start is the previous step's
    /// end); empty until a micro-step is kept, so a run that keeps none pays nothing.
    micro_ends: Vec<u32>,
}

impl Recorder {
    /// Starts a trace at the booted machine. `record = false` keeps no steps (benchmarks).
    pub fn new(machine: Machine, record: bool) -> Self {
        let (keyframes, keyframe_bytes) = if record {
            (vec![(0, machine.clone())], machine_bytes(&machine))
        } else {
            (Vec::new(), 0)
        };
        Recorder {
            machine,
            record,
            heads: Arena::new(),
            events: Arena::new(),
            args: Arena::new(),
            keyframes,
            keyframe_bytes,
            bytes_since_keyframe: 0,
            open: OpenStep::NONE,
            depth: 0,
            filing: true,
            keeping_args: false,
            cursor: 0,
            origin: Origin::BOOT,
            keep_micro: false,
            teaching: crate::smp::Teaching::default(),
            micro_of: None,
            micro: Arena::new(),
            micro_since: 0,
            in_micro_step: false,
            micro_ends: Vec::new(),
        }
    }

    /// Keeps, from now on, the micro-steps each step is made of (`Step::micro`). Off by
    /// default: a long sequential run does not pay for them.
    pub fn keep_micro(&mut self, keep: bool) {
        self.keep_micro = keep && self.record;
    }

    /// Keeps the micro-steps of step `step` only (0-based): what a viewer asks for when a
    /// person opens one step of a sequential run, run again (the run is deterministic).
    pub fn keep_micro_of(&mut self, step: usize) {
        self.keep_micro = self.record;
        self.micro_of = Some(step);
    }

    /// Whether micro-steps are kept.
    pub fn keeps_micro(&self) -> bool {
        self.keep_micro
    }

    /// Notes micro-step `micro` of task `task` in the open step (or the next one to open).
    #[inline]
    pub fn micro(&mut self, task: u16, micro: Micro) {
        if self.keep_micro && self.micro_of.is_none_or(|s| s == self.cursor) {
            self.push_micro(task, micro);
        }
    }

    /// A micro-step boundary: the micro-step noted last, if it belongs to the step being
    /// built, ends here (its `events_through` counts what it applied after its note).
    pub fn micro_boundary(&mut self) {
        if self.micro.len() as u32 > self.micro_since && self.depth > 0 {
            let through = self.events.end() - self.open.events.index;
            if let Some(last) = self.micro.last_mut() {
                last.events_through = through;
            }
        }
    }

    #[inline(never)]
    fn push_micro(&mut self, task: u16, micro: Micro) {
        let events_through = if self.depth > 0 {
            self.events.end() - self.open.events.index
        } else {
            0
        };
        self.micro.mark(1);
        self.micro.push(MicroEntry {
            task,
            micro,
            events_through,
        });
    }

    /// The global indices of step `i`'s micro-steps.
    fn micro_range(&self, i: usize) -> std::ops::Range<u32> {
        let start = i
            .checked_sub(1)
            .and_then(|p| self.micro_ends.get(p))
            .copied()
            .unwrap_or(0);
        let end = self.micro_ends.get(i).copied().unwrap_or(start);
        start..end
    }

    /// Sets the scenario's teaching switches (`teaching no_tid`) for the paths it runs.
    pub fn set_teaching(&mut self, teaching: crate::smp::Teaching) {
        self.teaching = teaching;
    }

    pub fn teaching(&self) -> crate::smp::Teaching {
        self.teaching
    }

    /// The micro-steps recorded in step `i` (none for a step that kept none).
    pub fn step_micro(&self, i: usize) -> impl Iterator<Item = &MicroEntry> + '_ {
        self.micro_range(i)
            .filter_map(move |k| self.micro.get(k as usize))
    }

    /// Opens a call as `call` does (a step, or a call joining the open step) and returns
    /// whether it opened a step. For `smp::Call`, which closes it with `close_call` when
    /// dropped.
    #[inline(always)]
    pub(crate) fn open_call(
        &mut self,
        function: &'static str,
        path: &'static str,
        key: &'static str,
    ) -> bool {
        self.begin(function, path, key);
        self.depth == 1
    }

    /// Closes what `open_call` opened.
    #[inline(always)]
    pub(crate) fn close_call(&mut self) {
        self.end();
    }

    /// Sets the path of the open step (a path found after the step opened).
    pub(crate) fn set_path(&mut self, path: &'static str) {
        if self.depth == 1 {
            self.open.path = path;
        }
    }

    /// Opens the step of one micro-step of an interleaved run (the executor's, paired with
    /// `close_micro_step`): the kernel code the task runs joins it as a nested call would,
    /// adding no caption arguments.
    pub(crate) fn open_micro_step(&mut self) {
        self.keep_micro = self.record;
        self.begin("", "", "");
        self.keeping_args = false;
        self.in_micro_step = true;
    }

    /// Closes the step `open_micro_step` opened, named after the kernel function the task is
    /// in and captioned by its (first) micro-step.
    pub(crate) fn close_micro_step(&mut self, function: &'static str, path: &'static str) {
        if self.record {
            let first = self.micro.get(self.micro_since as usize).map(|e| e.micro);
            self.open.function = function;
            self.open.path = path;
            if let Some(micro) = first {
                self.open.key = micro.key();
                for (name, arg) in micro.args() {
                    self.args.push((name, arg));
                }
            }
        }
        self.in_micro_step = false;
        self.end();
    }

    /// The scenario line and operation the next steps belong to (`None`, `None`: boot). Set
    /// between steps; a step keeps the origin it was opened under.
    pub fn set_origin(&mut self, line: Option<u32>, op: Option<u32>) {
        self.origin = Origin {
            line: line.unwrap_or(Origin::NONE),
            op: op.unwrap_or(Origin::NONE),
        };
    }

    /// Sets the origin of the open step too (a step that learns its operation after it
    /// opened: an interleaved run's first micro-step of an operation).
    pub fn set_step_origin(&mut self, line: Option<u32>, op: Option<u32>) {
        self.set_origin(line, op);
        if self.depth > 0 {
            self.open.origin = self.origin;
        }
    }

    /// The live machine (at `cursor()`).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Number of recorded steps.
    pub fn step_count(&self) -> usize {
        self.heads.len()
    }

    /// Number of recorded events.
    pub fn event_count(&self) -> usize {
        self.events.len()
    }

    /// Recorded step `i` (0-based: the step that leads from cursor `i` to `i + 1`).
    pub fn step(&self, i: usize) -> Option<Step<'_>> {
        let head = self.heads.get(i)?;
        let args = self
            .args
            .slice(head.args, head.args_end)
            .iter()
            .map(|(name, arg)| (*name, self.show(arg)))
            .collect();
        Some(Step {
            function: head.function,
            path: head.path,
            line: Origin::get(head.origin.line),
            op: Origin::get(head.origin.op),
            caption: Caption {
                key: head.key,
                args,
            },
            events: self.events.slice(head.events, head.events_end),
            micro: self
                .micro_range(i)
                .filter_map(|i| self.micro.get(i as usize).copied())
                .collect(),
        })
    }

    /// The operation recorded step `i` belongs to (cheaper than `step(i).op`).
    pub fn step_op(&self, i: usize) -> Option<u32> {
        self.heads.get(i).and_then(|h| Origin::get(h.origin.op))
    }

    /// Every recorded step, in order.
    pub fn steps(&self) -> Vec<Step<'_>> {
        (0..self.heads.len()).filter_map(|i| self.step(i)).collect()
    }

    /// A micro-step's caption: its `micro.*` key and its arguments, cache ids shown by name.
    pub fn micro_caption(&self, micro: &Micro) -> Caption {
        Caption {
            key: micro.key(),
            args: micro
                .args()
                .iter()
                .map(|(name, arg)| (*name, self.show(arg)))
                .collect(),
        }
    }

    fn show(&self, arg: &Arg) -> Shown {
        match arg {
            Arg::Num(n) => Shown::Num(*n),
            Arg::Addr(a) => Shown::Text(format!("{a:#x}")),
            Arg::Cache(c) => Shown::Text(
                self.machine
                    .cache_name(*c)
                    .map_or_else(|| format!("cache {c}"), str::to_string),
            ),
            Arg::Word(w) => Shown::Text((*w).to_string()),
            Arg::Text(t) => Shown::Text(t.to_string()),
        }
    }

    /// Runs `f` as kernel function `function` taking `path`, with caption `key`: a step of its
    /// own, or, inside an open step, a nested call whose events join that step. The step is
    /// closed when `f` returns, whatever it returns.
    // Inlined: with recording off a step is only a counter, so the hot paths pay next to
    // nothing for their steps; the recording work is out of line.
    #[inline(always)]
    pub fn call<R>(
        &mut self,
        function: &'static str,
        path: &'static str,
        key: &'static str,
        f: impl FnOnce(&mut Recorder) -> R,
    ) -> R {
        self.begin(function, path, key);
        let result = f(self);
        self.end();
        result
    }

    /// Opens a step, or, inside an open step, a nested call whose events join it. Private:
    /// only `call` and `file` open steps, and each closes what it opens.
    #[inline]
    fn begin(&mut self, function: &'static str, path: &'static str, key: &'static str) {
        self.depth += 1;
        if self.depth == 1 {
            self.filing = self.record;
            if self.record {
                self.open_step(function, path, key);
            }
        } else {
            self.keeping_args = false;
        }
    }

    /// `begin` of a step that is recorded.
    #[inline(never)]
    fn open_step(&mut self, function: &'static str, path: &'static str, key: &'static str) {
        self.open = OpenStep {
            function,
            path,
            key,
            origin: self.origin,
            events: self.events.mark(EVENTS_ROOM),
            args: self.args.mark(ARGS_ROOM),
        };
        self.keeping_args = true;
    }

    /// Whether steps are being kept.
    pub fn recording(&self) -> bool {
        self.record
    }

    /// Adds a caption argument to the open step (nested calls add none; nothing is kept when
    /// not recording).
    #[inline]
    pub fn arg(&mut self, name: &'static str, value: impl Into<Arg>) {
        debug_assert!(!self.keeping_args || (self.record && self.depth == 1));
        if self.keeping_args {
            self.args.push((name, value.into()));
        }
    }

    /// Adds cache `cache`, shown by name, as a caption argument.
    #[inline]
    pub fn arg_cache(&mut self, name: &'static str, cache: CacheId) {
        self.arg(name, Arg::Cache(cache));
    }

    /// Adds an address, shown in hex, as a caption argument.
    #[inline]
    pub fn arg_addr(&mut self, name: &'static str, addr: u64) {
        self.arg(name, Arg::Addr(addr));
    }

    /// Applies an event to the machine and files it in the open step (opening an anonymous
    /// one if none is open, so no change ever goes unrecorded).
    // Inlined so that, at each call site, the event's variant is known and `apply` reduces to
    // the arm that applies it (no dispatch on the hot paths), and so is the drop of an event
    // not kept: for the variants that own no heap memory it is nothing at all.
    #[inline(always)]
    pub fn emit(&mut self, event: Event) {
        self.machine.apply(&event);
        debug_assert_eq!(self.filing, self.record || self.depth == 0);
        if self.filing {
            // Applying first changes nothing: opening a step does not touch the machine.
            self.file(event);
        } else if event.owns_heap() {
            drop(event);
        } else {
            // Nothing to free: skip the (out-of-line) destructor of the whole enum.
            std::mem::forget(event);
        }
    }

    /// Files an applied event in the open step; an event emitted outside every step becomes
    /// an anonymous step of its own.
    #[inline(never)]
    fn file(&mut self, event: Event) {
        let anonymous = self.depth == 0;
        if anonymous {
            self.begin("(internal)", "", "step.internal");
        }
        if self.record {
            self.bytes_since_keyframe += std::mem::size_of::<Event>() + event.heap_bytes();
            self.events.push(event);
        }
        if anonymous {
            self.end();
        }
    }

    /// True between operations: no step open.
    pub fn is_idle(&self) -> bool {
        self.depth == 0
    }

    /// Closes the open step (or the innermost nested call). Private, like `begin`.
    #[inline]
    fn end(&mut self) {
        match self.depth {
            0 => {}
            1 => {
                self.depth = 0;
                self.cursor += 1;
                self.filing = true;
                if self.record {
                    self.keeping_args = false;
                    self.close_step();
                }
            }
            2 => {
                self.depth = 1;
                self.keeping_args = self.record && !self.in_micro_step;
            }
            _ => self.depth -= 1,
        }
    }

    /// `end` of a recorded step: files its head and takes a keyframe when one is due.
    #[inline(never)]
    fn close_step(&mut self) {
        // The step's last micro-step ends with it.
        if self.micro.len() as u32 > self.micro_since {
            let through = self.events.end() - self.open.events.index;
            if let Some(last) = self.micro.last_mut() {
                last.events_through = through;
            }
        }
        let step = &self.open;
        self.heads.mark(1);
        self.heads.push(StepHead {
            function: step.function,
            path: step.path,
            key: step.key,
            origin: step.origin,
            events: step.events,
            events_end: self.events.end(),
            args: step.args,
            args_end: self.args.end(),
        });
        if self.keep_micro || !self.micro_ends.is_empty() {
            // Steps closed before micro-steps were kept end where the first kept one starts.
            let step = self.heads.len() - 1;
            self.micro_ends.resize(step, self.micro_since);
            self.micro_ends.push(self.micro.len() as u32);
        }
        self.micro_since = self.micro.len() as u32;
        let last = self.keyframes.last().map_or(0, |k| k.0);
        if self.cursor - last >= KEYFRAME_MIN_STEPS
            && self.bytes_since_keyframe >= self.keyframe_bytes * EVENT_BYTES_PER_KEYFRAME_BYTE
        {
            self.keyframes.push((self.cursor, self.machine.clone()));
            self.keyframe_bytes = machine_bytes(&self.machine);
            self.bytes_since_keyframe = 0;
        }
    }

    /// Applies the recorded steps `from..to` to `machine`, which must be the machine at `from`
    /// (a viewer stepping forward continues from the state it has instead of a keyframe).
    pub fn replay(&self, machine: &mut Machine, from: usize, to: usize) {
        for i in from..to.min(self.heads.len()) {
            for event in self.step_events(i) {
                machine.apply(event);
            }
        }
    }

    /// Applies recorded step `i` to `machine`, which must be the machine at cursor `i`,
    /// showing `inspect` each event with the machine just before the event is applied (the
    /// invariant checker reads there what an event is about to change: the old `c->slab`, the
    /// neighbours a list entry is taken from).
    pub fn replay_step_inspecting(
        &self,
        machine: &mut Machine,
        i: usize,
        mut inspect: impl FnMut(&Machine, &Event),
    ) {
        for event in self.step_events(i) {
            inspect(machine, event);
            machine.apply(event);
        }
    }

    /// Whether a keyframe was taken at `cursor` (when, is this file's private policy).
    pub fn is_keyframe(&self, cursor: usize) -> bool {
        self.keyframes
            .binary_search_by_key(&cursor, |(at, _)| *at)
            .is_ok()
    }

    /// The cursor of the keyframe `snapshot_at(cursor)` starts from.
    pub fn keyframe_before(&self, cursor: usize) -> usize {
        let k = self.keyframes.partition_point(|(at, _)| *at <= cursor);
        k.checked_sub(1).map_or(0, |k| self.keyframes[k].0)
    }

    /// The events of step `i`.
    pub fn step_events(&self, i: usize) -> &[Event] {
        self.heads
            .get(i)
            .map_or(&[], |h| self.events.slice(h.events, h.events_end))
    }

    /// The machine after `cursor` steps; `None` past the end or when not recording (except for
    /// the live cursor).
    pub fn snapshot_at(&self, cursor: usize) -> Option<Machine> {
        if cursor == self.cursor && self.depth == 0 {
            return Some(self.machine.clone());
        }
        if !self.record || cursor > self.heads.len() {
            return None;
        }
        let k = self.keyframes.partition_point(|(at, _)| *at <= cursor) - 1;
        let (at, keyframe) = &self.keyframes[k];
        let mut machine = keyframe.clone();
        for i in *at..cursor {
            let head = self.heads.get(i)?;
            for event in self.events.slice(head.events, head.events_end) {
                machine.apply(event);
            }
        }
        Some(machine)
    }
}

/// Heap bytes a value holds beyond its own `size_of` (an account of what the trace costs, for
/// `npm run bench`; allocator overhead is not counted).
trait HeapBytes {
    fn heap_bytes(&self) -> usize;
}

impl<I, T> HeapBytes for TiVec<I, T> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * std::mem::size_of::<T>()
    }
}

impl<T> HeapBytes for Vec<T> {
    fn heap_bytes(&self) -> usize {
        self.capacity() * std::mem::size_of::<T>()
    }
}

impl HeapBytes for Event {
    fn heap_bytes(&self) -> usize {
        match self {
            Event::CacheCreated(new) => {
                std::mem::size_of::<crate::trace::NewCache>()
                    + new.random_seq.as_ref().map_or(0, |s| s.capacity() * 4)
                    + new.name.capacity()
                    + new.geometry.cache.as_ref().map_or(0, String::capacity)
            }
            Event::CacheAliased { alias, .. } | Event::CacheUnaliased { alias, .. } => {
                alias.capacity()
            }
            Event::SlabCreated { freelist, .. } => std::mem::size_of_val(&**freelist),
            Event::DetachedFreelistBuilt(df) | Event::DetachedFreelistReversed(df) => {
                std::mem::size_of::<crate::trace::DetachedFreelist>()
                    + df.objects.heap_bytes()
                    + df.array.heap_bytes()
            }
            Event::Slab(e) => e.heap_bytes(),
            _ => 0,
        }
    }
}

impl HeapBytes for SlubState {
    fn heap_bytes(&self) -> usize {
        let caches: usize = self
            .caches
            .iter()
            .map(|c| {
                c.name.capacity()
                    + c.cpu.heap_bytes()
                    + c.node.heap_bytes()
                    + c.node.iter().map(|n| n.partial.heap_bytes()).sum::<usize>()
                    + c.aliases.iter().map(String::capacity).sum::<usize>()
            })
            .sum();
        self.caches.heap_bytes() + caches + self.slabs.heap_bytes()
    }
}

impl HeapBytes for Machine {
    fn heap_bytes(&self) -> usize {
        let alloc = match &self.alloc {
            AllocatorState::Slub(s) => s.heap_bytes(),
            AllocatorState::Slab(s) => s.heap_bytes(),
        };
        self.frames.heap_bytes()
            + self.zones.heap_bytes()
            + self
                .zones
                .iter()
                .map(|z| z.free_area.heap_bytes())
                .sum::<usize>()
            + self.pcp.heap_bytes()
            + alloc
            + self.cpu_node.heap_bytes()
            + self.damage.heap_bytes()
            + self.rcu.heap_bytes()
    }
}

impl Recorder {
    /// Bytes the recorded trace holds: steps with their events, and keyframes (an account of
    /// the data structures, for `npm run bench`).
    pub fn trace_bytes(&self) -> usize {
        let args: usize = self
            .args
            .iter()
            .map(|(_, a)| match a {
                Arg::Text(t) => t.len(),
                _ => 0,
            })
            .sum();
        let events: usize = self.events.iter().map(HeapBytes::heap_bytes).sum();
        let keyframes: usize = self.keyframes.iter().map(|(_, k)| machine_bytes(k)).sum();
        self.heads.heap_bytes()
            + self.events.heap_bytes()
            + events
            + self.args.heap_bytes()
            + args
            + self.keyframes.heap_bytes()
            + keyframes
    }
}

/// Bytes a copy of the machine holds.
fn machine_bytes(m: &Machine) -> usize {
    std::mem::size_of::<Machine>() + m.heap_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The trace's memory per step rests on these sizes (`npm run bench` reports the total).
    #[test]
    fn events_and_arguments_stay_small() {
        assert!(
            std::mem::size_of::<Event>() <= 32,
            "{}",
            std::mem::size_of::<Event>()
        );
        assert!(std::mem::size_of::<Arg>() <= 24);
        // Texts, the origin (line and operation: 8 bytes) and the two runs' ends.
        assert!(
            std::mem::size_of::<StepHead>() <= 80,
            "{}",
            std::mem::size_of::<StepHead>()
        );
    }

    fn booted() -> Recorder {
        let config = crate::machine::MachineConfig {
            cpus: 1,
            nodes: 1,
            cpu_node: vec![],
            page_size: 4096,
            pages_per_node: 64,
            pcp_batch: None,
            pcp_high: None,
        };
        Recorder::new(Machine::new(config).unwrap(), true)
    }

    fn released(pfn: u32) -> Event {
        Event::PagesReleased {
            pfn: Pfn(pfn),
            order: 0,
        }
    }

    /// A call inside a call joins its step: one step with both calls' events, the outer
    /// call's function and arguments only, and the step closed when the outer call returns,
    /// whatever path it returns by.
    #[test]
    fn a_nested_call_joins_the_open_step_and_the_outer_call_closes_it() {
        let mut rec = booted();
        let value = rec.call("outer", "path", "step.outer", |rec| {
            rec.arg("a", 1u32);
            rec.emit(released(1));
            let inner = rec.call("inner", "other", "step.inner", |rec| {
                rec.arg("ignored", 2u32);
                rec.emit(released(2));
                7
            });
            rec.arg("b", 3u32);
            inner + 1
        });
        assert_eq!(value, 8);
        assert!(rec.is_idle());
        assert_eq!(rec.step_count(), 1);
        let step = rec.step(0).unwrap();
        assert_eq!((step.function, step.path), ("outer", "path"));
        let names: Vec<&str> = step.caption.args.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(step.events, [released(1), released(2)]);
    }

    /// An event emitted between calls is a step of its own, closed at once: the next call
    /// opens a new step instead of joining it.
    #[test]
    fn an_event_outside_every_call_is_a_closed_step_of_its_own() {
        let mut rec = booted();
        rec.emit(released(1));
        assert!(rec.is_idle());
        rec.call("next", "path", "step.next", |rec| rec.emit(released(2)));
        assert_eq!(rec.step_count(), 2);
        assert_eq!(rec.step(0).unwrap().function, "(internal)");
        assert_eq!(rec.step(0).unwrap().events, [released(1)]);
        assert_eq!(rec.step(1).unwrap().events, [released(2)]);
    }
}
