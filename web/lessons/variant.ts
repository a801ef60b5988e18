// Seeded variants of an exercise, so that students of one class get different numbers.
//
// An exercise may list `variants` in lesson.json: each is a list of edits `[from, to]` to the
// lesson's scenario, where `from` is a piece of text found exactly once in it. A variant keeps
// every step up to the exercise's `answer_at` on the same kernel path (checked for every
// variant by wasm-core/run/tests/exercises.rs), so the question stays true, but it moves the
// answer: another object is freed, another CPU runs a call, another seed shuffles a freelist.
// The answer is never stored for a variant: the grader computes it by running the edited
// scenario in the simulator, as it does for the lesson's own.
//
// A student's seed (a whole number a teacher may hand out, or one picked at random) chooses
// one variant per exercise; no seed means the lesson's own scenario, whose numbers the prose
// quotes.

export type Edit = [from: string, to: string];

/** The largest seed accepted (and the range of the random ones). */
export const MAX_SEED = 999_999;

/** `text` with each edit made, or why an edit cannot be made. */
export function applyVariant(text: string, edits: readonly Edit[]): { ok: true; text: string } | { ok: false; problem: string } {
  let out = text;
  for (const [from, to] of edits) {
    const at = out.indexOf(from);
    if (from === '' || at < 0) return { ok: false, problem: `"${from}" is not in the scenario` };
    if (out.indexOf(from, at + 1) >= 0) return { ok: false, problem: `"${from}" is in the scenario more than once` };
    out = out.slice(0, at) + to + out.slice(at + from.length);
  }
  return { ok: true, text: out };
}

/** One line of an edit as shown to a student: kept (context), taken out, or put in. */
export interface EditLine {
  kind: 'same' | 'out' | 'in';
  text: string;
}

/**
 * An edit as a small line diff: the lines `from` and `to` share at their start and end are
 * context (they locate the change when `from` needs them to be unique), the rest are taken out
 * and put in.
 */
export function editLines([from, to]: Edit): EditLine[] {
  const a = from.split('\n');
  const b = to.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const line = (kind: EditLine['kind']) => (text: string) => ({ kind, text });
  return [
    ...a.slice(0, head).map(line('same')),
    ...a.slice(head, a.length - tail).map(line('out')),
    ...b.slice(head, b.length - tail).map(line('in')),
    ...a.slice(a.length - tail).map(line('same')),
  ];
}

/** FNV-1a, 32 bits: a small, stable hash of a string (the same in every browser). */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Which scenario an exercise runs for a student: 0 is the lesson's own, k the k-th of its
 * `count` variants. Without a seed it is always 0; with one, every choice (the lesson's own
 * included) is equally likely, and the same seed always gives the same choice.
 */
export function variantIndex(seed: number | null, lesson: string, exercise: string, count: number): number {
  if (seed === null || count <= 0) return 0;
  return fnv1a(`${seed}/${lesson}/${exercise}`) % (count + 1);
}

/** A seed as typed or read from a link or file: a whole number 1..MAX_SEED, else null. */
export function parseSeed(raw: unknown): number | null {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^[0-9]{1,6}$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= MAX_SEED ? n : null;
}

export const SEED_KEY = 'slabscope.lessons.seed.v1';

export function loadSeed(storage: Pick<Storage, 'getItem'> | null): number | null {
  try {
    return parseSeed(storage?.getItem(SEED_KEY) ?? null);
  } catch {
    return null;
  }
}

/** Keeps the seed (null forgets it); false when the browser refuses to store it. */
export function saveSeed(storage: Pick<Storage, 'setItem' | 'removeItem'> | null, seed: number | null): boolean {
  try {
    if (!storage) return false;
    if (seed === null) storage.removeItem(SEED_KEY);
    else storage.setItem(SEED_KEY, String(seed));
    return true;
  } catch {
    return false;
  }
}
