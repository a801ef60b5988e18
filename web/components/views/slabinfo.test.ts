import { describe, expect, it } from 'vitest';
import { parseSlabinfo, slabinfoChanges } from './slabinfo';

// Lines as cache_show() prints them (mm/slab_common.c, v6.6), under the simulator's header.
const header =
  'slabinfo - version: 2.1\n# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>\n';
const row = (name: string, active: number, num: number, slabs: number) =>
  `${name.padEnd(17)} ${String(active).padStart(6)} ${String(num).padStart(6)}    128   32    1 : tunables    0    0    0 : slabdata ${String(slabs).padStart(6)} ${String(slabs).padStart(6)}      0\n`;

describe('parseSlabinfo', () => {
  it('reads the groups of columns and each cache’s values as printed', () => {
    const info = parseSlabinfo(header + row('kmalloc-128', 80, 96, 3) + row('kmalloc-rcl-8', 0, 0, 0));
    expect(info?.version).toBe('2.1');
    expect(info?.groups).toEqual([
      { label: '', columns: ['active_objs', 'num_objs', 'objsize', 'objperslab', 'pagesperslab'] },
      { label: 'tunables', columns: ['limit', 'batchcount', 'sharedfactor'] },
      { label: 'slabdata', columns: ['active_slabs', 'num_slabs', 'sharedavail'] },
    ]);
    expect(info?.rows[0]).toEqual({ name: 'kmalloc-128', values: [['80', '96', '128', '32', '1'], ['0', '0', '0'], ['3', '3', '0']] });
    expect(info?.rows.map((r) => r.name)).toEqual(['kmalloc-128', 'kmalloc-rcl-8']);
  });

  it('gives up on text that is not in the kernel’s format (the view shows the text alone)', () => {
    expect(parseSlabinfo('')).toBeNull();
    expect(parseSlabinfo('hello\nworld\n')).toBeNull();
    expect(parseSlabinfo(header + 'kmalloc-8 1 2 3 : tunables 0 0 0\n')).toBeNull();
    expect(parseSlabinfo(header + 'kmalloc-8 1 2 : tunables 0 0 0 : slabdata 1 1 0\n')).toBeNull();
  });
});

describe('slabinfoChanges', () => {
  const before = parseSlabinfo(header + row('kmalloc-128', 80, 96, 3) + row('old', 1, 32, 1))!;
  const now = parseSlabinfo(header + row('kmalloc-128', 81, 96, 3) + row('new', 1, 32, 1))!;

  it('marks the values that differ from the step before, a new cache whole, and names the gone', () => {
    const { changed, gone } = slabinfoChanges(now, before);
    expect([...changed.get('kmalloc-128')!]).toEqual(['0:0']);
    expect(changed.get('new')?.has('name')).toBe(true);
    expect(gone).toEqual(['old']);
  });

  it('marks nothing without a step before, or when nothing changed', () => {
    expect(slabinfoChanges(now, null).changed.size).toBe(0);
    expect(slabinfoChanges(now, now).changed.size).toBe(0);
  });
});
