//! The whole simulated state (`Machine`): page frames, one zone per node with its buddy free
//! lists and its zonelist (fixed at boot), and every CPU's per-CPU page lists. Slab caches join
//! it in later modules.
//!
//! Rules:
//! - Only `trace::Recorder` mutates a `Machine`, by applying `Event`s (`apply.rs`); everything
//!   else reads it. Replaying a step's events on the state before it gives the state after it.
//! - Lists are intrusive and ordered, like the kernel's `list_head` in `struct page`: a page
//!   frame is on at most one list (a buddy free list or a pcp list) through its `prev`/`next`.
//! - Node `n`'s frames are pfns `n * span .. n * span + pages_per_node`, where `span` rounds
//!   the node up to a `MAX_ORDER` block, so no buddy pair ever crosses nodes; the rest of the
//!   span is a hole.

mod apply;
pub mod check;
pub mod config;
pub mod damage;
mod list;
mod slabs;
pub mod watermark;

pub use config::{ConfigError, MachineConfig};
pub use damage::Damage;
pub use list::ListHead;
pub use slabs::SlabTable;

use crate::boot::Allocator;
use crate::geometry::platform::PageGeometry;
use crate::ids::{CacheId, CpuId, NodeId, TiVec};
use crate::kmalloc_caches::KmallocCaches;
use crate::page_alloc::zonelist::{self, DistanceError};
use crate::profile::KernelProfile;
use crate::rcu::state::RcuState;
use crate::slab::state::SlabState;
use crate::slub::state::SlubState;
use rand_core::SeedableRng;
use rand_pcg::Pcg32;
use serde::Serialize;

pub use crate::ids::Pfn;
/// Where x86_64 maps all physical memory (`PAGE_OFFSET` without KASLR): objects are addresses
/// in the direct map (`DIRECT_MAP_BASE + pfn * PAGE_SIZE + offset`), as a kernel engineer
/// reads them in a crash dump. NULL is 0.
pub const DIRECT_MAP_BASE: u64 = 0xffff_8880_0000_0000;
/// The end of an intrusive list.
pub const NIL: Pfn = Pfn(u32::MAX);
/// Orders that per-CPU page lists hold: 0..=PAGE_ALLOC_COSTLY_ORDER (no THP list modelled).
pub const PCP_ORDERS: usize = 4;

/// Who owns an allocated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Owner {
    /// A slab of the cache with this id.
    Slab { cache: CacheId },
    /// A kmalloc too large for the caches (`__kmalloc_large_node()`).
    LargeKmalloc,
    /// Any other user of the page allocator (a scenario's `alloc_pages`).
    Pages,
    /// A slab of this `SLAB_TYPESAFE_BY_RCU` cache, freed by its cache and waiting for its
    /// RCU callback (`rcu_free_slab()`, `kmem_rcu_free()`): still a slab's pages to the page
    /// allocator, no longer on the cache's lists or in its counters.
    SlabRcu { cache: CacheId },
    /// A page of `kfree_rcu()` pointers (`struct kvfree_rcu_bulk_data`) of this CPU's `krc`,
    /// in use or in its page cache.
    KfreeRcu { cpu: CpuId },
}

/// What a page frame is, seen from `struct page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FrameState {
    /// First page of a free block on `free_area[order]` (`PageBuddy`).
    Buddy { order: u8 },
    /// First page of a block on a CPU's pcp list.
    Pcp { cpu: CpuId, order: u8 },
    /// First page of an allocated block.
    Allocated { order: u8, owner: Owner },
    /// Off every list between two events of one step (never seen at a step boundary).
    Detached { order: u8 },
    /// Any other page of a block; `head` is its first page.
    Tail { head: Pfn },
    /// Past the end of the node's memory: not a page at all.
    Hole,
}

/// One `struct page`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageFrame {
    pub state: FrameState,
    /// Intrusive list links (`page->lru` / `buddy_list` / `pcp_list`).
    pub(crate) prev: Pfn,
    pub(crate) next: Pfn,
}

/// One zone (a node's ZONE_NORMAL; no DMA/DMA32/movable zones are modelled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zone {
    pub node: NodeId,
    pub start_pfn: Pfn,
    /// Present (and managed) pages.
    pub pages: u32,
    /// `free_area[order].free_list[MIGRATE_UNMOVABLE]`; its `len` is `nr_free`. One migrate type
    /// is modelled.
    pub free_area: Vec<ListHead>,
    /// `NR_FREE_PAGES`: pages in the buddy lists (pcp pages are not counted, as in the kernel).
    pub free_pages: u64,
    /// `WMARK_MIN`, `WMARK_LOW`, `WMARK_HIGH` in pages.
    pub watermark: [u64; 3],
}

