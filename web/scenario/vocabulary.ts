// The words of the scenario format, versions 1 to 3 (docs/scenario-format.md; the parser is
// wasm-core/scenario/src/parse/), for the editor's highlighting and completion. The
// parser decides what is valid; these lists only help a person type it.

export const MAGIC = 'slabscope-scenario';
/** The newest format version, which a new scenario is offered. */
export const FORMAT_VERSION = 3;

/** Directives, with what follows them, as the editor offers them. */
export const DIRECTIVES: readonly { word: string; template: string }[] = [
  { word: 'profile', template: 'profile linux-6.6' },
  { word: 'allocator', template: 'allocator slub' },
  { word: 'machine', template: 'machine cpus=2 nodes=1 memory=1M' },
  { word: 'pcp', template: 'pcp batch=7 high=28' },
  { word: 'switch', template: 'switch freelist_hardened on' },
  { word: 'slub_debug', template: 'slub_debug FZPU' },
  { word: 'boot', template: 'boot slub_min_objects=8' },
  { word: 'seed', template: 'seed 1' },
  { word: 'cache', template: 'cache NAME size=64' },
  // Format 3: a block of operations that run on their CPUs at once, and the teaching switch.
  { word: 'concurrent', template: 'concurrent' },
  { word: 'schedule', template: 'schedule cpu0:2 cpu1' },
  { word: 'end', template: 'end' },
  { word: 'teaching', template: 'teaching no_tid' },
];

/**
 * The calls an operation line can make, with their arguments' shape (the required ones, as the
 * palette fills them) and, where the call takes optional ones, the whole signature (the gfp
 * flags are format 2). `v2`: the call is format 2 (format 1 refuses it).
 */
export const CALLS: readonly { name: string; args: string; signature?: string; v2?: true }[] = [
  { name: 'kmalloc', args: 'SIZE', signature: 'SIZE[, GFP]' },
  { name: 'kmalloc_node', args: 'SIZE, NODE', signature: 'SIZE[, GFP], NODE' },
  { name: 'kfree', args: 'OBJ' },
  { name: 'kmem_cache_alloc', args: 'CACHE' },
  { name: 'kmem_cache_alloc_node', args: 'CACHE, NODE' },
  { name: 'kmem_cache_free', args: 'CACHE, OBJ' },
  { name: 'kmem_cache_alloc_bulk', args: 'CACHE, N' },
  { name: 'kmem_cache_free_bulk', args: 'CACHE, LIST' },
  { name: 'kfree_bulk', args: 'LIST' },
  { name: 'alloc_pages', args: 'ORDER' },
  { name: 'alloc_pages_node', args: 'NODE, ORDER' },
  { name: 'free_pages', args: 'PAGES' },
  { name: 'drain_pages', args: '' },
  { name: 'flush_cpu_slab', args: 'CACHE' },
  { name: 'flush_all', args: 'CACHE' },
  { name: 'kmem_cache_shrink', args: 'CACHE' },
  { name: 'kmem_cache_destroy', args: 'CACHE' },
  { name: 'cache_reap', args: '' },
  { name: 'kfree_rcu', args: 'OBJ', v2: true },
  { name: 'kfree_rcu_mightsleep', args: 'OBJ', v2: true },
  { name: 'kfree_rcu_monitor', args: '', v2: true },
  { name: 'synchronize_rcu', args: '', v2: true },
  { name: 'rcu_barrier', args: '', v2: true },
];

/** Calls that run on no one CPU: a grace period belongs to no CPU (the parser refuses `on cpuN`). */
export const CPU_REFUSED_CALLS: ReadonlySet<string> = new Set(['synchronize_rcu', 'rcu_barrier']);

/** Calls whose first argument names a cache. */
export const CACHE_CALLS: ReadonlySet<string> = new Set(
  CALLS.filter((c) => c.args.startsWith('CACHE')).map((c) => c.name),
);

/** `at` (a kmalloc's call site) is format 2. */
export const KEYWORDS = ['repeat', 'for', 'in', 'on', 'at', 'task', 'irq'] as const;

/** Format 2: the line that shows a kernel file at its point of the run, and what it shows. */
export const PRINT = { word: 'print', template: 'print slabinfo' } as const;
export const PRINT_FILES = ['slabinfo', 'buddyinfo', 'sysfs'] as const;

/** Format 2: what builds a list from earlier results (`l = interleave(a, b)`). */
export const LIST_FUNCTIONS: readonly { name: string; args: string }[] = [
  { name: 'reverse', args: 'LIST' },
  { name: 'interleave', args: 'LIST, LIST' },
];

