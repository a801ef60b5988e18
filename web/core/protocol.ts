// Messages between the page (client.ts), the simulator worker (simWorker.ts) and the pool
// workers (poolWorker.ts). Requests carry an id; every request gets exactly one reply with the
// same id, either `ok` with a result or `error` with a message.

import type { CacheGeometry } from './generated/CacheGeometry';
import type { CacheRequest } from './generated/CacheRequest';
import type { SweepGrid } from './generated/SweepGrid';
import type { KernelFiles } from './generated/KernelFiles';
import type { Lane } from './generated/Lane';
import type { ParseError } from './generated/ParseError';
import type { RunOutline } from './generated/RunOutline';
import type { Snapshot } from './generated/Snapshot';
import type { SnapshotQuery } from './generated/SnapshotQuery';
import type { Step } from './generated/Step';

/** Which wasm build the simulator worker loaded. */
export interface BuildInfo {
  profile: string;
  threaded: boolean;
  version: string;
  /** Workers in the pool (1 for the single-threaded build). */
  poolSize: number;
  /** Why the threaded build was not used, when it was not. */
  fallback: { reason: 'notIsolated' } | { reason: 'threadedFailed'; error: string } | null;
}

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

/** What the visualizer draws at one cursor: the snapshot and the step that led to it. */
export interface ViewAt {
  snapshot: Snapshot;
  /** Step `cursor - 1` (null at cursor 0). */
  step: Step | null;
  /** Time the worker spent building the answer, in ms. */
  workerMs: number;
}

/**
 * A view as the worker sends it: the snapshot as JSON text in parts, each part null when it is
 * the same as in the previous view the worker sent. A string crosses to the page as one copy
 * and JSON.parse there costs less than rebuilding the object graph from a structured clone;
 * and while playing most steps leave the page allocator and the cache's slab list as they
 * were, so the page neither parses them again nor gets new objects for them (the views then
 * see the same objects and draw nothing). Replies arrive in order, so the page always holds
 * the part a null refers to.
 */
export interface ViewWire {
  /** The snapshot without `buddy`, `cache.slabs` and the idle caches. */
  rest: string;
  /** `buddy`, or null: unchanged. */
  buddy: string | null;
  /** `cache.slabs` (absent when there is no cache), or null: unchanged. */
  slabs: string | null;
  /** The kmalloc caches without a slab or object (left out of `rest.caches`), or null: unchanged. */
  idle: string | null;
  step: Step | null;
  workerMs: number;
}

export type SimRequest =
  | { kind: 'init' }
  | { kind: 'geometry'; request: CacheRequest }
  | { kind: 'sweep'; grid: SweepGrid; workers: number }
  /** Runs a scenario and keeps it as the current session (replacing the previous one). */
  | { kind: 'open'; text: string }
  /** Parses a scenario without running it: null, or the parse error. */
  | { kind: 'check'; text: string }
  | { kind: 'view'; cursor: number; query: SnapshotQuery }
  /** Fails as an uncaught error would, for the crash-recovery test. */
  | { kind: 'crash' }
  | { kind: 'files'; cursor: number; cache: string | null }
  /** Every step of the open run, as the JSON text `slabscope run --trace json` prints. */
  | { kind: 'trace' }
  | { kind: 'lane'; object: string }
  | { kind: 'lane'; page: number };

export type SimResult = string | ParseError | null | BuildInfo | CacheGeometry | SweepResult | RunOutline | ViewWire | KernelFiles | Lane;

export type SimReply =
  | { id: number; ok: true; result: SimResult }
  /** `crashed`: the wasm module trapped; its memory cannot be trusted and the worker is replaced. */
  | { id: number; ok: false; error: string; crashed?: boolean };

/** Page → pool worker. */
export type PoolRequest =
  | { kind: 'init'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { kind: 'work'; sweepId: number };

/** Pool worker → simulator worker. */
export type PoolReply =
  | { kind: 'ready' }
  | { kind: 'done'; points: number }
  | { kind: 'failed'; error: string };
