//! Runs scenarios on the simulator: the one crate that sees both the scenario language
//! (`slabscope-scenario`) and the simulator core (`slabscope-sim`).
//!
//! Role: a parsed scenario's syntax tree becomes kernel-level calls — the machine, the boot
//! options, `kmem_cache_create()`, `kmalloc()`, ... (`translate.rs` for each value, `run.rs`
//! for each line) — recorded step by step; on a recorded run stand the visualizer's session
//! and the comparison of both allocators.
//!
//! Rules:
//! - Neither crate below knows the other: the simulator never sees a syntax tree, the language
//!   never a kernel type, so every crossing is written here.
//! - A run is deterministic: the same scenario text gives the same steps, byte for byte
//!   (tests/golden.rs).

pub mod compare;
pub mod concurrent;
pub mod explore;
pub mod explore_report;
mod lists;
pub mod live;
pub mod live_file;
pub mod overview;
pub mod print;
mod run;
pub mod session;
mod site;
pub mod translate;
pub mod wire;

pub use lists::MAX_LIST_ELEMENTS;
pub use print::{print_heading, print_text, sysfs_text, PrintMark};
pub use run::{
    micro_steps_of, run, run_with_progress, run_with_summary, RunError, RunProgress, RunSummary,
    Value, MAX_RUN_OPS, MAX_RUN_STEPS, PROGRESS_EVERY,
};

#[cfg(test)]
mod tests;
