//! Creating SLAB caches: `create_kmalloc_caches()` at boot (with `SLAB_HWCACHE_ALIGN`, from
//! kmalloc-32 up, every type but the random copies, which need SLUB) and
//! `kmem_cache_create_usercopy()` with `find_mergeable()` (mm/slab_common.c and mm/slab.c,
//! v6.6; spec 1.2, 1.5, 3.2-3.4).

use super::emit;
use super::event::{SlabEvent, SlabNewCache};
use super::state::REAPTIMEOUT_NODE;
use crate::boot::BootOptions;
use crate::geometry::layout::calculate_alignment;
use crate::geometry::platform::WORD;
use crate::geometry::slab::{
    slab_cache_geometry, slab_kmalloc_boot, slab_kmalloc_index, FreelistLayout, SlabCacheGeometry,
    SlabCacheRequest, SlabParams,
};
use crate::geometry::{GeometryError, SlabFlags};
use crate::gfp::{Gfp, GFP_KERNEL};
use crate::ids::{CacheId, CpuId};
use crate::kmalloc_caches::{kmalloc_type, KmallocSlot, KmallocType};
use crate::machine::Machine;
use crate::slab_common::random::{freelist_randomize, BootStream};
use crate::slab_common::slab_unmergeable;
use crate::trace::Recorder;

fn params(m: &Machine, boot: &BootOptions) -> SlabParams {
    let memory = u64::from(m.config.pages_per_node)
        * u64::from(m.config.nodes)
        * u64::from(m.config.page_size);
    SlabParams::new(
        &m.page,
        m.config.cpus,
        m.config.nodes,
        memory,
        boot.slab_max_order,
    )
}

/// The cache `kmalloc(size, GFP_KERNEL)` uses under SLAB (`Ok`), or the page order of a large
/// kmalloc (`Err`); `None` past `KMALLOC_MAX_SIZE`. `size` is not 0.
pub(crate) fn kmalloc_cache_for(m: &Machine, size: u64) -> Option<Result<CacheId, u8>> {
    kmalloc_slab(m, size, GFP_KERNEL)
}

/// `kmalloc_slab()` under SLAB: [`kmalloc_cache_for`] with the cache type `flags` choose (no
/// random copies: they need SLUB).
pub(crate) fn kmalloc_slab(m: &Machine, size: u64, flags: Gfp) -> Option<Result<CacheId, u8>> {
    let ty = kmalloc_type(flags, 0, None);
    match slab_kmalloc_index(&m.page, size).map(|c| c.index) {
        Some(index) => m.slab().kmalloc_caches.get(ty, index).map(Ok),
        None if size <= m.page.kmalloc_max_size() => Some(Err(m.page.get_order(size) as u8)),
        None => None,
    }
}

/// What a new cache is, beside its geometry.
struct Identity {
    name: String,
    flags: SlabFlags,
    ctor: bool,
    kmalloc: Option<KmallocSlot>,
    usersize: u32,
    useroffset: u32,
}

/// Records a new cache. `boot_stream` is where a kmalloc cache other than a normal one draws
/// its random sequence (see `crate::slub::random`); every other cache draws from the machine.
fn create(
    rec: &mut Recorder,
    boot: &BootOptions,
    who: Identity,
    geometry: SlabCacheGeometry,
    boot_stream: Option<&mut BootStream>,
) -> CacheId {
    let id = rec.machine().slab().caches.next_key();
    // enable_cpucache() → init_cache_random_seq(): only for slabs of 2 or more objects.
    let random_seq = (boot.freelist_random && geometry.num >= 2).then(|| match boot_stream {
        Some(stream) => stream.freelist_randomize(geometry.num),
        None => freelist_randomize(rec, geometry.num),
    });
    let freelist_cache = (geometry.layout == FreelistLayout::OffSlab)
        .then(|| kmalloc_cache_for(rec.machine(), u64::from(geometry.freelist_size)))
        .flatten()
        .and_then(Result::ok);
    // n->next_reap: the kernel adds the cache's address modulo REAPTIMEOUT_NODE to spread
    // the caches' reaping; the simulator does not know that address.
    let next_reap = rec.machine().slab().jiffies + REAPTIMEOUT_NODE;
    emit(
        rec,
        SlabEvent::CacheCreated(Box::new(SlabNewCache {
            id,
            name: who.name,
            geometry,
            flags: who.flags,
            ctor: who.ctor,
            kmalloc: who.kmalloc,
            usersize: who.usersize,
            useroffset: who.useroffset,
            hardened: boot.freelist_hardened,
            random_seq,
            freelist_cache,
            next_reap,
        })),
    );
    id
}

