//! Invariants of the whole machine, checked after every step by tests and by
//! `slabscope run --check`: the kernel's own `check_new_page()`/`bad_page()`,
//! `validate_slab()`/`on_freelist()` ideas, and the bookkeeping that must add up.
//!
//! Rules:
//! - Every invariant is written once, as a check of one item: a page block, a list entry, a
//!   list, a zone, a pcp, a slab, a per-CPU structure, a node list entry, a node's counters, an
//!   array cache. `check_machine` applies them to every item; the incremental checker
//!   (`incremental.rs`) applies the same functions to the items a step touched (`touched.rs`).
//! - What the item checks look up about the rest of the machine (which per-CPU structure or
//!   list holds a slab, how many objects of a slab sit in array caches) comes from an index
//!   built in one pass for a full check, or from a scan of the slab's own cache for a local
//!   one: two ways to find the same facts, one statement of the invariant.
//! - Invariants that are sums over the machine (frames on each list, slabs and objects per
//!   cache and node, objects held) are compared with `Totals`: computed from scratch by a full
//!   check, kept by the difference of what each step touched otherwise (`totals.rs`).

mod incremental;
pub(crate) mod pages;
mod problem;
mod totals;
mod touched;
mod trace;

#[cfg(test)]
mod tests;

pub use incremental::Checker;
pub(crate) use incremental::{check_touched_slab, check_touched_slub};
pub use problem::Problem;
pub(crate) use problem::{hex, messages, problem};
pub use trace::{check_trace, FullChecks, StepCheck, TraceCheck, TraceSummary, Violation};

pub(crate) use totals::check_live;
pub use totals::{SlabShare, Totals};
pub use touched::Touched;

use super::Machine;

/// Every invariant of the machine: the known damage an unchecked bad operation did
/// (`damage.rs`) first, then the page allocator's, its slab allocator's and RCU's.
pub fn check_machine(m: &Machine) -> Vec<String> {
    messages(machine_problems(m))
}

/// `check_machine`, each finding with its key and values (for a reader in another language).
pub fn machine_problems(m: &Machine) -> Vec<Problem> {
    check_with(m, &Totals::of(m))
}

/// `machine_problems` with the sums already computed.
fn check_with(m: &Machine, totals: &Totals) -> Vec<Problem> {
    let mut bad = Vec::new();
    super::damage::check_records(m, &mut bad);
    pages::check_all(m, totals, &mut bad);
    crate::allocator::ops(m).check_all(m, totals, &mut bad);
    crate::rcu::check::check_all(m, &mut bad);
    check_live(m, totals, &mut bad);
    bad
}

/// Every violation of the page allocator's invariants, worded for a person; empty when the
/// state is consistent.
pub fn check_page_allocator(m: &Machine) -> Vec<String> {
    let mut bad = Vec::new();
    pages::check_all(m, &Totals::of(m), &mut bad);
    messages(bad)
}
