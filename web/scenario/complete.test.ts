import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completionsAt } from './complete';
import { declared, GFP_NAMES } from './vocabulary';

const SCENARIO = `slabscope-scenario 1
machine cpus=4 nodes=2 memory=1M
cache dentry size=192
repeat 8 objs[] = kmalloc(100) on cpu0
a = kmem_cache_alloc(dentry) on cpu1
for x in objs: kfree(x) on cpu3
`;

/** Completions with the cursor where the last `|` is, in the scenario above plus `line`. */
function at(line: string) {
  const cursor = line.lastIndexOf('|');
  const text = SCENARIO + line.slice(0, cursor) + line.slice(cursor + 1);
  return completionsAt(text, SCENARIO.length + cursor);
}

const labels = (c: ReturnType<typeof completionsAt>) => c?.options.map((o) => o.label) ?? [];

/** The same as `at`, in the scenario above as a format 2 file. */
function atV2(line: string) {
  const cursor = line.lastIndexOf('|');
  const text = SCENARIO.replace('scenario 1', 'scenario 2') + line.slice(0, cursor) + line.slice(cursor + 1);
  return completionsAt(text, SCENARIO.length + cursor);
}

describe('what the scenario declares', () => {
  it('reads the CPUs, nodes, caches and result names of a half-written text', () => {
    expect(declared(SCENARIO)).toEqual({ version: 1, cpus: 4, nodes: 2, caches: ['dentry'], names: ['objs', 'a', 'x'] });
    expect(declared('slabscope-scenario 1\nmachine cpus=')).toEqual({ version: 1, cpus: 1, nodes: 1, caches: [], names: [] });
    expect(declared('slabscope-scenario 2\nl = interleave(a, b)\n').version).toBe(2);
  });
});

