//! Checking a recorded run: `TraceCheck` replays the recorder's steps on a copy of the
//! booted machine, checks what each step touched after it, and checks everything at every
//! keyframe and at the end (`FullChecks::Keyframes`, `slabscope run --check`) or after every
//! step or every few as well (`FullChecks::Every`, the test suite).
//!
//! Why keyframes: the recorder takes one once the events since the last are worth twice the
//! machine's bytes, so a full check there, which reads the whole machine, costs about what
//! replaying those events did: the run is checked in about the time it takes, whatever the
//! machine's size. The local check catches any corruption of what a step changed, at that
//! step; the full check catches anything outside the touched set (a bug in an event's account
//! of what it touches), at the next keyframe. The keyframes are also what every snapshot
//! restores, so each one the viewer starts from has been checked whole.
//!
//! A full check that fails after local checks passed is narrowed down: the steps since the
//! last full check that passed are replayed from the recorder with a full check after each,
//! and the first that fails is the one reported.
//!
//! Known damage (`machine::damage`) is a violation like any other: a run that frees to the
//! wrong cache unchecked fails at the step that did it, the damage reported first. Tests of
//! such runs go on past it with `check_step`, which reports each step's findings and stops
//! nowhere.

use super::{check_machine, Checker};
use crate::machine::Machine;
use crate::trace::Recorder;
use std::fmt;

/// When the whole machine is checked, beside the check of what each step touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FullChecks {
    /// At the start, at every keyframe and at the end.
    Keyframes,
    /// At the start, every this many steps (1: after every step), at every keyframe and at
    /// the end.
    Every(usize),
}

impl FullChecks {
    /// After every step.
    pub const EVERY_STEP: FullChecks = FullChecks::Every(1);
}

/// An invariant that does not hold after a step (step 0: the booted machine).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub step: usize,
    pub problems: Vec<String>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invariant violated after step {}:\n  {}",
            self.step,
            self.problems.join("\n  ")
        )
    }
}

/// What a clean check covered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceSummary {
    /// Steps checked (each for what it touched).
    pub steps: usize,
    /// Full checks made, the start and the end included.
    pub full_checks: usize,
}

/// What checking one step found (`TraceCheck::check_step`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepCheck {
    /// The cursor after the step (its number, counting from 1).
    pub step: usize,
    /// The check of what the step touched.
    pub local: Vec<String>,
    /// The check of everything, if one was due after this step.
    pub full: Option<Vec<String>>,
}

/// A check that follows a recorder step by step (see the module).
pub struct TraceCheck {
    /// The recorded machine at `cursor`, replayed.
    machine: Machine,
    cursor: usize,
    checker: Checker,
    full: FullChecks,
    /// The last cursor whose full check passed.
    last_full: usize,
    full_checks: usize,
}

impl TraceCheck {
    /// Starts at the booted machine of `rec` (which must be recording), with a full check.
    pub fn new(rec: &Recorder, full: FullChecks) -> Result<TraceCheck, Violation> {
        let machine = rec.snapshot_at(0).ok_or_else(|| Violation {
            step: 0,
            problems: vec!["the run was not recorded, so it cannot be replayed".into()],
        })?;
        let (checker, bad) = Checker::new(&machine);
        if !bad.is_empty() {
            return Err(Violation {
                step: 0,
                problems: bad,
            });
        }
        Ok(TraceCheck {
            machine,
            cursor: 0,
            checker,
            full,
            last_full: 0,
            full_checks: 1,
        })
    }

    /// Checks the recorded steps up to cursor `to` (or the last recorded step).
    pub fn advance(&mut self, rec: &Recorder, to: usize) -> Result<(), Violation> {
        while self.cursor < to.min(rec.step_count()) {
            let found = self.check_step(rec).expect("a recorded step");
            if !found.local.is_empty() {
                return Err(Violation {
                    step: found.step,
                    problems: found.local,
                });
            }
            if let Some(bad) = found.full.filter(|bad| !bad.is_empty()) {
                return Err(first_failure(rec, self.last_full, self.cursor, bad));
            }
        }
        Ok(())
    }

    /// Replays and checks the next recorded step, with a full check if one is due, and says
    /// what both found, whatever it is; `None` at the end of the recording.
    pub fn check_step(&mut self, rec: &Recorder) -> Option<StepCheck> {
        if self.cursor >= rec.step_count() {
            return None;
        }
        let TraceCheck {
            machine, checker, ..
        } = self;
        checker.begin(machine);
        rec.replay_step_inspecting(machine, self.cursor, |m, e| checker.before_event(m, e));
        self.cursor += 1;
        let local = self.checker.end(&self.machine);
        let due = match self.full {
            FullChecks::Every(n) => self.cursor % n.max(1) == 0,
            FullChecks::Keyframes => false,
        };
        let full = (due || rec.is_keyframe(self.cursor)).then(|| self.full_now());
        Some(StepCheck {
            step: self.cursor,
            local,
            full,
        })
    }

    /// Checks the rest of the run, and everything at its end.
    pub fn finish(mut self, rec: &Recorder) -> Result<TraceSummary, Violation> {
        self.advance(rec, rec.step_count())?;
        if self.last_full != self.cursor {
            self.full_check(rec)?;
        }
        Ok(TraceSummary {
            steps: self.cursor,
            full_checks: self.full_checks,
        })
    }

    /// The cursor checked up to.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The replayed machine at `cursor()`.
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The replayed machine, for tests that corrupt it.
    #[cfg(test)]
    pub(crate) fn machine_mut(&mut self) -> &mut Machine {
        &mut self.machine
    }

    fn full_check(&mut self, rec: &Recorder) -> Result<(), Violation> {
        let bad = self.full_now();
        if bad.is_empty() {
            return Ok(());
        }
        Err(first_failure(rec, self.last_full, self.cursor, bad))
    }

    /// The full check at the cursor, counted, and remembered if it passed.
    fn full_now(&mut self) -> Vec<String> {
        self.full_checks += 1;
        let bad = self.checker.full(&self.machine);
        if bad.is_empty() {
            self.last_full = self.cursor;
        }
        bad
    }
}

/// The first step after cursor `from` (whose full check passed) after which the recorded
/// machine fails a full check; else step `at` with `bad` (the machine checked there was not
/// the recorded one: a test corrupted it).
fn first_failure(rec: &Recorder, from: usize, at: usize, bad: Vec<String>) -> Violation {
    if let Some(mut m) = rec.snapshot_at(from) {
        for i in from..at {
            rec.replay(&mut m, i, i + 1);
            let problems = check_machine(&m);
            if !problems.is_empty() {
                return Violation {
                    step: i + 1,
                    problems,
                };
            }
        }
    }
    Violation {
        step: at,
        problems: bad,
    }
}

/// Checks a whole recorded run (see the module).
pub fn check_trace(rec: &Recorder, full: FullChecks) -> Result<TraceSummary, Violation> {
    TraceCheck::new(rec, full)?.finish(rec)
}
