//! The trace: steps of typed events, the recorder that is the only writer of the `Machine`,
//! and snapshots at any cursor.

mod event;
mod recorder;

pub use event::{End, Event};
pub use recorder::{Arg, Caption, Recorder, Step};
