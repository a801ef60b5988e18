//! The plain-text form of a trace (`slabscope run --trace text`, golden files): one line per
//! step (number, kernel function, path, caption arguments, and where in the scenario it comes
//! from), then one line per event as JSON.
//!
//! Numbering: steps and operations count from 1 here, as a reader counts them (the JSON form
//! indexes both from 0). The origin closes the line: `(line 12, op 3)` for the third
//! operation run, from line 12; `(line 9)` for the `kmem_cache_create()` of a `cache` line;
//! `(boot)` for the kmalloc caches made at boot.

use super::{Shown, Step};
use std::fmt::Write;

/// Step `n` (1-based) as text, ending with a newline.
pub fn format_step(n: usize, step: &Step) -> String {
    let args: Vec<String> = step
        .caption
        .args
        .iter()
        .map(|(k, v)| match v {
            Shown::Num(x) if *k == "pfn" => format!("{k}={x:#x}"),
            Shown::Num(x) => format!("{k}={x}"),
            Shown::Text(t) => format!("{k}={t}"),
        })
        .collect();
    let mut out = format!(
        "{n:>5}  {} [{}]  {}",
        step.function,
        step.path,
        args.join(" ")
    );
    out = out.trim_end().to_string();
    let _ = writeln!(out, "  {}", origin(step));
    for event in step.events {
        let json = serde_json::to_string(event).unwrap_or_default();
        let _ = writeln!(out, "         {json}");
    }
    out
}

/// `(line L, op K)`, `(line L)` or `(boot)`.
fn origin(step: &Step) -> String {
    match (step.line, step.op) {
        (Some(line), Some(op)) => format!("(line {line}, op {})", u64::from(op) + 1),
        (Some(line), None) => format!("(line {line})"),
        (None, _) => "(boot)".to_string(),
    }
}
