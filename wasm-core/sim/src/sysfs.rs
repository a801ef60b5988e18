//! `/sys/kernel/slab/<cache>/` for SLUB: the read-only attributes that describe a cache's layout
//! and count its slabs and objects, as the `*_show()` functions of mm/slub.c (v6.6) print them.
//!
//! Rules:
//! - A value is exactly what the kernel's show function writes, its trailing newline included;
//!   a caller that prints `attr: value` lines strips it.
//! - Counts are read where the kernel reads them, never recomputed another way: the node
//!   counters `nr_slabs`/`total_objects`, the node partial lists, each CPU's `c->slab` and the
//!   depth stored in the top slab of its partial stack (`slab->slabs`). Where the kernel's
//!   numbers are estimates or skip something (`slabs_cpu_partial`, `cpu_slabs`), so are ours.
//! - The modelled kernel is a distro build: `CONFIG_NUMA`, `CONFIG_SLUB_DEBUG` (compiled in,
//!   not enabled), `CONFIG_SLUB_CPU_PARTIAL` and `CONFIG_SYSFS` are all on. So every count of
//!   `show_slab_objects()` carries its ` N<node>=<count>` suffix for each node with a non-zero
//!   count, on a one-node machine too, and `slabs`, `objects` and `total_objects` exist.
//! - The flag files (`red_zone`, `poison`, ..., `usersize`) print the cache's `s->flags` bit as
//!   0 or 1 (`usersize` its region's size), with the `slub_debug` flags included, as
//!   `kmem_cache_open()` stores them. `CONFIG_ZONE_DMA` (`cache_dma`), `CONFIG_NUMA`
//!   (`remote_node_defrag_ratio`) and `CONFIG_HARDENED_USERCOPY` (`usersize`) are on.
//! - Directory names follow `sysfs_slab_add()`: a cache no other cache may ever merge into
//!   (`slab_unmergeable()`: every kmalloc cache, and any cache with a constructor, a usercopy
//!   region, a `SLAB_NEVER_MERGE` flag, or under `slab_nomerge`) gets a directory with its own
//!   name; any other cache gets a directory named by `create_unique_id()` (`:` then the letters
//!   of its `SLAB_MERGE_SAME`-like flags, `-` and the slot size in seven digits, such as
//!   `:A-0000064`) and a symlink by its name, and every cache merged into it one more symlink
//!   (`sysfs_slab_alias()`). A cache is found by any of these names. A destroyed cache has no
//!   directory. Differs from v6.6: when `kmem_cache_destroy()` only drops a merged name's
//!   reference, the kernel leaves its symlink in place; here it goes with the reference.

use crate::geometry::SlubVersion;
use crate::ids::{NodeId, TiVec};
use crate::machine::{Machine, Pfn};
use crate::slab_common::slab_unmergeable;
use crate::slub::state::KmemCache;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::{self, Write};

/// One attribute file of a cache's directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attr {
    Aliases,
    Align,
    CacheDma,
    CpuPartial,
    CpuSlabs,
    DestroyByRcu,
    HwcacheAlign,
    MinPartial,
    ObjectSize,
    Objects,
    ObjectsPartial,
    ObjsPerSlab,
    Order,
    Partial,
    Poison,
    ReclaimAccount,
    RedZone,
    RemoteNodeDefragRatio,
    SanityChecks,
    SlabSize,
    Slabs,
    SlabsCpuPartial,
    StoreUser,
    TotalObjects,
    Trace,
    Usersize,
    /// 6.18+.
    SheafCapacity,
    /// With `CONFIG_KFENCE`, which the distro kernels of the profiles from 6.12 on enable.
    SkipKfence,
}

