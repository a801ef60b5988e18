//! The trace: steps of typed events, the recorder that is the only writer of the `Machine`,
//! and snapshots at any cursor.

mod arena;
mod event;
mod recorder;
pub mod text;

pub use event::{DetachedFreelist, End, Event, NewCache, Splice};
pub use recorder::{Arg, Caption, MicroEntry, Recorder, Shown, Step};
