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
}

/// Every attribute this module shows, sorted by file name the way `ls` and
/// `grep . /sys/kernel/slab/<cache>/*` list them (byte order).
const ATTRS: [(&str, Attr); 26] = [
    ("aliases", Attr::Aliases),
    ("align", Attr::Align),
    ("cache_dma", Attr::CacheDma),
    ("cpu_partial", Attr::CpuPartial),
    ("cpu_slabs", Attr::CpuSlabs),
    ("destroy_by_rcu", Attr::DestroyByRcu),
    ("hwcache_align", Attr::HwcacheAlign),
    ("min_partial", Attr::MinPartial),
    ("object_size", Attr::ObjectSize),
    ("objects", Attr::Objects),
    ("objects_partial", Attr::ObjectsPartial),
    ("objs_per_slab", Attr::ObjsPerSlab),
    ("order", Attr::Order),
    ("partial", Attr::Partial),
    ("poison", Attr::Poison),
    ("reclaim_account", Attr::ReclaimAccount),
    ("red_zone", Attr::RedZone),
    ("remote_node_defrag_ratio", Attr::RemoteNodeDefragRatio),
    ("sanity_checks", Attr::SanityChecks),
    ("slab_size", Attr::SlabSize),
    ("slabs", Attr::Slabs),
    ("slabs_cpu_partial", Attr::SlabsCpuPartial),
    ("store_user", Attr::StoreUser),
    ("total_objects", Attr::TotalObjects),
    ("trace", Attr::Trace),
    ("usersize", Attr::Usersize),
];

/// The attribute names, in the order `sysfs_dir()` returns them.
pub fn attribute_names() -> impl Iterator<Item = &'static str> {
    ATTRS.iter().map(|(name, _)| *name)
}

