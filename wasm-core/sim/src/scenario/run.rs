//! Runs a parsed scenario through the recorder.
//!
//! This build simulates the page allocator operations and SLUB's `kmalloc`, `kmalloc_node`,
//! `kfree`, `kmem_cache_alloc[_node]`, `kmem_cache_free`, the bulk operations,
//! `flush_cpu_slab`, `flush_all`, `kmem_cache_shrink` and `kmem_cache_destroy`, with the
//! freelist randomisation and hardening switches and `slub_debug` caches. The SLAB allocator
//! parses but is refused with `RunError::NotSimulated` until it lands; nothing pretends to
//! run it.
//!
//! Bad operations are steps, not failures: freeing what is not allocated records the kernel's
//! diagnostic and the run goes on; a failed allocation yields NULL.

use super::ast::{Allocator, Op, OpLine, Ref, Scenario, Target};
use crate::machine::{ConfigError, Machine, Owner, Pfn};
use crate::page_alloc::{alloc_pages, drain_local_pages, free_pages, PageAllocError};
use crate::slub::{
    create_kmalloc_caches, flush_cpu_slab, kfree, kmalloc, kmem_cache_alloc_bulk,
    kmem_cache_create, kmem_cache_free_bulk, slab_alloc_node,
};
use crate::slub::{kmem_cache_destroy, kmem_cache_shrink};
use crate::trace::Recorder;
use std::collections::BTreeMap;
use std::fmt;

