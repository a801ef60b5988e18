//! SLUB behind the slab allocator interface (`crate::allocator`): each hook calls the SLUB
//! function that implements it.

use super::state::Slab as SlubSlab;
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

/// The SLUB allocator (`CONFIG_SLUB`, mm/slub.c, v6.6).
pub struct Slub;

impl SlabAllocator for Slub {
    fn kind(&self) -> Allocator {
        Allocator::Slub
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
        super::create::kmem_cache_create_args(rec, a, boot)
    }

    fn find_cache(&self, m: &Machine, name: &str) -> Option<CacheId> {
        m.slub().caches.position(|c| c.name == name)
    }

    fn kmalloc(
        &self,
        rec: &mut Recorder,
        size: u64,
        flags: Gfp,
        caller: u64,
        cpu: CpuId,
        node: Option<NodeId>,
    ) -> u64 {
        super::__do_kmalloc_node(rec, size, flags, caller, cpu, node)
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
        true
    }

    fn flush_cpu_slab(
        &self,
        rec: &mut Recorder,
        cache: CacheId,
        cpu: CpuId,
    ) -> Result<(), Missing> {
        super::flush_cpu_slab(rec, cache, cpu);
        Ok(())
    }

    fn cache_reap(&self, _: &mut Recorder, _: Option<CpuId>) -> Result<(), Missing> {
        Err(Missing)
    }

    fn is_live_object(&self, m: &Machine, addr: u64) -> bool {
        m.is_live(addr)
    }

    fn slab_of(&self, m: &Machine, pfn: Pfn) -> Option<(CacheId, NodeId)> {
        m.slub().slabs.get(&pfn).map(|s| (s.cache, s.node))
    }

    fn slab_pfns(&self, m: &Machine) -> Vec<Pfn> {
        m.slub().slabs.iter().map(|(pfn, _)| pfn).collect()
    }

    fn slab_share(&self, m: &Machine, pfn: Pfn) -> Option<SlabShare> {
        m.slub().slabs.get(&pfn).map(|s: &SlubSlab| SlabShare {
            cache: s.cache,
            node: s.node,
            // Every slab inc_slabs_node() counted, with all its objects.
            counted: [1, i64::from(s.objects)],
            held: s.allocated.iter().filter(|&&a| a).count() as i64,
        })
    }

    fn rcu_free_slab_fn(&self) -> &'static str {
        "rcu_free_slab"
    }

    fn slabinfo(&self, m: &Machine) -> String {
        crate::slabinfo::slabinfo_slub(m)
    }

    fn briefs(&self, m: &Machine) -> Vec<CacheBrief> {
        crate::snapshot::slub_briefs(m)
    }

    fn cache_view(&self, v: &View, id: CacheId, wanted: Option<Pfn>) -> CacheView {
        crate::snapshot::slub_cache_view(v, id, wanted)
    }

    fn check_all(&self, m: &Machine, totals: &Totals, bad: &mut Vec<Problem>) {
        super::check::check_all(m, totals, bad);
    }

    fn check_touched(&self, m: &Machine, t: &mut Touched, totals: &Totals, bad: &mut Vec<Problem>) {
        crate::machine::check::check_touched_slub(m, t, totals, bad);
    }
}
