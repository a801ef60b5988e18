//! The kernel's random numbers as both slab allocators draw them: `get_random_u32_below()`,
//! `get_random_long()`, and `freelist_randomize()` for `CONFIG_SLAB_FREELIST_RANDOM`
//! (mm/slab_common.c, v6.6); SLUB's use of them (`shuffle_freelist()`, hardened free
//! pointers) is in slub/random.rs, SLAB's in slab/create.rs and slab/alloc.rs.
//!
//! Randomness comes from the machine's seeded generator through `RandomDrawn` events, so a
//! replay draws the same numbers (`get_random_u32()` and `get_random_long()` in the kernel).
//!
//! - At cache creation `cache_random_seq_create()` fills `s->random_seq` with a Fisher-Yates
//!   shuffle of `0..oo_objects(s->oo)`; the kernel then scales the entries to byte offsets,
//!   the simulator keeps object indices. Each new slab's freelist (`shuffle_freelist()`)
//!   starts at a random position of that sequence and walks it, wrapping, skipping indices
//!   past the end of a smaller (fallback-order) slab (`next_freelist_entry()`).
//! - The kmalloc caches other than the normal ones (kmalloc-cg-*, kmalloc-rcl-*, dma-kmalloc-*,
//!   kmalloc-rnd-*) draw from [`BootStream`], a distant stretch of the same generator, and
//!   record what they drew in their creation event. They joined the simulator after scenarios
//!   had been written against the normal caches alone; this way every number a scenario's own
//!   caches and slabs draw stays what it was. The kernel draws them all from one generator in
//!   creation order, and which numbers come out is no more predictable there.

use crate::machine::Machine;
use crate::trace::{Event, Recorder};
use rand_core::Rng;
use rand_pcg::Pcg32;

/// How far ahead of the machine's generator [`BootStream`] starts, in 32-bit draws: more than
/// any run can use (a run's draws are bounded by its steps and objects).
const BOOT_STREAM_AHEAD: u64 = 1 << 48;

/// `n` fresh 32-bit random numbers from the machine's generator (recorded as drawn).
fn draw(rec: &mut Recorder, n: u32) -> Vec<u32> {
    let mut rng = rec.machine().rng.clone();
    let values = (0..n).map(|_| rng.next_u32()).collect();
    rec.emit(Event::RandomDrawn { draws: n });
    values
}

/// `get_random_u32_below(ceil)`: a number in `0..ceil` from one 32-bit draw, by the
/// multiply-and-shift the kernel uses (its rare rejection retry is not modelled).
fn below(value: u32, ceil: u32) -> u32 {
    ((u64::from(value) * u64::from(ceil)) >> 32) as u32
}

/// A number in `0..ceil` from one fresh draw.
pub(crate) fn draw_below(rec: &mut Recorder, ceil: u32) -> u32 {
    below(draw(rec, 1)[0], ceil)
}

/// `get_random_long()` (and `get_random_u64()`, the same on a 64-bit kernel).
pub(crate) fn get_random_long(rec: &mut Recorder) -> u64 {
    let v = draw(rec, 2);
    u64::from(v[0]) << 32 | u64::from(v[1])
}

/// `freelist_randomize()`: a Fisher-Yates shuffle of `0..count`.
pub(crate) fn freelist_randomize(rec: &mut Recorder, count: u32) -> Vec<u32> {
    if count < 2 {
        return (0..count).collect();
    }
    let values = draw(rec, count - 1);
    shuffle(count, values)
}

/// The shuffle of `freelist_randomize()`, one drawn value per swap (`count - 1` of them).
fn shuffle(count: u32, values: Vec<u32>) -> Vec<u32> {
    let mut list: Vec<u32> = (0..count).collect();
    for (i, value) in (1..count).rev().zip(values) {
        let j = below(value, i + 1);
        list.swap(i as usize, j as usize);
    }
    list
}

/// The generator the kmalloc caches beyond the normal ones draw from at boot (see the module
/// rules): the machine's generator, [`BOOT_STREAM_AHEAD`] draws on. Nothing it draws moves
/// the machine's own generator.
pub(crate) struct BootStream(Pcg32);

impl BootStream {
    pub(crate) fn new(m: &Machine) -> Self {
        let mut rng = m.rng.clone();
        rng.advance(BOOT_STREAM_AHEAD);
        BootStream(rng)
    }

    /// `get_random_long()`.
    pub(crate) fn get_random_long(&mut self) -> u64 {
        u64::from(self.0.next_u32()) << 32 | u64::from(self.0.next_u32())
    }

    /// `freelist_randomize()`.
    pub(crate) fn freelist_randomize(&mut self, count: u32) -> Vec<u32> {
        let values = (1..count).map(|_| self.0.next_u32()).collect();
        shuffle(count, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_stays_in_range_and_spans_it() {
        assert_eq!(below(0, 7), 0);
        assert_eq!(below(u32::MAX, 7), 6);
        assert_eq!(below(u32::MAX / 2, 2), 0);
        assert_eq!(below(u32::MAX / 2 + 1, 2), 1);
    }
}
