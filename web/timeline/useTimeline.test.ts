import { describe, expect, it } from 'vitest';
import { SPEED_STORAGE_KEY, frameLoop, readStoredSpeed, writeStoredSpeed, type SpeedStorage } from './useTimeline';

function fakeFrames() {
  let next = 1;
  const pending = new Map<number, FrameRequestCallback>();
  return {
    raf: (cb: FrameRequestCallback) => {
      pending.set(next, cb);
      return next++;
    },
    caf: (id: number) => void pending.delete(id),
    /** Runs the frames queued now, at time `now`. */
    run(now: number) {
      const due = [...pending.values()];
      pending.clear();
      for (const cb of due) cb(now);
    },
    get size() {
      return pending.size;
    },
  };
}

describe('frameLoop', () => {
  it('reports the time between frames, starting from the second frame', () => {
    const f = fakeFrames();
    const seen: number[] = [];
    frameLoop((ms) => seen.push(ms), f.raf, f.caf);
    for (const now of [100, 116, 150, 150]) f.run(now);
    expect(seen).toEqual([16, 34, 0]);
  });

  it('stops when told, even from inside a frame', () => {
    const f = fakeFrames();
    const seen: number[] = [];
    const stop = frameLoop((ms) => seen.push(ms), f.raf, f.caf);
    f.run(0);
    f.run(10);
    stop();
    expect(f.size).toBe(0);
    f.run(20);
    expect(seen).toEqual([10]);

    const g = fakeFrames();
    let stopInner = () => {};
    stopInner = frameLoop(() => stopInner(), g.raf, g.caf);
    g.run(0);
    g.run(5);
    expect(g.size).toBe(0);
  });
});

describe('the remembered speed', () => {
  function memory(initial: Record<string, string> = {}): SpeedStorage & { data: Record<string, string> } {
    const data = { ...initial };
    return { data, getItem: (k) => data[k] ?? null, setItem: (k, v) => void (data[k] = v) };
  }

  it('is written and read back', () => {
    const m = memory();
    writeStoredSpeed(m, 'max');
    expect(m.data[SPEED_STORAGE_KEY]).toBe('max');
    expect(readStoredSpeed(m)).toBe('max');
    writeStoredSpeed(m, 30);
    expect(readStoredSpeed(m)).toBe(30);
  });

  it('ignores bad values, missing or failing storage', () => {
    for (const bad of ['7', 'fast', '', '{"speed":10}']) expect(readStoredSpeed(memory({ [SPEED_STORAGE_KEY]: bad })), bad).toBeNull();
    expect(readStoredSpeed(memory())).toBeNull();
    expect(readStoredSpeed(null)).toBeNull();
    const broken: SpeedStorage = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    };
    expect(readStoredSpeed(broken)).toBeNull();
    expect(() => writeStoredSpeed(broken, 10)).not.toThrow();
  });
});
