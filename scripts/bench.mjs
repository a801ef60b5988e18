#!/usr/bin/env node
// `npm run bench`: prints throughput figures; asserts nothing. Budgets are compared by people,
// in closing notes, not by timed tests.
//
// Part 1, the simulator: the standard workload of docs/bench.md (4 CPUs, 2 nodes, 10^6
// kmalloc/kfree with remote frees), natively (`slabscope workload`) and in wasm under Node
// (both builds), with the trace off and on; median of SIM_ROUNDS runs. Memory: the trace's
// own account of its bytes (steps, events, arguments, keyframes), per million steps.
// `npm run bench -- --sim` runs only this part.
// Also `slabscope run docs/scenarios/large.slab` without and with `--check` (the invariant
// check of the whole run): median wall time of CHECK_ROUNDS runs of the release binary,
// process start included. `npm run bench -- --native` runs only the native figures (no wasm
// builds needed).
//
// Part 3, the visualizer in headless Chromium (scripts/bench-web.mjs): JavaScript before the
// first view, frame times while playing the large scenario, scrubbing latency.
// `npm run bench -- --web` runs only this part.
//
// Part 2, the geometry sweep: the geometry explorer's default grid — object sizes 8..8192 (every size), CPU counts
// 1..64, page sizes 4K/16K/64K (1,571,520 caches). Each figure is the median of ROUNDS runs after
// one warm-up run.
//   native   `slabscope sweep --threads N` (release build), N = 1, 2
//   wasm st  the single-threaded module under Node, one thread
//   wasm mt  the threaded module under Node: N worker_threads share its memory, N = 1, 2

import { execFileSync } from 'node:child_process';
import { liveWorkers } from './liveWorkers.mjs';

if (process.argv.includes('--help')) {
  console.log(`npm run bench [-- OPTION]: prints figures, asserts nothing (docs/bench.md).
  (none)    every part: the simulator (native and wasm), the geometry sweep, the visualizer
  --sim     the simulator only: the standard workload natively and in wasm, and --check
  --native  the native figures of the simulator only: the standard workload and --check on
            the large scenario (needs no wasm build)
  --web     the visualizer in headless Chromium only`);
  process.exit(0);
}
if (process.argv.includes('--web')) {
  await import('./bench-web.mjs');
  process.exit(0);
}
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

const ROUNDS = 7;
const GRID = {
  size_from: 8, size_to: 8192, size_step: 1,
  cpus: Array.from({ length: 64 }, (_, i) => i + 1), page_sizes: [4096, 16384, 65536],
  align: 0, flags: {}, ctor: false, slub_min_objects: 0, slub_max_order: null, slub_min_order: 0,
};
const root = new URL('..', import.meta.url);
process.chdir(root.pathname);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function timed(fn) {
  await fn();
  const ms = [];
  for (let i = 0; i < ROUNDS; i++) ms.push(await fn());
  return median(ms);
}
const rows = [];
function report(name, ms, points) {
  rows.push({ name, ms, rate: points / (ms / 1e3) });
  console.log(`${name.padEnd(28)} ${ms.toFixed(1).padStart(8)} ms  ${(points / ms / 1e3).toFixed(2).padStart(6)} M caches/s`);
}

// --- Part 1: the simulator ---------------------------------------------------------------
const SIM_OPS = 1_000_000;
const SIM_ROUNDS = 5;
execFileSync('cargo', ['build', '-q', '--release', '--manifest-path', 'wasm-core/Cargo.toml', '-p', 'slabscope-cli']);
console.log(`simulator: standard workload, ${SIM_OPS.toLocaleString('en')} operations, median of ${SIM_ROUNDS}\n`);
const simRows = {};
function simReport(name, runs) {
  const best = median(runs.map((r) => r.ops_per_sec));
  const r = runs[0];
  simRows[name] = best;
  const mem = r.trace_bytes ? `  ${(r.trace_bytes / r.steps * 1e6 / 2 ** 20).toFixed(0).padStart(5)} MiB per million steps` : '';
  console.log(`${name.padEnd(26)} ${(best / 1e6).toFixed(2).padStart(7)} M ops/s  (${r.steps} steps${r.events ? `, ${r.events} events` : ''})${mem}`);
}
for (const trace of [false, true]) {
  const runs = [];
  for (let i = 0; i < SIM_ROUNDS; i++) {
    const args = ['workload', '--ops', String(SIM_OPS), ...(trace ? ['--trace'] : [])];
    runs.push(JSON.parse(execFileSync('wasm-core/target/release/slabscope', args, { encoding: 'utf8' })));
  }
  simReport(`native, trace ${trace ? 'on' : 'off'}`, runs);
}