export const SWITCHES = ['freelist_random', 'freelist_hardened', 'slab_nomerge', 'slab_legacy_refill', 'random_kmalloc_caches'] as const;
/** The switches of format 2 (format 1 refuses them). */
export const SWITCHES_V2: ReadonlySet<string> = new Set(['random_kmalloc_caches']);

/**
 * The gfp flags a kmalloc call may pass (format 2), joined with `|` (wasm-core/scenario/src/gfp.rs,
 * `GFP_NAMES`): composite names first.
 */
export const GFP_NAMES = [
  'GFP_KERNEL',
  'GFP_KERNEL_ACCOUNT',
  'GFP_ATOMIC',
  'GFP_NOWAIT',
  'GFP_NOIO',
  'GFP_NOFS',
  'GFP_USER',
  'GFP_DMA',
  '__GFP_DMA',
  '__GFP_RECLAIMABLE',
  '__GFP_ACCOUNT',
  '__GFP_HIGH',
  '__GFP_IO',
  '__GFP_FS',
  '__GFP_ZERO',
  '__GFP_DIRECT_RECLAIM',
  '__GFP_KSWAPD_RECLAIM',
  '__GFP_RECLAIM',
  '__GFP_NOWARN',
  '__GFP_RETRY_MAYFAIL',
  '__GFP_NOFAIL',
  '__GFP_NORETRY',
  '__GFP_MEMALLOC',
  '__GFP_NOMEMALLOC',
  '__GFP_COMP',
  '__GFP_HARDWALL',
] as const;

/** The normal kmalloc caches created at boot (SLAB starts at kmalloc-32). */
export const KMALLOC_CACHES = [
  'kmalloc-8',
  'kmalloc-16',
  'kmalloc-32',
  'kmalloc-64',
  'kmalloc-96',
  'kmalloc-128',
  'kmalloc-192',
  'kmalloc-256',
  'kmalloc-512',
  'kmalloc-1k',
  'kmalloc-2k',
  'kmalloc-4k',
  'kmalloc-8k',
] as const;

/**
 * Every kmalloc cache boot creates without random kmalloc caches: the normal ones, then
 * kmalloc-cg-* (__GFP_ACCOUNT), kmalloc-rcl-* (__GFP_RECLAIMABLE) and dma-kmalloc-* (GFP_DMA).
 * With the switch on, kmalloc-rnd-01-* to kmalloc-rnd-15-* exist too.
 */
export const BOOT_CACHES: readonly string[] = ['kmalloc-', 'kmalloc-cg-', 'kmalloc-rcl-', 'dma-kmalloc-'].flatMap((prefix) =>
  KMALLOC_CACHES.map((name) => prefix + name.slice('kmalloc-'.length)),
);

/** What a scenario's text declares so far, read leniently (the text may be half written). */
export interface Declared {
  /** The format version of the first line (1 when it names none). */
  version: number;
  cpus: number;
  nodes: number;
  caches: string[];
  /** Names given to results: `a = …` and `t[] = …`, and `for x in …` variables. */
  names: string[];
}

/** The machine's CPUs and nodes, the caches and the names a text declares, in order of first use. */
export function declared(text: string): Declared {
  const version = Number(new RegExp(`^${MAGIC}\\s+(\\d+)`).exec(text)?.[1] ?? 1);
  let cpus = 1;
  let nodes = 1;
  const caches: string[] = [];
  const names: string[] = [];
  const add = (list: string[], word: string) => {
    if (!list.includes(word)) list.push(word);
  };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    const machine = /^machine\b(.*)$/.exec(line);
    if (machine) {
      const c = /\bcpus=(\d{1,2})\b/.exec(machine[1]);
      const n = /\bnodes=(\d)\b/.exec(machine[1]);
      if (c) cpus = Math.min(64, Math.max(1, Number(c[1])));
      if (n) nodes = Math.min(4, Math.max(1, Number(n[1])));
      continue;
    }
    const cache = /^cache\s+([A-Za-z_][\w.-]*)/.exec(line);
    if (cache) {
      add(caches, cache[1]);
      continue;
    }
    const loop = /^(?:repeat\s+\S+\s+)?for\s+([A-Za-z_]\w*)\s+in\b/.exec(line);
    if (loop) add(names, loop[1]);
    const target = /^(?:repeat\s+\S+\s+)?(?:for\s+\w+\s+in\s+[^:]*:\s*)?([A-Za-z_]\w*)(?:\[\])?\s*=/.exec(line);
    if (target) add(names, target[1]);
  }
  return { version, cpus, nodes, caches, names };
}
