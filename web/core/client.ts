// The page's handle on the simulator. Every call is a message to the simulator worker; the
// page's main thread never runs wasm, so it never blocks. `request` is typed by the table of
// protocol.ts; the named methods are its uses.

import type { BuildInfo } from './generated/BuildInfo';
import type { CacheGeometry } from './generated/CacheGeometry';
import type { CacheRequest } from './generated/CacheRequest';
import type { ExploreGroup } from './generated/ExploreGroup';
import type { ExploreReport } from './generated/ExploreReport';
import type { KernelFiles } from './generated/KernelFiles';
import type { Lane } from './generated/Lane';
import type { Overview } from './generated/Overview';
import type { LiveRequest } from './generated/LiveRequest';
import type { LiveResult } from './generated/LiveResult';
import type { LiveFileReport } from './generated/LiveFileReport';
import type { LaneStep } from './generated/LaneStep';
import type { MicroStepCaption } from './generated/MicroStepCaption';
import type { ParseError } from './generated/ParseError';
import type { RunFailure } from './generated/RunFailure';
import type { RunOutline } from './generated/RunOutline';
import type { RunProgress } from './generated/RunProgress';
import type { SimError } from './generated/SimError';
import type { SnapshotAt } from './generated/SnapshotAt';
import type { SnapshotQuery } from './generated/SnapshotQuery';
import type { SweepGrid } from './generated/SweepGrid';
import type { SimArgs, SimEnvelope, SimKind, SimReply, SimResult, SweepResult, ViewAt } from './protocol';

export type { SweepResult, ViewAt } from './protocol';
export type { BuildInfo, KernelFiles, Lane, Overview, ParseError, RunFailure, RunOutline, RunProgress, SimError, SnapshotQuery };
export type { CacheGeometry, CacheRequest, ExploreGroup, ExploreReport, LiveFileReport, LiveRequest, LiveResult, SweepGrid };

/** A request the simulator answered with an error other than a scenario's own: `error` says
 *  which kind (cancelled, crashed, or a request it cannot answer). */
export class SimFailure extends Error {
  constructor(readonly error: Exclude<SimError, { kind: 'parse' | 'run' }>) {
    super(error.kind === 'cancelled' ? 'cancelled' : error.message);
  }
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

/** The Error a request fails with for `error`. */
function failure(error: SimError): ScenarioError | SimFailure {
  switch (error.kind) {
    case 'parse': {
      const { line, column, key, args, message, hint } = error;
      return new ScenarioError(message, { line, column, key, args, message, hint });
    }
    case 'run': {
      const { line, key, args, message } = error;
      return new ScenarioError(message, null, { line, key, args, message });
    }
    default:
      return new SimFailure(error);
  }
}

/** True for the failure of a request the person cancelled (`SimClient.cancel`). */
export function isCancelled(error: unknown): boolean {
  return error instanceof SimFailure && error.error.kind === 'cancelled';
}

export class SimClient {
  private worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { kind: SimKind; resolve: (value: never) => void; reject: (error: Error) => void; onExplored?: (schedules: number) => void }
  >();

  /** Bumped at each restart of the worker after a crash; a run must then be opened again. */
  private generationNow = 0;
  private lastCrashNow: string | null = null;
  /** How far the run being opened has got, once it has said (null: no run is being opened). */
  private progressNow: RunProgress | null = null;
  /** Told of each restart after a crash. */
  private readonly listeners = new Set<() => void>();
  /** Told of each change of `progress()`. */
  private readonly progressListeners = new Set<() => void>();

  constructor() {
    this.worker = this.start();
  }

