//! `Recorder`: owns the live `Machine`, applies every event to it and files the events into
//! steps; `snapshot_at(cursor)` rebuilds the machine at any step.
//!
//! Rules:
//! - Cursor 0 is the machine as booted; cursor `n` is the state after `n` steps.
//! - A step is what one press of "next" shows: one kernel-function-level action with a caption
//!   key and arguments (never text) and the events it made.
//! - Every `KEYFRAME_INTERVAL` steps a copy of the machine is kept; `snapshot_at` clones the
//!   nearest keyframe at or before the cursor and replays forward. The interval is private to
//!   this file.
//! - With recording off, events are applied and dropped: the machine is the same, the trace is
//!   empty and `snapshot_at` only answers for the live cursor.
//! - Steps nest: a `begin` while a step is open (a kernel function calling another, e.g.
//!   `discard_slab()` freeing pages) files its events into the open step, and its `end` only
//!   closes what it began. So every step boundary is a consistent state. Every `begin` needs
//!   its `end`.

use super::Event;
use crate::machine::Machine;
use serde::Serialize;

const KEYFRAME_INTERVAL: usize = 64;

/// A caption argument.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Arg {
    Num(u64),
    Text(String),
}

impl From<u32> for Arg {
    fn from(v: u32) -> Self {
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
impl From<&str> for Arg {
    fn from(v: &str) -> Self {
        Arg::Text(v.to_string())
    }
}

/// A caption: an i18n key and its named arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Caption {
    pub key: &'static str,
    pub args: Vec<(&'static str, Arg)>,
}

/// One step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The kernel function this step mirrors, e.g. `__free_one_page`.
    pub function: &'static str,
    /// The path taken, e.g. `pcp hit` or `refill from buddy`.
    pub path: &'static str,
    pub caption: Caption,
    pub events: Vec<Event>,
}

pub struct Recorder {
    machine: Machine,
    record: bool,
    steps: Vec<Step>,
    /// `keyframes[k]` is the machine at cursor `k * KEYFRAME_INTERVAL`.
    keyframes: Vec<Machine>,
    open: Option<Step>,
    /// Nested `begin`s inside the open step.
    depth: usize,
    /// Steps taken, recorded or not.
    cursor: usize,
}

impl Recorder {
    /// Starts a trace at the booted machine. `record = false` keeps no steps (benchmarks).
    pub fn new(machine: Machine, record: bool) -> Self {
        let keyframes = if record {
            vec![machine.clone()]
        } else {
            Vec::new()
        };
        Recorder {
            machine,
            record,
            steps: Vec::new(),
            keyframes,
            open: None,
            depth: 0,
            cursor: 0,
        }
    }

    /// The live machine (at `cursor()`).
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Opens a step, or, inside an open step, a nested call whose events join it.
    pub fn begin(&mut self, function: &'static str, path: &'static str, key: &'static str) {
        if self.open.is_some() {
            self.depth += 1;
            return;
        }
        self.open = Some(Step {
            function,
            path,
            caption: Caption {
                key,
                args: Vec::new(),
            },
            events: Vec::new(),
        });
    }

    /// Adds a caption argument to the open step (nested calls add none).
    pub fn arg(&mut self, name: &'static str, value: impl Into<Arg>) {
        if self.depth > 0 {
            return;
        }
        if let Some(step) = &mut self.open {
            step.caption.args.push((name, value.into()));
        }
    }

    /// Applies an event to the machine and files it in the open step (opening an anonymous
    /// one if none is open, so no change ever goes unrecorded).
    pub fn emit(&mut self, event: Event) {
        if self.open.is_none() {
            self.begin("(internal)", "", "step.internal");
        }
        self.machine.apply(&event);
        if self.record {
            if let Some(step) = &mut self.open {
                step.events.push(event);
            }
        }
    }

    /// True between operations: no step open.
    pub fn is_idle(&self) -> bool {
        self.open.is_none() && self.depth == 0
    }

    /// Closes the open step (or the innermost nested call).
    pub fn end(&mut self) {
        if self.depth > 0 {
            self.depth -= 1;
            return;
        }
        let Some(step) = self.open.take() else {
            return;
        };
        self.cursor += 1;
        if self.record {
            self.steps.push(step);
            if self.cursor % KEYFRAME_INTERVAL == 0 {
                self.keyframes.push(self.machine.clone());
            }
        }
    }

    /// The machine after `cursor` steps; `None` past the end or when not recording (except for
    /// the live cursor).
    pub fn snapshot_at(&self, cursor: usize) -> Option<Machine> {
        if cursor == self.cursor && self.open.is_none() {
            return Some(self.machine.clone());
        }
        if !self.record || cursor > self.steps.len() {
            return None;
        }
        let k = cursor / KEYFRAME_INTERVAL;
        let mut machine = self.keyframes[k].clone();
        for step in &self.steps[k * KEYFRAME_INTERVAL..cursor] {
            for event in &step.events {
                machine.apply(event);
            }
        }
        Some(machine)
    }
}