/// Every attribute this module shows, sorted by file name the way `ls` and
/// `grep . /sys/kernel/slab/<cache>/*` list them (byte order), with the first version that
/// has it.
const ATTRS: [(&str, Attr, SlubVersion); 28] = [
    ("aliases", Attr::Aliases, SlubVersion::V6_6),
    ("align", Attr::Align, SlubVersion::V6_6),
    ("cache_dma", Attr::CacheDma, SlubVersion::V6_6),
    ("cpu_partial", Attr::CpuPartial, SlubVersion::V6_6),
    ("cpu_slabs", Attr::CpuSlabs, SlubVersion::V6_6),
    ("destroy_by_rcu", Attr::DestroyByRcu, SlubVersion::V6_6),
    ("hwcache_align", Attr::HwcacheAlign, SlubVersion::V6_6),
    ("min_partial", Attr::MinPartial, SlubVersion::V6_6),
    ("object_size", Attr::ObjectSize, SlubVersion::V6_6),
    ("objects", Attr::Objects, SlubVersion::V6_6),
    ("objects_partial", Attr::ObjectsPartial, SlubVersion::V6_6),
    ("objs_per_slab", Attr::ObjsPerSlab, SlubVersion::V6_6),
    ("order", Attr::Order, SlubVersion::V6_6),
    ("partial", Attr::Partial, SlubVersion::V6_6),
    ("poison", Attr::Poison, SlubVersion::V6_6),
    ("reclaim_account", Attr::ReclaimAccount, SlubVersion::V6_6),
    ("red_zone", Attr::RedZone, SlubVersion::V6_6),
    (
        "remote_node_defrag_ratio",
        Attr::RemoteNodeDefragRatio,
        SlubVersion::V6_6,
    ),
    ("sanity_checks", Attr::SanityChecks, SlubVersion::V6_6),
    ("sheaf_capacity", Attr::SheafCapacity, SlubVersion::V6_18),
    ("skip_kfence", Attr::SkipKfence, SlubVersion::V6_12),
    ("slab_size", Attr::SlabSize, SlubVersion::V6_6),
    ("slabs", Attr::Slabs, SlubVersion::V6_6),
    (
        "slabs_cpu_partial",
        Attr::SlabsCpuPartial,
        SlubVersion::V6_6,
    ),
    ("store_user", Attr::StoreUser, SlubVersion::V6_6),
    ("total_objects", Attr::TotalObjects, SlubVersion::V6_6),
    ("trace", Attr::Trace, SlubVersion::V6_6),
    ("usersize", Attr::Usersize, SlubVersion::V6_6),
];

/// The attribute names a version has, in the order `sysfs_dir()` returns them.
pub fn attribute_names(version: SlubVersion) -> impl Iterator<Item = &'static str> {
    attrs(version).map(|(name, _)| name)
}

/// The attributes a version has.
fn attrs(version: SlubVersion) -> impl Iterator<Item = (&'static str, Attr)> {
    ATTRS
        .iter()
        .filter(move |(_, _, since)| *since <= version)
        .map(|(name, attr, _)| (*name, *attr))
}

/// Why a sysfs file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SysfsError {
    /// No live cache has this name or alias; `destroyed` when one had it and was destroyed.
    UnknownCache { name: String, destroyed: bool },
    /// The cache exists but has no such attribute (or this build does not show it) in the
    /// kernel `version`.
    UnknownAttribute {
        cache: String,
        attr: String,
        version: SlubVersion,
    },
    /// The kernel runs SLAB, which has no /sys/kernel/slab (mm/slab.c registers no sysfs).
    NotSlub,
}

impl SysfsError {
    /// A stable key for the kind of error (`sysfs.<kind>`) and the cache it names, so the web
    /// app can word it in the reader's language (the English wording is `Display`).
    pub fn key_args(&self) -> (&'static str, Option<&str>) {
        match self {
            SysfsError::UnknownCache {
                name,
                destroyed: true,
            } => ("sysfs.destroyed", Some(name)),
            SysfsError::UnknownCache { name, .. } => ("sysfs.unknown_cache", Some(name)),
            SysfsError::UnknownAttribute { cache, .. } => ("sysfs.unknown_attribute", Some(cache)),
            SysfsError::NotSlub => ("sysfs.not_slub", None),
        }
    }
}

