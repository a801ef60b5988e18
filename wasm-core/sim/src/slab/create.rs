//! Creating SLAB caches: `create_kmalloc_caches()` at boot (with `SLAB_HWCACHE_ALIGN`, from
//! kmalloc-32 up) and `kmem_cache_create()` with `find_mergeable()` (mm/slab_common.c and
//! mm/slab.c, v6.6; spec 1.5, 3.2-3.4).

use super::emit;
use super::event::{SlabEvent, SlabNewCache};
use super::state::REAPTIMEOUT_NODE;
use crate::geometry::layout::calculate_alignment;
use crate::geometry::platform::WORD;
use crate::geometry::slab::{
    slab_cache_geometry, slab_kmalloc_classes, slab_kmalloc_index, FreelistLayout,
    SlabCacheGeometry, SlabCacheRequest, SlabParams,
};
use crate::geometry::{GeometryError, SlabFlags};
use crate::machine::Machine;
use crate::scenario::{CacheDecl, Switches};
use crate::slub::random::freelist_randomize;
use crate::trace::Recorder;

fn params(m: &Machine, switches: &Switches) -> SlabParams {
    let memory = u64::from(m.config.pages_per_node)
        * u64::from(m.config.nodes)
        * u64::from(m.config.page_size);
    SlabParams::new(
        &m.page,
        m.config.cpus,
        m.config.nodes,
        memory,
        switches.slab_max_order,
    )
}

/// The cache `kmalloc(size)` uses under SLAB (`Ok`), or the page order of a large kmalloc
/// (`Err`); `None` past `KMALLOC_MAX_SIZE`. `size` is not 0.
pub(crate) fn kmalloc_cache_for(m: &Machine, size: u64) -> Option<Result<u32, u8>> {
    match slab_kmalloc_index(&m.page, size).map(|c| c.index) {
        Some(index) => m
            .slab
            .kmalloc_caches
            .get(index as usize)
            .copied()
            .flatten()
            .map(Ok),
        None if size <= m.page.kmalloc_max_size() => Some(Err(m.page.get_order(size) as u8)),
        None => None,
    }
}

/// Records a new cache.
fn create(
    rec: &mut Recorder,
    switches: &Switches,
    name: String,
    geometry: SlabCacheGeometry,
    flags: SlabFlags,
    ctor: bool,
    kmalloc_index: Option<u32>,
) -> u32 {
    let id = rec.machine().slab.caches.len() as u32;
    // enable_cpucache() → init_cache_random_seq(): only for slabs of 2 or more objects.
    let random_seq = (switches.freelist_random && geometry.num >= 2)
        .then(|| freelist_randomize(rec, geometry.num));
    let freelist_cache = (geometry.layout == FreelistLayout::OffSlab)
        .then(|| kmalloc_cache_for(rec.machine(), u64::from(geometry.freelist_size)))
        .flatten()
        .and_then(Result::ok);
    // n->next_reap: the kernel adds the cache's address modulo REAPTIMEOUT_NODE to spread
    // the caches' reaping; the simulator does not know that address.
    let next_reap = rec.machine().slab.jiffies + REAPTIMEOUT_NODE;
    emit(
        rec,
        SlabEvent::CacheCreated(Box::new(SlabNewCache {
            id,
            name,
            geometry,
            flags,
            ctor,
            kmalloc_index,
            hardened: switches.freelist_hardened,
            random_seq,
            freelist_cache,
            next_reap,
        })),
    );
    id
}

/// `create_kmalloc_caches()` under SLAB: kmalloc-32 up to `KMALLOC_MAX_CACHE_SIZE` (96 after
/// 64, 192 after 128), all `SLAB_HWCACHE_ALIGN`; also each CPU's first reap node
/// (`init_reap_node()`).
pub fn create_kmalloc_caches(rec: &mut Recorder, switches: &Switches) -> Result<(), GeometryError> {
    rec.begin(
        "create_kmalloc_caches",
        "boot",
        "step.create_kmalloc_caches",
    );
    let nodes = rec.machine().config.nodes;
    for cpu in 0..rec.machine().config.cpus {
        let node = (rec.machine().cpu_node[cpu as usize] + 1) % nodes;
        emit(rec, SlabEvent::ReapNode { cpu, node });
    }
    let p = params(rec.machine(), switches);
    let page = rec.machine().page;
    for class in slab_kmalloc_classes(&page) {
        let flags = SlabFlags {
            hwcache_align: true,
            ..SlabFlags::default()
        };
        let req = SlabCacheRequest {
            name: class.name(),
            object_size: class.size,
            align: 0,
            flags,
            ctor: false,
            reclaim_account: false,
        };
        let geometry = slab_cache_geometry(&page, &p, &req)?;
        create(
            rec,
            switches,
            req.name,
            geometry,
            flags,
            false,
            Some(class.index),
        );
    }
    rec.end();
    Ok(())
}

/// `kmem_cache_create()` under SLAB: merges into a compatible older cache unless merging is
/// off, else creates one. Returns the id the name now refers to.
pub fn kmem_cache_create(
    rec: &mut Recorder,
    decl: &CacheDecl,
    switches: &Switches,
) -> Result<u32, GeometryError> {
    let p = params(rec.machine(), switches);
    let req = SlabCacheRequest {
        name: decl.name.clone(),
        object_size: decl.size,
        align: decl.align,
        flags: decl.flags,
        ctor: decl.ctor,
        reclaim_account: false,
    };
    let geometry = slab_cache_geometry(&rec.machine().page, &p, &req)?;
    if let Some(id) = find_mergeable(rec.machine(), switches, decl) {
        let object_size = rec.machine().slab.caches[id as usize]
            .object_size
            .max(decl.size);
        rec.begin("__kmem_cache_alias", "merged", "step.cache_aliased");
        rec.arg("cache", decl.name.clone());
        rec.arg_cache("into", id);
        emit(
            rec,
            SlabEvent::CacheAliased(Box::new((id, decl.name.clone(), object_size))),
        );
        rec.end();
        return Ok(id);
    }
    rec.begin("kmem_cache_create", "new cache", "step.cache_created");
    rec.arg("cache", decl.name.clone());
    rec.arg("size", geometry.size);
    rec.arg("objs_per_slab", geometry.num);
    rec.arg("order", geometry.gfporder);
    let id = create(
        rec,
        switches,
        decl.name.clone(),
        geometry,
        decl.flags,
        decl.ctor,
        None,
    );
    rec.end();
    Ok(id)
}

/// `find_mergeable()` with SLAB's extra alignment rule: the oldest live cache whose slot fits
/// the new object within a word and whose alignment is a multiple of the new one. kmalloc
/// caches never qualify (`SLAB_NO_MERGE` with `CONFIG_MEMCG_KMEM`).
fn find_mergeable(m: &Machine, switches: &Switches, decl: &CacheDecl) -> Option<u32> {
    let never = decl.ctor || decl.flags.never_merge();
    if switches.slab_nomerge || never {
        return None;
    }
    let align = calculate_alignment(&decl.flags, decl.align, decl.size);
    let size = decl.size.next_multiple_of(WORD).next_multiple_of(align);
    m.slab
        .caches
        .iter()
        .find(|s| {
            let g = &s.geometry;
            !s.destroyed
                && s.kmalloc_index.is_none()
                && !s.ctor
                && !s.flags.never_merge() // slab_unmergeable()
                && g.size >= size
                && g.size % align == 0
                && g.size - size < WORD
                && align <= g.align
                && g.align % align == 0
        })
        .map(|s| s.id)
}
