// Live mode in wasm (docs/live.md): the threaded module under Node, one worker_thread per
// simulated CPU over its one shared memory, exactly as the app's pool workers run it. Each
// recorded run is replayed on the interleaving engine inside the module and the states compared;
// over the seeds below, 120,000 operations on real threads.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveWorkers } from './liveWorkers.mjs';

let workers;
beforeAll(async () => {
  workers = await liveWorkers(new URL('..', import.meta.url), 3);
}, 60_000);
afterAll(() => workers.close());

const live = (request) => workers.live(request);

describe('live mode in wasm', () => {
  it('replays every recorded run to the same state', async () => {
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
      // Whether a cmpxchg failed is up to the machine (a loaded one may run the threads one
      // after the other); npm run bench prints the retries of long runs.
      expect(report.perThread.every((t) => t.ops > 0)).toBe(true);
    }
  }, 120_000);

  it('gives a short run as a scenario the player opens', async () => {
    const { report, scenario } = await live({ threads: 2, ops: 1_000, seed: 5, frees: 'remote', record: true });
    expect(report.replay.mismatch).toBeNull();
    expect(scenario).toMatch(/^slabscope-scenario 3\n/);
    expect(scenario).toMatch(/\nconcurrent explicit\n/);
    expect(scenario).toMatch(/\n {2}schedule cpu[01]/);
    // The app checks it as it would any text: it parses.
    expect(workers.mt.check_scenario(scenario)).toBeUndefined();
  }, 60_000);

  it('runs a scenario’s blocks live and replays each to its threads’ state', async () => {
    // Three CPUs free each other's objects while they allocate, then hand a name across.
    const text = [
      'slabscope-scenario 3',
      'machine cpus=3 nodes=1 memory=4M',
      'cache t size=192',
      'repeat 300 a[] = kmem_cache_alloc(t) on cpu0',
      'repeat 300 b[] = kmem_cache_alloc(t) on cpu1',
      'concurrent',
      '  for x in b: kmem_cache_free(t, x) on cpu0',
      '  repeat 200 c[] = kmem_cache_alloc(t) on cpu0',
      '  for x in a: kmem_cache_free(t, x) on cpu1',
      '  repeat 200 d[] = kmalloc(150) on cpu2',
      '  flush_cpu_slab(t) on cpu1',
      'end',
      'concurrent',
      '  k = kmalloc(64) on cpu2',
      '  kfree(k) on cpu0',
      '  for x in c: kmem_cache_free(t, x) on cpu1',
      'end',
      '',
    ].join('\n');
    for (let run = 0; run < 4; run++) {
      const report = await workers.liveScenario(text);
      expect(report.blocks.map((b) => [b.line, b.report.threads, b.report.ops])).toEqual([
        [6, 3, 1001],
        [13, 3, 202],
      ]);
      for (const b of report.blocks) {
        expect(b.report.replay.mismatch).toBeNull();
        expect(b.report.replay.microSteps).toBe(b.report.microSteps);
      }
      expect(report.replay).toMatch(/\nconcurrent explicit\n/);
      expect(workers.mt.check_scenario(report.replay)).toBeUndefined();
    }
  }, 60_000);

  it('refuses a scenario that cannot run live, naming the line', () => {
    const irq = 'slabscope-scenario 3\nmachine cpus=2\nconcurrent\n  a = kmalloc(8) on cpu0\n  b = kmalloc(8) on cpu1 irq\nend\n';
    let thrown;
    try {
      new workers.mt.LiveScenario(irq, 3).next_block();
    } catch (e) {
      thrown = JSON.parse(e.message);
    }
    expect(thrown).toMatchObject({ kind: 'run', line: 5, key: 'live.not_live_task' });
    // More CPUs in a block than workers: refused before anything runs.
    expect(() => new workers.mt.LiveScenario(irq, 1)).toThrow(/"key":"live.too_many_cpus"/);
  });

  it('refuses a request past its bounds with the reason', () => {
    expect(() => new workers.mt.Live(JSON.stringify({ threads: 2, ops: 30_000_000, seed: 1, frees: 'remote', record: true }))).toThrow(/at most 20000000/);
    expect(() => new workers.mt.Live(JSON.stringify({ threads: 0, ops: 10, seed: 1, frees: 'remote', record: true }))).toThrow(/1 to 16/);
    expect(() => new workers.mt.Live('{"threads":2}')).toThrow(/bad live request/);
  });
});
