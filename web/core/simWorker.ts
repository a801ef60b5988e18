// The simulator worker: the only place the page's wasm runs. It loads the threaded build when
// this worker is cross-origin isolated (shared memory is allowed) and the single-threaded one
// otherwise, and answers the requests of client.ts.
//
// Threaded mode: this worker instantiates the module first (creating the shared memory), then
// starts a pool of workers that instantiate the same module over the same memory. A sweep is
// registered here; pool workers claim its chunks concurrently; this worker only waits for their
// replies, so it never blocks.

import type { BuildInfo } from './generated/BuildInfo';
import type { RunOutline } from './generated/RunOutline';
import type { RunProgress } from './generated/RunProgress';
import type { SimError } from './generated/SimError';
import type { PoolReply, PoolRequest, SimEnvelope, SimKind, SimReply, SimRequest, SimResult, SweepResult, ViewWire } from './protocol';

/** The part of the API both builds share (their init functions differ). */
type Wasm = Pick<
  typeof import('../wasm/pkg-st/slabscope.js'),
  'Sweep' | 'Live' | 'LiveScenario' | 'Session' | 'build_info' | 'geometry' | 'sweep_columns' | 'check_scenario' | 'explore' | 'compare_table'
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
  return JSON.parse(mt.build_info(size)) as BuildInfo;
}

