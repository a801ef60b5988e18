//! Format 3's `concurrent` blocks: operation lines that run on their CPUs at once, interleaved
//! at the kernel's micro-steps by a schedule, and the `teaching` line.
//!
//! ```text
//! concurrent explicit              # or: concurrent, concurrent random seed=7 preempt
//!   a = kmem_cache_alloc(t) on cpu0
//!   b = kmem_cache_alloc(t) on cpu0 task 1
//!   kfree(x) on cpu1 irq
//!   schedule cpu0:3 preempt(cpu0, cpu1) cpu0:2 irq(cpu1)
//! end
//! ```

use super::line::Line;
use super::Parser;
use crate::ast::{Block, ScheduleDecl, ScheduleStep, TaskSlot};
use crate::error::ParseError;
use crate::lex::Tok;

/// A block being read.
#[derive(Clone, Debug)]
pub(super) struct OpenBlock {
    pub line: u32,
    pub first_op: usize,
    pub schedule: ScheduleDecl,
}

/// Decisions a block's `schedule` lines may give in all.
const MAX_SCHEDULE_STEPS: u64 = 100_000;

impl Parser {
    /// `concurrent [round_robin | random [seed=N] [preempt] | explicit]`.
    pub(super) fn concurrent_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        line.pos += 1;
        self.require_version(line.number, col, "concurrent", 3)?;
        if let Some(open) = &self.block {
            return Err(line
                .err_at(
                    col,
                    "scenario.block_nested",
                    "a concurrent block is already open",
                )
                .arg("line", open.line)
                .hint("close it with `end` first"));
        }
        if self.machine.is_none() {
            return Err(line.err(
                "scenario.op_before_machine",
                "operations must come after the machine line",
            ));
        }
        let schedule = match line.peek().cloned() {
            None => ScheduleDecl::RoundRobin,
            Some(Tok::Word(w)) if w == "round_robin" => {
                line.pos += 1;
                ScheduleDecl::RoundRobin
            }
            Some(Tok::Word(w)) if w == "explicit" => {
                line.pos += 1;
                ScheduleDecl::Explicit { steps: Vec::new() }
            }
            Some(Tok::Word(w)) if w == "random" => {
                line.pos += 1;
                let (mut seed, mut preempt) = (0, false);
                while let Some(Tok::Word(w)) = line.peek().cloned() {
                    match w.as_str() {
                        "preempt" => {
                            line.pos += 1;
                            preempt = true;
                        }
                        "seed" => {
                            line.pos += 1;
                            line.expect_sym('=')?;
                            seed = line.number("scenario.expected_seed", "the seed")?;
                        }
                        _ => break,
                    }
                }
                ScheduleDecl::Random { seed, preempt }
            }
            Some(_) => {
                return Err(line
                    .err(
                        "scenario.bad_schedule",
                        "expected round_robin, random or explicit",
                    )
                    .hint("write `concurrent`, `concurrent random seed=1 preempt` or `concurrent explicit`"));
            }
        };
        line.finish()?;
        self.block = Some(OpenBlock {
            line: line.number,
            first_op: self.ops.len(),
            schedule,
        });
        Ok(())
    }

    /// `end`: closes the open block.
    pub(super) fn end_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        line.pos += 1;
        line.finish()?;
        let Some(open) = self.block.take() else {
            return Err(line
                .err_at(
                    col,
                    "scenario.end_without_block",
                    "`end` closes no concurrent block",
                )
                .hint("open one with `concurrent` first, or remove the line"));
        };
        if open.first_op == self.ops.len() {
            return Err(line
                .err_at(
                    col,
                    "scenario.empty_block",
                    "the concurrent block has no operation",
                )
                .arg("line", open.line)
                .hint("put operation lines between `concurrent` and `end`"));
        }
        self.blocks.push(Block {
            line: open.line,
            end_line: line.number,
            first_op: open.first_op,
            end_op: self.ops.len(),
            schedule: open.schedule,
        });
        Ok(())
    }

    /// `schedule cpuN[:K] preempt(cpuN[, cpuM]) irq(cpuN) ...`, in an explicit block.
    pub(super) fn schedule_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        line.pos += 1;
        let cpus = self.machine.as_ref().map_or(1, |m| m.cpus);
        let Some(OpenBlock {
            schedule: ScheduleDecl::Explicit { steps },
            ..
        }) = self.block.as_mut()
        else {
            return Err(line
                .err_at(
                    col,
                    "scenario.schedule_outside",
                    "a schedule line belongs in a `concurrent explicit` block",
                )
                .hint("open the block with `concurrent explicit`"));
        };
        let mut total: u64 = steps
            .iter()
            .map(|s| match s {
                ScheduleStep::Run { times, .. } => u64::from(*times),
                _ => 1,
            })
            .sum();
        while !line.at_end() {
            let col = line.col();
            let word = line.word(
                "scenario.expected_schedule_step",
                "cpuN, preempt(…) or irq(…)",
            )?;
            let step = match word.as_str() {
                "preempt" => {
                    line.expect_sym('(')?;
                    let cpu = schedule_cpu(line, cpus)?;
                    let to = if line.eat_sym(',') {
                        schedule_cpu(line, cpus)?
                    } else {
                        cpu
                    };
                    line.expect_sym(')')?;
                    ScheduleStep::Preempt { cpu, to }
                }
                "irq" => {
                    line.expect_sym('(')?;
                    let cpu = schedule_cpu(line, cpus)?;
                    line.expect_sym(')')?;
                    ScheduleStep::Irq { cpu }
                }
                _ => {
                    let cpu = cpu_number(&word, cpus).map_err(|e| e.at(line.number, col))?;
                    let times = if line.eat_sym(':') {
                        line.number("scenario.expected_count", "how many micro-steps")? as u32
                    } else {
                        1
                    };
                    ScheduleStep::Run { cpu, times }
                }
            };
            total += match step {
                ScheduleStep::Run { times, .. } => u64::from(times),
                _ => 1,
            };
            if total > MAX_SCHEDULE_STEPS {
                return Err(line
                    .err_at(
                        col,
                        "scenario.schedule_too_long",
                        format!("a block's schedule gives at most {MAX_SCHEDULE_STEPS} decisions"),
                    )
                    .arg("max", MAX_SCHEDULE_STEPS));
            }
            steps.push(step);
        }
        Ok(())
    }

    /// `teaching no_tid`.
    pub(super) fn teaching_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        line.pos += 1;
        self.require_version(line.number, col, "teaching", 3)?;
        let what = line.word("scenario.expected_teaching", "no_tid")?;
        if what != "no_tid" {
            return Err(line
                .err_at(
                    col + 9,
                    "scenario.unknown_teaching",
                    format!("'{what}' is not a teaching switch"),
                )
                .arg("name", &what)
                .hint("the teaching switch is `no_tid`"));
        }
        line.finish()?;
        self.teaching_no_tid = true;
        Ok(())
    }

    /// After `on cpuN` of an operation line: `task K` or `irq`, only inside a block.
    pub(super) fn task_slot(&self, line: &mut Line) -> Result<TaskSlot, ParseError> {
        let col = line.col();
        let slot = match line.peek() {
            Some(Tok::Word(w)) if w == "task" => {
                line.pos += 1;
                let n = line.number("scenario.expected_task", "a task number")?;
                match u32::try_from(n) {
                    Ok(0) => TaskSlot::Main,
                    Ok(n) if n <= 16 => TaskSlot::Other(n),
                    _ => {
                        return Err(line
                            .err_at(col, "scenario.task_number", "a CPU has tasks 0 to 16")
                            .arg("max", 16));
                    }
                }
            }
            Some(Tok::Word(w)) if w == "irq" => {
                line.pos += 1;
                TaskSlot::Irq
            }
            _ => return Ok(TaskSlot::Main),
        };
        if self.block.is_none() {
            return Err(line
                .err_at(
                    col,
                    "scenario.task_outside_block",
                    "tasks and interrupts belong in a concurrent block",
                )
                .hint("put the line between `concurrent` and `end`"));
        }
        Ok(slot)
    }

    /// Lines that cannot stand in a block.
    pub(super) fn outside_block(&self, line: &Line, what: &str) -> Result<(), ParseError> {
        match &self.block {
            Some(open) => Err(line
                .err(
                    "scenario.not_in_block",
                    format!("`{what}` cannot stand in a concurrent block"),
                )
                .arg("what", what)
                .arg("line", open.line)
                .hint("move it before `concurrent` or after `end`")),
            None => Ok(()),
        }
    }
}

/// `cpuN` inside `preempt(…)`/`irq(…)`.
fn schedule_cpu(line: &mut Line, cpus: u32) -> Result<u32, ParseError> {
    let col = line.col();
    let w = line.word("scenario.expected_cpu", "a CPU such as cpu0")?;
    cpu_number(&w, cpus).map_err(|e| e.at(line.number, col))
}

/// N of the word `cpuN`, a CPU of the machine.
fn cpu_number(word: &str, cpus: u32) -> Result<u32, ParseError> {
    let Some(n) = word.strip_prefix("cpu").and_then(|n| n.parse::<u32>().ok()) else {
        return Err(
            ParseError::new(0, 0, "scenario.bad_cpu", format!("'{word}' is not a CPU"))
                .arg("cpu", word)
                .hint("write cpu0, cpu1, ..."),
        );
    };
    if n >= cpus {
        return Err(ParseError::new(
            0,
            0,
            "scenario.cpu",
            format!("cpu{n} does not exist: the machine has {cpus} CPUs"),
        )
        .arg("cpu", n)
        .arg("cpus", cpus)
        .arg("last", cpus - 1)
        .hint(format!("use cpu0 to cpu{}", cpus - 1)));
    }
    Ok(n)
}
