import { describe, expect, it } from 'vitest';
import type { SimClient } from '../core/client';
import { Grader } from './grader';

// The grader's own decisions, with a stand-in for the simulator worker that answers from fixed
// text (the real worker is exercised by e2e/lessons.spec.ts and the Rust exercise tests).
const worker = {
  subscribe: () => () => {},
  open: async () => ({}),
  files: async () => ({
    slabinfo: 'kmalloc-128           80     96    128   32    1 : tunables    0    0    0 : slabdata      3      3      0\n',
    buddyinfo: '',
    sysfs: { Ok: [['partial', '1 N0=1\n'] as [string, string]] },
  }),
  view: async () => ({ snapshot: { cache: { cpus: [{ tid: 640 }] } }, step: {} }),
} as unknown as SimClient;

describe('Grader', () => {
  it('grades against what the simulator gives, from the snapshot, slabinfo or sysfs', async () => {
    const g = new Grader(worker);
    expect(await g.check('s', 1, { from: 'snapshot', path: 'cache.cpus[0].tid', value: 640 }, '0x280')).toEqual({ correct: true, value: 640 });
    expect(await g.check('s', 1, { from: 'snapshot', path: 'cache.cpus[0].tid', value: 640 }, '641')).toEqual({ correct: false, value: 640 });
    expect(await g.check('s', 1, { from: 'slabinfo', cache: 'kmalloc-128', field: 'active_objs', value: 80 }, '80')).toEqual({ correct: true, value: 80 });
    expect(await g.check('s', 1, { from: 'sysfs', cache: 'kmalloc-128', file: 'partial', key: 'N0', value: 1 }, '1')).toEqual({ correct: true, value: 1 });
  });

  it('says it cannot grade, rather than calling the answer wrong, when the state has nothing there', async () => {
    const g = new Grader(worker);
    expect(await g.check('s', 1, { from: 'snapshot', path: 'cache.cpus[3].tid', value: 640 }, '640')).toBeNull();
    expect(await g.check('s', 1, { from: 'slabinfo', cache: 'kmalloc-64', field: 'active_objs', value: 80 }, '80')).toBeNull();
    expect(await g.check('s', 1, { from: 'sysfs', cache: 'kmalloc-128', file: 'order', value: 0 }, '0')).toBeNull();
  });
});
