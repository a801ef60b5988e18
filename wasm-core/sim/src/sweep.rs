//! The geometry sweep: one cache configuration evaluated over a grid of object sizes, CPU
//! counts and page sizes, by any number of threads at once.
//!
//! Rules:
//! - A `SweepJob` owns the grid and a result table of `SWEEP_COLUMNS.len()` u32 cells per
//!   point. Points are numbered page-major, then CPU count, then size; row `i` of the table is
//!   point `i` whatever thread computed it.
//! - Threads claim chunks of `CHUNK` points with one `fetch_add`, compute a chunk into a local
//!   buffer and store it in that chunk's own slot, so `work()` needs `&self` only and any number
//!   of threads may call it together (Web Workers sharing wasm memory, or `std::thread`
//!   natively). Each slot's lock is taken once by its writer and once by `rows()`: uncontended.
//! - The hot loop allocates nothing but the chunk buffer: in the threaded wasm build every
//!   allocation goes through one global allocator lock that the workers would fight over.
//! - `rows()` is meaningful once `is_complete()`; the counter it reads is the last write of every
//!   `work()` call.

use crate::geometry::{
    kmem_cache_geometry_of, CacheRequest, CacheSource, GeometryError, SlabFlags, SlubVersion,
};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most points one sweep may hold (each costs `4 * SWEEP_COLUMNS.len()` bytes of results).
pub const MAX_POINTS: u64 = 2_000_000;
/// Points claimed by one `fetch_add`.
const CHUNK: usize = 512;

/// Result columns, in row order. `status` is 0 for a valid cache, 1 where the kernel refuses it.
pub const SWEEP_COLUMNS: [&str; 14] = [
    "status",
    "page_size",
    "cpus",
    "object_size",
    "kmalloc_class",
    "size",
    "offset",
    "order",
    "objs_per_slab",
    "waste",
    "min_partial",
    "cpu_partial",
    "cpu_partial_slabs",
    "sheaf_capacity",
];

/// One point of a sweep, as the web app reads a row of the table (`SWEEP_COLUMNS` names the
/// fields in the same order; the table itself is cells, not these structs). For a cache the
/// kernel refuses, `status` is 1 and only the point's own axes are set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SweepRow {
    /// 0 for a valid cache, 1 where `kmem_cache_create()` would fail.
    pub status: u32,
    /// The machine's page size in bytes.
    pub page_size: u32,
    /// Possible CPUs of the machine.
    pub cpus: u32,
    /// The size asked for.
    pub object_size: u32,
    /// The kmalloc class a `kmalloc()` of `object_size` bytes would use (0 above
    /// `KMALLOC_MAX_CACHE_SIZE`).
    pub kmalloc_class: u32,
    /// `s->size`: the object with its metadata and alignment.
    pub size: u32,
    /// `s->offset`: where the free pointer lives.
    pub offset: u32,
    /// `oo_order(s->oo)`.
    pub order: u32,
    /// `oo_objects(s->oo)`.
    pub objs_per_slab: u32,
    /// Bytes at the end of each slab that hold no object.
    pub waste: u32,
    /// `s->min_partial`.
    pub min_partial: u32,
    /// `s->cpu_partial` (objects).
    pub cpu_partial: u32,
    /// `s->cpu_partial_slabs`.
    pub cpu_partial_slabs: u32,
    /// `s->sheaf_capacity`: objects a per-CPU sheaf holds (6.18+; 0 without sheaves).
    pub sheaf_capacity: u32,
}

impl SweepRow {
    /// The row's cells in `SWEEP_COLUMNS` order.
    fn cells(&self) -> [u32; SWEEP_COLUMNS.len()] {
        [
            self.status,
            self.page_size,
            self.cpus,
            self.object_size,
            self.kmalloc_class,
            self.size,
            self.offset,
            self.order,
            self.objs_per_slab,
            self.waste,
            self.min_partial,
            self.cpu_partial,
            self.cpu_partial_slabs,
            self.sheaf_capacity,
        ]
    }
}

