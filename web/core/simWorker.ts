// The simulator worker: the only place the page's wasm runs. It loads the threaded build when
// this worker is cross-origin isolated (shared memory is allowed) and the single-threaded one
// otherwise, and answers the requests of client.ts.
//
// Threaded mode: this worker instantiates the module first (creating the shared memory), then
// starts a pool of workers that instantiate the same module over the same memory. A sweep is
// registered here; pool workers claim its chunks concurrently; this worker only waits for their
// replies, so it never blocks.

import type { Snapshot } from './generated/Snapshot';
import type { Step } from './generated/Step';
import type { BuildInfo, PoolReply, PoolRequest, SimReply, SimRequest, SweepResult, ViewWire } from './protocol';
import { splitView, type SentParts } from './viewParts';

/** The part of the API both builds share (their init functions differ). */
type Wasm = Pick<
  typeof import('../wasm/pkg-st/slabscope.js'),
  'Sweep' | 'Session' | 'build_info' | 'geometry' | 'sweep_columns' | 'check_scenario'
>;
type Session = InstanceType<Wasm['Session']>;

let wasm: Wasm | null = null;
/** The scenario the visualizer is stepping through. */
let session: Session | null = null;
let info: BuildInfo | null = null;
let pool: Worker[] = [];

/** Pool size: the machine's cores, at least 2 (so the sharing is exercised), at most 8. */
function poolSize(): number {
  return Math.max(2, Math.min(navigator.hardwareConcurrency || 2, 8));
}

async function compile(url: URL): Promise<WebAssembly.Module> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`cannot fetch ${url.pathname}: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

function awaitReply(worker: Worker): Promise<PoolReply> {
  return new Promise((resolve) => {
    const onMessage = (event: MessageEvent<PoolReply>) => {
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
      resolve(event.data);
    };
    const onError = (event: ErrorEvent) => {
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
      resolve({ kind: 'failed', error: event.message || 'pool worker failed to start' });
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', onError);
  });
}

async function ask(worker: Worker, request: PoolRequest): Promise<PoolReply> {
  const reply = awaitReply(worker);
  worker.postMessage(request);
  const answer = await reply;
  if (answer.kind === 'failed') throw new Error(answer.error);
  return answer;
}

async function loadThreaded(): Promise<BuildInfo> {
  const mt = await import('../wasm/pkg-mt/slabscope.js');
  const module = await compile(new URL('../wasm/pkg-mt/slabscope_bg.wasm', import.meta.url));
  const exports = await mt.default({ module_or_path: module });
  const size = poolSize();
  const workers = Array.from(
    { length: size },
    () => new Worker(new URL('./poolWorker.ts', import.meta.url), { type: 'module' }),
  );
  try {
    await Promise.all(workers.map((w) => ask(w, { kind: 'init', module, memory: exports.memory })));
  } catch (error) {
    workers.forEach((w) => w.terminate());
    throw error;
  }
  pool = workers;
  wasm = mt;
  return { ...JSON.parse(mt.build_info()), poolSize: size, fallback: null };
}

async function loadSingle(fallback: BuildInfo['fallback']): Promise<BuildInfo> {
  const st = await import('../wasm/pkg-st/slabscope.js');
  const module = await compile(new URL('../wasm/pkg-st/slabscope_bg.wasm', import.meta.url));
  await st.default({ module_or_path: module });
  wasm = st;
  return { ...JSON.parse(st.build_info()), poolSize: 1, fallback };
}

async function init(): Promise<BuildInfo> {
  if (info) return info;
  if (self.crossOriginIsolated && typeof SharedArrayBuffer !== 'undefined') {
    try {
      info = await loadThreaded();
      return info;
    } catch (error) {
      info = await loadSingle({ reason: 'threadedFailed', error: String(error) });
      return info;
    }
  }
  info = await loadSingle({ reason: 'notIsolated' });
  return info;
}

async function sweep(request: Extract<SimRequest, { kind: 'sweep' }>): Promise<SweepResult> {
  if (!wasm) throw new Error('simulator not loaded');
  const job = new wasm.Sweep(JSON.stringify(request.grid));
  try {
    let pointsPerWorker: number[];
    const start = performance.now();
    if (pool.length === 0) {
      pointsPerWorker = [job.work()];
    } else {
      const used = pool.slice(0, Math.max(1, Math.min(request.workers, pool.length)));
      const replies = await Promise.all(used.map((w) => ask(w, { kind: 'work', sweepId: job.id })));
      pointsPerWorker = replies.map((r) => (r.kind === 'done' ? r.points : 0));
    }
    const ms = performance.now() - start;
    if (!job.complete()) throw new Error('sweep ended with points left uncomputed');
    return {
      columns: wasm.sweep_columns(),
      rows: job.rows(),
      points: job.points,
      workers: pointsPerWorker.length,
      pointsPerWorker,
      ms,
    };
  } finally {
    job.free();
  }
}

function current(): Session {
  if (!session) throw new Error('no scenario is open');
  return session;
}

function open(text: string) {
  const next = new wasm!.Session(text);
  session?.free();
  session = next;
  return JSON.parse(next.outline());
}

/** The parts of the last view sent (see viewParts.ts). */
let sent: SentParts | null = null;

function view(cursor: number, query: unknown): ViewWire {
  const start = performance.now();
  const s = current();
  const snapshot = JSON.parse(s.snapshot(cursor, JSON.stringify(query))) as Snapshot;
  const step = cursor > 0 ? (JSON.parse(s.step(cursor - 1)) as Step) : null;
  const split = splitView(snapshot, step, sent);
  sent = split.sent;
  return { ...split.wire, workerMs: performance.now() - start };
}

async function handle(request: SimRequest) {
  switch (request.kind) {
    case 'init':
      return init();
    case 'geometry':
      await init();
      return JSON.parse(wasm!.geometry(JSON.stringify(request.request)));
    case 'sweep':
      await init();
      return sweep(request);
    case 'open':
      await init();
      return open(request.text);
    case 'check': {
      await init();
      const error = wasm!.check_scenario(request.text);
      return error === undefined ? null : JSON.parse(error);
    }
    case 'view':
      return view(request.cursor, request.query);
    case 'crash':
      setTimeout(() => {
        throw new Error('the simulator was made to crash (test)');
      });
      return null;
    case 'trace':
      return current().trace();
    case 'files':
      return JSON.parse(current().files(request.cursor, request.cache ?? undefined));
    case 'lane':
      return JSON.parse(
        'object' in request ? current().object_lane(request.object) : current().page_lane(request.page),
      );
  }
}

self.onmessage = async (event: MessageEvent<{ id: number; request: SimRequest }>) => {
  const { id, request } = event.data;
  let reply: SimReply;
  try {
    reply = { id, ok: true, result: await handle(request) };
  } catch (error) {
    reply = {
      id,
      ok: false,
      error: error instanceof Error ? error.message : String(error),
      crashed: error instanceof WebAssembly.RuntimeError,
    };
  }
  const transfer =
    reply.ok && typeof reply.result === 'object' && reply.result !== null && 'rows' in reply.result ? [reply.result.rows.buffer as ArrayBuffer] : [];
  self.postMessage(reply, { transfer });
};
