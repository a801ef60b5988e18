// Messages between the page (client.ts), the simulator worker (simWorker.ts) and the pool
// workers (poolWorker.ts). Requests carry an id; every request gets exactly one reply with the
// same id, either `ok` with a result or `error` with a message.

import type { CacheGeometry } from './generated/CacheGeometry';
import type { CacheRequest } from './generated/CacheRequest';
import type { SweepGrid } from './generated/SweepGrid';

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

export type SimRequest =
  | { kind: 'init' }
  | { kind: 'geometry'; request: CacheRequest }
  | { kind: 'sweep'; grid: SweepGrid; workers: number };

export type SimResult = BuildInfo | CacheGeometry | SweepResult;

export type SimReply =
  | { id: number; ok: true; result: SimResult }
  | { id: number; ok: false; error: string };

/** Page → pool worker. */
export type PoolRequest =
  | { kind: 'init'; module: WebAssembly.Module; memory: WebAssembly.Memory }
  | { kind: 'work'; sweepId: number };

/** Pool worker → simulator worker. */
export type PoolReply =
  | { kind: 'ready' }
  | { kind: 'done'; points: number }
  | { kind: 'failed'; error: string };
