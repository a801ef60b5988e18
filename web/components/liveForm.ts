// The live-run page's form: what runs (the standard workload or a scenario), threads, operations, seed, whose objects a free takes, whether to
// record (and replay), and whether to also run one worker for the speedup; as typed, checked
// and turned into the simulator's LiveRequest. Errors are i18n keys with arguments, so they
// reach the person in their language; the typed text is kept.

import type { LiveRequest } from '../core/client';
import type { FormError } from './sweepForm';

/** As MAX_LIVE_OPS in wasm-core/wasm/src/lib.rs, which refuses anything past it (a recorded
 *  run keeps its log one epoch at a time, so recording does not lower it). */
export const MAX_OPS = 20_000_000;
/** Operations past which the run is too long to open in the player (MAX_SCENARIO_OPS in
 *  wasm-core/run/src/live.rs). */
export const MAX_REPLAY_OPS = 5_000;

/** What runs live: the standard workload, the editor's draft, or an example scenario. */
export type LiveSource = 'workload' | 'draft' | 'lesson-14';

export interface LiveForm {
  source: LiveSource;
  threads: string;
  ops: string;
  seed: string;
  frees: 'local' | 'remote';
  record: boolean;
  /** Also run the same request on one worker, for the speedup. */
  compare: boolean;
}

export function defaultLiveForm(poolSize: number): LiveForm {
  return { source: 'workload', threads: String(Math.min(2, poolSize)), ops: '2000', seed: '1', frees: 'remote', record: true, compare: false };
}

function whole(text: string, field: string, min: number, max: number): { ok: true; value: number } | { ok: false; error: FormError } {
  const trimmed = text.trim().replace(/[,_]/g, '');
  if (!/^[0-9]+$/.test(trimmed)) return { ok: false, error: { key: 'error.notInteger', args: { field } } };
  const value = Number(trimmed);
  if (value < min || value > max) return { ok: false, error: { key: 'error.range', args: { field, min, max } } };
  return { ok: true, value };
}

/** The request the form gives on a pool of `poolSize` workers, or the first thing wrong. */
export function toLiveRequest(form: LiveForm, poolSize: number): { ok: true; request: LiveRequest } | { ok: false; error: FormError } {
  const threads = whole(form.threads, 'live.threadsField', 1, poolSize);
  if (!threads.ok) return threads;
  const ops = whole(form.ops, 'live.opsField', 1, MAX_OPS);
  if (!ops.ok) return ops;
  const seed = whole(form.seed, 'live.seedField', 0, Number.MAX_SAFE_INTEGER);
  if (!seed.ok) return seed;
  return { ok: true, request: { threads: threads.value, ops: ops.value, seed: seed.value, frees: form.frees, record: form.record } };
}