impl fmt::Display for SysfsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SysfsError::UnknownCache {
                name,
                destroyed: true,
            } => write!(
                f,
                "cache {name} was destroyed (kmem_cache_destroy), so /sys/kernel/slab/{name} \
                 is gone"
            ),
            SysfsError::UnknownCache { name, .. } => write!(
                f,
                "there is no cache named {name}: /sys/kernel/slab/{name} does not exist"
            ),
            SysfsError::NotSlub => f.write_str(
                "/sys/kernel/slab exists only under SLUB; SLAB shows its tunables in /proc/slabinfo",
            ),
            SysfsError::UnknownAttribute {
                cache,
                attr,
                version,
            } => {
                write!(
                    f,
                    "/sys/kernel/slab/{cache}/{attr} is not an attribute Slabscope shows; \
                     the attributes are: "
                )?;
                for (i, name) in attribute_names(*version).enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(name)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SysfsError {}

/// The contents of `/sys/kernel/slab/<cache>/<attr>`, trailing newline included.
pub fn sysfs_attribute(m: &Machine, cache: &str, attr: &str) -> Result<String, SysfsError> {
    let s = find_cache(m, cache)?;
    let version = m.profile.slub;
    let (_, which) = attrs(version)
        .find(|(name, _)| *name == attr)
        .ok_or_else(|| SysfsError::UnknownAttribute {
            cache: cache.to_string(),
            attr: attr.to_string(),
            version,
        })?;
    Ok(show(m, s, which))
}

/// Every attribute of `/sys/kernel/slab/<cache>/` with its contents, in `attribute_names()`
/// order.
pub fn sysfs_dir(m: &Machine, cache: &str) -> Result<Vec<(&'static str, String)>, SysfsError> {
    let s = find_cache(m, cache)?;
    Ok(attrs(m.profile.slub)
        .map(|(name, which)| (name, show(m, s, which)))
        .collect())
}

/// The live cache a directory name leads to: its own name first, then an alias symlink, then
/// a unique id.
fn find_cache<'m>(m: &'m Machine, name: &str) -> Result<&'m KmemCache, SysfsError> {
    if m.allocator() == crate::boot::Allocator::Slab {
        return Err(SysfsError::NotSlub);
    }
    let live = || m.slub().caches.iter().filter(|s| !s.destroyed);
    live()
        .find(|s| s.name == name)
        .or_else(|| live().find(|s| s.aliases.iter().any(|a| a == name)))
        .or_else(|| live().find(|s| sysfs_name(m, s) == name))
        .ok_or_else(|| SysfsError::UnknownCache {
            name: name.to_string(),
            destroyed: m
                .slub()
                .caches
                .iter()
                .any(|s| s.name == name || s.aliases.iter().any(|a| a == name)),
        })
}

/// One entry of `/sys/kernel/slab/`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SlabDirEntry {
    /// The entry's name.
    pub name: String,
    /// For a symlink (a mergeable cache's name, or a name merged into it): the directory it
    /// points to. `None` for a directory.
    pub target: Option<String>,
}

/// `create_unique_id()`, v6.6: `:`, a letter for each of `SLAB_CACHE_DMA` (d),
/// `SLAB_CACHE_DMA32` (D), `SLAB_RECLAIM_ACCOUNT` (a), `SLAB_CONSISTENCY_CHECKS` (F) and
/// `SLAB_ACCOUNT` (A), a `-` if there was one, and `s->size` in seven digits.
pub fn create_unique_id(s: &KmemCache) -> String {
    let f = &s.flags;
    let letters: String = [
        (f.cache_dma, 'd'),
        (f.cache_dma32, 'D'),
        (f.reclaim_account, 'a'),
        (f.consistency_checks, 'F'),
        (f.account, 'A'),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, c)| *c)
    .collect();
    let dash = if letters.is_empty() { "" } else { "-" };
    format!(":{letters}{dash}{:07}", s.geometry.size)
}

/// The name of the cache's own directory (`sysfs_slab_add()`): its name when nothing may merge
/// into it, else its unique id.
///
/// The kernel also gives a unique id to every cache when `slub_debug` has a metadata flag and
/// `disable_higher_order_debug` is set; the simulator has no such boot parameter.
fn sysfs_name(m: &Machine, s: &KmemCache) -> String {
    if slab_unmergeable(&s.flags, s.ctor, s.usersize, m.slab_nomerge) {
        s.name.clone()
    } else {
        create_unique_id(s)
    }
}

/// The entries of `/sys/kernel/slab/`, sorted by name in byte order (`LC_ALL=C ls`): each live
/// cache's directory and the symlinks to it. A name taken twice keeps its first entry, in
/// creation order.
pub fn sysfs_slab_dir(m: &Machine) -> Result<Vec<SlabDirEntry>, SysfsError> {
    if m.allocator() == crate::boot::Allocator::Slab {
        return Err(SysfsError::NotSlub);
    }
    let mut entries: BTreeMap<String, Option<String>> = BTreeMap::new();
    for s in m.slub().caches.iter().filter(|s| !s.destroyed) {
        let dir = sysfs_name(m, s);
        entries.entry(dir.clone()).or_insert(None);
        if dir != s.name {
            entries
                .entry(s.name.clone())
                .or_insert_with(|| Some(dir.clone()));
        }
        for alias in &s.aliases {
            entries
                .entry(alias.clone())
                .or_insert_with(|| Some(dir.clone()));
        }
    }
    Ok(entries
        .into_iter()
        .map(|(name, target)| SlabDirEntry { name, target })
        .collect())
}

/// `ls -l`-style lines of [`sysfs_slab_dir`]: `name/` for a directory, `name -> target` for a
/// symlink.
pub fn sysfs_slab_dir_text(entries: &[SlabDirEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        match &e.target {
            None => out.push_str(&format!("{}/\n", e.name)),
            Some(t) => out.push_str(&format!("{} -> {t}\n", e.name)),
        }
    }
    out
}

