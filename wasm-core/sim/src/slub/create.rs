//! Creating caches: `create_kmalloc_caches()` at boot and `kmem_cache_create_usercopy()` with
//! `find_mergeable()` (mm/slab_common.c, v6.6; spec 1.2, 1.5).

use crate::boot::BootOptions;
use crate::geometry::kmalloc::{kmalloc_classes, kmalloc_target, KmallocTarget};
use crate::geometry::platform::WORD;
use crate::geometry::{CacheRequest, CacheSource, GeometryError, SlabFlags, SlubVersion};
use crate::gfp::{Gfp, GFP_KERNEL};
use crate::ids::{CacheId, CpuId};
use crate::kmalloc_caches::{kmalloc_type, KmallocSlot, KmallocType};
use crate::slab_common::random::{freelist_randomize, get_random_long, BootStream};
use crate::slab_common::slab_unmergeable;
use crate::slub::sheaf::{PcsSlot, SheafEvent};
use crate::trace::{Event, NewCache, Recorder};

fn request(
    rec: &Recorder,
    boot: &BootOptions,
    source: CacheSource,
    align: u32,
    flags: SlabFlags,
    ctor: bool,
) -> CacheRequest {
    let m = rec.machine();
    let debug = boot.slub_debug;
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
        slub_min_objects: boot.slub_min_objects,
        slub_max_order: boot.slub_max_order,
        slub_min_order: boot.slub_min_order,
        freeptr_offset: None,
        sheaf_capacity: None,
    }
}

/// `create_kmalloc_caches()`, one step: every type in the kernel's order (normal, the random
/// copies with the switch on, reclaimable, DMA, cgroup), each from kmalloc-8 up (96 after 64,
/// 192 after 128), each with its type's flags (`new_kmalloc_cache()`) and a usercopy region
/// of the whole object (`create_kmalloc_cache()`); then `random_kmalloc_seed` with the switch
/// on (`get_random_u64()`, drawn only then, so that nothing else moves without it).
///
/// From 6.11 (`CONFIG_SLAB_BUCKETS=y` in the distro kernels of the later profiles) the step
/// ends by creating `kmalloc_buckets`, and the two bucket sets the kernel makes in its
/// initcalls follow as steps of their own (`kmem_buckets_create()`).
pub fn create_kmalloc_caches(rec: &mut Recorder, boot: &BootOptions) -> Result<(), GeometryError> {
    let buckets = rec.machine().profile.slub >= SlubVersion::V6_12;
    let kmem_buckets_cache = if buckets {
        rec.call(
            "create_kmalloc_caches",
            "boot",
            "step.create_kmalloc_caches_6_11",
            |rec| {
                create_kmalloc_caches_body(rec, boot)?;
                create_kmem_buckets_cache(rec, boot).map(Some)
            },
        )?
    } else {
        rec.call(
            "create_kmalloc_caches",
            "boot",
            "step.create_kmalloc_caches",
            |rec| create_kmalloc_caches_body(rec, boot).map(|()| None),
        )?
    };
    if let Some(cache) = kmem_buckets_cache {
        // mm/util.c (memdup_user) and ipc/msgutil.c (msg_msg), in that order at boot: the
        // usercopy window of msg_msg is what follows struct msg_msg (48 bytes), at most
        // DATALEN_MSG = PAGE_SIZE - 48 bytes.
        kmem_buckets_create(
            rec,
            boot,
            cache,
            "memdup_user",
            SlabFlags::default(),
            0,
            i32::MAX as u32,
        )?;
        let page = rec.machine().page.page_size;
        let account = SlabFlags {
            account: true,
            ..SlabFlags::default()
        };
        kmem_buckets_create(rec, boot, cache, "msg_msg", account, 48, page - 48)?;
    }
    Ok(())
}

/// The end of `create_kmalloc_caches()` from 6.11 (v6.12.117): `kmalloc_buckets`, whose objects
/// are bucket tables, one pointer per kmalloc index (`KMALLOC_SHIFT_HIGH + 1` of them).
fn create_kmem_buckets_cache(
    rec: &mut Recorder,
    boot: &BootOptions,
) -> Result<CacheId, GeometryError> {
    let size = (rec.machine().page.page_shift + 2) * WORD;
    let flags = SlabFlags {
        no_merge: true,
        ..SlabFlags::default()
    };
    kmem_cache_create(rec, "kmalloc_buckets", size, 0, flags, false, boot)
}

