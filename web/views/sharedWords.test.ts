import { describe, expect, it } from 'vitest';
import type { Micro } from '../core/generated/Micro';
import type { Step } from '../core/generated/Step';
import { findWord, microWords, sharedWords, wordLabel, type SharedWord } from './sharedWords';

/** A step of a concurrent block: its micro-steps, captioned by the first (as the recorder does). */
function step(micro: Micro[], caption: Step['caption'] = { key: micro.length ? `micro.${micro[0].micro}` : 'step.x', args: [] }): Step {
  return {
    function: 'slab_alloc_node',
    path: '',
    line: 9,
    op: 3,
    caption,
    events: [],
    micro: micro.map((m, i) => ({ task: 1, micro: m, events_through: i })),
  };
}

const CACHE = 52;

describe('microWords', () => {
  it('touches nothing for the micro-steps that reach no shared word', () => {
    for (const m of [
      { micro: 'start', cpu: 0 },
      { micro: 'work', cpu: 1 },
      { micro: 'preempted', cpu: 1, to: 2 },
      { micro: 'irq_enter', cpu: 0 },
      { micro: 'irq_exit', cpu: 0 },
    ] satisfies Micro[]) {
      expect(microWords(m), m.micro).toEqual([]);
    }
  });

  it('read_tid reads c->tid of the CPU it names, by the CPU that took it', () => {
    // A task that migrated after raw_cpu_ptr() reads another CPU's c.
    expect(microWords({ micro: 'read_tid', cache: CACHE, cpu: 1, of: 2, tid: 769 })).toEqual([
      { word: 'c->tid', how: 'read', by: 1, cache: CACHE, cpu: 2 },
    ]);
  });

  it('read_cpu reads c->freelist and c->slab; read_cpu_slab and read_cpu_freelist one each', () => {
    expect(microWords({ micro: 'read_cpu', cache: CACHE, cpu: 0, of: 0, freelist: '0x1000', slab: 3 })).toEqual([
      { word: 'c->freelist', how: 'read', by: 0, cache: CACHE, cpu: 0 },
      { word: 'c->slab', how: 'read', by: 0, cache: CACHE, cpu: 0 },
    ]);
    expect(microWords({ micro: 'read_cpu_slab', cache: CACHE, cpu: 2, of: 1, slab: null })).toEqual([
      { word: 'c->slab', how: 'read', by: 2, cache: CACHE, cpu: 1 },
    ]);
    expect(microWords({ micro: 'read_cpu_freelist', cache: CACHE, cpu: 2, of: 2, freelist: '0x0' })).toEqual([
      { word: 'c->freelist', how: 'read', by: 2, cache: CACHE, cpu: 2 },
    ]);
  });

  it('read_node reads n->nr_partial of the node, without the lock', () => {
    expect(microWords({ micro: 'read_node', cache: CACHE, node: 1, cpu: 3, nr_partial: 4 })).toEqual([
      { word: 'n->nr_partial', how: 'read', by: 3, cache: CACHE, node: 1 },
    ]);
  });

  it('cmpxchg_cpu touches both words of the pair, ok or failed with its reason', () => {
    const base = { micro: 'cmpxchg_cpu', cache: CACHE, cpu: 0, old: '0x1000', old_tid: 768, found: '0x1000', found_tid: 768, new: '0x1200', no_tid: false, changed_at: null } as const;
    expect(microWords({ ...base, ok: true, reason: null } as Micro)).toEqual([
      { word: 'c->freelist', how: 'cmpxchg_ok', by: 0, cache: CACHE, cpu: 0 },
      { word: 'c->tid', how: 'cmpxchg_ok', by: 0, cache: CACHE, cpu: 0 },
    ]);
    expect(microWords({ ...base, ok: false, found_tid: 1152, reason: 'migrated', changed_at: 40 } as Micro)).toEqual([
      { word: 'c->freelist', how: 'cmpxchg_failed', by: 0, cache: CACHE, cpu: 0, reason: 'migrated' },
      { word: 'c->tid', how: 'cmpxchg_failed', by: 0, cache: CACHE, cpu: 0, reason: 'migrated' },
    ]);
  });

  it('read_slab and cmpxchg_slab touch the slab freelist and counters, naming no cache', () => {
    expect(microWords({ micro: 'read_slab', cpu: 2, pfn: 4, freelist: '0x0', inuse: 16, frozen: true })).toEqual([
      { word: 'slab->freelist', how: 'read', by: 2, cache: null, pfn: 4 },
      { word: 'slab->counters', how: 'read', by: 2, cache: null, pfn: 4 },
    ]);
    // `changed_at` (when a failure became certain) is not a word: whether the type has it yet or not.
    const cas = { micro: 'cmpxchg_slab', cpu: 1, pfn: 7, site: '__slab_free', old: '0x0', new: '0x1000', inuse: 15, frozen: true, changed_at: null } as const;
    expect(microWords({ ...cas, ok: true } as Micro)).toEqual([
      { word: 'slab->freelist', how: 'cmpxchg_ok', by: 1, cache: null, pfn: 7, site: '__slab_free' },
      { word: 'slab->counters', how: 'cmpxchg_ok', by: 1, cache: null, pfn: 7, site: '__slab_free' },
    ]);
    expect(microWords({ ...cas, ok: false, changed_at: 12 } as Micro).map((w) => w.how)).toEqual(['cmpxchg_failed', 'cmpxchg_failed']);
  });

  it('get_freepointer reads and set_freepointer writes the free pointer in the object', () => {
    expect(microWords({ micro: 'get_freepointer', cpu: 0, object: '0x1a00', next: '0x1c00' })).toEqual([
      { word: 'freepointer', how: 'read', by: 0, cache: null, object: '0x1a00' },
    ]);
    expect(microWords({ micro: 'set_freepointer', cpu: 2, object: '0x2000', value: '0x0' })).toEqual([
      { word: 'freepointer', how: 'write', by: 2, cache: null, object: '0x2000' },
    ]);
  });

  it('the list_lock is taken, spun on (naming its holder) and dropped; c->lock taken and dropped', () => {
    expect(microWords({ micro: 'spin_lock', cache: CACHE, node: 0, cpu: 1 })).toEqual([{ word: 'n->list_lock', how: 'held', by: 1, cache: CACHE, node: 0 }]);
    expect(microWords({ micro: 'spin_wait', cache: CACHE, node: 0, cpu: 2, holder: 1 })).toEqual([
      { word: 'n->list_lock', how: 'waited', by: 2, cache: CACHE, node: 0, holder: 1 },
    ]);
    expect(microWords({ micro: 'spin_unlock', cache: CACHE, node: 0, cpu: 1 })).toEqual([{ word: 'n->list_lock', how: 'released', by: 1, cache: CACHE, node: 0 }]);
    expect(microWords({ micro: 'local_lock', cache: CACHE, cpu: 2 })).toEqual([{ word: 'c->lock', how: 'held', by: 2, cache: CACHE, cpu: 2 }]);
    expect(microWords({ micro: 'local_unlock', cache: CACHE, cpu: 2 })).toEqual([{ word: 'c->lock', how: 'released', by: 2, cache: CACHE, cpu: 2 }]);
    // 6.18+: a failed trylock of the sheaves' lock is a wait that gives up at once.
    expect(microWords({ micro: 'pcs_trylock', cache: CACHE, cpu: 1, ok: true })).toEqual([{ word: 'pcs->lock', how: 'held', by: 1, cache: CACHE, cpu: 1 }]);
    expect(microWords({ micro: 'pcs_trylock', cache: CACHE, cpu: 1, ok: false })).toEqual([{ word: 'pcs->lock', how: 'waited', by: 1, cache: CACHE, cpu: 1 }]);
    expect(microWords({ micro: 'barn_wait', cache: CACHE, node: 0, cpu: 1, holder: 0 })).toEqual([{ word: 'barn->lock', how: 'waited', by: 1, cache: CACHE, node: 0, holder: 0 }]);
  });
});

