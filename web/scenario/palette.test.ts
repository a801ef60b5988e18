import { describe, expect, it } from 'vitest';
import { appendLine, argKinds, paletteLine } from './palette';

describe('the palette', () => {
  it('builds operation lines the way a person would type them', () => {
    expect(paletteLine({ call: 'kfree', args: ['a'], cpu: 1, target: '', repeat: 1 })).toEqual({ ok: true, line: 'kfree(a) on cpu1' });
    expect(paletteLine({ call: 'kmalloc', args: ['100'], cpu: 0, target: 't[]', repeat: 16 })).toEqual({ ok: true, line: 'repeat 16 t[] = kmalloc(100) on cpu0' });
    expect(paletteLine({ call: 'kmem_cache_free', args: ['dentry', 'x'], cpu: 2, target: 'ignored', repeat: 1 })).toEqual({
      ok: true,
      line: 'kmem_cache_free(dentry, x) on cpu2',
    });
    expect(paletteLine({ call: 'kmem_cache_shrink', args: ['kmalloc-64'], cpu: null, target: '', repeat: 1 })).toEqual({ ok: true, line: 'kmem_cache_shrink(kmalloc-64)' });
    expect(paletteLine({ call: 'drain_pages', args: [], cpu: 0, target: '', repeat: 1 })).toEqual({ ok: true, line: 'drain_pages() on cpu0' });
    // A grace period belongs to no CPU: the parser refuses `rcu_barrier() on cpu0`.
    expect(paletteLine({ call: 'rcu_barrier', args: [], cpu: null, target: '', repeat: 1 })).toEqual({ ok: true, line: 'rcu_barrier()' });
    expect(paletteLine({ call: 'synchronize_rcu', args: [], cpu: null, target: '', repeat: 1 })).toEqual({ ok: true, line: 'synchronize_rcu()' });
    expect(paletteLine({ call: 'kfree_rcu_monitor', args: [], cpu: null, target: '', repeat: 1 })).toEqual({ ok: true, line: 'kfree_rcu_monitor()' });
  });

  it('says which part is missing or wrong instead of writing a broken line', () => {
    expect(paletteLine({ call: 'kmem_cache_free', args: ['dentry'], cpu: 0, target: '', repeat: 1 })).toMatchObject({ ok: false, key: 'palette.missingArg', args: { arg: 'OBJ' } });
    expect(paletteLine({ call: 'kmalloc', args: ['64'], cpu: 0, target: '1x', repeat: 1 })).toMatchObject({ ok: false, key: 'palette.badTarget' });
    expect(paletteLine({ call: 'kmem_cache_alloc_bulk', args: ['c', '8'], cpu: 0, target: 'b[]', repeat: 1 })).toMatchObject({ ok: false, key: 'palette.badTarget' });
    expect(paletteLine({ call: 'kfree', args: ['a'], cpu: null, target: '', repeat: 1 })).toMatchObject({ ok: false, key: 'palette.needsCpu' });
    expect(paletteLine({ call: 'kfree', args: ['a); kfree(b'], cpu: 0, target: '', repeat: 1 })).toMatchObject({ ok: false, key: 'palette.missingArg' });
  });

  it('knows each argument kind and appends lines at the end', () => {
    expect(argKinds('kmem_cache_alloc_node')).toEqual([
      { label: 'CACHE', kind: 'cache' },
      { label: 'NODE', kind: 'number' },
    ]);
    expect(argKinds('free_pages')).toEqual([{ label: 'PAGES', kind: 'name' }]);
    expect(appendLine('a\nb', 'c')).toBe('a\nb\nc\n');
    expect(appendLine('a\n', 'c')).toBe('a\nc\n');
    expect(appendLine('', 'c')).toBe('c\n');
  });
});
