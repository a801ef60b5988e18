//! `SlabTable`: every slab by the pfn of its first page. The kernel finds a slab from any of its
//! pages through `struct page`/`struct folio`; the table is that lookup, indexed by pfn like
//! `mem_map`, so the hot paths (`virt_to_slab()` on every free) cost one index.

use crate::machine::Pfn;
use crate::slub::state::Slab;
use std::ops::Index;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlabTable {
    /// Index: pfn. Boxed so an empty entry costs one pointer.
    by_pfn: Vec<Option<Box<Slab>>>,
    /// Index: pfn. The first pfn of the slab holding the page (`NO_SLAB` if none): the
    /// `compound_head()` step of `virt_to_slab()`, kept dense for the hot paths.
    head: Vec<Pfn>,
    len: usize,
}

const NO_SLAB: Pfn = Pfn(u32::MAX);

impl SlabTable {
    /// A table for `frames` page frames.
    pub fn new(frames: usize) -> Self {
        SlabTable {
            by_pfn: vec![None; frames],
            head: vec![NO_SLAB; frames],
            len: 0,
        }
    }

    pub fn get(&self, pfn: &Pfn) -> Option<&Slab> {
        self.by_pfn.get(pfn.index())?.as_deref()
    }

    pub fn get_mut(&mut self, pfn: &Pfn) -> Option<&mut Slab> {
        self.by_pfn.get_mut(pfn.index())?.as_deref_mut()
    }

    pub fn contains_key(&self, pfn: &Pfn) -> bool {
        self.get(pfn).is_some()
    }

    /// The first pfn of the slab any of whose pages is `pfn`.
    pub fn head_of(&self, pfn: Pfn) -> Option<Pfn> {
        self.head
            .get(pfn.index())
            .copied()
            .filter(|&h| h != NO_SLAB)
    }

    pub fn insert(&mut self, pfn: Pfn, slab: Slab) {
        let pages = 1usize << slab.order;
        self.head[pfn.index()..pfn.index() + pages].fill(pfn);
        let entry = &mut self.by_pfn[pfn.index()];
        if entry.is_none() {
            self.len += 1;
        }
        *entry = Some(Box::new(slab));
    }

    pub fn remove(&mut self, pfn: &Pfn) -> Option<Slab> {
        let slab = self.by_pfn.get_mut(pfn.index())?.take()?;
        let pages = 1usize << slab.order;
        self.head[pfn.index()..pfn.index() + pages].fill(NO_SLAB);
        self.len -= 1;
        Some(*slab)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every slab with its first pfn, in pfn order.
    pub fn iter(&self) -> impl Iterator<Item = (Pfn, &Slab)> {
        self.by_pfn
            .iter()
            .enumerate()
            .filter_map(|(pfn, s)| Some((Pfn::from(pfn), s.as_deref()?)))
    }

    /// Every slab, in pfn order.
    pub fn values(&self) -> impl Iterator<Item = &Slab> {
        self.by_pfn.iter().filter_map(|s| s.as_deref())
    }

    /// Heap bytes held (for the trace's memory account).
    pub fn heap_bytes(&self) -> usize {
        self.by_pfn.capacity() * std::mem::size_of::<Option<Box<Slab>>>()
            + self.head.capacity() * std::mem::size_of::<Pfn>()
            + self
                .values()
                .map(|s| std::mem::size_of::<Slab>() + s.heap_bytes())
                .sum::<usize>()
    }
}

impl Index<&Pfn> for SlabTable {
    type Output = Slab;

    fn index(&self, pfn: &Pfn) -> &Slab {
        self.get(pfn).expect("a slab starts at this pfn")
    }
}
