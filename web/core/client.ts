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

/** Why a scenario that parses could not run: its line (0: the machine), a stable key under
 *  `runError.` and the values its English message names. */
export interface RunFailure {
  line: number;
  key: string;
  args: [string, string][];
  message: string;
}

/** A scenario that could not be opened: a parse error with line, column and hint, or why the
 *  run was refused. */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly parse: ParseError | null,
    readonly run: RunFailure | null = null,
  ) {
    super(message);
  }
}

/** Reads the error the worker reported for `open`: the wasm Session throws a parse error as
 *  its JSON, a run error as JSON with `run: true`, and anything else as plain text. */
export function scenarioError(message: string): ScenarioError {
  try {
    const parsed = JSON.parse(message) as (ParseError | RunFailure) & { run?: boolean };
    if (typeof parsed === 'object' && parsed && typeof parsed.line === 'number' && typeof parsed.key === 'string') {
      if (parsed.run) return new ScenarioError(parsed.message, null, parsed as RunFailure);
      return new ScenarioError(parsed.message, parsed as ParseError);
    }
  } catch {
    // not JSON: a run error
  }
  return new ScenarioError(message, null);
}
export type { CacheGeometry, CacheRequest, SweepGrid };

export class SimClient {
  private worker: Worker;
  private nextId = 1;
  /** The parts of the last view received (see ViewWire). */
  private received: ReceivedParts | null = null;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();

  /** Bumped at each restart of the worker after a crash; a run must then be opened again. */
  private generationNow = 0;
  private lastCrashNow: string | null = null;
  private readonly listeners = new Set<() => void>();

  constructor() {
    this.worker = this.start();
  }

  private start(): Worker {
    const worker = new Worker(new URL('./simWorker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<SimReply>) => {
      const reply = event.data;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.result);
      else waiter.reject(new Error(reply.error));
      if (!reply.ok && reply.crashed) this.restart(reply.error);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.restart(event.message || 'the simulator worker stopped');
    };
    return worker;
  }

  /**
   * The simulator crashed (an uncaught error in its worker, or a trap of the wasm module, after
   * which its memory cannot be trusted): every request waiting fails, a new worker with a fresh
   * module takes its place, and subscribers hear of it so they open their run again.
   */
  private restart(reason: string): void {
    const error = new Error(reason);
    this.pending.forEach((waiter) => waiter.reject(error));
    this.pending.clear();
    this.worker.terminate();
    this.received = null;
    this.worker = this.start();
    this.generationNow++;
    this.lastCrashNow = reason;
    this.listeners.forEach((listener) => listener());
  }

  /** For useSyncExternalStore: called after each restart. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** How many times the worker was restarted. */
  generation = (): number => this.generationNow;

  /** Why the worker was last restarted, or null. */
  lastCrash = (): string | null => this.lastCrashNow;

  /** Makes the worker fail as an uncaught error would (the crash-recovery test uses it). */
  crashForTest(): void {
    this.worker.postMessage({ id: 0, request: { kind: 'crash' } });
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

  /** Every step of the open run as JSON text (the document `slabscope run --trace json` prints). */
  trace(): Promise<string> {
    return this.call({ kind: 'trace' });
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
