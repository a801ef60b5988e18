import { describe, expect, it } from 'vitest';
import { lessonProblems, parseLessonText, type LessonMeta } from './format';

const EN = `# Why slab allocators

## Pages first {#pages}
The buddy allocator hands out pages.

## Waste {#waste}
A 64-byte object in a 4096-byte page wastes 4032 bytes.
{{exercise:waste-bytes}}
`;

const KO = `# 왜 slab 할당자인가

## 먼저 페이지 {#pages}
buddy 할당자는 페이지 단위로 메모리를 줍니다.

## 낭비 {#waste}
{{exercise:waste-bytes}}
`;

const META: LessonMeta = {
  id: '01-why-slab',
  order: 1,
  scenario: { preset: 'buddy-split-merge' },
  sections: [
    { id: 'pages', anchor: { cursor: 3, view: 'buddy' } },
    { id: 'waste', anchor: null },
  ],
  exercises: [{ id: 'waste-bytes', section: 'waste' }],
};

describe('the lesson format', () => {
  it('cuts a lesson into its sections and finds its exercises', () => {
    const parsed = parseLessonText(EN);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.text.title).toBe('Why slab allocators');
    expect(parsed.text.sections.map((s) => [s.id, s.title, s.exercises])).toEqual([
      ['pages', 'Pages first', []],
      ['waste', 'Waste', ['waste-bytes']],
    ]);
    expect(parsed.text.sections[0].body).toBe('The buddy allocator hands out pages.');
  });

  it('accepts a lesson whose files agree', () => {
    expect(lessonProblems(META, { en: EN, ko: KO })).toEqual([]);
  });

  it('names every disagreement between lesson.json and the languages', () => {
    const problems = lessonProblems(
      { ...META, sections: [...META.sections, { id: 'extra', anchor: { cursor: -1, view: 'nowhere' as never } }] },
      { en: EN.replace('{{exercise:waste-bytes}}', ''), ko: KO.replace('{#pages}', '') },
    );
    expect(problems).toEqual([
      'section extra: the anchor\'s cursor is not a step',
      'section extra: no view "nowhere"',
      'en.md has sections pages, waste; lesson.json has pages, waste, extra',
      'en.md does not place exercise waste-bytes',
      'ko.md: line 3: a section heading without {#id}',
    ]);
    expect(lessonProblems(META, { en: EN })).toEqual(['ko.md is missing']);
    expect(parseLessonText('text first\n## A {#a}\n')).toEqual({ ok: false, problem: 'the first line is not a "# title"' });
  });
});
