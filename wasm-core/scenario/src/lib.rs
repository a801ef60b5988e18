//! The scenario format (versions 1 and 2): a text a teacher can write by hand, versioned on its
//! first line, naming the machine, kernel profile, switches, seed, caches and operations (each
//! with the CPU that runs it and names for its results); format 2 adds list lines and `print`.
//! docs/scenario-format.md describes it with examples.
//!
//! Role: the language alone — lexer, parser, syntax tree, errors and limits. This crate knows
//! nothing of the simulator: a scenario's flags, gfp names, allocator and machine are the
//! language's own values, and `slabscope-run` translates them into kernel-level calls.
//!
//! Rules: everything in a scenario is untrusted input — sizes and counts are bounded
//! (`limits.rs`), and every mistake is a `ParseError` with line, column and a hint, never a
//! panic.

mod ast;
mod error;
pub mod gfp;
mod lex;
pub mod limits;
mod machine;
mod parse;

pub use ast::{
    Allocator, Block, CacheDecl, CacheFlags, ListExpr, Op, OpLine, PrintFile, Ref, Scenario,
    ScheduleDecl, ScheduleStep, SlubDebug, Statement, StatementLine, Switches, Target, TaskSlot,
};
pub use error::ParseError;
pub use gfp::Gfp;
pub use limits::MAX_TEXT;
pub use machine::{MachineDecl, MachineError};
pub use parse::{parse, CACHE_ARGS_SINCE, MAGIC, PROFILES, SLAB_REMOVED, VERSION, VERSIONS};
