//! Creating caches: `create_kmalloc_caches()` at boot and `kmem_cache_create()` with
//! `find_mergeable()` (mm/slab_common.c, v6.6; spec 1.5).

use super::random::{freelist_randomize, get_random_long};
use crate::geometry::kmalloc::{kmalloc_classes, kmalloc_target, KmallocTarget};
use crate::geometry::platform::WORD;
use crate::geometry::{kmem_cache_geometry, CacheRequest, CacheSource, GeometryError, SlabFlags};
use crate::scenario::{CacheDecl, Switches};
use crate::trace::{Event, NewCache, Recorder};

fn request(
    rec: &Recorder,
    switches: &Switches,
    source: CacheSource,
    align: u32,
    flags: SlabFlags,
    ctor: bool,
) -> CacheRequest {
    let m = rec.machine();
    let debug = switches.slub_debug;
    CacheRequest {
        source,
        align,
        flags: SlabFlags {
            poison: debug.poison,
            red_zone: debug.red_zone,
            store_user: debug.store_user,
            consistency_checks: debug.consistency_checks,
            ..flags
        },
        ctor,
        page_size: m.config.page_size,
        cpus: m.config.cpus,
        slub_min_objects: switches.slub_min_objects,
        slub_max_order: switches.slub_max_order,
        slub_min_order: switches.slub_min_order,
    }
}

/// `create_kmalloc_caches()`: the normal kmalloc caches, smallest first (96 after 64, 192
/// after 128). The `-rcl`, `-cg` and `dma-` variants are not modelled.
pub fn create_kmalloc_caches(rec: &mut Recorder, switches: &Switches) -> Result<(), GeometryError> {
    rec.begin(
        "create_kmalloc_caches",
        "boot",
        "step.create_kmalloc_caches",
    );
    for class in kmalloc_classes(&rec.machine().page) {
        let req = request(
            rec,
            switches,
            CacheSource::Kmalloc {
                request_size: class.size,
            },
            0,
            SlabFlags::default(),
            false,
        );
        let geometry = kmem_cache_geometry(&req)?;
        let id = rec.machine().caches.len() as u32;
        let (random, random_seq) = kmem_cache_open_random(rec, switches, geometry.objs_per_slab);
        rec.emit(Event::CacheCreated(Box::new(NewCache {
            id,
            name: class.name(),
            geometry,
            flags: req.flags,
            ctor: false,
            kmalloc_index: Some(class.index),
            hardened: switches.freelist_hardened,
            random,
            random_seq,
        })));
    }
    rec.end();
    Ok(())
}

/// The random parts of a new cache: `s->random` (drawn in `kmem_cache_open()` with
/// hardening) and `s->random_seq` (`init_cache_random_seq()` with randomisation; none for
/// slabs of fewer than 2 objects, as `cache_random_seq_create()` decides).
fn kmem_cache_open_random(
    rec: &mut Recorder,
    switches: &Switches,
    objs_per_slab: u32,
) -> (u64, Option<Vec<u32>>) {
    let random = if switches.freelist_hardened {
        get_random_long(rec)
    } else {
        0
    };
    let seq = (switches.freelist_random && objs_per_slab >= 2)
        .then(|| freelist_randomize(rec, objs_per_slab));
    (random, seq)
}

/// The cache `kmalloc(size)` uses, or where the request goes instead.
pub fn kmalloc_cache_for(
    rec: &Recorder,
    size: u64,
) -> Result<Result<u32, KmallocTarget>, GeometryError> {
    match kmalloc_target(&rec.machine().page, size)? {
        KmallocTarget::Cache(class) => Ok(rec
            .machine()
            .kmalloc_caches
            .get(class.index as usize)
            .copied()
            .flatten()
            .ok_or(KmallocTarget::Cache(class))),
        other => Ok(Err(other)),
    }
}

/// `kmem_cache_create()`: merges into a compatible older cache (`find_mergeable()`) unless
/// merging is off, else creates a new cache. Returns the id the name now refers to.
///
/// Differs from v6.6: `__kmem_cache_alias()` also widens the surviving cache's `object_size`
/// and `inuse` to the new size; the simulator keeps the first cache's values (slot size,
/// order and free pointer offset, which the kernel does not change either, are the same).
pub fn kmem_cache_create(
    rec: &mut Recorder,
    decl: &CacheDecl,
    switches: &Switches,
) -> Result<u32, GeometryError> {
    let req = request(
        rec,
        switches,
        CacheSource::Object {
            object_size: decl.size,
        },
        decl.align,
        decl.flags,
        decl.ctor,
    );
    let geometry = kmem_cache_geometry(&req)?;
    if let Some(id) = find_mergeable(rec, switches, &req, geometry.align) {
        rec.begin("__kmem_cache_alias", "merged", "step.cache_aliased");
        rec.arg("cache", decl.name.clone());
        rec.arg_cache("into", id);
        rec.emit(Event::CacheAliased {
            id,
            alias: decl.name.clone(),
        });
        rec.end();
        return Ok(id);
    }
    rec.begin("kmem_cache_create", "new cache", "step.cache_created");
    rec.arg("cache", decl.name.clone());
    rec.arg("size", geometry.size);
    rec.arg("objs_per_slab", geometry.objs_per_slab);
    rec.arg("order", geometry.order);
    let id = rec.machine().caches.len() as u32;
    let (random, random_seq) = kmem_cache_open_random(rec, switches, geometry.objs_per_slab);
    rec.emit(Event::CacheCreated(Box::new(NewCache {
        id,
        name: decl.name.clone(),
        geometry,
        flags: req.flags,
        ctor: req.ctor,
        kmalloc_index: None,
        hardened: switches.freelist_hardened,
        random,
        random_seq,
    })));
    rec.end();
    Ok(id)
}

/// `find_mergeable()`: the oldest live cache that can host objects of this request. kmalloc
/// caches never qualify (`SLAB_NO_MERGE` with `CONFIG_MEMCG_KMEM`). Under `slub_debug=F` both
/// caches carry `SLAB_CONSISTENCY_CHECKS`, which is not in `SLAB_NEVER_MERGE`: they merge.
fn find_mergeable(
    rec: &Recorder,
    switches: &Switches,
    req: &CacheRequest,
    align: u32,
) -> Option<u32> {
    // kmem_cache_flags() has already added the slub_debug letters to `req.flags`.
    let never = req.ctor || req.flags.never_merge();
    if switches.slab_nomerge || never {
        return None;
    }
    let CacheSource::Object { object_size } = req.source else {
        return None;
    };
    let size = object_size.next_multiple_of(WORD).next_multiple_of(align);
    // slab_caches is walked from the oldest cache (list_for_each_entry_reverse).
    rec.machine()
        .caches
        .iter()
        .find(|s| {
            let g = &s.geometry;
            !s.destroyed
                && g.cache.is_none() // kmalloc caches carry SLAB_NO_MERGE
                && !s.ctor
                && !s.flags.never_merge() // slab_unmergeable()
                && g.size >= size
                && g.size % align == 0
                && g.size - size < WORD
        })
        .map(|s| s.id)
}