/// `struct per_cpu_pages` of one CPU for one zone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerCpuPages {
    /// Pages on all lists (an order-k entry counts `2^k`).
    pub count: u32,
    /// 6.6: fixed; 6.7+: tuned between `high_min` and `high_max`.
    pub high: u32,
    pub batch: u32,
    /// 6.6: batch frees grow as `batch << free_factor`.
    pub free_factor: u32,
    /// 6.7+ (all 0 or equal to `high` before): the bounds of `high`, `alloc_factor` (refills of
    /// `batch << alloc_factor`), `free_count` (pages freed in a row) and
    /// `PCPF_PREV_FREE_HIGH_ORDER` (the last free was of order 1..=3).
    pub high_min: u32,
    pub high_max: u32,
    pub alloc_factor: u32,
    pub free_count: u32,
    pub prev_free_high_order: bool,
    /// One list per order 0..=3 (`order_to_pindex()` with one migrate type).
    pub lists: [ListHead; PCP_ORDERS],
}

/// The caches and slabs of the slab allocator the kernel was built with: one allocator's, never
/// both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocatorState {
    Slub(SlubState),
    Slab(SlabState),
}

impl AllocatorState {
    /// SLUB's state. A SLUB path run on a SLAB machine is a bug in the dispatch, not a bad
    /// operation: it cannot come from input.
    #[inline]
    pub fn slub(&self) -> &SlubState {
        match self {
            AllocatorState::Slub(s) => s,
            AllocatorState::Slab(_) => unreachable!("SLUB's code ran on a machine built with SLAB"),
        }
    }

    #[inline]
    pub fn slub_mut(&mut self) -> &mut SlubState {
        match self {
            AllocatorState::Slub(s) => s,
            AllocatorState::Slab(_) => unreachable!("SLUB's code ran on a machine built with SLAB"),
        }
    }

    /// SLAB's state (see `slub`).
    #[inline]
    pub fn slab(&self) -> &SlabState {
        match self {
            AllocatorState::Slab(s) => s,
            AllocatorState::Slub(_) => unreachable!("SLAB's code ran on a machine built with SLUB"),
        }
    }

    #[inline]
    pub fn slab_mut(&mut self) -> &mut SlabState {
        match self {
            AllocatorState::Slab(s) => s,
            AllocatorState::Slub(_) => unreachable!("SLAB's code ran on a machine built with SLUB"),
        }
    }
}

/// The whole simulated state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Machine {
    pub config: MachineConfig,
    pub page: PageGeometry,
    /// Node of each CPU.
    pub cpu_node: TiVec<CpuId, NodeId>,
    /// Pfns per node span (a multiple of the largest block).
    pub span: u32,
    pub frames: TiVec<Pfn, PageFrame>,
    pub zones: TiVec<NodeId, Zone>,
    /// `pcp[cpu * nodes + node]`: every CPU has lists for every zone.
    pub pcp: Vec<PerCpuPages>,
    /// `kmalloc_caches[type][index]`: the cache id of each kmalloc cache.
    pub kmalloc_caches: KmallocCaches,
    /// The `slab_nomerge` boot parameter: no cache merges, and every cache's sysfs directory
    /// has its own name.
    pub slab_nomerge: bool,
    /// `random_kmalloc_seed`, with `CONFIG_RANDOM_KMALLOC_CACHES` (set at boot by
    /// `create_kmalloc_caches()`, under SLUB).
    pub random_kmalloc_seed: Option<u64>,
    /// Objects handed out and not yet freed (the sum of `Slab::allocated`).
    pub live_objects: u64,
    /// The kernel's random number generator, seeded by the scenario (`get_random_u32()`).
    pub rng: Pcg32,
    /// The kernel version the machine runs (fixed at boot).
    pub profile: &'static KernelProfile,
    /// The slab allocator the kernel was built with, and its caches and slabs.
    pub alloc: AllocatorState,
    /// Per node: acquisitions of any cache's `n->list_lock` so far.
    pub list_lock_taken: TiVec<NodeId, u64>,
    /// `node_distance(a, b)` as `node_distance[a][b]` (the SLIT): 10/20 unless
    /// `with_node_distance()` gave a table.
    pub node_distance: Vec<Vec<u32>>,
    /// Each node's fallback zonelist (`node_zonelists[ZONELIST_FALLBACK]`, one zone per node),
    /// built at boot by `build_all_zonelists()`: the nodes its allocations try, in order.
    pub zonelists: TiVec<NodeId, Vec<NodeId>>,
    /// What unchecked bad operations did to the kernel's structures (`damage.rs`).
    pub damage: Vec<Damage>,
    /// Grace periods, `call_rcu()` callbacks and `kfree_rcu()` batches.
    pub rcu: RcuState,
}