// `slabscope run --check` on the large scenario beside the same run without it.
const CHECK_ROUNDS = 7;
{
  const run = (extra) => {
    const t0 = performance.now();
    execFileSync('wasm-core/target/release/slabscope', ['run', 'docs/scenarios/large.slab', ...extra], { stdio: 'pipe' });
    return performance.now() - t0;
  };
  const figures = {};
  for (const [name, extra] of [['without --check', []], ['with --check', ['--check']]]) {
    run(extra);
    const ms = [];
    for (let i = 0; i < CHECK_ROUNDS; i++) ms.push(run(extra));
    figures[name] = median(ms);
  }
  const steps = execFileSync('wasm-core/target/release/slabscope', ['run', 'docs/scenarios/large.slab'], { encoding: 'utf8' }).trim();
  console.log(`\nslabscope run docs/scenarios/large.slab (${steps}), median of ${CHECK_ROUNDS}, process included:`);
  console.log(`  without --check ${figures['without --check'].toFixed(1).padStart(8)} ms`);
  console.log(`  with --check    ${figures['with --check'].toFixed(1).padStart(8)} ms  (${(figures['with --check'] / figures['without --check']).toFixed(2)}x)`);
  console.log('target: --check within 3x of the run without it\n');
}
if (process.argv.includes('--native')) process.exit(0);

for (const build of ['st', 'mt']) {
  const glue = await import(new URL(`web/wasm/pkg-${build}/slabscope.js`, root));
  glue.initSync({ module: new WebAssembly.Module(readFileSync(`web/wasm/pkg-${build}/slabscope_bg.wasm`)) });
  for (const trace of [false, true]) {
    const runs = [];
    for (let i = 0; i < SIM_ROUNDS; i++) {
      const w = new glue.Workload(trace);
      const t0 = performance.now();
      const report = JSON.parse(w.run(SIM_OPS, 1));
      const seconds = (performance.now() - t0) / 1e3;
      w.free();
      runs.push({ ...report, ops_per_sec: report.ops / seconds });
    }
    simReport(`wasm ${build}, trace ${trace ? 'on' : 'off'}`, runs);
  }
}
// The standard workload under each kernel profile (the single-threaded module; linux-6.6 is
// the row above): 6.12's delayed freezing, 6.18 (no standard cache asks for sheaves) and
// 7.2's sheaves for every cache.
{
  const glue = await import(new URL('web/wasm/pkg-st/slabscope.js', root));
  console.log('\nthe standard workload per kernel profile (wasm st)');
  for (const profile of ['linux-6.12', 'linux-6.18', 'linux-7.2']) {
    for (const trace of [false, true]) {
      const runs = [];
      for (let i = 0; i < SIM_ROUNDS; i++) {
        const w = new glue.Workload(trace, profile);
        const t0 = performance.now();
        const report = JSON.parse(w.run(SIM_OPS, 1));
        const seconds = (performance.now() - t0) / 1e3;
        w.free();
        runs.push({ ...report, ops_per_sec: report.ops / seconds });
      }
      simReport(`${profile}, trace ${trace ? 'on' : 'off'}`, runs);
    }
  }
  console.log('target: every profile >= 10 M ops/s trace off\n');
}
// The concurrent workload: the same mix on the 4 CPUs at once under a seeded random schedule
// (with preemption), every operation split into SLUB's micro-steps.
const CONC_OPS = 250_000;
console.log(`\nconcurrent workload: ${CONC_OPS.toLocaleString('en')} operations on 4 CPUs at once, median of ${SIM_ROUNDS}`);
function concReport(name, runs) {
  const ops = median(runs.map((r) => r.ops_per_sec));
  const micro = median(runs.map((r) => r.micro_steps_per_sec));
  const r = runs[0];
  const mem = r.trace_bytes ? `  ${(r.trace_bytes / r.micro_steps * 1e6 / 2 ** 20).toFixed(0).padStart(5)} MiB per million micro-steps` : '';
  console.log(`${name.padEnd(26)} ${(ops / 1e6).toFixed(2).padStart(7)} M ops/s  ${(micro / 1e6).toFixed(2).padStart(6)} M micro-steps/s  (${r.micro_steps} micro-steps, ${r.retries} retries)${mem}`);
}
for (const trace of [false, true]) {
  const runs = [];
  for (let i = 0; i < SIM_ROUNDS; i++) {
    const args = ['workload', '--concurrent', '--ops', String(CONC_OPS), ...(trace ? ['--trace'] : [])];
    runs.push(JSON.parse(execFileSync('wasm-core/target/release/slabscope', args, { encoding: 'utf8' })));
  }
  concReport(`native, trace ${trace ? 'on' : 'off'}`, runs);
}
for (const build of ['st', 'mt']) {
  const glue = await import(new URL(`web/wasm/pkg-${build}/slabscope.js`, root));
  for (const trace of [false, true]) {
    const runs = [];
    for (let i = 0; i < SIM_ROUNDS; i++) {
      const w = new glue.Workload(trace);
      const t0 = performance.now();
      const report = JSON.parse(w.run_concurrent(CONC_OPS, 1));
      const seconds = (performance.now() - t0) / 1e3;
      w.free();
      runs.push({ ...report, ops_per_sec: report.ops / seconds, micro_steps_per_sec: report.micro_steps / seconds });
    }
    concReport(`wasm ${build}, trace ${trace ? 'on' : 'off'}`, runs);
  }
}
console.log('target: wasm >= 5 M ops/s trace off\n');
for (const trace of ['off', 'on']) {
  const ratio = simRows[`native, trace ${trace}`] / simRows[`wasm st, trace ${trace}`];
  console.log(`wasm st time / native time, trace ${trace}: ${ratio.toFixed(2)}x`);
}
console.log('targets: wasm >= 10 M ops/s trace off, >= 2 M ops/s trace on, <= 1.5x native\n');