describe('completion', () => {
  it('offers the CPUs the machine has after `on`, with their nodes', () => {
    const c = at('kfree(a) on c|');
    expect(labels(c)).toEqual(['cpu0', 'cpu1', 'cpu2', 'cpu3']);
    expect(c?.options.map((o) => o.detail)).toEqual(['node 0', 'node 0', 'node 1', 'node 1']);
    expect(c?.from).toBe(SCENARIO.length + 'kfree(a) on '.length);
  });

  it('offers the declared caches first inside a call that takes a cache, names first elsewhere', () => {
    expect(labels(at('flush_cpu_slab(|')).slice(0, 3)).toEqual(['dentry', 'kmalloc-8', 'kmalloc-16']);
    expect(labels(at('kfree(|')).slice(0, 3)).toEqual(['objs', 'a', 'x']);
    expect(labels(at('kmem_cache_free(dentry, |')).slice(0, 1)).toEqual(['objs']);
  });

  it('offers directives, loops and calls at the start of a line, and only calls after `name =`', () => {
    const start = labels(at('|'));
    expect(start).toEqual(expect.arrayContaining(['machine', 'cache', 'repeat', 'for', 'kmalloc', 'kmem_cache_free_bulk']));
    const afterTarget = labels(at('b = km|'));
    expect(afterTarget).toContain('kmalloc');
    expect(afterTarget).not.toContain('machine');
    expect(labels(at('repeat 3 t[] = |'))).toContain('kmem_cache_alloc');
    expect(labels(at('for y in |'))).toEqual(['objs', 'a', 'x']);
  });

  it('offers `on` after a call, the version line on line 1, and nothing in a comment', () => {
    expect(labels(at('kfree(a) |'))).toEqual(['on']);
    expect(labels(atV2('kfree_rcu(a) |'))).toEqual(['on']);
    expect(atV2('rcu_barrier() |')).toBeNull();
    expect(atV2('synchronize_rcu() |')).toBeNull();
    expect(labels(completionsAt('slab', 4))).toEqual(['slabscope-scenario 3', 'slabscope-scenario 2', 'slabscope-scenario 1']);
    expect(at('# kfree(|')).toBeNull();
    expect(labels(at('switch |'))).toContain('freelist_hardened');
    expect(labels(atV2('switch |'))).toContain('random_kmalloc_caches');
  });

  it('offers gfp flags after a kmalloc size and after `|`, and `at` after a kmalloc (format 2)', () => {
    expect(labels(atV2('a = kmalloc(64, GFP_K|')).slice(0, 2)).toEqual(['GFP_KERNEL', 'GFP_KERNEL_ACCOUNT']);
    expect(labels(atV2('a = kmalloc(64, GFP_KERNEL | __|'))).toContain('__GFP_RECLAIMABLE');
    expect(labels(atV2('a = kmalloc_node(64, |'))).toContain('GFP_DMA');
    expect(labels(atV2('a = kmalloc_node(64, GFP_DMA, |'))).not.toContain('GFP_DMA');
    expect(labels(atV2('a = kmalloc(64) |'))).toEqual(['on', 'at']);
    expect(atV2('b = km|')?.options.find((o) => o.label === 'kmalloc')?.detail).toBe('(SIZE[, GFP])');
    expect(labels(at('flush_cpu_slab(|'))).toContain('kmalloc-cg-64');
    expect(labels(at('flush_cpu_slab(|'))).toContain('dma-kmalloc-8k');
  });

  it('offers gfp flags, `at`, the RCU calls and random_kmalloc_caches in a format 2 file only', () => {
    expect(labels(at('a = kmalloc(64, |'))).not.toContain('GFP_KERNEL');
    expect(labels(at('a = kmalloc_node(64, |'))).not.toContain('GFP_DMA');
    expect(labels(at('a = kmalloc(64) |'))).toEqual(['on']);
    expect(labels(at('a = kmalloc_node(64, 0) |'))).toEqual(['on']);
    expect(at('b = km|')?.options.find((o) => o.label === 'kmalloc')?.detail).toBe('(SIZE)');
    const rcu = ['kfree_rcu', 'kfree_rcu_mightsleep', 'kfree_rcu_monitor', 'synchronize_rcu', 'rcu_barrier'];
    for (const line of ['|', 'b = |', 'repeat 2 |']) {
      expect(labels(atV2(line))).toEqual(expect.arrayContaining(rcu));
      for (const call of rcu) expect(labels(at(line))).not.toContain(call);
    }
    expect(labels(at('switch |'))).not.toContain('random_kmalloc_caches');
    expect(labels(at('switch |'))).toContain('slab_nomerge');
  });

  it('offers format 2 words in a format 2 file only: print and its files, reverse and interleave', () => {
    const v2 = (line: string) => {
      const text = SCENARIO.replace('scenario 1', 'scenario 2') + line.replace('|', '');
      return labels(completionsAt(text, SCENARIO.length + line.indexOf('|')));
    };
    expect(v2('|')).toContain('print');
    expect(labels(at('|'))).not.toContain('print');
    expect(v2('print |')).toEqual(['slabinfo', 'buddyinfo', 'sysfs']);
    expect(v2('print sysfs |').slice(0, 2)).toEqual(['dentry', 'kmalloc-8']);
    expect(v2('for y in |')).toEqual(['objs', 'a', 'x', 'reverse', 'interleave']);
    expect(labels(at('for y in |'))).toEqual(['objs', 'a', 'x']);
    expect(v2('l = |')).toEqual(expect.arrayContaining(['kmalloc', 'reverse', 'interleave']));
    expect(v2('l = [objs[0], |')).toEqual(['objs', 'a', 'x']);
    expect(v2('l = interleave(|')).toContain('objs');
  });
});

describe('the gfp names the editor offers', () => {
  it('are the parser’s, in its order (wasm-core/scenario/src/gfp.rs, GFP_NAMES)', () => {
    const source = readFileSync('wasm-core/scenario/src/gfp.rs', 'utf8');
    const table = source.slice(source.indexOf('pub const GFP_NAMES'));
    const names = [...table.slice(0, table.indexOf('];')).matchAll(/\("([A-Z_]+)",/g)].map((m) => m[1]);
    expect(names.length).toBeGreaterThanOrEqual(20);
    expect([...GFP_NAMES]).toEqual(names);
  });
});