/// Every CPU's `struct per_cpu_pages` for every zone, CPU by CPU: `batch` and `high` from the
/// scenario's `pcp` line, else `zone_batchsize()` and `zone_highsize()` (6.6's; a later
/// profile sets its `high_max` in `with_profile`).
fn pcp_lists(
    config: &MachineConfig,
    page: &PageGeometry,
    zones: &TiVec<NodeId, Zone>,
    cpu_node: &TiVec<CpuId, NodeId>,
) -> Vec<PerCpuPages> {
    let mut pcp = Vec::new();
    for _cpu in CpuId::all(config.cpus) {
        for zone in zones {
            let cpus_of_node = cpu_node.iter().filter(|&&n| n == zone.node).count() as u32;
            let batch = config
                .pcp_batch
                .unwrap_or_else(|| watermark::zone_batchsize(page, zone.pages));
            let high = config
                .pcp_high
                .unwrap_or_else(|| watermark::zone_highsize(zone, batch, cpus_of_node));
            pcp.push(PerCpuPages {
                count: 0,
                high,
                batch,
                free_factor: 0,
                high_min: high,
                high_max: high,
                alloc_factor: 0,
                free_count: 0,
                prev_free_high_order: false,
                lists: [ListHead::EMPTY; PCP_ORDERS],
            });
        }
    }
    pcp
}

impl Machine {
    /// Boots the machine: every node's memory is handed to the buddy allocator as the largest
    /// aligned blocks that fit, queued at the tail in address order (`memblock_free_all()` →
    /// `__free_pages_core()` with `FPI_TO_TAIL`).
    pub fn new(config: MachineConfig) -> Result<Machine, ConfigError> {
        Machine::new_seeded(config, 0)
    }

    /// `new`, with the random generator seeded by `seed`.
    pub fn new_seeded(config: MachineConfig, seed: u64) -> Result<Machine, ConfigError> {
        let (page, cpu_node) = config.validate()?;
        let cpu_node: TiVec<CpuId, NodeId> = cpu_node.into_iter().map(NodeId::new).collect();
        let max_block = 1u32 << page.max_order;
        let span = config.pages_per_node.div_ceil(max_block) * max_block;
        let mut frames: TiVec<Pfn, PageFrame> = vec![
            PageFrame {
                state: FrameState::Hole,
                prev: NIL,
                next: NIL,
            };
            (span * config.nodes) as usize
        ]
        .into();
        let lists = (page.max_order + 1) as usize;
        let mut zones: TiVec<NodeId, Zone> = TiVec::new();
        for node in NodeId::all(config.nodes) {
            let start_pfn = Pfn(u32::from(node) * span);
            let mut zone = Zone {
                node,
                start_pfn,
                pages: config.pages_per_node,
                free_area: vec![ListHead::EMPTY; lists],
                free_pages: 0,
                watermark: [0; 3],
            };
            let end = start_pfn + config.pages_per_node;
            let mut pfn = start_pfn;
            while pfn < end {
                let aligned = if pfn == Pfn(0) {
                    page.max_order
                } else {
                    pfn.trailing_zeros()
                };
                let fits = 31 - (end - pfn).leading_zeros();
                let order = aligned.min(fits).min(page.max_order);
                for tail in pfn.pages(1 << order).skip(1) {
                    frames[tail].state = FrameState::Tail { head: pfn };
                }
                frames[pfn].state = FrameState::Buddy { order: order as u8 };
                zone.free_area[order as usize].push_tail(&mut frames, pfn);
                zone.free_pages += 1 << order;
                pfn += 1 << order;
            }
            zones.push(zone);
        }
        watermark::setup_per_zone_wmarks(&page, &mut zones.raw);
        let pcp = pcp_lists(&config, &page, &zones, &cpu_node);
        let frames_len = frames.len();
        let cpus = config.cpus;
        let nodes_count = zones.len();
        let node_distance = zonelist::uniform_distance(config.nodes);
        // cpumask_of_node() is still empty for every node when x86_64 builds the lists.
        let zonelists = zonelist::build_all_zonelists(&node_distance, &vec![false; nodes_count]);
        Ok(Machine {
            config,
            page,
            cpu_node,
            span,
            frames,
            zones,
            pcp,
            kmalloc_caches: KmallocCaches::default(),
            slab_nomerge: false,
            random_kmalloc_seed: None,
            live_objects: 0,
            rng: Pcg32::seed_from_u64(seed),
            profile: &crate::profile::LINUX_6_6,
            alloc: AllocatorState::Slub(SlubState {
                held: Vec::new(),
                caches: TiVec::new(),
                slabs: SlabTable::new(frames_len),
                sheaves: Default::default(),
                held_sheaves: Vec::new(),
                stacked: Vec::new(),
                isolated: Vec::new(),
            }),
            list_lock_taken: vec![0; nodes_count].into(),
            node_distance,
            zonelists,
            damage: Vec::new(),
            rcu: RcuState::new(cpus),
        })
    }

