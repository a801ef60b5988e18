import { describe, expect, it } from 'vitest';
import remote104 from '../views/fixtures/slub-remote-free-104.json';
import { atPath, grade } from './answer';

describe('reading an answer from the simulator’s state', () => {
  it('follows fields, indices and [field=value] selectors', () => {
    const v = { cache: { cpus: [{ tid: 640 }], slabs: [{ pfn: 3, place: { kind: 'cpu_partial' } }] } };
    expect(atPath(v, 'cache.cpus[0].tid')).toBe(640);
    expect(atPath(v, 'cache.slabs[pfn=3].place.kind')).toBe('cpu_partial');
    expect(atPath(v, 'cache.slabs[pfn=4].place')).toBeUndefined();
    expect(atPath(v, 'cache.cpus[x]')).toBeUndefined();
    expect(atPath(v, 'cache.nothing.deeper')).toBeUndefined();
  });

  it('reads a real snapshot: the slab frozen on cpu1’s partial stack after the first remote free', () => {
    expect(atPath(remote104, 'cache.slabs[pfn=0].inuse')).toBe(31);
    expect(atPath(remote104, 'cache.slabs[pfn=0].frozen')).toBe(true);
  });

  it('grades numbers by value in decimal or hex, and text without case', () => {
    expect(grade(640, ' 640 ')).toBe(true);
    expect(grade(16, '0x10')).toBe(true);
    expect(grade('0xffff888000000180', '0xFFFF888000000180')).toBe(true);
    expect(grade(640, '641')).toBe(false);
    expect(grade('cpu_partial', 'CPU_PARTIAL')).toBe(true);
    expect(grade('cpu_partial', 'node_partial')).toBe(false);
    expect(grade(7, '')).toBe(false);
  });
});
