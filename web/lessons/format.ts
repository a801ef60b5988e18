// The lesson format (lessons/README.md): a language-neutral lesson.json and one Markdown file
// per language whose sections carry the same ids. This module reads and checks them; it knows
// nothing of files or the simulator, so the app and the tests share it.
//
//   # Lesson title
//   ## Section title {#section-id}
//   ...Markdown...
//   {{exercise:exercise-id}}      (alone on a line: where an exercise goes)
//   The question, on the next line.
//   {{hint}} A hint, on a line of its own; as many as helpful, gentlest first.

import { LANGUAGES, type Language } from '../i18n/i18n';
import { VIEWS, type View } from '../url/urlState';
import { grade, plain } from './answer';
import type { Edit } from './variant';

export interface Anchor {
  /** The visualizer's cursor: after this many steps. */
  cursor: number;
  view?: View;
  cache?: string;
  /** Structures the section talks about, named as the kernel names them. */
  highlight?: string[];
  /** A scenario file of the lesson's folder the anchor runs instead of the lesson's own (a
   *  lesson that shows one race run two ways). */
  file?: string;
}

export interface LessonMeta {
  id: string;
  order: number;
  scenario: { preset: string } | { file: string };
  sections: { id: string; anchor: Anchor | null }[];
  exercises: Exercise[];
}

/** Where the simulator's state answers an exercise, and the answer stored for it (checked
 *  against the simulator by wasm-core/run/tests/exercises.rs; read by answer.ts). */
export type AnswerSpec =
  | { from: 'snapshot'; cache?: string; path: string; value: unknown }
  | { from: 'slabinfo'; cache: string; field: string; value: unknown }
  /** A file of /sys/kernel/slab/<cache>/: its first number (the total), or with `key` the
   *  value after `<key>=` (`N0` for node 0, `C1` for cpu1). */
  | { from: 'sysfs'; cache: string; file: string; key?: string; value: unknown }
  | { from: 'step'; path: string; value: unknown };

/** The columns of a /proc/slabinfo line an answer may name, in the file's order. */
export const SLABINFO_COLUMNS = ['active_objs', 'num_objs', 'objsize', 'objperslab', 'pagesperslab'];

/** The value a /sys/kernel/slab file gives: its first field (the total, as `show_slab_objects()`
 *  prints it before the per-node `N<node>=` fields), or the one after `<key>=`; a number when it
 *  is one. Undefined when the file has no such field. */
export function sysfsField(contents: string, key?: string): string | number | undefined {
  const fields = contents.trim().split(/\s+/);
  const raw = key === undefined ? fields[0] : fields.find((f) => f.startsWith(`${key}=`))?.slice(key.length + 1);
  if (raw === undefined || raw === '') return undefined;
  return /^[0-9]+$/.test(raw) ? Number(raw) : raw;
}

/** How a student gives an answer, besides typing it: `pick` by clicking in the player (an
 *  object gives its address, a slab its pfn, a micro-step in the CPU lanes its step number). */
export const PICKS = ['object', 'slab', 'step'] as const;
export type AnswerPick = (typeof PICKS)[number];

export interface Exercise {
  id: string;
  section: string;
  /** The step the student looks at before answering. */
  cursor?: number;
  /** The step whose state answers it. */
  answer_at?: number;
  answer?: AnswerSpec;
  /** The answers offered to choose from (the simulator's answer is one of them, in every variant). */
  choices?: (string | number)[];
  /** The answer is clicked in the player. */
  pick?: AnswerPick;
  /** Edits of the scenario that give other numbers (variant.ts). */
  variants?: Edit[][];
  /** A scenario file of the lesson's folder the exercise runs instead of the lesson's own. */
  file?: string;
  [more: string]: unknown;
}

export interface Section {
  id: string;
  title: string;
  /** The section's Markdown, without its heading. */
  body: string;
  /** Exercise ids placed in the section, in order. */
  exercises: string[];
  /** The section in order: runs of Markdown, and the exercises between them. */
  parts: ({ kind: 'text'; markdown: string } | { kind: 'exercise'; id: string })[];
}

/** An exercise as a language words it: the question, and hints from gentle to specific. */
export interface Prompt {
  question: string;
  hints: string[];
}