/// `kmem_buckets_create()` (mm/slab_common.c, v6.12.117), one step: the bucket table is an
/// object of `kmalloc_buckets` (allocated on CPU 0 and kept), and each normal kmalloc size gets
/// a cache `<name>-<size>` of its own: 8-aligned (these are not kmalloc caches), never merged,
/// with the usercopy window clipped to the object.
fn kmem_buckets_create(
    rec: &mut Recorder,
    boot: &BootOptions,
    kmem_buckets_cache: CacheId,
    name: &'static str,
    flags: SlabFlags,
    useroffset: u32,
    usersize: u32,
) -> Result<(), GeometryError> {
    rec.call(
        "kmem_buckets_create",
        "boot",
        "step.kmem_buckets_create",
        |rec| {
            rec.arg("buckets", name.to_string());
            crate::slub::slab_alloc_node(rec, kmem_buckets_cache, CpuId::new(0), None);
            let flags = SlabFlags {
                no_merge: true,
                ..flags
            };
            // Over kmalloc_caches[KMALLOC_NORMAL][] by index: 96 and 192 (indices 1 and 2) first.
            let mut classes = kmalloc_classes(&rec.machine().page);
            classes.sort_by_key(|c| c.index);
            for class in classes {
                let size = class.size;
                let (uo, us) = if useroffset >= size {
                    (0, 0)
                } else {
                    (useroffset, (size - useroffset).min(usersize))
                };
                let cache_name = format!("{name}-{}", class.short_size());
                kmem_cache_create_usercopy(rec, &cache_name, size, 0, flags, uo, us, false, boot)?;
            }
            Ok(())
        },
    )
}

/// The body of `create_kmalloc_caches()`, inside its step.
fn create_kmalloc_caches_body(rec: &mut Recorder, boot: &BootOptions) -> Result<(), GeometryError> {
    let mut boot_stream = None;
    for ty in KmallocType::all(boot.random_kmalloc_caches) {
        for class in kmalloc_classes(&rec.machine().page) {
            let req = request(
                rec,
                boot,
                CacheSource::Kmalloc {
                    request_size: class.size,
                },
                0,
                ty.flags(),
                false,
            );
            let mut geometry = rec.machine().profile.slub_geometry(&req)?;
            let name = ty.cache_name(&class);
            geometry.cache = Some(name.clone());
            let id = rec.machine().slub().caches.next_key();
            let objs = geometry.objs_per_slab;
            let (random, random_seq) = if ty == KmallocType::Normal {
                kmem_cache_open_random(rec, boot, objs)
            } else {
                let stream = boot_stream.get_or_insert_with(|| BootStream::new(rec.machine()));
                let random = if boot.freelist_hardened {
                    stream.get_random_long()
                } else {
                    0
                };
                let seq =
                    (boot.freelist_random && objs >= 2).then(|| stream.freelist_randomize(objs));
                (random, seq)
            };
            rec.emit(Event::CacheCreated(Box::new(NewCache {
                id,
                name,
                geometry,
                flags: req.flags,
                ctor: false,
                kmalloc: Some(KmallocSlot {
                    ty,
                    index: class.index,
                }),
                usersize: class.size,
                useroffset: 0,
                hardened: boot.freelist_hardened,
                random,
                random_seq,
            })));
            // 7.x: bootstrap_kmalloc_sheaves() right after the kmalloc caches.
            init_percpu_sheaves(rec, id);
        }
    }
    if boot.random_kmalloc_caches {
        let seed = get_random_long(rec);
        rec.emit(Event::RandomKmallocSeedSet { seed });
    }
    Ok(())
}

/// The random parts of a new cache: `s->random` (drawn in `kmem_cache_open()` with
/// hardening) and `s->random_seq` (`init_cache_random_seq()` with randomisation; none for
/// slabs of fewer than 2 objects, as `cache_random_seq_create()` decides).
fn kmem_cache_open_random(
    rec: &mut Recorder,
    boot: &BootOptions,
    objs_per_slab: u32,
) -> (u64, Option<Vec<u32>>) {
    let random = if boot.freelist_hardened {
        get_random_long(rec)
    } else {
        0
    };
    let seq = (boot.freelist_random && objs_per_slab >= 2)
        .then(|| freelist_randomize(rec, objs_per_slab));
    (random, seq)
}

