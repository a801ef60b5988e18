// What a person wrote, kept in the browser's storage so that a reload, a crash of the simulator
// or a bad link never loses it:
//   draft    the editor's content, saved as it is typed
//   typed    whether the person typed the draft (false: it is a link, file or preset that was
//            loaded into the editor and not changed since)
//   earlier  drafts the person typed that something other than typing replaced (a preset, a
//            file or a link loaded into the editor), newest first, at most MAX_EARLIER
//   opened   drafts that were only opened (a link's or a file's text, untouched) when they
//            were replaced, newest first, at most MAX_OPENED: kept apart, so that opening many
//            links never pushes out what the person typed
//   run      the scenario last shown (a preset by name, or the text run from the editor) and
//            the step it was at: opening the page with no scenario in its address, or a
//            scenario too long for its link, comes back to it
//
// Storage is untrusted too (another version of the app, a person with devtools): anything that
// is not the expected shape is ignored field by field. Storage that is full or forbidden (a
// sandboxed iframe) makes saving answer false; nothing throws.

import { MAX_SCENARIO_BYTES } from './link';

export const STORE_KEY = 'slabscope.scenario.v1';
export const MAX_EARLIER = 10;
export const MAX_OPENED = 10;

export interface Earlier {
  text: string;
  /** When it was replaced, ms since the epoch. */
  at: number;
}

export interface Saved {
  draft: string | null;
  /** The person typed the draft (an older store without the field: typed, so it is kept). */
  typed: boolean;
  earlier: Earlier[];
  opened: Earlier[];
  run: { text: string; step: number; preset?: string } | null;
}

export type ScenarioStorage = Pick<Storage, 'getItem' | 'setItem'>;

const EMPTY: Saved = { draft: null, typed: true, earlier: [], opened: [], run: null };

const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_SCENARIO_BYTES;

/** What is saved, or nothing: never throws. */
/** The draft of the editor, as saved in this browser (else the run shown last), or null. */
export function savedDraft(storage: ScenarioStorage | null): string | null {
  const saved = loadSaved(storage);
  return saved.draft ?? (saved.run?.text || null);
}

export function loadSaved(storage: ScenarioStorage | null): Saved {
  let raw: unknown;
  try {
    const text = storage?.getItem(STORE_KEY);
    if (!text) return EMPTY;
    raw = JSON.parse(text);
  } catch {
    return EMPTY;
  }
  if (typeof raw !== 'object' || raw === null) return EMPTY;
  const r = raw as Record<string, unknown>;
  const run = r.run as Saved['run'] | undefined;
  return {
    draft: isText(r.draft) ? r.draft : null,
    typed: r.typed !== false,
    earlier: drafts(r.earlier, MAX_EARLIER),
    opened: drafts(r.opened, MAX_OPENED),
    run:
      run && typeof run === 'object' && isText(run.text) && Number.isSafeInteger(run.step) && run.step >= 0
        ? { text: run.text, step: run.step, ...(typeof run.preset === 'string' && run.preset.length <= 64 ? { preset: run.preset } : {}) }
        : null,
  };
}

/** A stored list of drafts, its malformed entries dropped. */
function drafts(list: unknown, max: number): Earlier[] {
  return Array.isArray(list)
    ? list
        .filter((e): e is Earlier => typeof e === 'object' && e !== null && isText((e as Earlier).text) && Number.isFinite((e as Earlier).at))
        .slice(0, max)
        .map((e) => ({ text: e.text, at: e.at }))
    : [];
}

function write(storage: ScenarioStorage | null, saved: Saved): boolean {
  try {
    if (!storage) return false;
    storage.setItem(STORE_KEY, JSON.stringify(saved));
    return true;
  } catch {
    return false;
  }
}

/** Saves the editor's content as typed. */
export function saveDraft(storage: ScenarioStorage | null, draft: string): boolean {
  return write(storage, { ...loadSaved(storage), draft, typed: true });
}

/**
 * Puts `next` in the editor in place of the draft, keeping the draft it replaces: among the
 * earlier ones when the person typed it, else among the opened ones (unless it is empty, the
 * same text, or already the newest of its list). `typed`: whether `next` is the person's own
 * typing (an earlier draft brought back), not something opened.
 */
export function replaceDraft(
  storage: ScenarioStorage | null,
  next: string,
  { typed = false, now = Date.now() }: { typed?: boolean; now?: number } = {},
): { saved: Saved; stored: boolean } {
  const saved = loadSaved(storage);
  const old = saved.draft;
  let { earlier, opened } = saved;
  if (old !== null && old.trim() !== '' && old !== next) {
    if (saved.typed) earlier = keep(earlier, old, now, MAX_EARLIER);
    else if (!earlier.some((e) => e.text === old)) opened = keep(opened, old, now, MAX_OPENED);
  }
  const out = { ...saved, draft: next, typed, earlier, opened };
  return { saved: out, stored: write(storage, out) };
}

/** `list` with `text` as its newest entry (moved there if it was in it already). */
function keep(list: Earlier[], text: string, now: number, max: number): Earlier[] {
  if (list[0]?.text === text) return list;
  return [{ text, at: now }, ...list.filter((e) => e.text !== text)].slice(0, max);
}

/** Remembers the scenario shown and where it stands: a preset by its id (its text is not
 *  kept), anything else by its text. */
export function saveRun(storage: ScenarioStorage | null, text: string, step: number, preset: string | null = null): boolean {
  return write(storage, { ...loadSaved(storage), run: preset ? { text: '', step, preset } : { text, step } });
}

/** The browser's localStorage, or null where it cannot be reached. */
export function browserStorage(): ScenarioStorage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}