/// What a name holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// The first page of a block from `alloc_pages`.
    Pages { pfn: Pfn },
    /// An address from `kmalloc` or `kmem_cache_alloc` (`ZERO_SIZE_PTR` included).
    Object { addr: u64 },
    /// A failed allocation.
    Null,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    Machine(ConfigError),
    /// A cache the kernel would refuse to create.
    Cache {
        line: u32,
        message: String,
    },
    /// The operation is not simulated by this build yet.
    NotSimulated {
        line: u32,
        what: &'static str,
    },
    /// A cache name that names no cache (`kmalloc-100`, say).
    UnknownCache {
        line: u32,
        name: String,
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
            RunError::UnknownCache { line, name } => {
                write!(f, "line {line}: there is no cache named {name}")
            }
            RunError::Cache { line, message } => {
                write!(f, "line {line}: kmem_cache_create fails: {message}")
            }
            RunError::NotSimulated { line, what } => write!(
                f,
                "line {line}: {what} is not simulated by this version of Slabscope yet \
                 (the page allocator and SLUB are)"
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
    let machine =
        Machine::new_seeded(scenario.machine.clone(), scenario.seed).map_err(RunError::Machine)?;
    let mut rec = Recorder::new(machine, record);
    let sw = &scenario.switches;
    let refuse = |what| Err(RunError::NotSimulated { line: 1, what });
    if scenario.allocator == Allocator::Slab {
        if scenario.ops.iter().any(|o| !is_page_op(&o.op)) || !scenario.caches.is_empty() {
            return refuse("the SLAB allocator");
        }
    } else {
        create_kmalloc_caches(&mut rec, sw).map_err(|e| RunError::Cache {
            line: 1,
            message: e.to_string(),
        })?;
    }
    let mut caches: BTreeMap<String, u32> = BTreeMap::new();
    for decl in &scenario.caches {
        let id = kmem_cache_create(&mut rec, decl, sw).map_err(|e| RunError::Cache {
            line: decl.line,
            message: e.to_string(),
        })?;
        caches.insert(decl.name.clone(), id);
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
                if let Op::KmemCacheAllocBulk { cache, count } = &line.op {
                    let id = lookup_cache(&rec, &caches, line.line, cache)?;
                    let got = kmem_cache_alloc_bulk(&mut rec, id, *count, line.cpu.unwrap_or(0));
                    let values = got.into_iter().map(|addr| Value::Object { addr });
                    match &line.target {
                        Some(Target::Name(n)) => {
                            lists.insert(n.clone(), values.collect());
                        }
                        Some(Target::Append(n)) => {
                            lists.entry(n.clone()).or_default().extend(values)
                        }
                        None => {}
                    }
                    continue;
                }
                let result = step(&mut rec, line, &caches, &names, &lists)?;
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

fn lookup_cache(
    rec: &Recorder,
    caches: &BTreeMap<String, u32>,
    line: u32,
    name: &String,
) -> Result<u32, RunError> {
    caches
        .get(name)
        .copied()
        .or_else(|| {
            rec.machine()
                .caches
                .iter()
                .position(|c| &c.name == name)
                .map(|i| i as u32)
        })
        .ok_or_else(|| RunError::UnknownCache {
            line,
            name: name.clone(),
        })
}

/// The values a list reference names: a whole list or a slice of one.
fn resolve_list(
    line: u32,
    r: &Ref,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
) -> Result<Vec<Value>, RunError> {
    match r {
        Ref::Name { name } => Ok(lists.get(name).cloned().unwrap_or_default()),
        Ref::Slice { name, start, end } => {
            let list = lists.get(name).map_or(&[][..], Vec::as_slice);
            list.get(*start as usize..*end as usize)
                .map(<[Value]>::to_vec)
                .ok_or(RunError::Index {
                    line,
                    name: name.clone(),
                    index: end - 1,
                    len: list.len(),
                })
        }
        single => Ok(vec![resolve(line, single, names, lists)?]),
    }
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
fn addr_of(rec: &Recorder, v: &Value) -> u64 {
    match *v {
        Value::Object { addr } => addr,
        Value::Pages { pfn } => rec.machine().object_addr(pfn, 1, 0),
        Value::Null => 0,
    }
}

fn object(addr: u64) -> Option<Value> {
    Some(if addr == 0 {
        Value::Null
    } else {
        Value::Object { addr }
    })
}

/// Runs one operation once; returns the value it produces, if it produces one.
fn step(
    rec: &mut Recorder,
    line: &OpLine,
    caches: &BTreeMap<String, u32>,
    names: &BTreeMap<String, Value>,
    lists: &BTreeMap<String, Vec<Value>>,
) -> Result<Option<Value>, RunError> {
    // The parser guarantees a CPU for every operation that needs one, and declared caches;
    // kmalloc cache names are looked up here.
    let cpu = line.cpu.unwrap_or(0);
    match &line.op {
        Op::Kmalloc { size, node } => Ok(object(kmalloc(rec, *size, cpu, *node))),
        Op::KmemCacheAlloc { cache, node } => Ok(object(slab_alloc_node(
            rec,
            lookup_cache(rec, caches, line.line, cache)?,
            cpu,
            *node,
        ))),
        Op::Kfree { obj } => {
            let addr = addr_of(rec, &resolve(line.line, obj, names, lists)?);
            kfree(rec, addr, cpu, None);
            Ok(None)
        }
        Op::KmemCacheFree { cache, obj } => {
            let addr = addr_of(rec, &resolve(line.line, obj, names, lists)?);
            kfree(
                rec,
                addr,
                cpu,
                Some(lookup_cache(rec, caches, line.line, cache)?),
            );
            Ok(None)
        }
        Op::KmemCacheFreeBulk { cache, objs } => {
            let id = lookup_cache(rec, caches, line.line, cache)?;
            let addrs: Vec<u64> = resolve_list(line.line, objs, names, lists)?
                .iter()
                .map(|v| addr_of(rec, v))
                .collect();
            if !addrs.is_empty() {
                kmem_cache_free_bulk(rec, Some(id), &addrs, cpu);
            }
            Ok(None)
        }
        Op::KfreeBulk { objs } => {
            let addrs: Vec<u64> = resolve_list(line.line, objs, names, lists)?
                .iter()
                .map(|v| addr_of(rec, v))
                .collect();
            if !addrs.is_empty() {
                kmem_cache_free_bulk(rec, None, &addrs, cpu);
            }
            Ok(None)
        }
        Op::KmemCacheShrink { cache } => {
            kmem_cache_shrink(rec, lookup_cache(rec, caches, line.line, cache)?, cpu);
            Ok(None)
        }
        Op::KmemCacheDestroy { cache } => {
            let id = lookup_cache(rec, caches, line.line, cache)?;
            let alias =
                (rec.machine().caches[id as usize].name != *cache).then_some(cache.as_str());
            kmem_cache_destroy(rec, id, alias, cpu);
            Ok(None)
        }
        Op::FlushCpuSlab { cache } => {
            flush_cpu_slab(rec, lookup_cache(rec, caches, line.line, cache)?, cpu);
            Ok(None)
        }
        Op::FlushAll { cache } => {
            for cpu in 0..rec.machine().config.cpus {
                flush_cpu_slab(rec, lookup_cache(rec, caches, line.line, cache)?, cpu);
            }
            Ok(None)
        }
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
                v => {
                    // An object's address is not the first page of a block: "Bad page state".
                    let pfn = rec.machine().addr_pfn(addr_of(rec, &v)).unwrap_or(Pfn::MAX);
                    if let Err(
                        PageAllocError::NotAllocated { pfn, .. }
                        | PageAllocError::PageSlab { pfn, .. },
                    ) = free_pages(rec, cpu, pfn)
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