/// What to sweep. Sizes run `from..=to` by `step`; every CPU count and page size listed is
/// combined with every size.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(deny_unknown_fields)]
pub struct SweepGrid {
    pub size_from: u32,
    pub size_to: u32,
    pub size_step: u32,
    pub cpus: Vec<u32>,
    pub page_sizes: Vec<u32>,
    #[serde(default)]
    pub align: u32,
    #[serde(default)]
    pub flags: SlabFlags,
    #[serde(default)]
    pub ctor: bool,
    #[serde(default)]
    pub slub_min_objects: u32,
    #[serde(default)]
    pub slub_max_order: Option<u32>,
    #[serde(default)]
    pub slub_min_order: u32,
    /// The kernel whose `kmem_cache_create()` lays the caches out (a profile id).
    #[serde(default = "linux_6_6")]
    pub profile: String,
}

fn linux_6_6() -> String {
    crate::profile::LINUX_6_6.id.to_string()
}

impl SweepGrid {
    fn size_count(&self) -> u64 {
        if self.size_step == 0 || self.size_to < self.size_from {
            return 0;
        }
        u64::from((self.size_to - self.size_from) / self.size_step) + 1
    }

    /// Number of points, after checking every axis is non-empty and the total is bounded.
    pub fn points(&self) -> Result<usize, GeometryError> {
        let sizes = self.size_count();
        for (axis, len) in [
            ("size", sizes),
            ("CPU count", self.cpus.len() as u64),
            ("page size", self.page_sizes.len() as u64),
        ] {
            if len == 0 {
                return Err(GeometryError::SweepEmpty { axis });
            }
        }
        let points = sizes * self.cpus.len() as u64 * self.page_sizes.len() as u64;
        if points > MAX_POINTS {
            return Err(GeometryError::SweepTooLarge {
                points,
                max: MAX_POINTS,
            });
        }
        Ok(points as usize)
    }

    /// The request for point `index`.
    fn request(&self, index: usize) -> CacheRequest {
        let sizes = self.size_count() as usize;
        let size_index = index % sizes;
        let rest = index / sizes;
        let cpus = self.cpus[rest % self.cpus.len()];
        let page_size = self.page_sizes[rest / self.cpus.len()];
        CacheRequest {
            source: CacheSource::Object {
                object_size: self.size_from + size_index as u32 * self.size_step,
            },
            align: self.align,
            flags: self.flags,
            ctor: self.ctor,
            page_size,
            cpus,
            slub_min_objects: self.slub_min_objects,
            slub_max_order: self.slub_max_order,
            slub_min_order: self.slub_min_order,
            freeptr_offset: None,
            sheaf_capacity: None,
        }
    }
}

/// One sweep in progress; see the module rules.
pub struct SweepJob {
    grid: SweepGrid,
    /// The SLUB of the grid's profile.
    version: SlubVersion,
    points: usize,
    next: AtomicUsize,
    done: AtomicUsize,
    /// One slot per chunk, filled once by the thread that computed it.
    chunks: Box<[Mutex<Vec<u32>>]>,
}

impl SweepJob {
    /// Validates the grid (axes, bounds, and the machine of its first point) and allocates the
    /// result table.
    pub fn new(grid: SweepGrid) -> Result<Self, GeometryError> {
        let points = grid.points()?;
        let version = crate::profile::by_id(&grid.profile)
            .ok_or_else(|| GeometryError::UnknownProfile {
                id: grid.profile.clone(),
            })?
            .slub;
        // Machine-level mistakes (a bad page size, CPU count, alignment or boot parameter)
        // fail the whole sweep instead of filling it with refusals.
        for &page_size in &grid.page_sizes {
            for &cpus in &grid.cpus {
                let mut probe = grid.request(0);
                probe.page_size = page_size;
                probe.cpus = cpus;
                probe.source = CacheSource::Object { object_size: 8 };
                kmem_cache_geometry_of(&probe, version)?;
            }
        }
        let chunks = (0..points.div_ceil(CHUNK))
            .map(|_| Mutex::new(Vec::new()))
            .collect();
        Ok(SweepJob {
            grid,
            version,
            points,
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            chunks,
        })
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points
    }

    pub fn is_empty(&self) -> bool {
        self.points == 0
    }

