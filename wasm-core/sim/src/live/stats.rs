//! What one live thread counts: its micro-steps, the kernel's retries by site, `list_lock`
//! acquisitions and the looks that found it held.

use crate::smp::micro::RetryReason;
use std::collections::BTreeMap;

/// One thread's counts (merged over threads with `add`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct LiveStats {
    /// Operations the thread ran.
    pub ops: u64,
    /// Micro-step boundaries passed (a micro-step of the interleaving engine starts at each,
    /// and one more starts every operation).
    pub boundaries: u64,
    /// Failed cmpxchgs by the kernel's site name (`note_cmpxchg_failure()`'s "slab_alloc",
    /// "slab_free"; `slab_update_freelist()`'s "__slab_free", "get_freelist", ...).
    pub retries: BTreeMap<&'static str, u64>,
    /// Of them, the per-CPU (freelist, tid) pair's: its tid moved on.
    pub tid_mismatches: u64,
    /// `list_lock` acquisitions, and looks that found it held.
    pub lock_taken: u64,
    pub lock_waits: u64,
    /// Diagnostics the kernel would print (none in a sound run).
    pub diagnostics: u64,
    pub out_of_memory: u64,
    /// Objects handed out while already allocated (only a damaged freelist does that).
    pub handed_out_twice: u64,
}

impl LiveStats {
    #[inline(always)]
    pub(crate) fn boundary(&mut self) {
        self.boundaries += 1;
    }

    pub(crate) fn retry(&mut self, site: &'static str, reason: RetryReason) {
        *self.retries.entry(site).or_default() += 1;
        if reason != RetryReason::SlabChanged {
            self.tid_mismatches += 1;
        }
    }

    #[inline(always)]
    pub(crate) fn lock_taken(&mut self) {
        self.lock_taken += 1;
    }

    #[inline(always)]
    pub(crate) fn lock_waited(&mut self) {
        self.lock_waits += 1;
    }

    /// `other`'s counts added to these.
    pub fn add(&mut self, other: &LiveStats) {
        self.ops += other.ops;
        self.boundaries += other.boundaries;
        for (site, n) in &other.retries {
            *self.retries.entry(site).or_default() += n;
        }
        self.tid_mismatches += other.tid_mismatches;
        self.lock_taken += other.lock_taken;
        self.lock_waits += other.lock_waits;
        self.diagnostics += other.diagnostics;
        self.out_of_memory += other.out_of_memory;
        self.handed_out_twice += other.handed_out_twice;
    }

    /// All retries.
    pub fn total_retries(&self) -> u64 {
        self.retries.values().sum()
    }
}