export interface LessonText {
  title: string;
  sections: Section[];
  prompts: Record<string, Prompt>;
}

const HEADING = /^##\s+(.+?)\s*\{#([a-z0-9][a-z0-9-]*)\}\s*$/;
const EXERCISE = /^\{\{exercise:([a-z0-9][a-z0-9-]*)\}\}\s*$/;
const HINT = /^\{\{hint\}\}\s*(.+)$/;

/** A lesson's Markdown, cut into its sections. Text before the first section is refused. */
export function parseLessonText(markdown: string): { ok: true; text: LessonText } | { ok: false; problem: string } {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const first = lines.findIndex((l) => l.trim() !== '');
  const title = first >= 0 ? /^#\s+(.+)$/.exec(lines[first])?.[1]?.trim() : undefined;
  if (!title) return { ok: false, problem: 'the first line is not a "# title"' };
  const sections: Section[] = [];
  const prompts: Record<string, Prompt> = {};
  // The exercise whose question and hints the next lines are, until a blank line.
  let prompting: Prompt | null = null;
  for (const [n, line] of lines.slice(first + 1).entries()) {
    const heading = HEADING.exec(line);
    if (heading) {
      sections.push({ id: heading[2], title: heading[1], body: '', exercises: [], parts: [] });
      prompting = null;
      continue;
    }
    if (line.startsWith('## ')) return { ok: false, problem: `line ${first + n + 2}: a section heading without {#id}` };
    const current = sections.at(-1);
    if (!current) {
      if (line.trim() !== '') return { ok: false, problem: `line ${first + n + 2}: text before the first section` };
      continue;
    }
    current.body += `${line}\n`;
    const exercise = EXERCISE.exec(line.trim());
    if (exercise) {
      current.exercises.push(exercise[1]);
      current.parts.push({ kind: 'exercise', id: exercise[1] });
      prompting = { question: '', hints: [] };
      prompts[exercise[1]] = prompting;
      continue;
    }
    if (prompting && line.trim() !== '') {
      const hint = HINT.exec(line.trim());
      if (hint) prompting.hints.push(hint[1]);
      else prompting.question = `${prompting.question} ${line.trim()}`.trim();
      continue;
    }
    prompting = null;
    const last = current.parts.at(-1);
    if (last?.kind === 'text') last.markdown += `${line}\n`;
    else current.parts.push({ kind: 'text', markdown: `${line}\n` });
  }
  for (const s of sections) {
    s.body = s.body.trim();
    s.parts = s.parts.filter((p) => p.kind === 'exercise' || p.markdown.trim() !== '').map((p) => (p.kind === 'text' ? { ...p, markdown: p.markdown.trim() } : p));
  }
  return { ok: true, text: { title, sections, prompts } };
}

const FILE = /^[a-z0-9][a-z0-9-]*\.slab$/;

const isEdit = (e: unknown): e is Edit => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && e[0] !== '' && typeof e[1] === 'string';

/** What is missing from where an answer is read. */
function specProblems(id: string, a: AnswerSpec | undefined): string[] {
  if (a === undefined) return [];
  const text = (v: unknown) => typeof v === 'string' && v !== '';
  switch (a.from) {
    case 'snapshot':
    case 'step':
      return text(a.path) ? [] : [`exercise ${id}: the answer names no path`];
    case 'slabinfo':
      return text(a.cache) && SLABINFO_COLUMNS.includes(a.field) ? [] : [`exercise ${id}: the answer names no cache or no /proc/slabinfo column`];
    case 'sysfs':
      return text(a.cache) && text(a.file) && (a.key === undefined || /^[NC][0-9]+$/.test(a.key))
        ? []
        : [`exercise ${id}: the answer names no cache, no /sys/kernel/slab file, or a key other than N<node> or C<cpu>`];
    default:
      return [`exercise ${id}: an answer read from "${String((a as { from?: unknown }).from)}"`];
  }
}