    /// Computes chunks until none is left; returns how many points this caller computed.
    pub fn work(&self) -> usize {
        let mut mine = 0;
        loop {
            let start = self.next.fetch_add(CHUNK, Ordering::Relaxed);
            if start >= self.points {
                break;
            }
            let end = (start + CHUNK).min(self.points);
            let mut buffer = Vec::with_capacity((end - start) * SWEEP_COLUMNS.len());
            for index in start..end {
                buffer.extend_from_slice(&self.compute(index));
            }
            *lock(&self.chunks[start / CHUNK]) = buffer;
            mine += end - start;
        }
        self.done.fetch_add(mine, Ordering::Release);
        mine
    }

    /// True once every point has been computed.
    pub fn is_complete(&self) -> bool {
        self.done.load(Ordering::Acquire) == self.points
    }

    /// The whole table, row-major (`SWEEP_COLUMNS.len()` cells a row).
    pub fn rows(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.points * SWEEP_COLUMNS.len());
        for chunk in self.chunks.iter() {
            out.extend_from_slice(&lock(chunk));
        }
        out
    }

    fn compute(&self, index: usize) -> [u32; SWEEP_COLUMNS.len()] {
        let req = self.grid.request(index);
        let CacheSource::Object { object_size } = req.source else {
            unreachable!("sweep points are object sources")
        };
        let row = match kmem_cache_geometry_of(&req, self.version) {
            Ok(g) => SweepRow {
                status: 0,
                page_size: g.page_size,
                cpus: g.cpus,
                object_size: g.object_size,
                kmalloc_class: g.kmalloc_class.unwrap_or(0),
                size: g.size,
                offset: g.offset,
                order: g.order,
                objs_per_slab: g.objs_per_slab,
                waste: g.waste as u32,
                min_partial: g.min_partial,
                cpu_partial: g.cpu_partial,
                cpu_partial_slabs: g.cpu_partial_slabs,
                sheaf_capacity: g.sheaf_capacity.unwrap_or(0),
            },
            Err(_) => SweepRow {
                status: 1,
                page_size: req.page_size,
                cpus: req.cpus,
                object_size,
                ..SweepRow::default()
            },
        };
        row.cells()
    }
}

