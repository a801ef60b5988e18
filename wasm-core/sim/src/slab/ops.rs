//! SLAB behind the slab allocator interface (`crate::allocator`): each hook calls the SLAB
//! function that implements it.

use super::state::Slab as SlabSlab;
use crate::allocator::{CacheArgs, Missing, SlabAllocator};
use crate::boot::Allocator;
use crate::boot::BootOptions;
use crate::geometry::GeometryError;
use crate::gfp::Gfp;
use crate::ids::{CacheId, CpuId, NodeId};
use crate::machine::check::{Problem, SlabShare, Totals, Touched};
use crate::machine::{Machine, Pfn};
use crate::slab_common::{DestroyOutcome, FreeOutcome};
use crate::snapshot::{CacheBrief, CacheView, View};
use crate::trace::Recorder;

/// The SLAB allocator (`CONFIG_SLAB`, mm/slab.c, v6.6).
pub struct Slab;

impl SlabAllocator for Slab {
    fn kind(&self) -> Allocator {
        Allocator::Slab
    }

    fn create_kmalloc_caches(
        &self,
        rec: &mut Recorder,
        boot: &BootOptions,
    ) -> Result<(), GeometryError> {
        super::create_kmalloc_caches(rec, boot)
    }

    fn kmem_cache_create(
        &self,
        rec: &mut Recorder,
        a: &CacheArgs,
        boot: &BootOptions,
    ) -> Result<CacheId, GeometryError> {
        super::kmem_cache_create_usercopy(
            rec,
            a.name,
            a.size,
            a.align,
            a.flags,
            a.useroffset,
            a.usersize,
            a.ctor,
            boot,
        )
    }

    fn find_cache(&self, m: &Machine, name: &str) -> Option<CacheId> {
        m.slab().caches.position(|c| c.name == name)
    }

    fn kmalloc(
        &self,
        rec: &mut Recorder,
        size: u64,
        flags: Gfp,
        _caller: u64, // SLAB has no random kmalloc caches: the call site picks nothing
        cpu: CpuId,
        node: Option<NodeId>,
    ) -> u64 {
        super::__do_kmalloc_node(rec, size, flags, cpu, node)
    }

    fn kmem_cache_alloc(
        &self,
        rec: &mut Recorder,
        cache: CacheId,
        cpu: CpuId,
        node: Option<NodeId>,
    ) -> u64 {
        super::slab_alloc_node(rec, cache, cpu, node)
    }

    fn kmem_cache_alloc_bulk(
        &self,
        rec: &mut Recorder,
        cache: CacheId,
        n: u32,
        cpu: CpuId,
    ) -> Vec<u64> {
        super::kmem_cache_alloc_bulk(rec, cache, n, cpu)
    }

    fn kfree(
        &self,
        rec: &mut Recorder,
        addr: u64,
        cpu: CpuId,
        cache: Option<CacheId>,
    ) -> FreeOutcome {
        super::kfree(rec, addr, cpu, cache)
    }

    fn kmem_cache_free_bulk(
        &self,
        rec: &mut Recorder,
        cache: Option<CacheId>,
        objs: &[u64],
        cpu: CpuId,
    ) {
        super::kmem_cache_free_bulk(rec, cache, objs, cpu);
    }

    fn kmem_cache_shrink(&self, rec: &mut Recorder, cache: CacheId, cpu: CpuId) {
        super::kmem_cache_shrink(rec, cache, cpu);
    }

    fn kmem_cache_destroy(
        &self,
        rec: &mut Recorder,
        cache: CacheId,
        alias: Option<&str>,
        cpu: CpuId,
    ) -> DestroyOutcome {
        super::kmem_cache_destroy(rec, cache, alias, cpu)
    }

    fn has_cpu_slabs(&self) -> bool {
        false
    }

    fn flush_cpu_slab(&self, _: &mut Recorder, _: CacheId, _: CpuId) -> Result<(), Missing> {
        Err(Missing)
    }

    fn cache_reap(&self, rec: &mut Recorder, cpu: Option<CpuId>) -> Result<(), Missing> {
        super::cache_reap(rec, cpu);
        Ok(())
    }

    fn is_live_object(&self, m: &Machine, addr: u64) -> bool {
        super::place_of(m, addr)
            .is_some_and(|p| p.offset == 0 && m.slab().slabs[&p.pfn].allocated[p.index as usize])
    }

    fn slab_of(&self, m: &Machine, pfn: Pfn) -> Option<(CacheId, NodeId)> {
        m.slab().slabs.get(&pfn).map(|s| (s.cache, s.node))
    }

    fn slab_pfns(&self, m: &Machine) -> Vec<Pfn> {
        m.slab().slabs.keys().copied().collect()
    }

    fn slab_share(&self, m: &Machine, pfn: Pfn) -> Option<SlabShare> {
        m.slab().slabs.get(&pfn).map(|s: &SlabSlab| {
            let num = i64::from(m.slab().caches.get(s.cache).map_or(0, |c| c.geometry.num));
            SlabShare {
                cache: s.cache,
                node: s.node,
                // A slab on one of the node's three lists counts there, with its free objects.
                counted: if s.list.is_some() {
                    [1, num - i64::from(s.active)]
                } else {
                    [0, 0]
                },
                held: s.allocated.iter().filter(|&&a| a).count() as i64,
            }
        })
    }

    fn rcu_free_slab_fn(&self) -> &'static str {
        "kmem_rcu_free"
    }

    fn slabinfo(&self, m: &Machine) -> String {
        crate::slabinfo::slabinfo_slab(m)
    }

    fn briefs(&self, m: &Machine) -> Vec<CacheBrief> {
        crate::snapshot::slab_briefs(m)
    }

    fn cache_view(&self, v: &View, id: CacheId, wanted: Option<Pfn>) -> CacheView {
        crate::snapshot::slab_cache_view(v, id, wanted)
    }

    fn check_all(&self, m: &Machine, totals: &Totals, bad: &mut Vec<Problem>) {
        super::check::check_all(m, totals, bad);
    }

    fn check_touched(&self, m: &Machine, t: &mut Touched, totals: &Totals, bad: &mut Vec<Problem>) {
        crate::machine::check::check_touched_slab(m, t, totals, bad);
    }
}