/// The cache `kmalloc(size, GFP_KERNEL)` uses, or where the request goes instead.
pub fn kmalloc_cache_for(
    rec: &Recorder,
    size: u64,
) -> Result<Result<CacheId, KmallocTarget>, GeometryError> {
    kmalloc_slab(rec, size, GFP_KERNEL, 0).map(|r| r.map(|(cache, _)| cache))
}

/// `kmalloc_slab()`: the cache `kmalloc(size, flags)` called from `caller` uses, or where the
/// request goes instead.
#[inline]
pub fn kmalloc_slab(
    rec: &Recorder,
    size: u64,
    flags: Gfp,
    caller: u64,
) -> Result<Result<(CacheId, KmallocType), KmallocTarget>, GeometryError> {
    let m = rec.machine();
    match kmalloc_target(&m.page, size)? {
        KmallocTarget::Cache(class) => {
            let ty = kmalloc_type(flags, caller, m.random_kmalloc_seed);
            Ok(m.kmalloc_caches
                .get(ty, class.index)
                .map(|cache| (cache, ty))
                .ok_or(KmallocTarget::Cache(class)))
        }
        other => Ok(Err(other)),
    }
}

/// `kmem_cache_create_usercopy()`: merges into a compatible older cache (`__kmem_cache_alias()`
/// → `find_mergeable()`) unless merging is off or the cache has a usercopy region, else
/// creates a new cache. Returns the id the name now refers to.
///
/// Differs from v6.6: `__kmem_cache_alias()` also widens the surviving cache's `object_size`
/// and `inuse` to the new size; the simulator keeps the first cache's values (slot size,
/// order and free pointer offset, which the kernel does not change either, are the same).
#[allow(
    clippy::too_many_arguments,
    reason = "the kernel's seven arguments, in its order, after the recorder and before the boot options"
)]
pub fn kmem_cache_create_usercopy(
    rec: &mut Recorder,
    name: &str,
    size: u32,
    align: u32,
    flags: SlabFlags,
    useroffset: u32,
    usersize: u32,
    ctor: bool,
    boot: &BootOptions,
) -> Result<CacheId, GeometryError> {
    let args = crate::allocator::CacheArgs {
        name,
        size,
        align,
        flags,
        useroffset,
        usersize,
        ctor,
        freeptr_offset: None,
        sheaf_capacity: None,
    };
    kmem_cache_create_args(rec, &args, boot)
}

/// `__kmem_cache_create_args()` (6.12+; 6.6's `kmem_cache_create_usercopy()` with no more
/// arguments): as `kmem_cache_create_usercopy()`, with `freeptr_offset` and `sheaf_capacity`.
/// A request for sheaves is never merged (6.18: no alias search; 7.x: `SLAB_NO_MERGE`), and in
/// 6.18 a cache that has sheaves is no merge target either.
pub fn kmem_cache_create_args(
    rec: &mut Recorder,
    a: &crate::allocator::CacheArgs,
    boot: &BootOptions,
) -> Result<CacheId, GeometryError> {
    let (name, usersize, useroffset) = (a.name, a.usersize, a.useroffset);
    let mut req = request(
        rec,
        boot,
        CacheSource::Object {
            object_size: a.size,
        },
        a.align,
        a.flags,
        a.ctor,
    );
    req.freeptr_offset = a.freeptr_offset;
    req.sheaf_capacity = a.sheaf_capacity;
    if a.sheaf_capacity.is_some() && rec.machine().profile.slub >= SlubVersion::V7_2 {
        req.flags.no_merge = true;
    }
    let geometry = rec.machine().profile.slub_geometry(&req)?;
    let alias = (usersize == 0 && a.sheaf_capacity.is_none())
        .then(|| find_mergeable(rec, boot, &req, geometry.align))
        .flatten();
    if let Some(id) = alias {
        rec.call(
            "__kmem_cache_alias",
            "merged",
            "step.cache_aliased",
            |rec| {
                rec.arg("cache", name.to_string());
                rec.arg_cache("into", id);
                rec.emit(Event::CacheAliased {
                    id,
                    alias: name.to_string(),
                });
            },
        );
        return Ok(id);
    }
    let id = rec.call(
        "kmem_cache_create",
        "new cache",
        "step.cache_created",
        |rec| {
            rec.arg("cache", name.to_string());
            rec.arg("size", geometry.size);
            rec.arg("objs_per_slab", geometry.objs_per_slab);
            rec.arg("order", geometry.order);
            let id = rec.machine().slub().caches.next_key();
            let (random, random_seq) = kmem_cache_open_random(rec, boot, geometry.objs_per_slab);
            rec.emit(Event::CacheCreated(Box::new(NewCache {
                id,
                name: name.to_string(),
                geometry,
                flags: req.flags,
                ctor: req.ctor,
                kmalloc: None,
                usersize,
                useroffset,
                hardened: boot.freelist_hardened,
                random,
                random_seq,
            })));
            init_percpu_sheaves(rec, id);
            id
        },
    );
    Ok(id)
}

