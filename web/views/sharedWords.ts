// The shared words a step's micro-steps touched: what another CPU could see change or race with
// (`c->freelist` and `c->tid`, a slab's `freelist` and `counters`, `n->list_lock`, …), derived
// from `step.micro` alone. The CPU panel, the node panel and the slab page mark them; the lanes
// say which micro-step it was. Layout-free data: no DOM, no language.
//
// Rules:
// - One entry per word per micro-step, in micro-step order: a micro-step that reads `c->freelist`
//   and `c->slab` (read_cpu) touches two words; a cmpxchg touches both words of its pair.
// - `cpu` is the CPU whose `kmem_cache_cpu` holds the word, `by` the CPU that took the
//   micro-step: they differ when a task reads another CPU's `c` (it migrated after
//   `raw_cpu_ptr()`), never for a cmpxchg (`this_cpu_try_cmpxchg_freelist()` is on the CPU's
//   own pair).
// - A micro-step names its cache, except those on a slab or an object (read_slab, cmpxchg_slab,
//   get/set_freepointer): `cache` is null there, and a view tells by the pfn or the address
//   whether the word is one of its cache's.
// - Addresses are `0x…` as the snapshot writes them (the micro-steps carry them as such text:
//   a JSON number would lose a kernel address's low bits).

import type { Micro } from '../core/generated/Micro';
import type { RetryReason } from '../core/generated/RetryReason';
import type { Step } from '../core/generated/Step';
import { label, type Label } from './marks';

/** A word another CPU can see, by its kernel name. */
export type WordName =
  | 'c->freelist'
  | 'c->tid'
  | 'c->slab'
  | 'c->lock'
  | 'slab->freelist'
  | 'slab->counters'
  | 'freepointer'
  | 'n->nr_partial'
  | 'n->list_lock'
  | 'pcs->lock'
  | 'barn->lock';

/** What the micro-step did to the word. */
export type Touch = 'read' | 'write' | 'cmpxchg_ok' | 'cmpxchg_failed' | 'held' | 'waited' | 'released';

export interface SharedWord {
  word: WordName;
  how: Touch;
  /** The CPU that took the micro-step. */
  by: number;
  /** The cache the word belongs to; null when the micro-step does not name it (see the rules). */
  cache: number | null;
  /** `c->*`: the CPU whose `kmem_cache_cpu` it is. */
  cpu?: number;
  /** `slab->*`: the slab's first pfn. */
  pfn?: number;
  /** `n->*`: the node. */
  node?: number;
  /** `freepointer`: the object whose free pointer it is. */
  object?: string;
  /** `waited`: the CPU holding the lock. */
  holder?: number;
  /** A failed `c->freelist`/`c->tid` cmpxchg: why (`note_cmpxchg_failure()`). */
  reason?: RetryReason;
  /** A slab cmpxchg: the caller that named it (`__slab_free`, `get_freelist`, …). */
  site?: string;
}

/** The words every micro-step of `step` touched, in order; none for a step without micro-steps. */
export function sharedWords(step: Step | null | undefined): SharedWord[] {
  if (!step) return [];
  return step.micro.flatMap((entry) => microWords(entry.micro));
}

