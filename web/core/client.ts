// The page's handle on the simulator. Every call is a message to the simulator worker; the
// page's main thread never runs wasm, so it never blocks.

import type { CacheGeometry } from './generated/CacheGeometry';
import type { CacheRequest } from './generated/CacheRequest';
import type { SweepGrid } from './generated/SweepGrid';
import type { BuildInfo, SimReply, SimRequest, SweepResult } from './protocol';

export type { BuildInfo, SweepResult } from './protocol';
export type { CacheGeometry, CacheRequest, SweepGrid };

export class SimClient {
  private readonly worker: Worker;
  private nextId = 1;
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

  dispose(): void {
    this.worker.terminate();
  }
}