/// `init_percpu_sheaves()` (6.18+): every CPU's main sheaf is a new, empty sheaf; no spare,
/// no rcu_free sheaf. Nothing for a cache without sheaves.
fn init_percpu_sheaves(rec: &mut Recorder, id: CacheId) {
    let capacity = rec.machine().slub().caches[id].sheaf_capacity();
    if capacity == 0 {
        return;
    }
    for cpu in CpuId::all(rec.machine().config.cpus) {
        let sheaf = rec.machine().slub().sheaves.next_id();
        rec.emit(Event::Sheaf(SheafEvent::Allocated {
            cache: id,
            sheaf,
            capacity,
        }));
        rec.emit(Event::Sheaf(SheafEvent::PcsSet {
            cache: id,
            cpu,
            slot: PcsSlot::Main,
            sheaf: Some(sheaf),
        }));
    }
}

/// `kmem_cache_create(name, size, align, flags, ctor)`: [`kmem_cache_create_usercopy`]
/// without a usercopy region.
pub fn kmem_cache_create(
    rec: &mut Recorder,
    name: &str,
    size: u32,
    align: u32,
    flags: SlabFlags,
    ctor: bool,
    boot: &BootOptions,
) -> Result<CacheId, GeometryError> {
    kmem_cache_create_usercopy(rec, name, size, align, flags, 0, 0, ctor, boot)
}

/// `find_mergeable()`: the oldest live cache that can host objects of this request: same
/// `SLAB_MERGE_SAME` flags, a slot at least as large, aligned for the request and less than a
/// word larger. Under `slub_debug=F` both caches carry `SLAB_CONSISTENCY_CHECKS`, which is not
/// in `SLAB_NEVER_MERGE`: they merge.
fn find_mergeable(
    rec: &Recorder,
    boot: &BootOptions,
    req: &CacheRequest,
    align: u32,
) -> Option<CacheId> {
    if slab_unmergeable(&req.flags, req.ctor, 0, boot.slab_nomerge) {
        return None;
    }
    let CacheSource::Object { object_size } = req.source else {
        return None;
    };
    let size = object_size.next_multiple_of(WORD).next_multiple_of(align);
    let v6_18 = rec.machine().profile.slub == SlubVersion::V6_18;
    // slab_caches is walked from the oldest cache (list_for_each_entry_reverse).
    rec.machine()
        .slub()
        .caches
        .iter()
        .find(|s| {
            let g = &s.geometry;
            !s.destroyed
                && !slab_unmergeable(&s.flags, s.ctor, s.usersize, boot.slab_nomerge)
                // slab_unmergeable(), v6.18.15: `if (s->cpu_sheaves) return 1` (7.x: every
                // cache has them; only SLAB_NO_MERGE keeps the asked-for ones apart).
                && (!v6_18 || s.sheaf_capacity() == 0)
                && g.size >= size
                && s.flags.merge_same() == req.flags.merge_same()
                && g.size % align == 0
                && g.size - size < WORD
        })
        .map(|s| s.id)
}
