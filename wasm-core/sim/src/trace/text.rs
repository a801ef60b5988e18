//! The plain-text form of a trace (`slabscope run --trace text`, golden files): one line per
//! step (number, kernel function, path, caption arguments), then one line per event as JSON.

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
    out.push('\n');
    for event in step.events {
        let json = serde_json::to_string(event).unwrap_or_default();
        let _ = writeln!(out, "         {json}");
    }
    out
}
