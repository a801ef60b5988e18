// A long live run in wasm (docs/live.md, "Stress"): the threaded module under Node, one
// worker_thread per simulated CPU, recorded and replayed epoch by epoch; prints the LiveReport as
// JSON and exits 1 if the replay differs or an invariant is broken. Natively the same run is
// `slabscope live --workload --threads N --ops N --seed S --frees F`.
//
//   node scripts/live-long.mjs [--threads 2] [--ops 10000000] [--seed 1] [--frees remote|local]

import { parseArgs } from 'node:util';
import { liveWorkers } from './liveWorkers.mjs';

const { values } = parseArgs({
  options: {
    threads: { type: 'string', default: '2' },
    ops: { type: 'string', default: '10000000' },
    seed: { type: 'string', default: '1' },
    frees: { type: 'string', default: 'remote' },
  },
});
const threads = Number(values.threads);
const workers = await liveWorkers(new URL('..', import.meta.url), threads);
try {
  const start = performance.now();
  const { report } = await workers.live({ threads, ops: Number(values.ops), seed: Number(values.seed), frees: values.frees, record: true });
  console.log(JSON.stringify({ ...report, wallSeconds: (performance.now() - start) / 1000 }));
  if (report.replay.mismatch !== null || report.replay.violations.length > 0) process.exitCode = 1;
} finally {
  await workers.close();
}