/** What is wrong with an exercise's answer: where it is read, its choices, pick and variants. */
function answerProblems(e: Exercise): string[] {
  const problems: string[] = specProblems(e.id, e.answer);
  const stored = e.answer?.value;
  if (e.choices !== undefined) {
    const texts = Array.isArray(e.choices) ? e.choices.map(plain) : [];
    if (texts.length < 2) problems.push(`exercise ${e.id}: fewer than two choices`);
    else if (new Set(texts.map((c) => c.toLowerCase())).size !== texts.length) problems.push(`exercise ${e.id}: a choice is listed twice`);
    else if (!texts.some((c) => grade(stored, c))) problems.push(`exercise ${e.id}: the answer ${plain(stored)} is not one of its choices`);
  }
  if (e.pick !== undefined) {
    if (!(PICKS as readonly string[]).includes(e.pick)) problems.push(`exercise ${e.id}: no pick "${String(e.pick)}"`);
    else if (e.choices !== undefined) problems.push(`exercise ${e.id}: both picked and chosen`);
    else if (e.pick === 'object' && !/^0x[0-9a-f]+$/.test(plain(stored))) problems.push(`exercise ${e.id}: a picked object's answer is an address`);
    else if (e.pick === 'slab' && typeof stored !== 'number') problems.push(`exercise ${e.id}: a picked slab's answer is a pfn`);
    else if (e.pick === 'step' && !(Number.isSafeInteger(stored) && (stored as number) > 0)) problems.push(`exercise ${e.id}: a picked step's answer is a step number`);
  }
  if (e.variants !== undefined && !(Array.isArray(e.variants) && e.variants.length > 0 && e.variants.every((v) => Array.isArray(v) && v.length > 0 && v.every(isEdit)))) {
    problems.push(`exercise ${e.id}: variants are lists of [from, to] edits`);
  }
  return problems;
}

/** Everything wrong with a lesson: its files disagree, or refer to what is not there. */
export function lessonProblems(meta: LessonMeta, texts: Partial<Record<Language, string>>): string[] {
  const problems: string[] = [];
  const ids = meta.sections.map((s) => s.id);
  if (new Set(ids).size !== ids.length) problems.push('lesson.json repeats a section id');
  const exerciseIds = meta.exercises.map((e) => e.id);
  if (new Set(exerciseIds).size !== exerciseIds.length) problems.push('lesson.json repeats an exercise id');
  for (const e of meta.exercises) {
    if (!ids.includes(e.section)) problems.push(`exercise ${e.id} is in no section of lesson.json (${e.section})`);
    if (e.file !== undefined && !FILE.test(e.file)) problems.push(`exercise ${e.id}: "${e.file}" is not a scenario file name`);
    problems.push(...answerProblems(e));
  }
  for (const s of meta.sections) {
    const a = s.anchor;
    if (a === null) continue;
    if (!Number.isSafeInteger(a.cursor) || a.cursor < 0) problems.push(`section ${s.id}: the anchor's cursor is not a step`);
    if (a.view !== undefined && !(VIEWS as readonly string[]).includes(a.view)) problems.push(`section ${s.id}: no view "${a.view}"`);
    if (a.file !== undefined && !FILE.test(a.file)) problems.push(`section ${s.id}: "${a.file}" is not a scenario file name`);
  }
  for (const lang of LANGUAGES) {
    const markdown = texts[lang];
    if (markdown === undefined) {
      problems.push(`${lang}.md is missing`);
      continue;
    }
    const parsed = parseLessonText(markdown);
    if (!parsed.ok) {
      problems.push(`${lang}.md: ${parsed.problem}`);
      continue;
    }
    const got = parsed.text.sections.map((s) => s.id);
    if (got.join(' ') !== ids.join(' ')) problems.push(`${lang}.md has sections ${got.join(', ')}; lesson.json has ${ids.join(', ')}`);
    for (const s of parsed.text.sections) {
      for (const e of s.exercises) {
        const m = meta.exercises.find((x) => x.id === e);
        if (!m) problems.push(`${lang}.md: section ${s.id} places exercise ${e}, which lesson.json does not have`);
        else if (m.section !== s.id) problems.push(`${lang}.md: exercise ${e} is placed in ${s.id}, lesson.json says ${m.section}`);
      }
    }
    const placed = parsed.text.sections.flatMap((s) => s.exercises);
    for (const e of exerciseIds) {
      if (!placed.includes(e)) problems.push(`${lang}.md does not place exercise ${e}`);
      else if (!parsed.text.prompts[e]?.question) problems.push(`${lang}.md: exercise ${e} has no question`);
    }
  }
  return problems;
}
