// Messages between the page (client.ts), the simulator worker (simWorker.ts) and the pool
// workers (poolWorker.ts).
//
// One table, SimCalls, maps each request kind to what it carries and what it answers. The
// client's `request`, the worker's handlers and the replies are typed from it, so a handler
// that answers the wrong type, or a caller that expects another, does not compile.
//
// Every request carries an id and gets exactly one reply with that id: `ok` with the result,
// or a SimError (a tagged union generated from Rust, wasm-core/run/src/wire.rs). Before its
// reply, an `open` may send progress messages with its id while the run goes on, and an
// `explore` the number of schedules it has run.

import type { BuildInfo } from './generated/BuildInfo';
import type { CacheGeometry } from './generated/CacheGeometry';
import type { CacheRequest } from './generated/CacheRequest';
import type { ExploreReport } from './generated/ExploreReport';
import type { KernelFiles } from './generated/KernelFiles';
import type { LiveRequest } from './generated/LiveRequest';
import type { LiveResult } from './generated/LiveResult';
import type { LiveFileReport } from './generated/LiveFileReport';
import type { Lane } from './generated/Lane';
import type { LaneStep } from './generated/LaneStep';
import type { MicroStepCaption } from './generated/MicroStepCaption';
import type { Overview } from './generated/Overview';
import type { ParseError } from './generated/ParseError';
import type { RunOutline } from './generated/RunOutline';
import type { RunProgress } from './generated/RunProgress';
import type { SimError } from './generated/SimError';
import type { SnapshotAt } from './generated/SnapshotAt';
import type { SnapshotQuery } from './generated/SnapshotQuery';
import type { SweepGrid } from './generated/SweepGrid';

/** A finished sweep: a row-major table of `columns.length` cells per point. */
export interface SweepResult {
  columns: string[];
  rows: Uint32Array;
  points: number;
  /** Workers that computed points. */
  workers: number;
  /** Points computed by each worker, in pool order. */
  pointsPerWorker: number[];
  /** Wall time from posting the work to the last worker's reply, in ms. */
  ms: number;
}

/** What the visualizer draws at one cursor, with the time the worker spent on it. */
export interface ViewAt extends SnapshotAt {
  /** Time the worker spent building the answer, in ms. */
  workerMs: number;
}

/**
 * A view as the worker sends it: the `SnapshotAt` exactly as the wasm module serialised it.
 * The worker does not parse it; a string crosses to the page as one copy, and the page
 * parses it once.
 */
export interface ViewWire {
  /** `SnapshotAt` as JSON. */
  json: string;
  workerMs: number;
}

/** A request that carries nothing but its kind. */
type Bare = Record<never, never>;

/** Each request kind: what it carries (`args`) and what it answers (`result`). */
export interface SimCalls {
  /** Loads the right wasm build and says which. */
  init: { args: Bare; result: BuildInfo };
  /** One cache's geometry (`slabscope geometry`). */
  geometry: { args: { request: CacheRequest }; result: CacheGeometry };
  /** Sweeps a grid on up to `workers` pool workers. */
  sweep: { args: { grid: SweepGrid; workers: number }; result: SweepResult };
  /** Runs a scenario and keeps it as the current session (replacing the previous one). */
  open: { args: { text: string }; result: RunOutline };
  /** Parses a scenario without running it: null, or the parse error. */
  check: { args: { text: string }; result: ParseError | null };
  /** `slabscope compare`'s table of `text` run two ways, each `PROFILE/ALLOCATOR`; the open
   *  run, if any, is left as it was. */
  compare: { args: { text: string; a: string; b: string }; result: string };
  /** The snapshot after `cursor` steps and the step that led there. */
  view: { args: { cursor: number; query: SnapshotQuery }; result: ViewWire };
  /** Fails as an uncaught error would, for the crash-recovery test. */
  crash: { args: Bare; result: null };
  /** /proc/slabinfo, /proc/buddyinfo and /sys/kernel/slab/<cache>/ after `cursor` steps. */
  files: { args: { cursor: number; cache: string | null }; result: KernelFiles };
  /** Every step of the open run, as the JSON text `slabscope run --trace json` prints. */
  trace: { args: Bare; result: string };
  /** Each step of the open run at a glance: its kinds and kernel path (timeline/overview.ts). */
  overview: { args: Bare; result: Overview };
  /** The life of one object (hex address) or one page frame across the run. */
  lane: { args: { object: string } | { page: number }; result: Lane };
  /** The micro-steps step `step` (0-based) is made of, captioned (a sequential step's are
   *  found by running the scenario again). */
  micro: { args: { step: number }; result: MicroStepCaption[] };
  /** The micro-steps of concurrent block `block` (of the outline's blocks), for its CPU lanes. */
  lanes: { args: { block: number }; result: LaneStep[] };
  /** Every schedule of the first concurrent block of `text` within the bounds, grouped by
   *  outcome (`slabscope explore`); the open run, if any, is left as it was. */
  explore: { args: { text: string; preemptions: number; maxSchedules: number }; result: ExploreReport };
  /** A live run (docs/live.md): each simulated CPU on its own pool worker over the shared
   *  memory; recorded runs are replayed and compared. Threaded build only. */
  live: { args: { request: LiveRequest }; result: LiveResult };
  /** A live run of the concurrent blocks of `text`, each CPU of a block on its own pool worker;
   *  each block's replay is checked, and the scenario that replays the run comes back. */
  liveScenario: { args: { text: string }; result: LiveFileReport };
}

export type SimKind = keyof SimCalls;
export type SimArgs<K extends SimKind> = SimCalls[K]['args'];
export type SimResult<K extends SimKind> = SimCalls[K]['result'];

/** A request of kind `K` (any kind by default). */
export type SimRequest<K extends SimKind = SimKind> = { [Kind in K]: { kind: Kind } & SimArgs<Kind> }[K];

/** Page → simulator worker. */
export interface SimEnvelope {
  id: number;
  request: SimRequest;
}

/** Simulator worker → page: the one reply to request `id`, or a progress report before it. */
export type SimReply =
  | { id: number; ok: true; result: SimResult<SimKind> }
  /** A `crashed` error: the worker is replaced (the wasm module trapped and its memory cannot
   *  be trusted). */
  | { id: number; ok: false; error: SimError }
  /** How far the run of an `open` has got. */
  | { id: number; progress: RunProgress }
  /** How many schedules an `explore` has run. */
  | { id: number; explored: number };

/** Page → pool worker. */
export type PoolRequest =
  | { kind: 'init'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { kind: 'work'; sweepId: number }
  /** Run CPU `cpu` of live run `liveId`. */
  | { kind: 'live'; liveId: number; cpu: number };

/** Pool worker → simulator worker. */
export type PoolReply =
  | { kind: 'ready' }
  | { kind: 'done'; points: number }
  /** A live run's CPU ran, taking `ms` of this worker's time. */
  | { kind: 'ran'; ms: number }
  | { kind: 'failed'; error: string };
