// What a person wrote, kept in the browser's storage so that a reload, a crash of the simulator
// or a bad link never loses it:
//   draft    the editor's content, saved as it is typed
//   earlier  drafts that something other than typing replaced (a preset, a file or a link
//            loaded into the editor), newest first, at most MAX_EARLIER
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

export interface Earlier {
  text: string;
  /** When it was replaced, ms since the epoch. */
  at: number;
}

export interface Saved {
  draft: string | null;
  earlier: Earlier[];
  run: { text: string; step: number; preset?: string } | null;
}

export type ScenarioStorage = Pick<Storage, 'getItem' | 'setItem'>;

const EMPTY: Saved = { draft: null, earlier: [], run: null };

const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_SCENARIO_BYTES;

/** What is saved, or nothing: never throws. */
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
  const earlier = Array.isArray(r.earlier)
    ? r.earlier
        .filter((e): e is Earlier => typeof e === 'object' && e !== null && isText((e as Earlier).text) && Number.isFinite((e as Earlier).at))
        .slice(0, MAX_EARLIER)
        .map((e) => ({ text: e.text, at: e.at }))
    : [];
  const run = r.run as Saved['run'] | undefined;
  return {
    draft: isText(r.draft) ? r.draft : null,
    earlier,
    run:
      run && typeof run === 'object' && isText(run.text) && Number.isSafeInteger(run.step) && run.step >= 0
        ? { text: run.text, step: run.step, ...(typeof run.preset === 'string' && run.preset.length <= 64 ? { preset: run.preset } : {}) }
        : null,
  };
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
  return write(storage, { ...loadSaved(storage), draft });
}

/**
 * Puts `next` in the editor in place of the draft, keeping the draft it replaces among the
 * earlier ones (unless it is empty, the same text, or already the newest earlier one).
 */
export function replaceDraft(storage: ScenarioStorage | null, next: string, now = Date.now()): { saved: Saved; stored: boolean } {
  const saved = loadSaved(storage);
  const old = saved.draft;
  let earlier = saved.earlier;
  if (old !== null && old.trim() !== '' && old !== next && earlier[0]?.text !== old) {
    earlier = [{ text: old, at: now }, ...earlier.filter((e) => e.text !== old)].slice(0, MAX_EARLIER);
  }
  const out = { ...saved, draft: next, earlier };
  return { saved: out, stored: write(storage, out) };
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
