//! Slabscope's simulator core.
//!
//! Role: everything Slabscope knows about the kernel lives here, as plain data and pure
//! functions. The crate knows nothing of the web, of wasm or of the terminal; the wasm facade
//! and the `slabscope` CLI are thin callers.
//!
//! Rules:
//! - Kernel baseline is the `linux-6.6` profile (`shared spec`, section numbers cited in each
//!   module). Where the kernel source and the spec disagree the source wins, and the function
//!   and version are named in a comment.
//! - Determinism: no clock, no unseeded randomness, no hash-map iteration that can reach output
//!   (clippy's `disallowed-methods` enforces the first and the last).
//! - Bad input is an `Err` with a message worded for a person, never a panic.

pub mod allocator;
pub mod boot;
pub mod buddyinfo;
pub mod geometry;
pub mod gfp;
pub mod ids;
pub mod kmalloc_caches;
pub mod live;
pub mod machine;
pub mod page_alloc;
pub mod profile;
pub mod rcu;
pub mod slab;
pub mod slab_common;
pub mod slabinfo;
pub mod slub;
pub mod smp;
pub mod snapshot;
pub mod sweep;
pub mod sysfs;
pub mod trace;
pub mod workload;

/// The id of the profile a run gets when it names none, `profile::LINUX_6_6` (`profile::PROFILES`
/// lists them all).
pub const PROFILE: &str = "linux-6.6";