/// A flag file: `!!(s->flags & FLAG)`.
fn bit(on: bool) -> String {
    format!("{}\n", u8::from(on))
}

/// One show function.
fn show(m: &Machine, s: &KmemCache, attr: Attr) -> String {
    let g = &s.geometry;
    let f = &s.flags;
    match attr {
        // cache_dma_show(), destroy_by_rcu_show(), hwcache_align_show(), poison_show(),
        // reclaim_account_show(), red_zone_show(), sanity_checks_show(), store_user_show():
        // one bit of s->flags each.
        Attr::CacheDma => bit(f.cache_dma),
        Attr::DestroyByRcu => bit(f.typesafe_by_rcu),
        Attr::HwcacheAlign => bit(f.hwcache_align),
        Attr::Poison => bit(f.poison),
        Attr::ReclaimAccount => bit(f.reclaim_account),
        Attr::RedZone => bit(f.red_zone),
        Attr::SanityChecks => bit(f.consistency_checks),
        Attr::StoreUser => bit(f.store_user),
        // trace_show(): SLAB_TRACE (slub_debug=T), which no scenario can set.
        Attr::Trace => bit(false),
        // usersize_show(): s->usersize.
        Attr::Usersize => format!("{}\n", s.usersize),
        // sheaf_capacity_show() (v6.18.15, v7.2.13): s->sheaf_capacity.
        Attr::SheafCapacity => format!("{}\n", g.sheaf_capacity.unwrap_or(0)),
        // skip_kfence_show(): SLAB_SKIP_KFENCE, which no scenario sets.
        Attr::SkipKfence => bit(false),
        // remote_node_defrag_ratio_show(): a tenth of s->remote_node_defrag_ratio.
        Attr::RemoteNodeDefragRatio => format!("{}\n", s.remote_node_defrag_ratio / 10),
        // aliases_show(): s->refcount - 1. The creator holds one reference and every merged
        // kmem_cache_create() one more; the simulator keeps the merged names, one per reference.
        Attr::Aliases => format!("{}\n", s.aliases.len()),
        // align_show(): s->align.
        Attr::Align => format!("{}\n", g.align),
        // cpu_partial_show(): s->cpu_partial, the legacy limit in objects (0 for a cache
        // without per-CPU partial slabs, as set_cpu_partial() leaves it).
        Attr::CpuPartial => format!("{}\n", g.cpu_partial),
        // 7.0+: show_slab_objects(SO_CPU) has no branch for SO_CPU any more and prints 0.
        Attr::CpuSlabs if !m.profile.slub.has_cpu_slab() => "0\n".to_string(),
        Attr::CpuSlabs => show_slab_objects(m, s, SO_CPU),
        // min_partial_show(): s->min_partial.
        Attr::MinPartial => format!("{}\n", g.min_partial),
        // object_size_show(): s->object_size.
        Attr::ObjectSize => format!("{}\n", g.object_size),
        Attr::Objects => show_slab_objects(m, s, SO_ALL | SO_OBJECTS),
        Attr::ObjectsPartial => show_slab_objects(m, s, SO_PARTIAL | SO_OBJECTS),
        // objs_per_slab_show(): oo_objects(s->oo).
        Attr::ObjsPerSlab => format!("{}\n", g.objs_per_slab),
        // order_show(): oo_order(s->oo).
        Attr::Order => format!("{}\n", g.order),
        Attr::Partial => show_slab_objects(m, s, SO_PARTIAL),
        // slab_size_show(): s->size, the object slot, not the slab.
        Attr::SlabSize => format!("{}\n", g.size),
        Attr::Slabs => show_slab_objects(m, s, SO_ALL),
        // slabs_cpu_partial_show(), v7.2.13: a constant.
        Attr::SlabsCpuPartial if !m.profile.slub.has_cpu_slab() => "0(0)\n".to_string(),
        Attr::SlabsCpuPartial => slabs_cpu_partial_show(m, s),
        Attr::TotalObjects => show_slab_objects(m, s, SO_ALL | SO_TOTAL),
    }
}

// `enum slab_stat_type` as flags: where to count (all slabs, node partial slabs, cpu slabs) and
// what (slabs unless OBJECTS or TOTAL says in-use or all objects).
const SO_ALL: u8 = 1 << 0;
const SO_PARTIAL: u8 = 1 << 1;
const SO_CPU: u8 = 1 << 2;
const SO_OBJECTS: u8 = 1 << 3;
const SO_TOTAL: u8 = 1 << 4;

