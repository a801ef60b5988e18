//! Runs a parsed scenario through the recorder.
//!
//! This build simulates the page allocator operations (`alloc_pages`, `alloc_pages_node`,
//! `free_pages`, `drain_pages`). The slab operations parse but are refused with
//! `RunError::NotSimulated` until the SLUB and SLAB cores land; nothing pretends to run them.
//!
//! Bad operations are steps, not failures: freeing what is not allocated records the kernel's
//! "Bad page state" diagnostic and the run goes on; a failed allocation yields NULL.

use super::ast::{Allocator, Op, OpLine, Ref, Scenario, Target};
use crate::machine::{ConfigError, Machine, Owner, Pfn};
use crate::page_alloc::{alloc_pages, drain_local_pages, free_pages, PageAllocError};
use crate::trace::Recorder;
use std::collections::BTreeMap;
use std::fmt;

/// What a name holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// The first page of a block from `alloc_pages`.
    Pages { pfn: Pfn },
    /// A failed allocation.
    Null,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    Machine(ConfigError),
    /// The operation is not simulated by this build yet.
    NotSimulated {
        line: u32,
        what: &'static str,
    },
    /// An index past the end of a list.
    Index {
        line: u32,
        name: String,
        index: u32,
        len: usize,
    },
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Machine(e) => write!(f, "machine: {e}"),
            RunError::NotSimulated { line, what } => write!(
                f,
                "line {line}: {what} is not simulated by this version of Slabscope yet \
                 (the page allocator is; the slab allocators are being built)"
            ),
            RunError::Index {
                line,
                name,
                index,
                len,
            } => write!(
                f,
                "line {line}: {name}[{index}] is past the end of {name}, which has {len} entries"
            ),
        }
    }
}

impl std::error::Error for RunError {}

/// Runs `scenario` from boot. With `record` the recorder keeps every step for `snapshot_at`.
pub fn run(scenario: &Scenario, record: bool) -> Result<Recorder, RunError> {
    let machine = Machine::new(scenario.machine.clone()).map_err(RunError::Machine)?;
    let mut rec = Recorder::new(machine, record);
    if let Some(cache) = scenario.caches.first() {
        return Err(RunError::NotSimulated {
            line: cache.line,
            what: "kmem_cache_create",
        });
    }
    if scenario.allocator == Allocator::Slab && scenario.ops.iter().any(|o| !is_page_op(&o.op)) {
        return Err(RunError::NotSimulated {
            line: 1,
            what: "the SLAB allocator",
        });
    }
    let mut names: BTreeMap<String, Value> = BTreeMap::new();
    let mut lists: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for line in &scenario.ops {
        let elements: Vec<Option<Value>> = match &line.for_each {
            Some((_, list)) => lists
                .get(list)
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(Some)
                .collect(),
            None => vec![None],
        };
        for element in elements {
            if let (Some((var, _)), Some(v)) = (&line.for_each, element) {
                names.insert(var.clone(), v);
            }
            for _ in 0..line.repeat {
                let result = step(&mut rec, line, &names, &lists)?;
                match (&line.target, result) {
                    (Some(Target::Name(n)), Some(v)) => {
                        names.insert(n.clone(), v);
                    }
                    (Some(Target::Append(n)), Some(v)) => {
                        lists.entry(n.clone()).or_default().push(v)
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(rec)
}

fn is_page_op(op: &Op) -> bool {
    matches!(
        op,
        Op::AllocPages { .. } | Op::FreePages { .. } | Op::DrainPages
    )
}

fn resolve(
    line: u32,
    r: &Ref,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
) -> Result<Value, RunError> {
    match r {
        Ref::Name { name } => Ok(names.get(name).cloned().unwrap_or(Value::Null)),
        Ref::Index { name, index } => {
            let list = lists.get(name).map_or(&[][..], Vec::as_slice);
            list.get(*index as usize).cloned().ok_or(RunError::Index {
                line,
                name: name.clone(),
                index: *index,
                len: list.len(),
            })
        }
        Ref::Slice { name, start, .. } => Err(RunError::Index {
            line,
            name: name.clone(),
            index: *start,
            len: 0,
        }),
    }
}

/// Runs one operation once; returns the value it produces, if it produces one.
fn step(
    rec: &mut Recorder,
    line: &OpLine,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
) -> Result<Option<Value>, RunError> {
    // The parser guarantees a CPU for every page operation.
    let cpu = line.cpu.unwrap_or(0);
    match &line.op {
        Op::AllocPages { order, node } => {
            match alloc_pages(rec, cpu, *node, *order, Owner::Pages) {
                Ok(pfn) => Ok(Some(Value::Pages { pfn })),
                Err(PageAllocError::Order { order, max_order }) => {
                    // __alloc_pages(): WARN_ON_ONCE(order > MAX_ORDER) and return NULL.
                    rec.begin("__alloc_pages", "order > MAX_ORDER", "step.bad_order");
                    rec.arg("order", order);
                    rec.arg("max_order", max_order);
                    rec.end();
                    Ok(Some(Value::Null))
                }
                Err(_) => Ok(Some(Value::Null)),
            }
        }
        Op::FreePages { pages } => {
            match resolve(line.line, pages, names, lists)? {
                Value::Null => {
                    // free_pages(0) returns at once.
                    rec.begin("free_pages", "NULL", "step.free_null");
                    rec.end();
                }
                Value::Pages { pfn } => {
                    if let Err(PageAllocError::NotAllocated { pfn, .. }) = free_pages(rec, cpu, pfn)
                    {
                        // bad_page(): "BUG: Bad page state"; the kernel reports it and leaks the page.
                        rec.begin("free_pages", "bad page", "step.bad_page");
                        rec.arg("pfn", pfn);
                        rec.end();
                    }
                }
            }
            Ok(None)
        }
        Op::DrainPages => {
            let _ = drain_local_pages(rec, cpu);
            Ok(None)
        }
        other => Err(RunError::NotSimulated {
            line: line.line,
            what: other.name(),
        }),
    }
}
