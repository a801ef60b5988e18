// Live mode in wasm (docs/live.md): the threaded module under Node, one worker_thread per
// simulated CPU over its one shared memory, exactly as the app's pool workers run it. Each
// recorded run is replayed on the interleaving engine inside the module and the states compared;
// over the seeds below, 120,000 operations with real races.

import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url);
const glue = new URL('web/wasm/pkg-mt/slabscope.js', root);
let mt;
let workers = [];

beforeAll(async () => {
  mt = await import(glue.href);
  const module = new WebAssembly.Module(readFileSync(new URL('web/wasm/pkg-mt/slabscope_bg.wasm', root)));
  const exports = mt.initSync({ module });
  const source = `
    import { parentPort, workerData } from 'node:worker_threads';
    const mt = await import(workerData.glue);
    mt.initSync({ module: workerData.module, memory: workerData.memory });
    parentPort.on('message', ({ id, cpu }) => {
      const t0 = performance.now();
      const ran = mt.live_work(id, cpu);
      parentPort.postMessage({ ran, ms: performance.now() - t0 });
    });
    parentPort.postMessage('ready');
  `;
  workers = await Promise.all(
    [0, 1, 2].map(
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker(source, { eval: true, workerData: { glue: glue.href, module, memory: exports.memory } });
          w.once('message', () => resolve(w));
          w.once('error', reject);
        }),
    ),
  );
}, 60_000);

afterAll(() => Promise.all(workers.map((w) => w.terminate())));

/** Runs `request` with one worker per thread; the module's LiveResult. */
async function live(request) {
  const job = new mt.Live(JSON.stringify(request));
  try {
    const ask = (w, cpu) =>
      new Promise((resolve) => {
        w.once('message', resolve);
        w.postMessage({ id: job.id, cpu });
      });
    const replies = await Promise.all(workers.slice(0, request.threads).map((w, cpu) => ask(w, cpu)));
    expect(replies.every((r) => r.ran)).toBe(true);
    return JSON.parse(job.finish(Float64Array.from(replies.map((r) => r.ms / 1000))));
  } finally {
    job.free();
  }
}

describe('live mode in wasm', () => {
  it('replays every recorded run to the same state', async () => {
    let retries = 0;
    for (const [threads, frees, seed] of [
      [2, 'remote', 1],
      [2, 'local', 2],
      [3, 'remote', 3],
    ]) {
      const { report, scenarioError } = await live({ threads, ops: 40_000, seed, frees, record: true });
      expect(report.ops).toBe(40_000 - (40_000 % threads));
      expect(report.perThread).toHaveLength(threads);
      expect(report.replay).not.toBeNull();
      expect(report.replay.mismatch, `${threads} threads, ${frees}, seed ${seed}`).toBeNull();
      expect(report.replay.microSteps).toBe(report.microSteps);
      expect(scenarioError).toMatch(/at most 5000/);
      retries += report.retries;
    }
    expect(retries).toBeGreaterThan(0);
  }, 120_000);

  it('gives a short run as a scenario the player opens', async () => {
    const { report, scenario } = await live({ threads: 2, ops: 1_000, seed: 5, frees: 'remote', record: true });
    expect(report.replay.mismatch).toBeNull();
    expect(scenario).toMatch(/^slabscope-scenario 3\n/);
    expect(scenario).toMatch(/\nconcurrent explicit\n/);
    expect(scenario).toMatch(/\n {2}schedule cpu[01]/);
    // The app checks it as it would any text: it parses.
    expect(mt.check_scenario(scenario)).toBeUndefined();
  }, 60_000);

  it('refuses a request past its bounds with the reason', () => {
    expect(() => new mt.Live(JSON.stringify({ threads: 2, ops: 3_000_000, seed: 1, frees: 'remote', record: true }))).toThrow(/at most 1000000 when recorded/);
    expect(() => new mt.Live(JSON.stringify({ threads: 0, ops: 10, seed: 1, frees: 'remote', record: true }))).toThrow(/1 to 16/);
    expect(() => new mt.Live('{"threads":2}')).toThrow(/bad live request/);
  });
});