  private start(): Worker {
    const worker = new Worker(new URL('./simWorker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<SimReply>) => {
      const reply = event.data;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      if ('progress' in reply) {
        this.setProgress(reply.progress);
        return;
      }
      if ('explored' in reply) {
        waiter.onExplored?.(reply.explored);
        return;
      }
      this.pending.delete(reply.id);
      if (waiter.kind === 'open') this.setProgress(null);
      if (reply.ok) waiter.resolve(reply.result as never);
      else waiter.reject(failure(reply.error));
      if (!reply.ok && reply.error.kind === 'crashed') this.restart(reply.error.message);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.restart(event.message || 'the simulator worker stopped');
    };
    return worker;
  }

  private setProgress(progress: RunProgress | null): void {
    if (progress === this.progressNow) return;
    this.progressNow = progress;
    this.progressListeners.forEach((listener) => listener());
  }

  /** Stops the worker: every request waiting fails with `error`, and a new worker with a fresh
   *  module takes its place, holding no run. */
  private replace(error: SimError): void {
    const reason = failure(error);
    this.pending.forEach((waiter) => waiter.reject(reason));
    this.pending.clear();
    this.worker.terminate();
    this.worker = this.start();
    this.setProgress(null);
  }

  /**
   * The simulator crashed (an uncaught error in its worker, or a trap of the wasm module, after
   * which its memory cannot be trusted): every request waiting fails, a new worker with a fresh
   * module takes its place, and subscribers hear of it so they open their run again.
   */
  private restart(reason: string): void {
    this.replace({ kind: 'crashed', message: reason });
    this.generationNow++;
    this.lastCrashNow = reason;
    this.listeners.forEach((listener) => listener());
  }

  /**
   * Stops whatever the worker is doing (a long run, say), for the person's Cancel: every
   * request waiting fails as cancelled (see `isCancelled`) and a new worker takes its place.
   * The new worker holds no run: the caller opens the one it wants shown. Unlike a crash this
   * is not counted in `generation` nor told to `subscribe`rs, so nothing reopens the cancelled
   * run by itself.
   */
  cancel(): void {
    this.replace({ kind: 'cancelled' });
  }

  /** For useSyncExternalStore: called after each restart after a crash. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** For useSyncExternalStore: called whenever `progress()` changes. */
  subscribeProgress = (listener: () => void): (() => void) => {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  };

  /** How many times the worker was restarted. */
  generation = (): number => this.generationNow;

  /** Why the worker was last restarted, or null. */
  lastCrash = (): string | null => this.lastCrashNow;

  /** How far the run being opened has got: null until it first reports (a run that ends
   *  within a moment never does) and once it has ended. */
  progress = (): RunProgress | null => this.progressNow;

  /** Makes the worker fail as an uncaught error would (the crash-recovery test uses it). */
  crashForTest(): void {
    const message: SimEnvelope = { id: 0, request: { kind: 'crash' } };
    this.worker.postMessage(message);
  }

  /** Asks the worker: the answer has the type the protocol's table gives `kind`. */
  request<K extends SimKind>(kind: K, args: SimArgs<K>, onExplored?: (schedules: number) => void): Promise<SimResult<K>> {
    const id = this.nextId++;
    return new Promise<SimResult<K>>((resolve, reject) => {
      this.pending.set(id, { kind, resolve: resolve as (value: never) => void, reject, onExplored });
      const message = { id, request: { kind, ...args } } as SimEnvelope;
      this.worker.postMessage(message);
    });
  }

  /** Loads the right wasm build and says which. */
  init(): Promise<BuildInfo> {
    return this.request('init', {});
  }

  /** One cache's geometry (`slabscope geometry`). */
  geometry(request: CacheRequest): Promise<CacheGeometry> {
    return this.request('geometry', { request });
  }

  /** Sweeps a grid on up to `workers` pool workers. */
  sweep(grid: SweepGrid, workers: number): Promise<SweepResult> {
    return this.request('sweep', { grid, workers });
  }

  /** A live run: each simulated CPU on its own pool worker (threaded build only). */
  live(request: LiveRequest): Promise<LiveResult> {
    return this.request('live', { request });
  }

  /** A live run of the concurrent blocks of the scenario `text` (threaded build). Fails with a
   *  ScenarioError when the scenario does not parse or cannot run live. */
  liveScenario(text: string): Promise<LiveFileReport> {
    return this.request('liveScenario', { text });
  }

  /** Runs a scenario in the worker and makes it the current one. Fails with a ScenarioError
   *  when the scenario does not parse or cannot run; `progress()` follows a long run. */
  open(text: string): Promise<RunOutline> {
    return this.request('open', { text });
  }

  /** Parses a scenario without running it (the editor's inline errors): null when it parses. */
  check(text: string): Promise<ParseError | null> {
    return this.request('check', { text });
  }

  /** `slabscope compare`'s table of `text` run two ways (`linux-7.2/slub`, ...). */
  compare(text: string, a: string, b: string): Promise<string> {
    return this.request('compare', { text, a, b });
  }

  /** The snapshot after `cursor` steps and the step that led there. */
  async view(cursor: number, query: SnapshotQuery): Promise<ViewAt> {
    const wire = await this.request('view', { cursor, query });
    const at = JSON.parse(wire.json) as SnapshotAt;
    return { snapshot: at.snapshot, step: at.step, workerMs: wire.workerMs };
  }

  /** Every step of the open run as JSON text (the document `slabscope run --trace json` prints). */
  trace(): Promise<string> {
    return this.request('trace', {});
  }

  /** Each step of the open run at a glance (timeline/overview.ts decodes it). */
  overview(): Promise<Overview> {
    return this.request('overview', {});
  }

  /** /proc/slabinfo, /proc/buddyinfo and /sys/kernel/slab/<cache>/ after `cursor` steps. */
  files(cursor: number, cache: string | null): Promise<KernelFiles> {
    return this.request('files', { cursor, cache });
  }

  /** The life of one object (hex address) or one page frame across the run. */
  lane(target: { object: string } | { page: number }): Promise<Lane> {
    return this.request('lane', target);
  }

  /** The micro-steps of concurrent block `block`, one a step, for its CPU lanes. */
  lanes(block: number): Promise<LaneStep[]> {
    return this.request('lanes', { block });
  }

  /** Every schedule of the first concurrent block of `text` that makes at most `preemptions`
   *  forced switches, at most `maxSchedules` of them, grouped by outcome. Fails with a
   *  ScenarioError when the scenario does not parse or has no block (or its run is refused);
   *  `onExplored` hears the schedules run so far a few times a second. `cancel` stops it. */
  explore(text: string, bounds: { preemptions: number; maxSchedules: number }, onExplored?: (schedules: number) => void): Promise<ExploreReport> {
    return this.request('explore', { text, ...bounds }, onExplored);
  }

  /** The micro-steps step `step` (0-based) is made of, captioned. */
  microSteps(step: number): Promise<MicroStepCaption[]> {
    return this.request('micro', { step });
  }

  dispose(): void {
    this.worker.terminate();
  }
}
