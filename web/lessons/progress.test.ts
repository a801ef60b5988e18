import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportProgress, importProgress, loadProgress, PROGRESS_KEY, recordTry, score, type ProgressStorage } from './progress';

function memory(): ProgressStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

describe('progress through the lessons', () => {
  it('counts tries, and an exercise once right stays right', () => {
    const s = memory();
    recordTry(s, '04-fast-path-tid', 'tid-after-free', false);
    recordTry(s, '04-fast-path-tid', 'tid-after-free', true);
    const p = recordTry(s, '04-fast-path-tid', 'tid-after-free', false);
    expect(p['04-fast-path-tid']['tid-after-free']).toEqual({ correct: true, tries: 3 });
    expect(loadProgress(s)).toEqual(p);
    expect(score(p, '04-fast-path-tid', [{ id: 'tid-after-free' }, { id: 'lifo-pair' }])).toEqual({ done: 1, total: 2 });
  });

  it('exports a file that imports back, merged with what another browser stored', () => {
    const a = memory();
    recordTry(a, '01-why-slab', 'merge-back', true);
    const file = exportProgress(loadProgress(a));
    const b = memory();
    recordTry(b, '01-why-slab', 'merge-back', false);
    recordTry(b, '02-slab-design', 'reap-drain', false);
    const merged = importProgress(b, file);
    expect(merged).toEqual({
      ok: true,
      progress: { '01-why-slab': { 'merge-back': { correct: true, tries: 2 } }, '02-slab-design': { 'reap-drain': { correct: false, tries: 1 } } },
      seed: null,
    });
  });

  it('carries the student’s variant seed in the file, and ignores one that is not a seed', () => {
    const file = exportProgress({}, 4711);
    expect(JSON.parse(file).seed).toBe(4711);
    expect(importProgress(memory(), file)).toMatchObject({ ok: true, seed: 4711 });
    const bad = JSON.stringify({ format: 'slabscope-progress', version: 1, seed: '12; drop', lessons: {} });
    expect(importProgress(memory(), bad)).toMatchObject({ ok: true, seed: null });
    expect('seed' in JSON.parse(exportProgress({}))).toBe(false);
  });

  it('refuses a file that is not a progress file, and reads any stored text without throwing', () => {
    const s = memory();
    expect(importProgress(s, 'not json')).toEqual({ ok: false, key: 'lessons.importBad' });
    expect(importProgress(s, JSON.stringify({ format: 'slabscope-progress', version: 2, lessons: {} }))).toEqual({ ok: false, key: 'lessons.importBad' });
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ lessons: { '01-why-slab': v, '<x>': v } }))), (stored) => {
        s.data.set(PROGRESS_KEY, stored);
        const p = loadProgress(s);
        for (const [lesson, exercises] of Object.entries(p)) {
          expect(lesson).toMatch(/^[a-z0-9-]+$/);
          for (const a of Object.values(exercises)) expect(typeof a.correct).toBe('boolean');
        }
      }),
    );
  });
});
