//! SLUB's freelist randomisation (`shuffle_freelist()`, `CONFIG_SLAB_FREELIST_RANDOM`) and
//! freelist pointer hardening (`CONFIG_SLAB_FREELIST_HARDENED`), mm/slub.c, v6.6. The random
//! numbers come from `slab_common::random`; the module header there says how they are drawn.
//!
//! - With hardening, `kmem_cache_open()` draws `s->random`, and every stored free pointer is
//!   `ptr ^ s->random ^ swab(ptr_addr)` where `ptr_addr` is the address of the free pointer
//!   itself (`freelist_ptr_encode()`); reading it applies the same XOR
//!   (`freelist_ptr_decode()`).

use super::state::KmemCache;
use crate::ids::CacheId;
use crate::slab_common::random::draw_below;
use crate::trace::Recorder;

/// `shuffle_freelist()`: the free objects of a new slab of `objects` objects, in freelist
/// order. `None` when the cache has no random sequence or the slab has fewer than 2 objects.
pub(crate) fn shuffle_freelist(
    rec: &mut Recorder,
    cache: CacheId,
    objects: u32,
) -> Option<Vec<u32>> {
    let seq = rec.machine().slub().caches[cache].random_seq.clone()?;
    if objects < 2 {
        return None;
    }
    let count = seq.len() as u32;
    let mut pos = draw_below(rec, count);
    let mut out = Vec::with_capacity(objects as usize);
    while out.len() < objects as usize {
        // next_freelist_entry(): skip entries past the end of a smaller slab.
        let idx = seq[pos as usize];
        pos = (pos + 1) % count;
        if idx < objects {
            out.push(idx);
        }
    }
    Some(out)
}
impl KmemCache {
    /// The address of object `obj`'s free pointer (`obj + s->offset`).
    pub fn freeptr_addr(&self, obj: u64) -> u64 {
        obj + u64::from(self.geometry.offset)
    }

    /// `freelist_ptr_encode()`: the word stored for the pointer `ptr` at `ptr_addr`.
    pub fn freelist_ptr_encode(&self, ptr: u64, ptr_addr: u64) -> u64 {
        if self.hardened {
            ptr ^ self.random ^ ptr_addr.swap_bytes()
        } else {
            ptr
        }
    }

    /// `freelist_ptr_decode()`: the pointer a stored word at `ptr_addr` means.
    pub fn freelist_ptr_decode(&self, word: u64, ptr_addr: u64) -> u64 {
        // The XOR is its own inverse.
        self.freelist_ptr_encode(word, ptr_addr)
    }
}
