import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isCancelled, ScenarioError, SimClient, SimFailure, type Lane, type RunOutline } from './client';
import type { RunProgress } from './generated/RunProgress';
import type { SimEnvelope, SimReply } from './protocol';
import slab300 from '../views/fixtures/slab-300.json';

/** A stand-in for the simulator worker: records what the client posts, replies on demand. */
class FakeWorker {
  static all: FakeWorker[] = [];
  posted: SimEnvelope[] = [];
  terminated = false;
  onmessage: ((event: { data: SimReply }) => void) | null = null;
  onerror: ((event: { message: string; preventDefault: () => void }) => void) | null = null;
  constructor() {
    FakeWorker.all.push(this);
  }
  postMessage(message: SimEnvelope) {
    this.posted.push(message);
  }
  terminate() {
    this.terminated = true;
  }
  reply(data: SimReply) {
    this.onmessage?.({ data });
  }
}

const latest = () => FakeWorker.all[FakeWorker.all.length - 1];
const OUTLINE: RunOutline = { allocator: 'slub', steps: 3, cpus: 1, nodes: 1, ops_start: 1, ops: [], prints: [], blocks: [] };
const PROGRESS: RunProgress = { line: 3, line_done: 4096, line_total: 1_000_000, ops: 4096, steps: 4100 };