describe('sharedWords', () => {
  it('is empty without a step or without micro-steps (a sequential step)', () => {
    expect(sharedWords(null)).toEqual([]);
    expect(sharedWords(step([]))).toEqual([]);
  });

  it('takes every micro-step of the step, in order', () => {
    const s = step([
      { micro: 'cmpxchg_cpu', cache: CACHE, cpu: 0, ok: true, old: '0x1', old_tid: 2, found: '0x1', found_tid: 2, new: '0x3', no_tid: false, reason: null, changed_at: null } as Micro,
      { micro: 'irq_exit', cpu: 0 },
      { micro: 'read_tid', cache: CACHE, cpu: 1, of: 1, tid: 9 },
    ]);
    expect(sharedWords(s).map((w) => [w.word, w.how, w.by])).toEqual([
      ['c->freelist', 'cmpxchg_ok', 0],
      ['c->tid', 'cmpxchg_ok', 0],
      ['c->tid', 'read', 1],
    ]);
  });

  it('keeps a kernel address exactly as the micro-step carries it', () => {
    const s = step([{ micro: 'set_freepointer', cpu: 2, object: '0xffff888000001a00', value: '0x0' }]);
    expect(sharedWords(s)).toEqual([{ word: 'freepointer', how: 'write', by: 2, cache: null, object: '0xffff888000001a00' }]);
  });
});

describe('findWord and wordLabel', () => {
  const words: SharedWord[] = [
    { word: 'c->tid', how: 'read', by: 1, cache: CACHE, cpu: 2 },
    { word: 'c->freelist', how: 'cmpxchg_failed', by: 0, cache: CACHE, cpu: 0, reason: 'preempted' },
    { word: 'n->list_lock', how: 'waited', by: 2, cache: CACHE, node: 0, holder: 1 },
  ];

  it('finds a word by name and a test', () => {
    expect(findWord(words, 'c->tid', (w) => w.cpu === 2)).toBe(words[0]);
    expect(findWord(words, 'c->tid', (w) => w.cpu === 1)).toBeNull();
    expect(findWord(undefined, 'c->tid', () => true)).toBeNull();
  });

  it('says who did what, and why a cmpxchg failed when asked', () => {
    expect(wordLabel(words[0])).toEqual({ key: 'sharedWord.read', args: { cpu: 1 } });
    // A CPU's cmpxchg of its own pair names nobody; one of a slab's words names its CPU.
    expect(wordLabel(words[1])).toEqual({ key: 'sharedWord.own.cmpxchg_failed' });
    expect(wordLabel({ word: 'slab->freelist', how: 'cmpxchg_ok', by: 2, cache: null, pfn: 4 })).toEqual({ key: 'sharedWord.cmpxchg_ok', args: { cpu: 2 } });
    expect(wordLabel(words[1], true)).toEqual({ key: 'sharedWord.failed.preempted' });
    expect(wordLabel(words[2])).toEqual({ key: 'sharedWord.waited', args: { cpu: 2, holder: 1 } });
  });
});
