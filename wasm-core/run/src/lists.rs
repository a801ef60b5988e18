//! Format 2's lists built from earlier results: `[…]`, `reverse(…)`, `interleave(…)`, as a
//! list line or a `for` loop reads them.
//!
//! Rules: a list is flat (a list inside `[…]` adds each of its elements); building one copies
//! values, never runs kernel code. Every element a list line puts together, and every element
//! of a built list a loop walks, counts against `MAX_LIST_ELEMENTS` for the whole run, so a
//! short text cannot double a list line after line into gigabytes. A loop over a plain list or
//! slice (format 1's loop) costs nothing here: its operations are bounded by `MAX_RUN_OPS`.

use crate::run::{resolve, resolve_list, RunError, Value};
use slabscope_scenario::{ListExpr, Ref};
use std::collections::BTreeMap;

/// The most elements list lines (and loops over built lists) may put together in one run.
pub const MAX_LIST_ELEMENTS: usize = 2_000_000;

/// The values of `expr`. `copy`: a plain list or slice is charged too (a list line copies it).
pub(crate) fn eval_list(
    line: u32,
    expr: &ListExpr,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
    budget: &mut usize,
    copy: bool,
) -> Result<Vec<Value>, RunError> {
    let mut charge = |n: usize| -> Result<(), RunError> {
        *budget = budget.checked_sub(n).ok_or(RunError::ListTooLong {
            line,
            max: MAX_LIST_ELEMENTS,
        })?;
        Ok(())
    };
    match expr {
        // A loop over a list or a slice reads it as format 1 always did.
        ListExpr::Ref { of } if !copy => resolve_list(line, of, names, lists),
        ListExpr::Ref { of } => {
            let values = item(line, of, names, lists)?;
            charge(values.len())?;
            Ok(values)
        }
        ListExpr::Items { items } => {
            let mut out = Vec::new();
            for r in items {
                let values = item(line, r, names, lists)?;
                charge(values.len())?;
                out.extend(values);
            }
            Ok(out)
        }
        ListExpr::Reverse { of } => {
            let mut values = resolve_list(line, of, names, lists)?;
            charge(values.len())?;
            values.reverse();
            Ok(values)
        }
        ListExpr::Interleave { lists: refs } => {
            let mut parts = Vec::with_capacity(refs.len());
            for r in refs {
                let part = resolve_list(line, r, names, lists)?;
                charge(part.len())?;
                parts.push(part);
            }
            let longest = parts.iter().map(Vec::len).max().unwrap_or(0);
            Ok((0..longest)
                .flat_map(|i| parts.iter().filter_map(move |p| p.get(i).cloned()))
                .collect())
        }
    }
}

/// One part of a list: a list or a slice of one (each element), or one object. A name that is
/// both is read as the list, as the parser reads it.
fn item(
    line: u32,
    r: &Ref,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
) -> Result<Vec<Value>, RunError> {
    match r {
        Ref::Name { name } if !lists.contains_key(name) && names.contains_key(name) => {
            Ok(vec![resolve(line, r, names, lists)?])
        }
        _ => resolve_list(line, r, names, lists),
    }
}