/** The words one micro-step touched. */
export function microWords(m: Micro): SharedWord[] {
  switch (m.micro) {
    case 'start':
    case 'work':
    case 'preempted':
    case 'irq_enter':
    case 'irq_exit':
      return [];
    case 'read_tid':
      return [{ word: 'c->tid', how: 'read', by: m.cpu, cache: m.cache, cpu: m.of }];
    case 'read_cpu':
      return (['c->freelist', 'c->slab'] as const).map((word) => ({ word, how: 'read', by: m.cpu, cache: m.cache, cpu: m.of }));
    case 'read_cpu_slab':
      return [{ word: 'c->slab', how: 'read', by: m.cpu, cache: m.cache, cpu: m.of }];
    case 'read_cpu_freelist':
      return [{ word: 'c->freelist', how: 'read', by: m.cpu, cache: m.cache, cpu: m.of }];
    case 'read_node':
      return [{ word: 'n->nr_partial', how: 'read', by: m.cpu, cache: m.cache, node: m.node }];
    case 'get_freepointer':
    case 'set_freepointer': {
      const how = m.micro === 'get_freepointer' ? 'read' : 'write';
      return [{ word: 'freepointer', how, by: m.cpu, cache: null, object: m.object }];
    }
    case 'cmpxchg_cpu': {
      // Without the tid in the compare (the teaching switch) the tid is still stored anew.
      const how = m.ok ? 'cmpxchg_ok' : 'cmpxchg_failed';
      const reason = m.reason === null ? {} : { reason: m.reason };
      return (['c->freelist', 'c->tid'] as const).map((word) => ({ word, how, by: m.cpu, cache: m.cache, cpu: m.cpu, ...reason }));
    }
    case 'read_slab':
      return (['slab->freelist', 'slab->counters'] as const).map((word) => ({ word, how: 'read', by: m.cpu, cache: null, pfn: m.pfn }));
    case 'cmpxchg_slab': {
      const how = m.ok ? 'cmpxchg_ok' : 'cmpxchg_failed';
      return (['slab->freelist', 'slab->counters'] as const).map((word) => ({ word, how, by: m.cpu, cache: null, pfn: m.pfn, site: m.site }));
    }
    case 'spin_lock':
      return [{ word: 'n->list_lock', how: 'held', by: m.cpu, cache: m.cache, node: m.node }];
    case 'spin_wait':
      return [{ word: 'n->list_lock', how: 'waited', by: m.cpu, cache: m.cache, node: m.node, holder: m.holder }];
    case 'spin_unlock':
      return [{ word: 'n->list_lock', how: 'released', by: m.cpu, cache: m.cache, node: m.node }];
    case 'local_lock':
      return [{ word: 'c->lock', how: 'held', by: m.cpu, cache: m.cache, cpu: m.cpu }];
    case 'local_unlock':
      return [{ word: 'c->lock', how: 'released', by: m.cpu, cache: m.cache, cpu: m.cpu }];
    // 6.18+: the per-CPU sheaves' lock (a trylock that can fail) and the node barn's lock.
    case 'pcs_trylock':
      return m.ok ? [{ word: 'pcs->lock', how: 'held', by: m.cpu, cache: m.cache, cpu: m.cpu }] : [{ word: 'pcs->lock', how: 'waited', by: m.cpu, cache: m.cache, cpu: m.cpu }];
    case 'pcs_unlock':
      return [{ word: 'pcs->lock', how: 'released', by: m.cpu, cache: m.cache, cpu: m.cpu }];
    case 'barn_lock':
      return [{ word: 'barn->lock', how: 'held', by: m.cpu, cache: m.cache, node: m.node }];
    case 'barn_wait':
      return [{ word: 'barn->lock', how: 'waited', by: m.cpu, cache: m.cache, node: m.node, holder: m.holder }];
    case 'barn_unlock':
      return [{ word: 'barn->lock', how: 'released', by: m.cpu, cache: m.cache, node: m.node }];
    default:
      return unmapped(m);
  }
}

/** Every micro-step kind is mapped above: a new one fails the type check here until it is. */
function unmapped(m: never): SharedWord[] {
  void m;
  return [];
}

/** The first word of `words` named `word` that `match` accepts, or null. */
export function findWord(words: readonly SharedWord[] | undefined, word: WordName, match: (w: SharedWord) => boolean): SharedWord | null {
  return words?.find((w) => w.word === word && match(w)) ?? null;
}

/**
 * The short mark a view prints beside a touched word, in the user's language: who did what
 * ("read by cpu1", "✗ cmpxchg by cpu2 failed"). A CPU's cmpxchg of its own pair needs no name
 * ("✓ cmpxchg succeeded": the view shows it on that CPU). With `reason`, a failed cmpxchg that
 * knows why says that instead ("✗ the task migrated"), for the word that tells it (`c->tid`, from
 * whose bits `note_cmpxchg_failure()` reads it) and beside the other word's "✗ cmpxchg failed".
 */
export function wordLabel(w: SharedWord, reason = false): Label {
  const cmpxchg = w.how === 'cmpxchg_ok' || w.how === 'cmpxchg_failed';
  if (reason && w.how === 'cmpxchg_failed' && w.reason) return label(`sharedWord.failed.${w.reason}`);
  if (cmpxchg && w.cpu !== undefined && w.cpu === w.by) return label(`sharedWord.own.${w.how}`);
  return label(`sharedWord.${w.how}`, w.holder === undefined ? { cpu: w.by } : { cpu: w.by, holder: w.holder });
}