// Live mode (docs/live.md): the standard mix with each simulated CPU on its own thread over
// one shared memory, natively (`slabscope live --workload`, std threads) and in wasm (the
// threaded module under Node, one worker_thread per CPU, as the app's pool workers run it);
// recorded (then replayed and compared, outside the timing) and not. Frees remote (the
// standard workload: a random CPU's object) and local (each CPU its own).
const LIVE_OPS = 4_000_000;
console.log(`live mode: ${LIVE_OPS.toLocaleString('en')} operations, median of ${SIM_ROUNDS}; ops/s over the slowest thread's time`);
const liveRows = {};
function liveReport(name, runs) {
  const ops = median(runs.map((r) => r.opsPerSec));
  liveRows[name] = ops;
  const r = runs[0];
  const replay = r.replay ? (r.replay.mismatch === null ? 'replay equal' : `REPLAY MISMATCH: ${r.replay.mismatch}`) : 'not recorded';
  const retries = Math.round(r.retries / (r.ops / 1e6));
  console.log(`${name.padEnd(40)} ${(ops / 1e6).toFixed(2).padStart(6)} M ops/s  ${String(retries).padStart(5)} retries/M ops  ${r.listLockWaits} lock waits  ${replay}`);
}
for (const frees of ['remote', 'local']) {
  for (const record of [false, true]) {
    for (const threads of [1, 2]) {
      const runs = [];
      for (let i = 0; i < SIM_ROUNDS; i++) {
        const args = ['live', '--workload', '--threads', String(threads), '--ops', String(LIVE_OPS), '--frees', frees, ...(record ? [] : ['--no-record'])];
        runs.push(JSON.parse(execFileSync('wasm-core/target/release/slabscope', args, { encoding: 'utf8' })));
      }
      liveReport(`native, ${frees} frees, ${record ? 'recorded' : 'unrecorded'}, ${threads} thread(s)`, runs);
    }
  }
}
{
  const workers = await liveWorkers(root, 2);
  const live = async (request) => (await workers.live(request)).report;
  // A recorded run keeps its log one epoch at a time, so it runs as many operations as the others.
  await live({ threads: 2, ops: 200_000, seed: 1, frees: 'remote', record: false }); // warm-up: the memory grows once
  for (const frees of ['remote', 'local']) {
    for (const record of [false, true]) {
      for (const threads of [1, 2]) {
        const ops = LIVE_OPS;
        const runs = [];
        for (let i = 0; i < SIM_ROUNDS; i++) runs.push(await live({ threads, ops, seed: 1, frees, record }));
        liveReport(`wasm mt, ${frees} frees, ${record ? 'recorded' : 'unrecorded'}, ${threads} worker(s)`, runs);
      }
    }
  }
  await workers.close();
}
for (const where of ['native', 'wasm mt']) {
  for (const frees of ['remote', 'local']) {
    const unit = where === 'native' ? 'thread(s)' : 'worker(s)';
    const one = liveRows[`${where}, ${frees} frees, unrecorded, 1 ${unit}`];
    const two = liveRows[`${where}, ${frees} frees, unrecorded, 2 ${unit}`];
    const rec = liveRows[`${where}, ${frees} frees, recorded, 2 ${unit}`];
    console.log(`${where}, ${frees} frees: 2 over 1 ${(two / one).toFixed(2)}x; recording costs ${(two / rec).toFixed(2)}x`);
  }
}
for (const frees of ['remote', 'local']) {
  const n = liveRows[`native, ${frees} frees, unrecorded, 2 thread(s)`];
  const w = liveRows[`wasm mt, ${frees} frees, unrecorded, 2 worker(s)`];
  console.log(`wasm live time / native live time, ${frees} frees, 2 threads: ${(n / w).toFixed(2)}x`);
}
console.log('targets: 2 workers >= 1.7x one; wasm live <= 1.5x native live; recording <= 2x\n');
if (process.argv.includes('--sim')) process.exit(0);