beforeEach(() => {
  FakeWorker.all = [];
  vi.stubGlobal('Worker', FakeWorker);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the simulator client', () => {
  it('sends each request with its kind and arguments and resolves it with its own reply', async () => {
    const client = new SimClient();
    const worker = latest();
    const opened = client.open('text');
    const lane = client.lane({ page: 7 });
    expect(worker.posted).toEqual([
      { id: 1, request: { kind: 'open', text: 'text' } },
      { id: 2, request: { kind: 'lane', page: 7 } },
    ]);
    const answer: Lane = { target: { kind: 'page', pfn: 7 }, marks: [], spans: [] } as unknown as Lane;
    worker.reply({ id: 2, ok: true, result: answer });
    worker.reply({ id: 1, ok: true, result: OUTLINE });
    expect(await opened).toEqual(OUTLINE);
    expect(await lane).toBe(answer);
  });

  it('parses a view once, from the JSON the module wrote', async () => {
    const client = new SimClient();
    const view = client.view(300, { cache: null, slab: null });
    const json = JSON.stringify({ snapshot: slab300, step: null });
    latest().reply({ id: 1, ok: true, result: { json, workerMs: 1.5 } });
    expect(await view).toEqual({ snapshot: slab300, step: null, workerMs: 1.5 });
  });

  it('fails a request with the kind of error the worker reported', async () => {
    const client = new SimClient();
    const parse = client.open('a');
    const run = client.open('b');
    const invalid = client.files(99, null);
    const worker = latest();
    worker.reply({ id: 1, ok: false, error: { kind: 'parse', line: 2, column: 3, key: 'scenario.x', args: [], message: 'bad', hint: null } });
    worker.reply({ id: 2, ok: false, error: { kind: 'run', line: 3, key: 'run.index', args: [['line', '3']], message: 'line 3: no' } });
    worker.reply({ id: 3, ok: false, error: { kind: 'invalid', message: 'no step 99' } });
    const parsed = await parse.catch((e: unknown) => e);
    expect(parsed).toBeInstanceOf(ScenarioError);
    expect((parsed as ScenarioError).parse).toEqual({ line: 2, column: 3, key: 'scenario.x', args: [], message: 'bad', hint: null });
    const refused = await run.catch((e: unknown) => e);
    expect((refused as ScenarioError).run).toEqual({ line: 3, key: 'run.index', args: [['line', '3']], message: 'line 3: no' });
    const other = await invalid.catch((e: unknown) => e);
    expect(other).toBeInstanceOf(SimFailure);
    expect((other as SimFailure).message).toBe('no step 99');
    expect(worker.terminated).toBe(false);
  });

  it('follows a run’s progress until it ends, telling subscribers', async () => {
    const client = new SimClient();
    const heard = vi.fn();
    const restarted = vi.fn();
    client.subscribeProgress(heard);
    client.subscribe(restarted);
    const opened = client.open('heavy');
    expect(client.progress()).toBeNull();
    latest().reply({ id: 1, progress: PROGRESS });
    expect(client.progress()).toEqual(PROGRESS);
    expect(heard).toHaveBeenCalledTimes(1);
    latest().reply({ id: 1, ok: true, result: OUTLINE });
    await opened;
    expect(client.progress()).toBeNull();
    expect(heard).toHaveBeenCalledTimes(2);
    // A report is not a restart: what reopens runs after a crash hears nothing of it.
    expect(restarted).not.toHaveBeenCalled();
  });

  it('cancels by replacing the worker: what waits fails as cancelled, and nothing counts as a crash', async () => {
    const client = new SimClient();
    const first = latest();
    const restarted = vi.fn();
    client.subscribe(restarted);
    const opened = client.open('heavy');
    first.reply({ id: 1, progress: PROGRESS });
    client.cancel();
    const error = await opened.catch((e: unknown) => e);
    expect(isCancelled(error)).toBe(true);
    expect(first.terminated).toBe(true);
    expect(FakeWorker.all).toHaveLength(2);
    expect(client.progress()).toBeNull();
    expect(client.generation()).toBe(0);
    expect(client.lastCrash()).toBeNull();
    expect(restarted).not.toHaveBeenCalled();
    // A late message of the stopped worker is not taken for the new one's.
    first.reply({ id: 1, ok: true, result: OUTLINE });
    // The new worker answers what comes next.
    const again = client.open('light');
    expect(latest().posted).toEqual([{ id: 2, request: { kind: 'open', text: 'light' } }]);
    latest().reply({ id: 2, ok: true, result: OUTLINE });
    expect(await again).toEqual(OUTLINE);
  });

  it('tells an exploration’s caller how many schedules have run, apart from a run’s progress', async () => {
    const client = new SimClient();
    const heard: number[] = [];
    const explored = client.explore('text', { preemptions: 2, maxSchedules: 100 }, (n) => heard.push(n));
    expect(latest().posted).toEqual([{ id: 1, request: { kind: 'explore', text: 'text', preemptions: 2, maxSchedules: 100 } }]);
    latest().reply({ id: 1, explored: 40 });
    latest().reply({ id: 1, explored: 90 });
    expect(heard).toEqual([40, 90]);
    expect(client.progress()).toBeNull();
    const report = { line: 3, preemptions: 2, max_schedules: 100, schedules: 100, cut_short: true, groups: [] };
    latest().reply({ id: 1, ok: true, result: report });
    expect(await explored).toEqual(report);
    // Cancelled like any request: the worker is replaced.
    const again = client.explore('text', { preemptions: 2, maxSchedules: 100 });
    client.cancel();
    expect(isCancelled(await again.catch((e: unknown) => e))).toBe(true);
  });

  it('restarts the worker after a crash and counts it', async () => {
    const client = new SimClient();
    const waiting = client.trace();
    latest().reply({ id: 1, ok: false, error: { kind: 'crashed', message: 'unreachable executed' } });
    expect(isCancelled(await waiting.catch((e: unknown) => e))).toBe(false);
    expect(client.generation()).toBe(1);
    expect(client.lastCrash()).toBe('unreachable executed');
    expect(FakeWorker.all).toHaveLength(2);
  });

  it('types each request kind with its own arguments and result', () => {
    // Checked by the type checker (tsc runs over the tests): each line marked must not compile.
    const typed = async (client: SimClient) => {
      const outline: RunOutline = await client.request('open', { text: '' });
      // @ts-expect-error an open answers a RunOutline, not a Lane
      const lane: Lane = await client.request('open', { text: '' });
      // @ts-expect-error a view takes a cursor and a query, not a text
      await client.request('view', { text: '' });
      // @ts-expect-error there is no such request
      await client.request('snapshot', {});
      return [outline, lane];
    };
    expect(typed).toBeTypeOf('function');
  });
});