/// Why a sysfs file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SysfsError {
    /// No live cache has this name or alias; `destroyed` when one had it and was destroyed.
    UnknownCache { name: String, destroyed: bool },
    /// The cache exists but has no such attribute (or this build does not show it).
    UnknownAttribute { cache: String, attr: String },
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
            SysfsError::UnknownAttribute { cache, attr } => {
                write!(
                    f,
                    "/sys/kernel/slab/{cache}/{attr} is not an attribute Slabscope shows; \
                     the attributes are: "
                )?;
                for (i, name) in attribute_names().enumerate() {
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
    let (_, which) = ATTRS
        .iter()
        .find(|(name, _)| *name == attr)
        .ok_or_else(|| SysfsError::UnknownAttribute {
            cache: cache.to_string(),
            attr: attr.to_string(),
        })?;
    Ok(show(m, s, *which))
}

/// Every attribute of `/sys/kernel/slab/<cache>/` with its contents, in `attribute_names()`
/// order.
pub fn sysfs_dir(m: &Machine, cache: &str) -> Result<Vec<(&'static str, String)>, SysfsError> {
    let s = find_cache(m, cache)?;
    Ok(ATTRS
        .iter()
        .map(|(name, which)| (*name, show(m, s, *which)))
        .collect())
}

/// The live cache a directory name leads to: its own name first, then an alias symlink, then
/// a unique id.
fn find_cache<'m>(m: &'m Machine, name: &str) -> Result<&'m KmemCache, SysfsError> {
    if m.allocator() == crate::scenario::Allocator::Slab {
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
    if m.allocator() == crate::scenario::Allocator::Slab {
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
    let mut nodes = vec![0u64; m.config.nodes as usize];
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
            nodes[slab.node as usize] += x;
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
                nodes[partial.node as usize] += x;
            }
        }
    }
    if flags & SO_ALL != 0 {
        // The node counters cover every slab wherever it is: cpu slab, per-CPU partial, node
        // partial or full. Objects "in use" are all but the free ones on node partial slabs.
        for (node, n) in s.node.iter().enumerate() {
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
        for (node, n) in s.node.iter().enumerate() {
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
    for (node, count) in nodes.iter().enumerate().filter(|(_, &c)| c != 0) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{parse, run};

    fn machine(text: &str) -> Machine {
        let s = parse(text).expect("the scenario parses");
        run(&s, true).expect("the scenario runs").machine().clone()
    }

    /// Two nodes, two CPUs on each. `foo` has 16 objects of 256 bytes in an order-0 slab, a
    /// cpu_partial of 52 objects and a min_partial of 5; `bar` merges into it (kmalloc caches
    /// would not: they are `SLAB_NO_MERGE` in v6.6 with memcg).
    ///
    /// cpu0 fills S0 and S1 and takes 8 from S2 (its cpu slab); cpu2 fills T0 and takes 4
    /// from T1 (its cpu slab), both on node 1. Four remote frees from S0 on cpu1 freeze S0
    /// onto cpu1's partial stack; one from S1 on cpu0 puts S1 on cpu0's stack (under its cpu
    /// slab); one from T0 on cpu3 puts T0 on cpu3's stack and a second one lands in it. The
    /// flushes move S0 (12 in use) to node 0's partial list and T1 (4 in use) to node 1's.
    const TWO_NODES: &str = "slabscope-scenario 1
machine cpus=4 nodes=2 memory=1M cpu_node=0,0,1,1
pcp batch=7 high=28
cache foo size=256
cache bar size=256
repeat 40 a[] = kmem_cache_alloc(foo) on cpu0
repeat 20 b[] = kmem_cache_alloc(bar) on cpu2
kmem_cache_free(foo, a[0]) on cpu1
kmem_cache_free(foo, a[1]) on cpu1
kmem_cache_free(foo, a[2]) on cpu1
kmem_cache_free(foo, a[3]) on cpu1
kmem_cache_free(bar, a[16]) on cpu0
kmem_cache_free(bar, b[0]) on cpu3
kmem_cache_free(foo, b[1]) on cpu0
flush_cpu_slab(foo) on cpu1
flush_cpu_slab(bar) on cpu2
";

    #[test]
    fn a_two_node_cache_reads_as_worked_out_by_hand() {
        let m = machine(TWO_NODES);
        let dir = sysfs_dir(&m, "foo").unwrap();
        let expected = [
            ("aliases", "1\n"),
            ("align", "8\n"),
            ("cache_dma", "0\n"),
            ("cpu_partial", "52\n"),
            // cpu0: its cpu slab and a stack of one. cpu3 has a stack but no cpu slab, and
            // show_slab_objects() skips such a CPU whole.
            ("cpu_slabs", "2 N0=2\n"),
            ("destroy_by_rcu", "0\n"),
            ("hwcache_align", "0\n"),
            ("min_partial", "5\n"),
            ("object_size", "256\n"),
            // All 80 but the free objects of node-partial slabs: 4 of S0, 12 of T1.
            ("objects", "64 N0=44 N1=20\n"),
            ("objects_partial", "16 N0=12 N1=4\n"),
            ("objs_per_slab", "16\n"),
            ("order", "0\n"),
            ("partial", "2 N0=1 N1=1\n"),
            ("poison", "0\n"),
            ("reclaim_account", "0\n"),
            ("red_zone", "0\n"),
            // kmem_cache_open(): 1000, shown in tenths.
            ("remote_node_defrag_ratio", "100\n"),
            ("sanity_checks", "0\n"),
            ("slab_size", "256\n"),
            ("slabs", "5 N0=3 N1=2\n"),
            // One slab on cpu0's stack and one on cpu3's, each estimated at 16 / 2 objects.
            ("slabs_cpu_partial", "16(2) C0=8(1) C3=8(1)\n"),
            ("store_user", "0\n"),
            ("total_objects", "80 N0=48 N1=32\n"),
            ("trace", "0\n"),
            ("usersize", "0\n"),
        ];
        let got: Vec<(&str, &str)> = dir.iter().map(|(a, v)| (*a, v.as_str())).collect();
        assert_eq!(got, expected);
        // The merged name is a symlink to the same directory.
        assert_eq!(sysfs_dir(&m, "bar").unwrap(), dir);
        for (attr, value) in &dir {
            assert_eq!(&sysfs_attribute(&m, "foo", attr).unwrap(), value);
        }
    }

    /// One node, two CPUs; `foo` (100 bytes in 104-byte slots) has 39 objects a slab, an odd
    /// number, so the half-full estimate rounds down. cpu0 fills the first slab and starts a
    /// second; cpu1's free from the full first slab puts it on cpu1's partial stack.
    #[test]
    fn one_node_still_prints_n0_and_the_estimate_rounds_down() {
        let m = machine(
            "slabscope-scenario 1
machine cpus=2 nodes=1 memory=1M
cache foo size=100
repeat 40 x[] = kmem_cache_alloc(foo) on cpu0
kmem_cache_free(foo, x[0]) on cpu1
",
        );
        let read = |attr| sysfs_attribute(&m, "foo", attr).unwrap();
        assert_eq!(read("objs_per_slab"), "39\n");
        assert_eq!(read("slab_size"), "104\n");
        assert_eq!(read("object_size"), "100\n");
        assert_eq!(read("align"), "8\n");
        assert_eq!(read("cpu_partial"), "120\n");
        assert_eq!(read("aliases"), "0\n");
        assert_eq!(read("slabs"), "2 N0=2\n");
        assert_eq!(read("total_objects"), "78 N0=78\n");
        // Nothing is on the node partial list, so every object counts as in use.
        assert_eq!(read("objects"), "78 N0=78\n");
        // A zero count has no node suffix.
        assert_eq!(read("partial"), "0\n");
        assert_eq!(read("objects_partial"), "0\n");
        assert_eq!(read("cpu_slabs"), "1 N0=1\n");
        assert_eq!(read("slabs_cpu_partial"), "19(1) C1=19(1)\n");
    }

    #[test]
    fn unknown_names_are_errors_worded_for_a_person() {
        let m = machine(
            "slabscope-scenario 1
machine cpus=1 nodes=1 memory=1M
cache gone size=3000
kmem_cache_destroy(gone)
",
        );
        let e = sysfs_attribute(&m, "kmalloc-100", "slabs").unwrap_err();
        assert_eq!(
            e,
            SysfsError::UnknownCache {
                name: "kmalloc-100".into(),
                destroyed: false
            }
        );
        assert!(e.to_string().contains("no cache named kmalloc-100"), "{e}");
        let e = sysfs_dir(&m, "gone").unwrap_err();
        assert!(matches!(
            e,
            SysfsError::UnknownCache {
                destroyed: true,
                ..
            }
        ));
        assert!(e.to_string().contains("gone was destroyed"), "{e}");
        let e = sysfs_attribute(&m, "kmalloc-64", "slab").unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("/sys/kernel/slab/kmalloc-64/slab is not"),
            "{text}"
        );
        for name in attribute_names() {
            assert!(text.contains(name), "{name} missing from: {text}");
        }
    }

    #[test]
    fn the_directory_lists_every_attribute_once_in_byte_order() {
        let names: Vec<&str> = attribute_names().collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(names, sorted);
        assert_eq!(names.len(), 26);
    }

    /// The flag files print one bit of `s->flags` each. The kmalloc caches' values are those a
    /// Debian 6.12 kernel shows for them (its show functions are 6.6's): dma-kmalloc-* have
    /// cache_dma 1, kmalloc-rcl-* reclaim_account 1, every kmalloc cache a usersize of its
    /// object size and, under SLUB, hwcache_align 0.
    #[test]
    fn flag_files_read_the_cache_flags() {
        let m = machine(
            "slabscope-scenario 2
machine cpus=1 nodes=1 memory=1M
slub_debug ZU
cache r size=100 flags=hwcache_align,reclaim_account,typesafe_by_rcu
cache d size=64 flags=cache_dma usersize=16 useroffset=8
",
        );
        let read = |cache, attr| sysfs_attribute(&m, cache, attr).unwrap();
        let flags = |cache| {
            [
                "cache_dma",
                "destroy_by_rcu",
                "hwcache_align",
                "poison",
                "reclaim_account",
                "red_zone",
                "sanity_checks",
                "store_user",
                "usersize",
            ]
            .map(|a| read(cache, a).trim_end().to_string())
            .join(" ")
        };
        // slub_debug=ZU reaches every cache's flags (kmem_cache_flags()). `trace` and
        // `remote_node_defrag_ratio` read constants (no scenario sets SLAB_TRACE or the ratio).
        assert_eq!(flags("r"), "0 1 1 0 1 1 0 1 0");
        assert_eq!(flags("d"), "1 0 0 0 0 1 0 1 16");
        assert_eq!(flags("dma-kmalloc-64"), "1 0 0 0 0 1 0 1 64");
        assert_eq!(flags("kmalloc-rcl-64"), "0 0 0 0 1 1 0 1 64");
        assert_eq!(flags("kmalloc-cg-96"), "0 0 0 0 0 1 0 1 96");
    }

    /// `sysfs_slab_add()`: a cache another may merge into gets a directory named by
    /// `create_unique_id()` and a symlink by its name. `anon_vma_chain -> :A-0000064` and
    /// `buffer_head -> :a-0000104` are what a Debian 6.12 kernel lists for those two caches
    /// (`SLAB_ACCOUNT`, and `SLAB_RECLAIM_ACCOUNT` with 104-byte slots).
    #[test]
    fn the_slab_directory_lists_unique_ids_and_symlinks() {
        let text = "slabscope-scenario 2
machine cpus=1 nodes=1 memory=1M
cache anon_vma_chain size=64 flags=account
cache buffer_head size=104 flags=reclaim_account
cache foo size=256
cache bar size=256
cache withctor size=256 ctor
cache dmacache size=200 flags=cache_dma
cache both size=300 flags=account,reclaim_account
cache copy size=512 usersize=64
";
        let m = machine(text);
        let entries = sysfs_slab_dir(&m).unwrap();
        let listing = sysfs_slab_dir_text(&entries);
        let ours: Vec<&str> = listing
            .lines()
            .filter(|l| !l.contains("kmalloc-"))
            .collect();
        assert_eq!(
            ours,
            [
                ":0000256/",
                ":A-0000064/",
                ":a-0000104/",
                ":aA-0000304/",
                ":d-0000200/",
                "anon_vma_chain -> :A-0000064",
                "bar -> :0000256",
                "both -> :aA-0000304",
                "buffer_head -> :a-0000104",
                "copy/",
                "dmacache -> :d-0000200",
                "foo -> :0000256",
                "withctor/",
            ]
        );
        // Every kmalloc cache has a usercopy region, so a directory of its own name.
        assert_eq!(
            listing.lines().filter(|l| l.contains("kmalloc-")).count(),
            52
        );
        assert!(listing.contains("\nkmalloc-cg-64/\n"), "{listing}");
        assert!(listing.contains("\ndma-kmalloc-8k/\n"), "{listing}");
        // The unique id leads to the same directory as the names.
        assert_eq!(
            sysfs_dir(&m, ":0000256").unwrap(),
            sysfs_dir(&m, "bar").unwrap()
        );
        assert_eq!(sysfs_attribute(&m, ":A-0000064", "aliases").unwrap(), "0\n");
        // slab_nomerge makes every cache unmergeable: plain names only.
        let m = machine(&text.replace("cache anon", "switch slab_nomerge on\ncache anon"));
        let entries = sysfs_slab_dir(&m).unwrap();
        assert!(entries.iter().all(|e| e.target.is_none()));
        assert!(entries.iter().any(|e| e.name == "bar"));
        assert!(sysfs_dir(&m, ":0000256").is_err());
    }

    /// `total N<a>=<x> ...`, written from per-node counts the way the tests expect it.
    fn per_node(nodes: &[u64]) -> String {
        let mut s = nodes.iter().sum::<u64>().to_string();
        for (n, c) in nodes.iter().enumerate() {
            if *c != 0 {
                s += &format!(" N{n}={c}");
            }
        }
        s + "\n"
    }

    /// The counts recomputed from the slabs themselves rather than from the counters and
    /// lists the show functions read. In v6.6 without debugging, a slab that is not frozen
    /// is on its node's partial list exactly when it has a free object; a frozen slab is a
    /// cpu slab or on a per-CPU partial stack, whose depth is found by walking `next`.
    fn check_against_the_slabs(m: &Machine) {
        let nodes = m.config.nodes as usize;
        for s in m.slub().caches.iter().filter(|s| !s.destroyed) {
            let mut slabs = vec![0; nodes];
            let mut total = vec![0; nodes];
            let mut objects = vec![0; nodes];
            let mut partial = vec![0; nodes];
            let mut objects_partial = vec![0; nodes];
            for slab in m.slub().slabs.values().filter(|sl| sl.cache == s.id) {
                let n = slab.node as usize;
                let (all, inuse) = (u64::from(slab.objects), u64::from(slab.inuse));
                slabs[n] += 1;
                total[n] += all;
                if !slab.frozen && inuse < all {
                    partial[n] += 1;
                    objects_partial[n] += inuse;
                    objects[n] += inuse;
                } else {
                    objects[n] += all;
                }
            }
            let mut cpu_slabs = vec![0; nodes];
            let mut stacks = Vec::new();
            for (cpu, c) in s.cpu.iter().enumerate() {
                let mut depth = 0u64;
                let mut next = c.partial;
                while let Some(pfn) = next {
                    assert!(m.slub().slabs[&pfn].frozen, "{}: cpu{cpu} partial", s.name);
                    depth += 1;
                    next = m.slub().slabs[&pfn].next;
                }
                if depth > 0 {
                    stacks.push((cpu, depth));
                }
                if let Some(pfn) = c.slab {
                    cpu_slabs[m.slub().slabs[&pfn].node as usize] += 1;
                    if let Some(top) = c.partial {
                        cpu_slabs[m.slub().slabs[&top].node as usize] += depth;
                    }
                }
            }
            let half = u64::from(s.geometry.objs_per_slab);
            let all: u64 = stacks.iter().map(|(_, d)| d).sum();
            let mut scp = format!("{}({all})", all * half / 2);
            for (cpu, d) in &stacks {
                scp += &format!(" C{cpu}={}({d})", d * half / 2);
            }
            scp.push('\n');
            let read = |attr| sysfs_attribute(m, &s.name, attr).unwrap();
            let name = &s.name;
            assert_eq!(read("slabs"), per_node(&slabs), "{name} slabs");
            assert_eq!(read("total_objects"), per_node(&total), "{name} total");
            assert_eq!(read("objects"), per_node(&objects), "{name} objects");
            assert_eq!(read("partial"), per_node(&partial), "{name} partial");
            assert_eq!(
                read("objects_partial"),
                per_node(&objects_partial),
                "{name} objects_partial"
            );
            assert_eq!(read("cpu_slabs"), per_node(&cpu_slabs), "{name} cpu_slabs");
            assert_eq!(read("slabs_cpu_partial"), scp, "{name} slabs_cpu_partial");
            assert_eq!(read("aliases"), format!("{}\n", s.aliases.len()));
        }
    }

    #[test]
    fn counts_match_the_slabs_after_every_step_of_a_two_node_workload() {
        let s = parse(
            "slabscope-scenario 1
machine cpus=4 nodes=2 memory=2M cpu_node=0,0,1,1
pcp batch=7 high=28
cache foo size=100
cache bar size=256
cache baz size=256
repeat 120 a[] = kmalloc(256) on cpu0
repeat 70 b[] = kmalloc_node(256, 1) on cpu1
repeat 90 c[] = kmem_cache_alloc(foo) on cpu2
repeat 60 d[] = kmem_cache_alloc(baz) on cpu3
kfree_bulk(a[0..60]) on cpu2
kfree_bulk(b[10..40]) on cpu3
for x in c: kmem_cache_free(foo, x) on cpu0
kmem_cache_free_bulk(bar, d[5..50]) on cpu1
flush_cpu_slab(kmalloc-256) on cpu1
repeat 30 e[] = kmalloc(256) on cpu3
kfree_bulk(a[60..120]) on cpu3
repeat 40 f[] = kmem_cache_alloc_node(foo, 0) on cpu3
kfree_bulk(e) on cpu0
for x in f: kmem_cache_free(foo, x) on cpu1
kmem_cache_shrink(kmalloc-256) on cpu0
flush_all(foo)
",
        )
        .unwrap();
        let rec = run(&s, true).unwrap();
        let (mut remote_stack, mut stack_without_cpu_slab, mut both_partial) = (0, 0, 0);
        for cursor in 0..=rec.cursor() {
            let m = rec.snapshot_at(cursor).unwrap();
            check_against_the_slabs(&m);
            let read = |attr| sysfs_attribute(&m, "kmalloc-256", attr).unwrap_or_default();
            remote_stack += usize::from(read("slabs_cpu_partial").contains(" C3="));
            both_partial +=
                usize::from(read("partial").contains(" N0=") && read("partial").contains(" N1="));
            stack_without_cpu_slab += m
                .slub()
                .caches
                .iter()
                .flat_map(|s| &s.cpu)
                .filter(|c| c.partial.is_some() && c.slab.is_none())
                .count();
        }
        // The workload reaches the states the checks are about.
        assert!(remote_stack > 0, "no per-CPU partial stack on a node 1 CPU");
        assert!(both_partial > 0, "never partial slabs on both nodes");
        assert!(
            stack_without_cpu_slab > 0,
            "never a partial stack without a cpu slab"
        );
        assert!(rec.cursor() > 100, "{} steps", rec.cursor());
        let end = rec.machine();
        assert_eq!(sysfs_attribute(end, "bar", "aliases").unwrap(), "1\n");
        assert_eq!(
            sysfs_dir(end, "baz").unwrap(),
            sysfs_dir(end, "bar").unwrap()
        );
        assert!(sysfs_attribute(end, "kmalloc-256", "slabs")
            .unwrap()
            .contains(" N1="));
    }
}
