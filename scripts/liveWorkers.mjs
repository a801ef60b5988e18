// Live mode in wasm under Node (docs/live.md): the threaded module with `n` worker_threads over
// its one shared memory, each running one simulated CPU of a live run with `live_work`, as the
// app's pool workers do (web/core/poolWorker.ts). Used by `npm run bench` and the vitest test.

import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

const WORKER = `
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

/** Loads the threaded module of the repository at `root` (a file: URL) with `n` workers. Returns
 *  the module's glue, `live(request)` (a LiveRequest; resolves to the module's LiveResult, each
 *  thread timed by its worker), `liveScenario(text)` (resolves to the LiveFileReport of a
 *  scenario's blocks run live) and `close()`. */
export async function liveWorkers(root, n) {
  const glue = new URL('web/wasm/pkg-mt/slabscope.js', root);
  const mt = await import(glue.href);
  const module = new WebAssembly.Module(readFileSync(new URL('web/wasm/pkg-mt/slabscope_bg.wasm', root)));
  const exports = mt.initSync({ module });
  const workers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker(WORKER, { eval: true, workerData: { glue: glue.href, module, memory: exports.memory } });
          w.once('message', () => resolve(w));
          w.once('error', reject);
        }),
    ),
  );
  const ask = (w, id, cpu) =>
    new Promise((resolve) => {
      w.once('message', resolve);
      w.postMessage({ id, cpu });
    });
  const live = async (request) => {
    const job = new mt.Live(JSON.stringify(request));
    try {
      // Epoch after epoch, as the app's simulator worker runs them.
      for (;;) {
        const replies = await Promise.all(workers.slice(0, request.threads).map((w, cpu) => ask(w, job.id, cpu)));
        if (!replies.every((r) => r.ran)) throw new Error('a worker found no live run to work on');
        if (!job.end_epoch(Float64Array.from(replies.map((r) => r.ms / 1000)))) break;
      }
      return JSON.parse(job.finish());
    } finally {
      job.free();
    }
  };
  // A scenario's blocks, one after another, each CPU of a block on its own worker.
  const liveScenario = async (text) => {
    const job = new mt.LiveScenario(text, workers.length);
    try {
      for (;;) {
        const cpus = Array.from(job.next_block());
        if (cpus.length === 0) break;
        const replies = await Promise.all(cpus.map((cpu, i) => ask(workers[i], job.id, cpu)));
        if (!replies.every((r) => r.ran)) throw new Error('a worker found no live block to work on');
        const seconds = new Float64Array(Math.max(...cpus) + 1);
        cpus.forEach((cpu, i) => (seconds[cpu] = replies[i].ms / 1000));
        job.end_block(seconds);
      }
      return JSON.parse(job.finish());
    } finally {
      job.free();
    }
  };
  return { mt, live, liveScenario, close: () => Promise.all(workers.map((w) => w.terminate())) };
}
