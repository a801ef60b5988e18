//! `slabscope snapshot FILE --at N`: the visualizer's view data at one cursor, as JSON (the
//! same `Snapshot` the web app draws), or the life of one object or page frame.

use clap::Args;
use slabscope_run::session::{Session, SessionError};
use slabscope_sim::ids::Pfn;
use slabscope_sim::snapshot::{parse_addr, SnapshotQuery};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
pub struct SnapshotArgs {
    /// The scenario file.
    file: PathBuf,
    /// The cursor (steps done); default: the end of the run.
    #[arg(long)]
    at: Option<usize>,
    /// The cache shown in full (default: the one the step worked on).
    #[arg(long)]
    cache: Option<String>,
    /// The slab shown slot by slot, by its first pfn.
    #[arg(long)]
    slab: Option<u32>,
    /// Print the life of the object at this address (hex) instead.
    #[arg(long, conflicts_with = "page")]
    object: Option<String>,
    /// Print the life of this page frame instead.
    #[arg(long)]
    page: Option<u32>,
}

pub fn run(args: SnapshotArgs) -> Result<(), String> {
    let shown = args.file.display().to_string();
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{shown}: {e}"))?;
    let session = Session::open(&text).map_err(|e| match e {
        SessionError::Parse(p) => crate::run::located(&shown, &p),
        SessionError::Run(r) => format!("{shown}: {r}"),
    })?;
    let steps = session.outline().steps as usize;
    let json = if let Some(addr) = &args.object {
        let value = parse_addr(addr).ok_or_else(|| format!("not an address: {addr}"))?;
        let lane = session
            .object_lane(value)
            .ok_or_else(|| format!("{addr} is not in simulated memory"))?;
        serde_json::to_string_pretty(&lane)
    } else if let Some(pfn) = args.page {
        let lane = session
            .page_lane(Pfn(pfn))
            .ok_or_else(|| format!("no page frame {pfn}"))?;
        serde_json::to_string_pretty(&lane)
    } else {
        let at = args.at.unwrap_or(steps);
        let query = SnapshotQuery {
            cache: args.cache,
            slab: args.slab.map(Pfn),
        };
        let snap = session
            .snapshot(at, &query)
            .ok_or_else(|| format!("--at {at}: the run has {steps} steps"))?;
        serde_json::to_string_pretty(&snap)
    }
    .map_err(|e| e.to_string())?;
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{json}").and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.to_string()),
        _ => Ok(()),
    }
}
