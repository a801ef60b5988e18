import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columns, decodeOverview, findStep, KIND, STRIP_KINDS, type Breakpoint, type StepTable } from './overview';

/** A table of the given kind bits, every step on path `i % 3`. */
function table(kinds: number[]): StepTable {
  const hex = (xs: number[]) => xs.map((x) => x.toString(16).padStart(2, '0')).join('');
  return decodeOverview({
    kinds: hex(kinds),
    path_of: hex(kinds.map((_, i) => i % 3)),
    paths: [0, 1, 2].map((i) => ({ function: `f${i}`, path: `p${i}` })),
  });
}

describe('the overview', () => {
  it('decodes two hex digits a step', () => {
    const t = table([KIND.fast, KIND.slow | KIND.listLock, 0, 0xff]);
    expect([...t.kinds]).toEqual([1, 6, 0, 255]);
    expect([...t.pathOf]).toEqual([0, 1, 2, 0]);
  });

  it('sums every step into exactly one column, in order, counting each kind', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 400 }), fc.integer({ min: 1, max: 120 }), (kinds, n) => {
        const t = table(kinds);
        const cols = columns(t, n);
        expect(cols.length).toBe(Math.min(n, kinds.length));
        let next = 0;
        for (const c of cols) {
          expect(c.first).toBe(next);
          expect(c.last).toBeGreaterThanOrEqual(c.first);
          next = c.last + 1;
        }
        expect(next).toBe(kinds.length);
        for (const name of STRIP_KINDS) {
          const total = cols.reduce((s, c) => s + c.counts[name], 0);
          expect(total).toBe(kinds.filter((k) => k & KIND[name]).length);
        }
      }),
    );
  });

  it('finds the next and the previous step a breakpoint stops at, as cursors', () => {
    //            step:  0     1           2  3                4
    const t = table([KIND.fast, KIND.listLock, 0, KIND.listLock | KIND.slow, KIND.fast]);
    const lock: Breakpoint = { kind: 'listLock' };
    // From cursor 0 (nothing done yet) the next list_lock is step 1, shown at cursor 2.
    expect(findStep(t, lock, 0, 1)).toBe(2);
    expect(findStep(t, lock, 2, 1)).toBe(4);
    expect(findStep(t, lock, 4, 1)).toBeNull();
    expect(findStep(t, lock, 4, -1)).toBe(2);
    expect(findStep(t, lock, 2, -1)).toBeNull();
    expect(findStep(t, { kind: 'path', path: 1 }, 2, 1)).toBe(5);
    expect(findStep(t, { kind: 'cursors', cursors: [1, 5] }, 1, 1)).toBe(5);
    expect(findStep(t, { kind: 'cursors', cursors: [1, 5] }, 5, -1)).toBe(1);
  });

  it('never answers the cursor it starts from, and always a step that matches', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 200 }), fc.nat(), fc.constantFrom(...(Object.keys(KIND) as (keyof typeof KIND)[])), fc.constantFrom(1 as const, -1 as const), (kinds, at, kind, dir) => {
        const t = table(kinds);
        const cursor = at % (kinds.length + 1);
        const found = findStep(t, { kind }, cursor, dir);
        const expected = kinds.map((k, i) => (k & KIND[kind] ? i + 1 : null)).filter((c): c is number => c !== null && (dir > 0 ? c > cursor : c < cursor));
        expect(found).toBe(expected.length === 0 ? null : dir > 0 ? expected[0] : expected[expected.length - 1]);
      }),
    );
  });
});
