// A student's progress through the lessons, kept in the browser (and in a file they export and
// import): for each exercise, whether it was answered right and how many tries it took.
// Everything read back, from storage or a file, is checked field by field; nothing throws.

import { parseSeed } from './variant';

export const PROGRESS_KEY = 'slabscope.lessons.v1';

export interface Attempt {
  correct: boolean;
  tries: number;
}

/** lesson id → exercise id → the attempts at it. */
export type Progress = Record<string, Record<string, Attempt>>;

export type ProgressStorage = Pick<Storage, 'getItem' | 'setItem'>;

const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** Progress as read from untrusted JSON: what makes sense is kept, the rest dropped. */
export function cleanProgress(raw: unknown): Progress {
  const out: Progress = {};
  const lessons = typeof raw === 'object' && raw !== null ? (raw as { lessons?: unknown }).lessons : undefined;
  if (typeof lessons !== 'object' || lessons === null) return out;
  for (const [lesson, exercises] of Object.entries(lessons)) {
    if (!ID.test(lesson) || typeof exercises !== 'object' || exercises === null) continue;
    for (const [exercise, a] of Object.entries(exercises)) {
      const attempt = a as Partial<Attempt>;
      if (!ID.test(exercise) || typeof attempt?.correct !== 'boolean' || !Number.isSafeInteger(attempt.tries) || (attempt.tries ?? -1) < 0) continue;
      (out[lesson] ??= {})[exercise] = { correct: attempt.correct, tries: attempt.tries as number };
    }
  }
  return out;
}

export function loadProgress(storage: ProgressStorage | null): Progress {
  try {
    const text = storage?.getItem(PROGRESS_KEY);
    return text ? cleanProgress(JSON.parse(text)) : {};
  } catch {
    return {};
  }
}

function save(storage: ProgressStorage | null, progress: Progress): boolean {
  try {
    if (!storage) return false;
    storage.setItem(PROGRESS_KEY, exportProgress(progress));
    return true;
  } catch {
    return false;
  }
}

/** Records one try; an exercise once answered right stays right. */
export function recordTry(storage: ProgressStorage | null, lesson: string, exercise: string, correct: boolean): Progress {
  const progress = loadProgress(storage);
  const before = progress[lesson]?.[exercise] ?? { correct: false, tries: 0 };
  (progress[lesson] ??= {})[exercise] = { correct: before.correct || correct, tries: before.tries + 1 };
  save(storage, progress);
  return progress;
}

/** The progress file: versioned JSON, with the student's variant seed when they have one (so
 *  a teacher reading the file knows which numbers the student was given). */
export function exportProgress(progress: Progress, seed: number | null = null): string {
  return `${JSON.stringify({ format: 'slabscope-progress', version: 1, ...(seed === null ? {} : { seed }), lessons: progress }, null, 2)}\n`;
}

/**
 * A progress file merged into what is stored (an exercise right in either stays right; tries
 * add up), or why the file was not read.
 */
export function importProgress(
  storage: ProgressStorage | null,
  text: string,
): { ok: true; progress: Progress; seed: number | null } | { ok: false; key: 'lessons.importBad' } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, key: 'lessons.importBad' };
  }
  if (typeof raw !== 'object' || raw === null || (raw as { format?: unknown }).format !== 'slabscope-progress' || (raw as { version?: unknown }).version !== 1) {
    return { ok: false, key: 'lessons.importBad' };
  }
  const merged = loadProgress(storage);
  for (const [lesson, exercises] of Object.entries(cleanProgress(raw))) {
    for (const [exercise, a] of Object.entries(exercises)) {
      const b = merged[lesson]?.[exercise];
      (merged[lesson] ??= {})[exercise] = b ? { correct: a.correct || b.correct, tries: a.tries + b.tries } : a;
    }
  }
  save(storage, merged);
  return { ok: true, progress: merged, seed: parseSeed((raw as { seed?: unknown }).seed) };
}

/** Exercises answered right of those a lesson has. */
export function score(progress: Progress, lesson: string, exercises: readonly { id: string }[]): { done: number; total: number } {
  return { done: exercises.filter((e) => progress[lesson]?.[e.id]?.correct).length, total: exercises.length };
}
