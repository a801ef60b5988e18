import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyVariant, editLines, loadSeed, MAX_SEED, parseSeed, saveSeed, SEED_KEY, variantIndex } from './variant';

describe('seeded variants of an exercise', () => {
  it('shows an edit as the lines it takes out and puts in, with the lines around them', () => {
    expect(editLines(['kfree(a[3]) on cpu0', 'kfree(a[1]) on cpu0'])).toEqual([
      { kind: 'out', text: 'kfree(a[3]) on cpu0' },
      { kind: 'in', text: 'kfree(a[1]) on cpu0' },
    ]);
    expect(editLines(['p[] = alloc on cpu3\np[] = alloc on cpu1', 'p[] = alloc on cpu3\np[] = alloc on cpu0'])).toEqual([
      { kind: 'same', text: 'p[] = alloc on cpu3' },
      { kind: 'out', text: 'p[] = alloc on cpu1' },
      { kind: 'in', text: 'p[] = alloc on cpu0' },
    ]);
    expect(editLines(['for o in f: kfree(o)', 'for o in f: kfree(o)\nfor o in g: kfree(o)'])).toEqual([
      { kind: 'same', text: 'for o in f: kfree(o)' },
      { kind: 'in', text: 'for o in g: kfree(o)' },
    ]);
  });

  it('keeps every line of an edit, in order, as context, out or in', () => {
    const lines = fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 5 }).map((l) => l.join('\n'));
    fc.assert(
      fc.property(lines, lines, (from, to) => {
        const shown = editLines([from, to]);
        expect(shown.filter((l) => l.kind !== 'in').map((l) => l.text)).toEqual(from.split('\n'));
        expect(shown.filter((l) => l.kind !== 'out').map((l) => l.text)).toEqual(to.split('\n'));
      }),
    );
  });

  it('edits text found exactly once, and says why it cannot edit the rest', () => {
    const text = 'kfree(a[5]) on cpu0\nkfree(a[3]) on cpu0\n';
    expect(applyVariant(text, [['kfree(a[3])', 'kfree(a[1])']])).toEqual({ ok: true, text: 'kfree(a[5]) on cpu0\nkfree(a[1]) on cpu0\n' });
    expect(applyVariant(text, [['kfree(a[9])', 'x']])).toMatchObject({ ok: false });
    expect(applyVariant(text, [[' on cpu0', '']])).toMatchObject({ ok: false, problem: expect.stringContaining('more than once') });
    expect(applyVariant(text, [['', 'x']])).toMatchObject({ ok: false });
  });

  it('gives the lesson’s own scenario without a seed, and the same choice for the same seed', () => {
    expect(variantIndex(null, '04-fast-path-tid', 'again-object', 3)).toBe(0);
    expect(variantIndex(5, '04-fast-path-tid', 'again-object', 0)).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_SEED }), fc.integer({ min: 1, max: 6 }), (seed, count) => {
        const k = variantIndex(seed, '05-slow-paths', 'refill-object', count);
        expect(k).toBeGreaterThanOrEqual(0);
        expect(k).toBeLessThanOrEqual(count);
        expect(variantIndex(seed, '05-slow-paths', 'refill-object', count)).toBe(k);
      }),
    );
  });

  it('spreads a class of 30 students over every variant', () => {
    const seen = new Set(Array.from({ length: 30 }, (_, i) => variantIndex(i + 1, '12-hardening', 'seq-next', 3)));
    expect([...seen].sort()).toEqual([0, 1, 2, 3]);
  });

  it('reads a seed only as a whole number from 1 to the largest, from text or storage', () => {
    expect(parseSeed(' 17 ')).toBe(17);
    expect(parseSeed(17)).toBe(17);
    for (const bad of ['0', '-3', '1.5', '1e3', 'abc', '', '1000000', null, {}, 2.5]) expect(parseSeed(bad)).toBeNull();
    const data = new Map<string, string>();
    const storage = { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), removeItem: (k: string) => void data.delete(k) };
    expect(saveSeed(storage, 42)).toBe(true);
    expect(loadSeed(storage)).toBe(42);
    data.set(SEED_KEY, '<script>');
    expect(loadSeed(storage)).toBeNull();
    saveSeed(storage, null);
    expect(data.has(SEED_KEY)).toBe(false);
    const full = { ...storage, setItem: () => { throw new Error('QuotaExceededError'); } };
    expect(saveSeed(full, 3)).toBe(false);
  });
});