/// Locks a chunk slot. Writers never panic while holding it, so a poisoned slot still holds a
/// whole chunk; take it rather than fail.
fn lock(slot: &Mutex<Vec<u32>>) -> std::sync::MutexGuard<'_, Vec<u32>> {
    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> SweepGrid {
        SweepGrid {
            size_from: 8,
            size_to: 8192,
            size_step: 8,
            cpus: vec![1, 2, 4, 64],
            page_sizes: vec![4096, 16384, 65536],
            align: 0,
            flags: SlabFlags::default(),
            ctor: false,
            slub_min_objects: 0,
            slub_max_order: None,
            slub_min_order: 0,
            profile: linux_6_6(),
        }
    }

    #[test]
    fn a_row_names_its_cells_in_column_order() {
        let row = SweepRow {
            status: 1,
            page_size: 2,
            cpus: 3,
            object_size: 4,
            kmalloc_class: 5,
            size: 6,
            offset: 7,
            order: 8,
            objs_per_slab: 9,
            waste: 10,
            min_partial: 11,
            cpu_partial: 12,
            cpu_partial_slabs: 13,
            sheaf_capacity: 14,
        };
        // The web app reads cell `i` of a row under the name SWEEP_COLUMNS[i] and types it
        // with the fields of SweepRow: the three must agree.
        let json = serde_json::to_value(row).unwrap();
        for (name, cell) in SWEEP_COLUMNS.iter().zip(row.cells()) {
            assert_eq!(json[name], cell, "{name}");
        }
        assert_eq!(json.as_object().unwrap().len(), SWEEP_COLUMNS.len());
    }

    #[test]
    fn threads_together_produce_the_same_table_as_one() {
        let single = SweepJob::new(grid()).unwrap();
        assert_eq!(single.work(), single.len());
        assert!(single.is_complete());

        let shared = SweepJob::new(grid()).unwrap();
        let counts: Vec<usize> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4).map(|_| s.spawn(|| shared.work())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(counts.iter().sum::<usize>(), shared.len());
        assert!(shared.is_complete());
        assert_eq!(single.rows(), shared.rows());
    }

    #[test]
    fn rows_agree_with_the_single_cache_answer() {
        let job = SweepJob::new(grid()).unwrap();
        job.work();
        let rows = job.rows();
        let width = SWEEP_COLUMNS.len();
        for index in [0, 17, 1023, 1024, 5000, job.len() - 1] {
            let g = crate::geometry::kmem_cache_geometry(&job.grid.request(index)).unwrap();
            let row = &rows[index * width..(index + 1) * width];
            assert_eq!(row[0], 0);
            assert_eq!(
                (row[1], row[2], row[3]),
                (g.page_size, g.cpus, g.object_size)
            );
            assert_eq!((row[5], row[7], row[8]), (g.size, g.order, g.objs_per_slab));
            assert_eq!(u64::from(row[9]), g.waste);
        }
    }

    #[test]
    fn point_order_is_page_then_cpus_then_size() {
        let job = SweepJob::new(grid()).unwrap();
        let sizes = 1024;
        let r = job.grid.request(sizes * 5 + 3);
        // 5 = page index 1 (16K) * 4 cpu counts + cpu index 1 (2 CPUs)
        assert_eq!((r.page_size, r.cpus), (16384, 2));
        assert_eq!(r.source, CacheSource::Object { object_size: 32 });
    }

    #[test]
    fn bad_grids_are_refused_with_reasons() {
        let mut g = grid();
        g.cpus.clear();
        assert!(matches!(
            SweepJob::new(g),
            Err(GeometryError::SweepEmpty { axis: "CPU count" })
        ));
        let mut g = grid();
        g.size_step = 0;
        assert!(SweepJob::new(g).is_err());
        let mut g = grid();
        g.size_from = 1;
        g.size_to = 4_000_000;
        g.size_step = 1;
        assert!(matches!(
            SweepJob::new(g),
            Err(GeometryError::SweepTooLarge { .. })
        ));
        let mut g = grid();
        g.page_sizes = vec![8192];
        assert!(matches!(
            SweepJob::new(g),
            Err(GeometryError::PageSize { .. })
        ));
        let mut g = grid();
        g.profile = "linux-5.4".into();
        let e = SweepJob::new(g).err().expect("refused");
        assert!(e.to_string().contains("linux-5.4") && e.to_string().contains("linux-7.2"));
    }

    /// A sweep under a later profile lays every point out as that kernel does: the profile's
    /// own answer cell for cell, 6.7's order rule where it parts from 6.6's, and under 7.2 a
    /// sheaf capacity for every cache and no cpu partial list.
    #[test]
    fn a_sweep_under_a_profile_is_that_kernels_geometry() {
        let mut g = grid();
        g.profile = "linux-7.2".into();
        let job = SweepJob::new(g).unwrap();
        job.work();
        let rows = job.rows();
        let width = SWEEP_COLUMNS.len();
        let col = |name: &str| SWEEP_COLUMNS.iter().position(|c| *c == name).unwrap();
        let profile = crate::profile::by_id("linux-7.2").unwrap();
        for index in (0..job.len()).step_by(97) {
            let want = profile.slub_geometry(&job.grid.request(index)).unwrap();
            let row = &rows[index * width..(index + 1) * width];
            assert_eq!(row[col("order")], want.order, "point {index}");
            assert_eq!(row[col("objs_per_slab")], want.objs_per_slab);
            assert_eq!(row[col("cpu_partial")], 0);
            assert_eq!(Some(row[col("sheaf_capacity")]), want.sheaf_capacity);
            assert!(row[col("sheaf_capacity")] > 0);
        }
        // 12224 bytes on 2 CPUs: order 2 and one object under 6.6, order 3 and two objects
        // from 6.7 on (geometry/order.rs).
        let mut g = grid();
        (g.size_from, g.size_to, g.cpus, g.page_sizes) = (12224, 12224, vec![2], vec![4096]);
        let old = SweepJob::new(g.clone()).unwrap();
        old.work();
        g.profile = "linux-6.12".into();
        let new = SweepJob::new(g).unwrap();
        new.work();
        let order = |job: &SweepJob| (job.rows()[col("order")], job.rows()[col("objs_per_slab")]);
        assert_eq!(order(&old), (2, 1));
        assert_eq!(order(&new), (3, 2));
    }
}
