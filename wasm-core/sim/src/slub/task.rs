//! SLUB's operations as tasks of an interleaved run (`smp::exec`): each runs the async kernel
//! code of its path, so it can be interleaved with other CPUs at every micro-step.

use super::alloc::asyn::slab_alloc;
use super::alloc::{alloc_cache, kmalloc_cache};
use super::bulk::asyn::{alloc_bulk, free_bulk};
use super::free::asyn::slab_free_k;
use super::free::{free_target, FreeOutcome};
use super::partial::asyn::flush_cpu_slab_k;
use crate::gfp::Gfp;
use crate::ids::{CacheId, NodeId};
use crate::smp::exec::OpFuture;
use crate::smp::Ctx;

/// An operation a task runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SmpOp {
    /// `kmem_cache_alloc_node(cache, node)`.
    Alloc {
        cache: CacheId,
        node: Option<NodeId>,
    },
    /// `kmalloc_node(size, flags)` called from `caller`.
    Kmalloc {
        size: u64,
        flags: Gfp,
        caller: u64,
        node: Option<NodeId>,
    },
    /// `kfree(addr)`, or `kmem_cache_free(cache, addr)`.
    Free { addr: u64, cache: Option<CacheId> },
    /// `kmem_cache_alloc_bulk(cache, n)`.
    AllocBulk { cache: CacheId, n: u32 },
    /// `kmem_cache_free_bulk(cache, objs)`, or `kfree_bulk(objs)`.
    FreeBulk {
        cache: Option<CacheId>,
        objs: Vec<u64>,
    },
    /// `flush_cpu_slab(cache)` on the task's CPU.
    FlushCpuSlab { cache: CacheId },
}

/// What an operation returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SmpResult {
    /// The object one allocation returned (NULL is 0).
    Object(u64),
    /// The objects a bulk allocation returned.
    Objects(Vec<u64>),
    Freed(FreeOutcome),
    Done,
}

impl SmpOp {
    /// The kernel function the operation enters by.
    pub fn name(&self) -> &'static str {
        match self {
            SmpOp::Alloc { .. } => "kmem_cache_alloc",
            SmpOp::Kmalloc { .. } => "kmalloc",
            SmpOp::Free { cache: None, .. } => "kfree",
            SmpOp::Free { cache: Some(_), .. } => "kmem_cache_free",
            SmpOp::AllocBulk { .. } => "kmem_cache_alloc_bulk",
            SmpOp::FreeBulk { cache: None, .. } => "kfree_bulk",
            SmpOp::FreeBulk { cache: Some(_), .. } => "kmem_cache_free_bulk",
            SmpOp::FlushCpuSlab { .. } => "flush_cpu_slab",
        }
    }

    /// The operation as a task's kernel code on `k`. Its checks (a bad free, a destroyed
    /// cache) run when it starts; the rest is the racing path.
    pub fn run<'a>(self, k: Ctx<'a>) -> OpFuture<'a, SmpResult> {
        Box::pin(async move {
            let cpu = k.cpu();
            match self {
                SmpOp::Alloc { cache, node } => {
                    let object = match k.with(|rec| alloc_cache(rec, cache)) {
                        Ok(cache) => slab_alloc(k, cache, node).await,
                        Err(result) => result,
                    };
                    SmpResult::Object(object)
                }
                SmpOp::Kmalloc {
                    size,
                    flags,
                    caller,
                    node,
                } => {
                    let target = k.with(|rec| kmalloc_cache(rec, size, flags, caller, cpu, node));
                    let object = match target {
                        Ok(cache) => slab_alloc(k, cache, node).await,
                        Err(result) => result,
                    };
                    SmpResult::Object(object)
                }
                SmpOp::Free { addr, cache } => {
                    match k.with(|rec| free_target(rec, addr, cpu, cache)) {
                        Ok(t) => {
                            slab_free_k(k, t.cache, t.pfn, addr, t.index).await;
                            SmpResult::Freed(FreeOutcome::Freed)
                        }
                        Err(outcome) => SmpResult::Freed(outcome),
                    }
                }
                SmpOp::AllocBulk { cache, n } => match k.with(|rec| alloc_cache(rec, cache)) {
                    Ok(cache) => SmpResult::Objects(alloc_bulk(k, cache, n).await),
                    Err(_) => SmpResult::Objects(Vec::new()),
                },
                SmpOp::FreeBulk { cache, objs } => {
                    SmpResult::Freed(free_bulk(k, cache, &objs).await)
                }
                SmpOp::FlushCpuSlab { cache } => {
                    flush_cpu_slab_k(k, cache).await;
                    SmpResult::Done
                }
            }
        })
    }
}
