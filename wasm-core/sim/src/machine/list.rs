//! Intrusive doubly linked lists through `PageFrame::prev/next`, the way `struct page` sits on
//! `free_area` and pcp lists with its `list_head`.

use super::{PageFrame, Pfn, NIL};
use crate::ids::TiSlice;

/// A list's head: first and last pfn, and its length (`nr_free` for a free area).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListHead {
    pub first: Pfn,
    pub last: Pfn,
    pub len: u32,
}

impl ListHead {
    pub const EMPTY: ListHead = ListHead {
        first: NIL,
        last: NIL,
        len: 0,
    };

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `list_add()`: insert at the head.
    pub(crate) fn push_head(&mut self, frames: &mut TiSlice<Pfn, PageFrame>, pfn: Pfn) {
        frames[pfn].prev = NIL;
        frames[pfn].next = self.first;
        if self.first == NIL {
            self.last = pfn;
        } else {
            frames[self.first].prev = pfn;
        }
        self.first = pfn;
        self.len += 1;
    }

    /// `list_add_tail()`: insert at the tail.
    pub(crate) fn push_tail(&mut self, frames: &mut TiSlice<Pfn, PageFrame>, pfn: Pfn) {
        frames[pfn].next = NIL;
        frames[pfn].prev = self.last;
        if self.last == NIL {
            self.first = pfn;
        } else {
            frames[self.last].next = pfn;
        }
        self.last = pfn;
        self.len += 1;
    }

    /// `list_del()`: unlink `pfn`, which must be on this list.
    pub(crate) fn remove(&mut self, frames: &mut TiSlice<Pfn, PageFrame>, pfn: Pfn) {
        let (prev, next) = (frames[pfn].prev, frames[pfn].next);
        if prev == NIL {
            self.first = next;
        } else {
            frames[prev].next = next;
        }
        if next == NIL {
            self.last = prev;
        } else {
            frames[next].prev = prev;
        }
        frames[pfn].prev = NIL;
        frames[pfn].next = NIL;
        self.len -= 1;
    }

    /// Walks the list from the head.
    pub fn iter<'a>(&self, frames: &'a TiSlice<Pfn, PageFrame>) -> impl Iterator<Item = Pfn> + 'a {
        let mut at = self.first;
        std::iter::from_fn(move || {
            if at == NIL {
                return None;
            }
            let here = at;
            at = frames[here].next;
            Some(here)
        })
    }
}
