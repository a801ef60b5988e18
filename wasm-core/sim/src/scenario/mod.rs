//! The scenario format (versions 1 and 2): a text a teacher can write by hand, versioned on its
//! first line, naming the machine, kernel profile, switches, seed, caches and operations (each
//! with the CPU that runs it and names for its results); format 2 adds list lines and `print`.
//! docs/scenario-format.md describes it with examples.
//!
//! Rules: everything in a scenario is untrusted input — sizes and counts are bounded, and every
//! mistake is a `ParseError` with line, column and a hint, never a panic.

mod ast;
mod error;
mod lex;
mod lists;
mod parse;
mod print;
mod run;
mod site;

pub use ast::{
    Allocator, CacheDecl, ListExpr, Op, OpLine, PrintFile, Ref, Scenario, Statement, StatementLine,
    Switches, Target,
};
pub use error::ParseError;
pub use lists::MAX_LIST_ELEMENTS;
pub use parse::{parse, MAGIC, MAX_BULK, MAX_REPEAT, MAX_TEXT, PROFILES, VERSION, VERSIONS};
pub use print::{print_heading, print_text, sysfs_text, PrintMark};
pub use run::{
    run, run_with_progress, run_with_summary, RunError, RunProgress, RunSummary, Value,
    MAX_RUN_OPS, MAX_RUN_STEPS, PROGRESS_EVERY,
};
pub use site::{call_site_address, call_site_name};

#[cfg(test)]
mod tests;
