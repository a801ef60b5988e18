// The one loader of lessons/ for the app: every lesson.json (small, bundled with the lessons
// page), each language's text fetched when it is read, and a lesson's own scenario file when
// it has one. The tests read the same files through format.ts.

import type { Language } from '../i18n/i18n';
import { parseLessonText, type LessonMeta, type LessonText } from './format';

const metas = import.meta.glob('../../lessons/*/lesson.json', { eager: true, import: 'default' }) as Record<string, LessonMeta>;
const texts = import.meta.glob('../../lessons/*/*.md', { query: '?raw', import: 'default' }) as Record<string, () => Promise<string>>;
const scenarios = import.meta.glob('../../lessons/*/*.slab', { query: '?raw', import: 'default' }) as Record<string, () => Promise<string>>;

/** Every lesson, in the order of the path through them. */
export const LESSONS: readonly LessonMeta[] = Object.values(metas).sort((a, b) => a.order - b.order);

export function lessonById(id: string | null): LessonMeta | null {
  return LESSONS.find((l) => l.id === id) ?? null;
}

/** A lesson's text in `lang`, cut into sections (null when it cannot be read). */
export async function lessonText(id: string, lang: Language): Promise<LessonText | null> {
  const load = texts[`../../lessons/${id}/${lang}.md`];
  if (!load) return null;
  const parsed = parseLessonText(await load());
  return parsed.ok ? parsed.text : null;
}

/** The scenario text of a lesson that brings its own file (presets are opened by name). */
export async function lessonScenario(meta: LessonMeta): Promise<string | null> {
  if (!('file' in meta.scenario)) return null;
  return lessonFile(meta, meta.scenario.file);
}

/** A scenario file of a lesson's folder (null when there is none of that name). */
export async function lessonFile(meta: LessonMeta, file: string): Promise<string | null> {
  const load = scenarios[`../../lessons/${meta.id}/${file}`];
  return load ? load() : null;
}
