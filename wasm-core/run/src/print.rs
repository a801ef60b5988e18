//! `print` lines (format 2): a kernel file at one point of a run, read without running again.
//!
//! Rules: a print records no step, so the cursors of every step (and of every operation) are
//! the same with or without it; the run keeps only a mark (`PrintMark`: line, cursor, file),
//! and the file's text is read when someone asks, from the machine at that cursor. A sysfs file
//! that cannot be read there (the cache destroyed, SLAB) prints why, as the kernel's missing
//! directory would.

use serde::Serialize;
use slabscope_scenario::PrintFile;
use slabscope_sim::buddyinfo::buddyinfo;
use slabscope_sim::machine::Machine;
use slabscope_sim::slabinfo::slabinfo;
use slabscope_sim::sysfs::{sysfs_dir, SysfsError};

/// Where a `print` line falls in a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PrintMark {
    /// The scenario line (1-based).
    pub line: u32,
    /// The cursor it reads the file at: the steps before it.
    pub cursor: usize,
    pub file: PrintFile,
}

/// The text of `file` on machine `m`: `/proc` files as the kernel prints them; a sysfs
/// directory as one `path: value` line per attribute (the form of `slabscope run --sysfs`).
pub fn print_text(m: &Machine, file: &PrintFile) -> Result<String, SysfsError> {
    Ok(match file {
        PrintFile::Slabinfo => slabinfo(m),
        PrintFile::Buddyinfo => buddyinfo(m),
        PrintFile::Sysfs { cache } => sysfs_text(m, cache)?,
    })
}

/// `/sys/kernel/slab/<cache>/<attr>: <value>` for every attribute, one line each.
pub fn sysfs_text(m: &Machine, cache: &str) -> Result<String, SysfsError> {
    let mut out = String::new();
    for (attr, value) in sysfs_dir(m, cache)? {
        // The kernel's show functions end every value with a newline; one line each here.
        let value = value.strip_suffix('\n').unwrap_or(&value);
        out.push_str(&format!("/sys/kernel/slab/{cache}/{attr}: {value}\n"));
    }
    Ok(out)
}

/// The heading a print's text is shown under: `line 12: /proc/slabinfo after step 40`.
pub fn print_heading(mark: &PrintMark) -> String {
    format!(
        "line {}: {} after step {}",
        mark.line,
        mark.file.path(),
        mark.cursor
    )
}
