// The page's handle on the simulator. Every call is a message to the simulator worker; the
// page's main thread never runs wasm, so it never blocks.

import type { CacheGeometry } from './generated/CacheGeometry';
import type { CacheRequest } from './generated/CacheRequest';
import type { SweepGrid } from './generated/SweepGrid';
import type { KernelFiles } from './generated/KernelFiles';
import type { Lane } from './generated/Lane';
import type { ParseError } from './generated/ParseError';
import type { RunOutline } from './generated/RunOutline';
import type { SnapshotQuery } from './generated/SnapshotQuery';
import type { BuildInfo, SimReply, SimRequest, SweepResult, ViewAt, ViewWire } from './protocol';
import { joinView, type ReceivedParts } from './viewParts';

export type { BuildInfo, SweepResult, ViewAt } from './protocol';
export type { KernelFiles, Lane, ParseError, RunOutline, SnapshotQuery };

/** A scenario that could not be opened: a parse error with line, column and hint, or why the
 *  run was refused. */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly parse: ParseError | null,
  ) {
    super(message);
  }
}

/** Reads the error the worker reported for `open`: the wasm Session throws a parse error as
 *  its JSON and any other refusal as plain text. */
export function scenarioError(message: string): ScenarioError {
  try {
    const parsed = JSON.parse(message) as ParseError;
    if (typeof parsed === 'object' && parsed && typeof parsed.line === 'number' && typeof parsed.key === 'string') {
      return new ScenarioError(parsed.message, parsed);
    }
  } catch {
    // not JSON: a run error
  }
  return new ScenarioError(message, null);
}
export type { CacheGeometry, CacheRequest, SweepGrid };

export class SimClient {
  private readonly worker: Worker;
  private nextId = 1;
  /** The parts of the last view received (see ViewWire). */
  private received: ReceivedParts | null = null;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();

  constructor() {
    this.worker = new Worker(new URL('./simWorker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (event: MessageEvent<SimReply>) => {
      const reply = event.data;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.result);
      else waiter.reject(new Error(reply.error));
    };
    this.worker.onerror = (event) => {
      const error = new Error(event.message || 'the simulator worker stopped');
      this.pending.forEach((waiter) => waiter.reject(error));
      this.pending.clear();
    };
  }

  private call<T>(request: SimRequest): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, request });
    });
  }

  /** Loads the right wasm build and says which. */
  init(): Promise<BuildInfo> {
    return this.call({ kind: 'init' });
  }

  /** One cache's geometry (`slabscope geometry`). */
  geometry(request: CacheRequest): Promise<CacheGeometry> {
    return this.call({ kind: 'geometry', request });
  }

  /** Sweeps a grid on up to `workers` pool workers. */
  sweep(grid: SweepGrid, workers: number): Promise<SweepResult> {
    return this.call({ kind: 'sweep', grid, workers });
  }

  /** Runs a scenario in the worker and makes it the current one. */
  async open(text: string): Promise<RunOutline> {
    try {
      return await this.call<RunOutline>({ kind: 'open', text });
    } catch (error) {
      throw scenarioError(error instanceof Error ? error.message : String(error));
    }
  }

  /** Parses a scenario without running it (the editor's inline errors): null when it parses. */
  check(text: string): Promise<ParseError | null> {
    return this.call({ kind: 'check', text });
  }

  /** The snapshot after `cursor` steps and the step that led there. */
  async view(cursor: number, query: SnapshotQuery): Promise<ViewAt> {
    const wire = await this.call<ViewWire>({ kind: 'view', cursor, query });
    // Replies resolve in the order the worker sent them, so `received` is the view a left-out
    // part refers to (see viewParts.ts).
    const joined = joinView(wire, this.received);
    this.received = joined.received;
    return { snapshot: joined.snapshot, step: wire.step, workerMs: wire.workerMs };
  }

  /** /proc/slabinfo, /proc/buddyinfo and /sys/kernel/slab/<cache>/ after `cursor` steps. */
  files(cursor: number, cache: string | null): Promise<KernelFiles> {
    return this.call({ kind: 'files', cursor, cache });
  }

  /** The life of one object (hex address) or one page frame across the run. */
  lane(target: { object: string } | { page: number }): Promise<Lane> {
    return this.call({ kind: 'lane', ...target });
  }

  dispose(): void {
    this.worker.terminate();
  }
}
