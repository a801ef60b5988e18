//! Types that exist to cross to the web app: what its simulator worker answers besides the
//! simulator's own data (which build it loaded, why a request failed, the view at a cursor).
//!
//! Rules: these are plain serde types, exported to TypeScript with the others
//! (web/core/generated), so the page and the worker read exactly what Rust writes; the wasm
//! facade serialises each answer once and nothing re-encodes it on the way.

use crate::run::RunError;
use crate::session::SessionError;
use serde::Serialize;
use slabscope_scenario::ParseError;
use slabscope_sim::snapshot::Snapshot;
use slabscope_sim::trace::Step;

/// What a live run gives the app: its figures and, when it was recorded and is small enough,
/// the scenario that replays it (else why not).
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct LiveResult {
    pub report: slabscope_sim::live::report::LiveReport,
    pub scenario: Option<String>,
    pub scenario_error: Option<String>,
}

/// Which wasm build the simulator worker loaded. The module knows its profile, version and
/// whether it is threaded; the worker that loaded it knows the rest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct BuildInfo {
    /// The kernel profiles the simulator reproduces (`profile::PROFILES`), oldest first; a
    /// scenario without a profile line runs under the first.
    pub profiles: Vec<String>,
    /// True when the module shares its memory between threads (the threaded build).
    pub threaded: bool,
    /// The crate version.
    pub version: String,
    /// Workers in the pool (1 for the single-threaded build).
    pub pool_size: u32,
    /// Why the threaded build was not used, when it was not (set by the worker).
    pub fallback: Option<BuildFallback>,
}

/// Why the worker loaded the single-threaded build.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "reason", rename_all = "camelCase")]
pub enum BuildFallback {
    /// The page is not cross-origin isolated, so it may not share memory.
    NotIsolated,
    /// The threaded build failed to start.
    ThreadedFailed {
        /// What failed, as the browser said it.
        error: String,
    },
}

/// A run the simulator refused (a scenario that parses but cannot run), worded by the web app
/// in the reader's language from `key` and `args` (see `RunError::key_args`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct RunFailure {
    /// The scenario line (0: the machine as a whole).
    pub line: u32,
    /// A stable key under `run.`.
    pub key: String,
    /// The values the message names, by name.
    pub args: Vec<(String, String)>,
    /// The English message.
    pub message: String,
}

impl From<&RunError> for RunFailure {
    fn from(e: &RunError) -> Self {
        let (key, args) = e.key_args();
        RunFailure {
            line: e.line(),
            key: key.to_string(),
            args: args
                .into_iter()
                .map(|(name, value)| (name.to_string(), value))
                .collect(),
            message: e.to_string(),
        }
    }
}

/// Why the simulator worker could not answer a request. The page handles each kind apart: a
/// parse error is shown at its line and column, a refused run is worded from its key, a crash
/// replaces the worker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SimError {
    /// The scenario does not parse.
    Parse(ParseError),
    /// The scenario parses but its run was refused.
    Run(RunFailure),
    /// A request the simulator cannot answer: a step or page frame past the run, a malformed
    /// query or grid, a cache geometry the kernel refuses, no run open yet, or a module the
    /// worker could not load.
    Invalid {
        /// Why, in English.
        message: String,
    },
    /// The simulator stopped (its wasm module trapped, or its worker failed): a new worker
    /// takes its place and the run must be opened again. Raised by the worker, not the module.
    Crashed {
        /// What failed, as the browser said it.
        message: String,
    },
    /// The person cancelled the request: its worker was stopped and a new one took its place.
    /// Raised by the page's client.
    Cancelled,
}

impl From<SessionError> for SimError {
    fn from(e: SessionError) -> Self {
        match e {
            SessionError::Parse(p) => SimError::Parse(p),
            SessionError::Run(r) => SimError::Run(RunFailure::from(&r)),
        }
    }
}

impl From<&crate::live_file::LiveFileError> for SimError {
    fn from(e: &crate::live_file::LiveFileError) -> Self {
        use crate::live_file::LiveFileError;
        match e {
            LiveFileError::Parse(p) => SimError::Parse(p.clone()),
            LiveFileError::Run(r) => SimError::Run(RunFailure::from(r)),
            other => {
                let (key, args) = other.key_args();
                SimError::Run(RunFailure {
                    line: other.line(),
                    key: key.to_string(),
                    args: args
                        .into_iter()
                        .map(|(name, value)| (name.to_string(), value))
                        .collect(),
                    message: other.to_string(),
                })
            }
        }
    }
}

impl SimError {
    /// An `Invalid` error with `message`.
    pub fn invalid(message: impl Into<String>) -> Self {
        SimError::Invalid {
            message: message.into(),
        }
    }
}

/// What the visualizer draws at one cursor: the snapshot and the step that led to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct SnapshotAt<'a> {
    /// The machine after `snapshot.cursor` steps.
    pub snapshot: Snapshot,
    /// Step `cursor - 1` (null at cursor 0).
    pub step: Option<Step<'a>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Session;

    #[test]
    fn errors_carry_their_kind_beside_their_fields() {
        let Err(parse) =
            Session::open("slabscope-scenario 1\nmachine cpus=2\nkmalloc(8) on cpu7\n")
        else {
            panic!("cpu7 does not exist");
        };
        let json = serde_json::to_value(SimError::from(parse)).unwrap();
        assert_eq!(json["kind"], "parse");
        assert_eq!(json["line"], 3);
        let Err(run) =
            Session::open("slabscope-scenario 1\nmachine cpus=1\ncache_reap() on cpu0\n")
        else {
            panic!("cache_reap is SLAB's");
        };
        let json = serde_json::to_value(SimError::from(run)).unwrap();
        assert_eq!(json["kind"], "run");
        assert_eq!(json["key"], "run.wrong_allocator_slub");
        assert_eq!(json["args"][1], serde_json::json!(["what", "cache_reap"]));
        let json = serde_json::to_value(SimError::Cancelled).unwrap();
        assert_eq!(json, serde_json::json!({ "kind": "cancelled" }));
    }
}
