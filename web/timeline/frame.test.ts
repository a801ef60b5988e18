import { describe, expect, it } from 'vitest';
import { createFrameBatch } from './frame';

function fakeFrames() {
  let callbacks = new Map<number, FrameRequestCallback>();
  let next = 1;
  let runs = 0;
  return {
    raf: (cb: FrameRequestCallback) => {
      callbacks.set(next, cb);
      return next++;
    },
    caf: (id: number) => void callbacks.delete(id),
    run: (jobs: () => void) => {
      runs++;
      jobs();
    },
    pending: () => callbacks.size,
    runs: () => runs,
    tick(now: number) {
      const due = callbacks;
      callbacks = new Map();
      for (const cb of due.values()) cb(now);
    },
  };
}

describe('createFrameBatch', () => {
  it('runs the jobs asked for one frame together, in order, in one run, with the frame time', () => {
    const f = fakeFrames();
    const batch = createFrameBatch(f.raf, f.caf, f.run);
    const seen: string[] = [];
    batch.request((now) => seen.push(`tick ${now}`));
    batch.request((now) => seen.push(`view ${now}`));
    expect(f.pending()).toBe(1);
    f.tick(16);
    expect(seen).toEqual(['tick 16', 'view 16']);
    expect(f.runs()).toBe(1);
  });

  it('gives a job asked while the frame runs the next frame, and drops cancelled jobs', () => {
    const f = fakeFrames();
    const batch = createFrameBatch(f.raf, f.caf, f.run);
    const seen: number[] = [];
    const loop = (now: number) => {
      seen.push(now);
      if (seen.length < 3) batch.request(loop);
    };
    batch.request(loop);
    f.tick(1);
    f.tick(2);
    f.tick(3);
    f.tick(4);
    expect(seen).toEqual([1, 2, 3]);
    const id = batch.request(() => seen.push(-1));
    batch.cancel(id);
    expect(f.pending()).toBe(0);
    f.tick(5);
    expect(seen).toEqual([1, 2, 3]);
    // Cancelling one of two keeps the frame for the other.
    const a = batch.request(() => seen.push(6));
    batch.request(() => seen.push(7));
    batch.cancel(a);
    f.tick(6);
    expect(seen).toEqual([1, 2, 3, 7]);
  });
});
