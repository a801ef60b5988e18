import { describe, expect, it } from 'vitest';
import { lessonProblems, parseLessonText, sysfsField, type AnswerSpec, type LessonMeta } from './format';

const EN = `# Why slab allocators

## Pages first {#pages}
The buddy allocator hands out pages.

## Waste {#waste}
A 64-byte object in a 4096-byte page wastes 4032 bytes.
{{exercise:waste-bytes}}
How many bytes does a 100-byte object
waste in a page of its own?
{{hint}} A page is 4096 bytes.
{{hint}} Subtract.

After the exercise.
`;

const KO = `# 왜 slab 할당자인가

## 먼저 페이지 {#pages}
buddy 할당자는 페이지 단위로 메모리를 줍니다.

## 낭비 {#waste}
{{exercise:waste-bytes}}
100바이트 객체 하나가 페이지를 혼자 쓰면 몇 바이트가 남을까?
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
    // The exercise's question and hints are its own, not the section's text.
    expect(parsed.text.prompts['waste-bytes']).toEqual({ question: 'How many bytes does a 100-byte object waste in a page of its own?', hints: ['A page is 4096 bytes.', 'Subtract.'] });
    expect(parsed.text.sections[1].parts).toEqual([
      { kind: 'text', markdown: 'A 64-byte object in a 4096-byte page wastes 4032 bytes.' },
      { kind: 'exercise', id: 'waste-bytes' },
      { kind: 'text', markdown: 'After the exercise.' },
    ]);
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
    expect(lessonProblems(META, { en: EN, ko: KO.replace(/^100.*$/m, '') })).toEqual(['ko.md: exercise waste-bytes has no question']);
    expect(parseLessonText('text first\n## A {#a}\n')).toEqual({ ok: false, problem: 'the first line is not a "# title"' });
  });

  it('names an answer that says nowhere to read it', () => {
    const withAnswer = (answer: unknown) => lessonProblems({ ...META, exercises: [{ id: 'waste-bytes', section: 'waste', answer: answer as AnswerSpec }] }, { en: EN, ko: KO });
    expect(withAnswer({ from: 'sysfs', cache: 'kmalloc-128', file: 'partial', key: 'N0', value: 1 })).toEqual([]);
    expect(withAnswer({ from: 'slabinfo', cache: 'kmalloc-128', field: 'active_objs', value: 80 })).toEqual([]);
    expect(withAnswer({ from: 'sysfs', cache: 'kmalloc-128', file: 'partial', key: 'node0', value: 1 })).toEqual([
      'exercise waste-bytes: the answer names no cache, no /sys/kernel/slab file, or a key other than N<node> or C<cpu>',
    ]);
    expect(withAnswer({ from: 'slabinfo', cache: 'kmalloc-128', field: 'active', value: 80 })).toEqual([
      'exercise waste-bytes: the answer names no cache or no /proc/slabinfo column',
    ]);
    expect(withAnswer({ from: 'snapshot', value: 1 })).toEqual(['exercise waste-bytes: the answer names no path']);
    expect(withAnswer({ from: 'proc', value: 1 })).toEqual(['exercise waste-bytes: an answer read from "proc"']);
  });
});

describe('a /sys/kernel/slab file as an answer', () => {
  it('gives the total first, a node or CPU after its key, numbers as numbers', () => {
    expect(sysfsField('3 N0=2 N1=1\n')).toBe(3);
    expect(sysfsField('3 N0=2 N1=1\n', 'N1')).toBe(1);
    expect(sysfsField('16(1) C1=16(1)', 'C1')).toBe('16(1)');
    expect(sysfsField('3 N0=2', 'N2')).toBeUndefined();
    expect(sysfsField('')).toBeUndefined();
  });
});