/// `kmem_cache_init()` and `create_kmalloc_caches()` under SLAB, one step: kmalloc-128 (it
/// holds `struct kmem_cache_node`), the other normal caches from kmalloc-32 up to
/// `KMALLOC_MAX_CACHE_SIZE` (96 after 64, 192 after 128), then the reclaimable, DMA and cgroup
/// types the same way; all `SLAB_HWCACHE_ALIGN` with natural alignment for power-of-two
/// sizes (`create_boot_cache()`), each type's flags and a usercopy region of the whole object.
/// Also each CPU's first reap node (`init_reap_node()`).
#[doc(alias = "kmem_cache_init")]
pub fn create_kmalloc_caches(rec: &mut Recorder, boot: &BootOptions) -> Result<(), GeometryError> {
    rec.call(
        "create_kmalloc_caches",
        "boot",
        "step.create_kmalloc_caches",
        |rec| {
            let nodes = rec.machine().config.nodes;
            for cpu in CpuId::all(rec.machine().config.cpus) {
                let node = rec.machine().cpu_node[cpu].next_node_in(nodes);
                emit(rec, SlabEvent::ReapNode { cpu, node });
            }
            let p = params(rec.machine(), boot);
            let page = rec.machine().page;
            let mut boot_stream = None;
            for (ty, class, geometry) in slab_kmalloc_boot(&page, &p) {
                let who = Identity {
                    name: geometry.name.clone(),
                    flags: SlabFlags {
                        hwcache_align: true,
                        ..ty.flags()
                    },
                    ctor: false,
                    kmalloc: Some(KmallocSlot {
                        ty,
                        index: class.index,
                    }),
                    usersize: class.size,
                    useroffset: 0,
                };
                let stream = (ty != KmallocType::Normal)
                    .then(|| boot_stream.get_or_insert_with(|| BootStream::new(rec.machine())));
                create(rec, boot, who, geometry, stream);
            }
        },
    );
    Ok(())
}

/// `kmem_cache_create_usercopy()` under SLAB: merges into a compatible older cache unless merging is
/// off, else creates one. Returns the id the name now refers to.
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
    let p = params(rec.machine(), boot);
    let req = SlabCacheRequest {
        name: name.to_string(),
        object_size: size,
        align,
        flags,
        ctor,
    };
    let geometry = slab_cache_geometry(&rec.machine().page, &p, &req)?;
    let alias = (usersize == 0)
        .then(|| find_mergeable(rec.machine(), boot, &req))
        .flatten();
    if let Some(id) = alias {
        let object_size = rec.machine().slab().caches[id].object_size.max(size);
        rec.call(
            "__kmem_cache_alias",
            "merged",
            "step.cache_aliased",
            |rec| {
                rec.arg("cache", name.to_string());
                rec.arg_cache("into", id);
                emit(
                    rec,
                    SlabEvent::CacheAliased(Box::new((id, name.to_string(), object_size))),
                );
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
            rec.arg("objs_per_slab", geometry.num);
            rec.arg("order", geometry.gfporder);
            let who = Identity {
                name: name.to_string(),
                flags,
                ctor,
                kmalloc: None,
                usersize,
                useroffset,
            };
            create(rec, boot, who, geometry, None)
        },
    );
    Ok(id)
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

/// `find_mergeable()` with SLAB's extra alignment rule: the oldest live cache with the same
/// `SLAB_MERGE_SAME` flags whose slot fits the new object within a word and whose alignment
/// is a multiple of the new one.
fn find_mergeable(m: &Machine, boot: &BootOptions, req: &SlabCacheRequest) -> Option<CacheId> {
    if slab_unmergeable(&req.flags, req.ctor, 0, boot.slab_nomerge) {
        return None;
    }
    let align = calculate_alignment(&req.flags, req.align, req.object_size);
    let size = req
        .object_size
        .next_multiple_of(WORD)
        .next_multiple_of(align);
    m.slab()
        .caches
        .iter()
        .find(|s| {
            let g = &s.geometry;
            !s.destroyed
                && !slab_unmergeable(&s.flags, s.ctor, s.usersize, boot.slab_nomerge)
                && s.flags.merge_same() == req.flags.merge_same()
                && g.size >= size
                && g.size % align == 0
                && g.size - size < WORD
                && align <= g.align
                && g.align % align == 0
        })
        .map(|s| s.id)
}