    /// The same machine with another node distance table (a SLIT), its zonelists rebuilt.
    /// For a machine just booted: the lists are the boot-time ones, never rebuilt later.
    pub fn with_node_distance(mut self, distance: Vec<Vec<u32>>) -> Result<Machine, DistanceError> {
        zonelist::check_distance(&distance, self.config.nodes)?;
        let has_cpus = vec![false; distance.len()];
        self.zonelists = zonelist::build_all_zonelists(&distance, &has_cpus);
        self.node_distance = distance;
        Ok(self)
    }

    /// The same machine, running the kernel of `profile` (no cache exists yet). Its allocator
    /// must be one the profile has (`with_allocator` after this one sets it).
    pub fn with_profile(mut self, profile: &'static KernelProfile) -> Machine {
        self.profile = profile;
        if profile.slub.pcp_auto_tuning() && self.config.pcp_high.is_none() {
            // zone_set_pageset_high_and_batch() (mm/page_alloc.c, v6.12.117): with auto-tuning
            // (percpu_pagelist_high_fraction 0), high_min is 6.6's high (the low watermark
            // split over the node's CPUs) and high_max an eighth of the zone, split the same
            // way, each at least 4 * batch. A scenario's `pcp high=` fixes both, as the sysctl
            // does.
            let nodes = self.zones.len();
            for (i, pcp) in self.pcp.iter_mut().enumerate() {
                let zone = &self.zones.raw[i % nodes];
                let cpus_of_node = self.cpu_node.iter().filter(|&&n| n == zone.node).count() as u32;
                let split = cpus_of_node.max(1);
                pcp.high_max = (zone.pages / 8 / split).max(pcp.batch << 2);
            }
        }
        self
    }

    /// The same machine, booted for `allocator` (no cache exists yet).
    pub fn with_allocator(mut self, allocator: Allocator) -> Machine {
        self.alloc = match allocator {
            Allocator::Slub => AllocatorState::Slub(SlubState {
                held: Vec::new(),
                caches: TiVec::new(),
                slabs: SlabTable::new(self.frames.len()),
                sheaves: Default::default(),
                held_sheaves: Vec::new(),
                stacked: Vec::new(),
                isolated: Vec::new(),
            }),
            Allocator::Slab => AllocatorState::Slab(SlabState::default()),
        };
        self
    }

    /// Which slab allocator the kernel was built with.
    pub fn allocator(&self) -> Allocator {
        match self.alloc {
            AllocatorState::Slub(_) => Allocator::Slub,
            AllocatorState::Slab(_) => Allocator::Slab,
        }
    }

    /// SLUB's caches and slabs. Only SLUB's code calls it, and it runs only on a machine
    /// built with SLUB (`slab_common` dispatches on `allocator()`).
    #[inline]
    pub fn slub(&self) -> &SlubState {
        self.alloc.slub()
    }

    /// SLAB's caches and slabs; only SLAB's code calls it.
    #[inline]
    pub fn slab(&self) -> &SlabState {
        self.alloc.slab()
    }

    /// The name of cache `id` of the machine's allocator.
    pub fn cache_name(&self, id: CacheId) -> Option<&str> {
        match &self.alloc {
            AllocatorState::Slub(s) => s.caches.get(id).map(|c| c.name.as_str()),
            AllocatorState::Slab(s) => s.caches.get(id).map(|c| c.name.as_str()),
        }
    }

    /// The address of object `index` of the slab at `pfn`.
    pub fn object_addr(&self, pfn: Pfn, size: u32, index: u32) -> u64 {
        DIRECT_MAP_BASE
            + (u64::from(pfn) << self.page.page_shift)
            + u64::from(index) * u64::from(size)
    }

    /// The first page's pfn of the page holding `addr`, if `addr` is in simulated memory.
    pub fn addr_pfn(&self, addr: u64) -> Option<Pfn> {
        let offset = addr.checked_sub(DIRECT_MAP_BASE)?;
        let pfn = offset >> self.page.page_shift;
        (pfn < self.frames.len() as u64).then_some(Pfn(pfn as u32))
    }

    /// The node whose memory holds `pfn`.
    pub fn node_of(&self, pfn: Pfn) -> NodeId {
        NodeId::new(pfn.0 / self.span)
    }

    /// Index into `pcp` for a CPU's lists of a node's zone.
    pub fn pcp_index(&self, cpu: CpuId, node: NodeId) -> usize {
        cpu.index() * self.config.nodes as usize + node.index()
    }

    /// The frame at `pfn`, if it exists.
    pub fn frame(&self, pfn: Pfn) -> Option<&PageFrame> {
        self.frames.get(pfn)
    }

    /// Pfns of a list, in order (for views and tests).
    pub fn list_pfns(&self, list: &ListHead) -> Vec<Pfn> {
        list.iter(&self.frames).collect()
    }
}
