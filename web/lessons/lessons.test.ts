// Every lesson of lessons/ loads in both languages with the sections and exercises its
// lesson.json lists (the anchors' steps are checked against the simulator by the Rust test
// wasm-core/run/tests/lessons.rs).

import { describe, expect, it } from 'vitest';
import { isPresetId } from '../scenario/presets';
import { lessonProblems, type LessonMeta } from './format';

const metas = import.meta.glob('../../lessons/*/lesson.json', { eager: true, import: 'default' }) as Record<string, LessonMeta>;
const texts = import.meta.glob('../../lessons/*/*.md', { eager: true, query: '?raw', import: 'default' }) as Record<string, string>;

describe('the lessons', () => {
  const entries = Object.entries(metas);

  it.each(entries.map(([path, meta]) => [meta.id, path, meta] as const))('%s agrees with itself in both languages', (id, path, meta) => {
    const folder = path.slice(0, -'lesson.json'.length);
    expect(folder.endsWith(`/${id}/`), `${path}: the id is the folder's name`).toBe(true);
    if ('preset' in meta.scenario) expect(isPresetId(meta.scenario.preset), `${id}: preset ${meta.scenario.preset}`).toBe(true);
    expect(lessonProblems(meta, { en: texts[`${folder}en.md`], ko: texts[`${folder}ko.md`] })).toEqual([]);
    expect(meta.exercises.length, `${id}: at least two exercises`).toBeGreaterThanOrEqual(2);
  });

  it('are numbered in order, one folder each', () => {
    const orders = entries.map(([, m]) => m.order).sort((a, b) => a - b);
    expect(orders).toEqual(orders.map((_, i) => i + 1));
  });
});