async function loadSingle(fallback: BuildInfo['fallback']): Promise<BuildInfo> {
  const st = await import('../wasm/pkg-st/slabscope.js');
  const module = await compile(new URL('../wasm/pkg-st/slabscope_bg.wasm', import.meta.url));
  await st.default({ module_or_path: module });
  wasm = st;
  return { ...(JSON.parse(st.build_info(1)) as BuildInfo), fallback };
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

async function sweep(request: SimRequest<'sweep'>): Promise<SweepResult> {
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

/** A live run: one pool worker per simulated CPU, all at once, epoch after epoch; between
 *  epochs this worker replays the last one (a recorded run), then gathers the run. */
async function live(request: SimRequest<'live'>): Promise<SimResult<'live'>> {
  if (!wasm) throw new Error('simulator not loaded');
  const { threads } = request.request;
  if (pool.length === 0) throw new Error('live mode needs the threaded build (a cross-origin isolated page)');
  if (threads < 1 || threads > pool.length) {
    throw new Error(`a live run here has 1 to ${pool.length} threads (one per pool worker), not ${threads}`);
  }
  const job = new wasm.Live(JSON.stringify(request.request));
  try {
    // Epoch after epoch (a recorded run's log is kept, and replayed, one epoch at a time).
    for (;;) {
      const replies = await Promise.all(pool.slice(0, threads).map((w, cpu) => ask(w, { kind: 'live', liveId: job.id, cpu })));
      const seconds = replies.map((r) => (r.kind === 'ran' ? r.ms / 1000 : 0));
      if (!job.end_epoch(Float64Array.from(seconds))) break;
    }
    return JSON.parse(job.finish()) as SimResult<'live'>;
  } finally {
    job.free();
  }
}

/** A live run of a scenario: block by block, one pool worker per CPU of the block, all at once;
 *  between blocks, this worker runs the scenario on to the next block and checks the replay. */
async function liveScenario(request: SimRequest<'liveScenario'>): Promise<SimResult<'liveScenario'>> {
  if (!wasm) throw new Error('simulator not loaded');
  if (pool.length === 0) throw new Error('live mode needs the threaded build (a cross-origin isolated page)');
  const job = new wasm.LiveScenario(request.text, pool.length);
  try {
    for (;;) {
      const cpus = Array.from(job.next_block());
      if (cpus.length === 0) break;
      const replies = await Promise.all(cpus.map((cpu, i) => ask(pool[i], { kind: 'live', liveId: job.id, cpu })));
      const seconds = new Float64Array(Math.max(...cpus) + 1);
      cpus.forEach((cpu, i) => {
        const r = replies[i];
        seconds[cpu] = r.kind === 'ran' ? r.ms / 1000 : 0;
      });
      job.end_block(seconds);
    }
    return JSON.parse(job.finish()) as SimResult<'liveScenario'>;
  } finally {
    job.free();
  }
}

function current(): Session {
  if (!session) throw new Error('no scenario is open');
  return session;
}

function loaded(): Wasm {
  if (!wasm) throw new Error('simulator not loaded');
  return wasm;
}

/** A run reports no progress before it has lasted this long (most runs end sooner). */
const PROGRESS_AFTER_MS = 200;
/** Nor more often than this: the page redraws its status line at each report. */
const PROGRESS_EVERY_MS = 100;

/** Runs `text` as the current session; request `id` hears how far the run has got. */
function open(text: string, id: number): RunOutline {
  const started = performance.now();
  let last = -Infinity;
  const listener = (json: string) => {
    const now = performance.now();
    if (now - started < PROGRESS_AFTER_MS || now - last < PROGRESS_EVERY_MS) return;
    last = now;
    post({ id, progress: JSON.parse(json) as RunProgress });
  };
  const next = new (loaded().Session)(text, listener);
  session?.free();
  session = next;
  return JSON.parse(next.outline()) as RunOutline;
}

/** Explores `request`'s scenario; request `id` hears how many schedules have run, at most as
 *  often as a run's progress. */
function explore(request: SimRequest<'explore'>, id: number): SimResult<'explore'> {
  let last = -Infinity;
  const listener = (schedules: number) => {
    const now = performance.now();
    if (now - last < PROGRESS_EVERY_MS) return;
    last = now;
    post({ id, explored: schedules });
  };
  return JSON.parse(loaded().explore(request.text, request.preemptions, request.maxSchedules, listener)) as SimResult<'explore'>;
}

function view(cursor: number, query: unknown): ViewWire {
  const start = performance.now();
  // Forwarded as the module wrote it: the page parses it (see ViewWire).
  const json = current().view(cursor, JSON.stringify(query));
  return { json, workerMs: performance.now() - start };
}

/** How each request kind is answered; the table's type ties every answer to its kind. */
type Handlers = { [K in SimKind]: (request: SimRequest<K>, id: number) => SimResult<K> | Promise<SimResult<K>> };

const handlers: Handlers = {
  init: () => init(),
  geometry: async (request) => {
    await init();
    return JSON.parse(loaded().geometry(JSON.stringify(request.request))) as SimResult<'geometry'>;
  },
  sweep: async (request) => {
    await init();
    return sweep(request);
  },
  open: async (request, id) => {
    await init();
    return open(request.text, id);
  },
  check: async (request) => {
    await init();
    const error = loaded().check_scenario(request.text);
    return error === undefined ? null : (JSON.parse(error) as SimResult<'check'>);
  },
  compare: async (request) => {
    await init();
    return loaded().compare_table(request.text, request.a, request.b);
  },
  view: (request) => view(request.cursor, request.query),
  crash: () => {
    setTimeout(() => {
      throw new Error('the simulator was made to crash (test)');
    });
    return null;
  },
  trace: () => current().trace(),
  overview: () => JSON.parse(current().overview()) as SimResult<'overview'>,
  files: (request) => JSON.parse(current().files(request.cursor, request.cache ?? undefined)) as SimResult<'files'>,
  lane: (request) =>
    JSON.parse('object' in request ? current().object_lane(request.object) : current().page_lane(request.page)) as SimResult<'lane'>,
  micro: (request) => JSON.parse(current().micro_steps(request.step)) as SimResult<'micro'>,
  lanes: (request) => JSON.parse(current().lanes(request.block)) as SimResult<'lanes'>,
  explore: async (request, id) => {
    await init();
    return explore(request, id);
  },
  live: async (request) => {
    await init();
    return live(request);
  },
  liveScenario: async (request) => {
    await init();
    return liveScenario(request);
  },
};

/** Answers one request with the handler of its kind. */
function handle<K extends SimKind>(request: SimRequest<K>, id: number): SimResult<K> | Promise<SimResult<K>> {
  return (handlers[request.kind] as Handlers[K])(request, id);
}

/** The SimError for what a handler threw: the module throws its failures as SimError JSON
 *  (wire.rs), a trap is a crash, and anything else of this worker's own is an invalid request. */
function simError(error: unknown): SimError {
  if (error instanceof WebAssembly.RuntimeError) return { kind: 'crashed', message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith('{')) {
    try {
      const parsed = JSON.parse(message) as SimError;
      if (typeof parsed.kind === 'string') return parsed;
    } catch {
      // not the module's JSON: this worker's own message
    }
  }
  return { kind: 'invalid', message };
}

const post = (reply: SimReply, transfer: Transferable[] = []) => self.postMessage(reply, { transfer });

self.onmessage = async (event: MessageEvent<SimEnvelope>) => {
  const { id, request } = event.data;
  try {
    const result = await handle(request, id);
    const transfer = request.kind === 'sweep' ? [(result as SweepResult).rows.buffer as ArrayBuffer] : [];
    post({ id, ok: true, result }, transfer);
  } catch (error) {
    post({ id, ok: false, error: simError(error) });
  }
};
