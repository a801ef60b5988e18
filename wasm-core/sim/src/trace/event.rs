//! Events: the recorded facts of a run, in past-tense kernel terms. Applying a step's events,
//! in order, to the state before the step yields the state after it (`Machine::apply`).

use crate::machine::{Owner, Pfn};
use serde::Serialize;

/// Head or tail of a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    Head,
    Tail,
}

/// One recorded fact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event")]
pub enum Event {
    /// A free block left `free_area[order]` of its node (`del_page_from_free_list()`).
    FreeBlockRemoved { node: u32, pfn: Pfn, order: u8 },
    /// A free block joined `free_area[order]` (`add_to_free_list[_tail]()`).
    FreeBlockAdded {
        node: u32,
        pfn: Pfn,
        order: u8,
        end: End,
    },
    /// Two buddies became one block of `order + 1` at the lower pfn (`__free_one_page()`).
    BuddiesMerged {
        node: u32,
        pfn: Pfn,
        buddy: Pfn,
        order: u8,
    },
    /// A block was split in two halves of `order` (`expand()`); the upper half is `upper`.
    BlockSplit {
        node: u32,
        pfn: Pfn,
        upper: Pfn,
        order: u8,
    },
    /// A block joined a CPU's pcp list of a node's zone.
    PcpBlockAdded {
        cpu: u32,
        node: u32,
        pfn: Pfn,
        order: u8,
        end: End,
    },
    /// A block left a CPU's pcp list.
    PcpBlockRemoved {
        cpu: u32,
        node: u32,
        pfn: Pfn,
        order: u8,
    },
    /// `pcp->free_factor` changed (halved by an allocation, raised by a bulk free).
    PcpFreeFactorSet {
        cpu: u32,
        node: u32,
        free_factor: u32,
    },
    /// A block was handed to its owner.
    PagesAllocated { pfn: Pfn, order: u8, owner: Owner },
    /// An owner gave a block back; it is off every list until the next event places it.
    PagesReleased { pfn: Pfn, order: u8 },
}
