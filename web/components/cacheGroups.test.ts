import { describe, expect, it } from 'vitest';
import type { CacheBrief } from '../core/generated/CacheBrief';
import { cacheGroups } from './cacheGroups';

const brief = (id: number, name: string, kmalloc: CacheBrief['kmalloc'], slabs = 0, destroyed = false): CacheBrief => ({
  id,
  name,
  object_size: 64,
  size: 64,
  objs_per_slab: 64,
  order: 0,
  live_objects: slabs,
  slabs,
  kmalloc,
  destroyed,
});

describe('cacheGroups', () => {
  it('puts the scenario first, the normal and busy kmalloc caches next, the empty ones last', () => {
    const groups = cacheGroups([
      brief(0, 'kmalloc-64', 'normal'),
      brief(1, 'kmalloc-rnd-01-64', { random: 1 }),
      brief(2, 'kmalloc-rnd-02-64', { random: 2 }, 1),
      brief(3, 'kmalloc-rcl-64', 'reclaim'),
      brief(4, 'kmalloc-cg-64', 'cgroup', 2),
      brief(5, 'foo', null),
      brief(6, 'gone', null, 0, true),
    ]);
    const names = (list: CacheBrief[]) => list.map((c) => c.name);
    expect(names(groups.scenario)).toEqual(['foo']);
    expect(names(groups.kmalloc)).toEqual(['kmalloc-64', 'kmalloc-rnd-02-64', 'kmalloc-cg-64']);
    expect(names(groups.empty)).toEqual(['kmalloc-rnd-01-64', 'kmalloc-rcl-64']);
  });
});