// --- Part 2: the geometry sweep ------------------------------------------------------------
console.log(`geometry sweep: ${GRID.cpus.length * GRID.page_sizes.length * 8185} caches, median of ${ROUNDS}\n`);

// Native (built above).
for (const threads of [1, 2]) {
  let points = 0;
  const ms = await timed(() => {
    const out = JSON.parse(execFileSync('wasm-core/target/release/slabscope', ['sweep', '--threads', String(threads)], { encoding: 'utf8' }));
    points = out.points;
    return out.ms;
  });
  report(`native, ${threads} thread(s)`, ms, points);
}

// wasm, single-threaded build.
{
  const st = await import(new URL('web/wasm/pkg-st/slabscope.js', root));
  st.initSync({ module: new WebAssembly.Module(readFileSync('web/wasm/pkg-st/slabscope_bg.wasm')) });
  let points = 0;
  const ms = await timed(() => {
    const job = new st.Sweep(JSON.stringify(GRID));
    const t0 = performance.now();
    job.work();
    const t = performance.now() - t0;
    points = job.points;
    job.free();
    return t;
  });
  report('wasm st, 1 thread', ms, points);
}

// wasm, threaded build: worker_threads over one shared memory.
{
  const mt = await import(new URL('web/wasm/pkg-mt/slabscope.js', root));
  const module = new WebAssembly.Module(readFileSync('web/wasm/pkg-mt/slabscope_bg.wasm'));
  const exports = mt.initSync({ module });
  const workerSource = `
    import { parentPort, workerData } from 'node:worker_threads';
    const mt = await import(workerData.glue);
    mt.initSync({ module: workerData.module, memory: workerData.memory });
    parentPort.on('message', (id) => parentPort.postMessage(mt.work_on_sweep(id)));
    parentPort.postMessage('ready');
  `;
  const workers = await Promise.all(
    [0, 1].map(
      () =>
        new Promise((resolve, reject) => {
          const w = new Worker(workerSource, {
            eval: true,
            workerData: { glue: new URL('web/wasm/pkg-mt/slabscope.js', root).href, module, memory: exports.memory },
          });
          w.once('message', () => resolve(w));
          w.once('error', reject);
        }),
    ),
  );
  const ask = (w, id) => new Promise((resolve) => { w.once('message', resolve); w.postMessage(id); });
  const figures = {};
  for (const n of [1, 2]) {
    let points = 0;
    figures[n] = await timed(async () => {
      const job = new mt.Sweep(JSON.stringify(GRID));
      const t0 = performance.now();
      await Promise.all(workers.slice(0, n).map((w) => ask(w, job.id)));
      const t = performance.now() - t0;
      if (!job.complete()) throw new Error('sweep incomplete');
      points = job.points;
      job.free();
      return t;
    });
    report(`wasm mt, ${n} worker(s)`, figures[n], points);
  }
  console.log(`\nwasm speedup with 2 workers over 1: ${(figures[1] / figures[2]).toFixed(2)}x`);
  workers.forEach((w) => w.terminate());
}
const native1 = rows.find((r) => r.name.startsWith('native, 1'));
const wasm1 = rows.find((r) => r.name.startsWith('wasm st'));
console.log(`wasm st / native time, 1 thread: ${(wasm1.ms / native1.ms).toFixed(2)}x`);

// --- Part 3: the visualizer -------------------------------------------------------------------
console.log('\nvisualizer (headless Chromium)\n');
execFileSync('node', ['scripts/bench-web.mjs', '--build'], { stdio: 'inherit' });
