//! Scenario format v1: a text a teacher can write by hand, versioned on its first line, naming
//! the machine, kernel profile, switches, seed, caches and operations (each with the CPU that
//! runs it and names for its results). docs/scenario-format.md describes it with examples.
//!
//! Rules: everything in a scenario is untrusted input — sizes and counts are bounded, and every
//! mistake is a `ParseError` with line, column and a hint, never a panic.

mod ast;
mod error;
mod lex;
mod parse;
mod run;
mod site;

pub use ast::{Allocator, CacheDecl, Op, OpLine, Ref, Scenario, Switches, Target};
pub use error::ParseError;
pub use parse::{parse, MAGIC, MAX_BULK, MAX_REPEAT, MAX_TEXT, PROFILES, VERSION};
pub use run::{run, run_with_summary, RunError, RunSummary, Value, MAX_RUN_OPS, MAX_RUN_STEPS};
pub use site::{call_site_address, call_site_name};

#[cfg(test)]
mod tests;
