// One render per animation frame while playing. The timeline's tick (the cursor moves) and the
// view the worker sent for the frame (the drawings follow) are both applied at the start of the
// frame; done in two animation-frame callbacks, each rendered at once, React rendered and
// committed the page twice a frame. Jobs asked for the same frame run together, in the order
// asked, inside one `run` (flushSync in the page): one render, one commit.

import { flushSync } from 'react-dom';

export type FrameJob = (now: number) => void;

export interface FrameBatch {
  /** Runs `job` at the next animation frame, with every other job asked for that frame. */
  request: (job: FrameJob) => number;
  /** Drops a job not yet run. */
  cancel: (id: number) => void;
}

export function createFrameBatch(
  raf: (callback: FrameRequestCallback) => number,
  caf: (handle: number) => void,
  run: (jobs: () => void) => void,
): FrameBatch {
  let jobs = new Map<number, FrameJob>();
  let nextId = 1;
  let handle: number | null = null;
  const frame = (now: number) => {
    handle = null;
    const due = jobs;
    jobs = new Map();
    // A job that asks for a frame while running gets the next one.
    run(() => {
      for (const job of due.values()) job(now);
    });
  };
  return {
    request(job) {
      const id = nextId++;
      jobs.set(id, job);
      if (handle === null) handle = raf(frame);
      return id;
    },
    cancel(id) {
      jobs.delete(id);
      if (jobs.size === 0 && handle !== null) {
        caf(handle);
        handle = null;
      }
    },
  };
}

/** The page's batch: jobs run in one flushSync, so the frame paints what they set. */
export const frames: FrameBatch = createFrameBatch(
  (callback) => requestAnimationFrame(callback),
  (handle) => cancelAnimationFrame(handle),
  (jobs) => flushSync(jobs),
);
