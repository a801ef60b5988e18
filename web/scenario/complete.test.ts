import { describe, expect, it } from 'vitest';
import { completionsAt } from './complete';
import { declared } from './vocabulary';

const SCENARIO = `slabscope-scenario 1
machine cpus=4 nodes=2 memory=1M
cache dentry size=192
repeat 8 objs[] = kmalloc(100) on cpu0
a = kmem_cache_alloc(dentry) on cpu1
for x in objs: kfree(x) on cpu3
`;

/** Completions with the cursor where `|` is, in the scenario above plus `line`. */
function at(line: string) {
  const text = SCENARIO + line.replace('|', '');
  return completionsAt(text, SCENARIO.length + line.indexOf('|'));
}

const labels = (c: ReturnType<typeof completionsAt>) => c?.options.map((o) => o.label) ?? [];

describe('what the scenario declares', () => {
  it('reads the CPUs, nodes, caches and result names of a half-written text', () => {
    expect(declared(SCENARIO)).toEqual({ cpus: 4, nodes: 2, caches: ['dentry'], names: ['objs', 'a', 'x'] });
    expect(declared('slabscope-scenario 1\nmachine cpus=')).toEqual({ cpus: 1, nodes: 1, caches: [], names: [] });
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
    expect(labels(at('kfree_rcu(a) |'))).toEqual(['on']);
    expect(at('rcu_barrier() |')).toBeNull();
    expect(at('synchronize_rcu() |')).toBeNull();
    expect(labels(completionsAt('slab', 4))).toEqual(['slabscope-scenario 1']);
    expect(at('# kfree(|')).toBeNull();
    expect(labels(at('switch |'))).toContain('freelist_hardened');
  });
});