/// `show_slab_objects()`, v6.6: a total, then ` N<node>=<count>` for every node whose count is
/// not zero (`CONFIG_NUMA`), then a newline.
fn show_slab_objects(m: &Machine, s: &KmemCache, flags: u8) -> String {
    let mut nodes: TiVec<NodeId, u64> = NodeId::all(m.config.nodes).map(|_| 0).collect();
    if flags & SO_CPU != 0 {
        for c in &s.cpu {
            // A CPU without a cpu slab is skipped whole: its per-CPU partial slabs, if any,
            // are not counted either.
            let Some(pfn) = c.slab else { continue };
            let slab = &m.slub().slabs[&pfn];
            let x = if flags & SO_TOTAL != 0 {
                u64::from(slab.objects)
            } else if flags & SO_OBJECTS != 0 {
                u64::from(slab.inuse)
            } else {
                1
            };
            nodes[slab.node] += x;
            // slub_percpu_partial_read_once(): the top slab of the stack knows its depth and
            // the whole stack is charged to the top slab's node. With SO_TOTAL or SO_OBJECTS
            // the kernel warns (WARN_ON_ONCE) and adds the cpu slab's count again.
            if let Some(top) = c.partial {
                let partial = &m.slub().slabs[&top];
                let x = if flags & (SO_TOTAL | SO_OBJECTS) != 0 {
                    x
                } else {
                    u64::from(partial.slabs)
                };
                nodes[partial.node] += x;
            }
        }
    }
    if flags & SO_ALL != 0 {
        // The node counters cover every slab wherever it is: cpu slab, per-CPU partial, node
        // partial or full. Objects "in use" are all but the free ones on node partial slabs.
        for (node, n) in s.node.iter_enumerated() {
            // Unsigned arithmetic, as in the kernel: after a free to the wrong cache a node
            // list can hold another cache's slab, whose free objects this one never counted.
            nodes[node] = nodes[node].wrapping_add(if flags & SO_TOTAL != 0 {
                n.total_objects
            } else if flags & SO_OBJECTS != 0 {
                n.total_objects
                    .wrapping_sub(count_partial(m, &n.partial, |objects, inuse| {
                        objects - inuse
                    }))
            } else {
                n.nr_slabs
            });
        }
    } else if flags & SO_PARTIAL != 0 {
        for (node, n) in s.node.iter_enumerated() {
            nodes[node] += if flags & SO_TOTAL != 0 {
                count_partial(m, &n.partial, |objects, _| objects)
            } else if flags & SO_OBJECTS != 0 {
                count_partial(m, &n.partial, |_, inuse| inuse)
            } else {
                n.partial.len() as u64 // n->nr_partial
            };
        }
    }
    let mut out = nodes
        .iter()
        .fold(0u64, |a, &b| a.wrapping_add(b))
        .to_string();
    for (node, count) in nodes.iter_enumerated().filter(|(_, &c)| c != 0) {
        let _ = write!(out, " N{node}={count}");
    }
    out.push('\n');
    out
}

/// `count_partial()`: `get_count(slab)` summed over a node's partial list, given a slab's
/// `objects` and `inuse` (`count_free()`, `count_inuse()`, `count_total()`).
fn count_partial(m: &Machine, partial: &[Pfn], get_count: impl Fn(u64, u64) -> u64) -> u64 {
    partial
        .iter()
        .map(|pfn| {
            let slab = &m.slub().slabs[pfn];
            get_count(u64::from(slab.objects), u64::from(slab.inuse))
        })
        .sum()
}

/// `slabs_cpu_partial_show()`, v6.6: `<objects>(<slabs>)` for all CPUs, then
/// ` C<cpu>=<objects>(<slabs>)` for each CPU with a per-CPU partial stack. The slabs are the
/// depth stored in each stack's top slab; the objects are only an estimate, half of
/// `oo_objects(s->oo)` per slab (the same guess `slub_set_cpu_partial()` makes), whatever the
/// slabs really hold.
fn slabs_cpu_partial_show(m: &Machine, s: &KmemCache) -> String {
    let per_cpu: Vec<(usize, u64)> = s
        .cpu
        .iter()
        .enumerate()
        .filter_map(|(cpu, c)| Some((cpu, u64::from(m.slub().slabs[&c.partial?].slabs))))
        .collect();
    let estimate = |slabs: u64| slabs * u64::from(s.geometry.objs_per_slab) / 2;
    let slabs: u64 = per_cpu.iter().map(|(_, n)| n).sum();
    let mut out = format!("{}({slabs})", estimate(slabs));
    for (cpu, slabs) in per_cpu {
        let _ = write!(out, " C{cpu}={}({slabs})", estimate(slabs));
    }
    out.push('\n');
    out
}
