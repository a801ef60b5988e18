// A pool worker: one more thread over the simulator worker's shared wasm memory. It
// instantiates the threaded module over that memory, then works on whichever sweep it is
// told to until the sweep has no chunk left, or runs one CPU of a live run.

import { initSync, live_work, work_on_sweep } from '../wasm/pkg-mt/slabscope.js';
import type { PoolReply, PoolRequest } from './protocol';

const post = (reply: PoolReply) => self.postMessage(reply);

self.onmessage = (event: MessageEvent<PoolRequest>) => {
  const message = event.data;
  try {
    if (message.kind === 'init') {
      initSync({ module: message.module, memory: message.memory });
      post({ kind: 'ready' });
    } else if (message.kind === 'live') {
      const start = performance.now();
      if (!live_work(message.liveId, message.cpu)) throw new Error(`no live run ${message.liveId}`);
      post({ kind: 'ran', ms: performance.now() - start });
    } else {
      post({ kind: 'done', points: work_on_sweep(message.sweepId) });
    }
  } catch (error) {
    post({ kind: 'failed', error: String(error) });
  }
};
