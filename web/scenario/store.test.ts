import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadSaved, MAX_EARLIER, MAX_OPENED, replaceDraft, saveDraft, saveRun, STORE_KEY, type ScenarioStorage } from './store';

function memory(initial?: string): ScenarioStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  if (initial !== undefined) data.set(STORE_KEY, initial);
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

describe('the saved scenario', () => {
  it('keeps the draft, the run and its step', () => {
    const s = memory();
    expect(saveDraft(s, 'slabscope-scenario 1\n')).toBe(true);
    expect(saveRun(s, 'slabscope-scenario 1\nseed 3\n', 42)).toBe(true);
    expect(loadSaved(s)).toEqual({ draft: 'slabscope-scenario 1\n', typed: true, earlier: [], opened: [], run: { text: 'slabscope-scenario 1\nseed 3\n', step: 42 } });
  });

  it('keeps a preset by its name, not its text', () => {
    const s = memory();
    saveRun(s, 'the preset text', 9, 'bulk-free');
    expect(loadSaved(s).run).toEqual({ text: '', step: 9, preset: 'bulk-free' });
  });

  it('never loses a draft that a preset, a file or a link replaced', () => {
    const s = memory();
    saveDraft(s, 'mine');
    replaceDraft(s, 'preset A', { now: 1 });
    replaceDraft(s, 'preset A', { now: 2 }); // the same text again: nothing new to keep
    replaceDraft(s, 'link B', { now: 3 });
    expect(loadSaved(s)).toMatchObject({ draft: 'link B', typed: false, earlier: [{ text: 'mine', at: 1 }], opened: [{ text: 'preset A', at: 3 }] });
  });

  it('keeps at most MAX_EARLIER typed drafts, newest first', () => {
    const s = memory();
    for (let i = 0; i < MAX_EARLIER + 5; i++) {
      saveDraft(s, `draft ${i}`);
      replaceDraft(s, `link ${i}`, { now: i });
    }
    const saved = loadSaved(s);
    expect(saved.earlier).toHaveLength(MAX_EARLIER);
    expect(saved.earlier[0].text).toBe(`draft ${MAX_EARLIER + 4}`);
    expect(saved.opened).toEqual([]);
  });

  it('never pushes a typed draft out for opened ones, however many are opened', () => {
    const s = memory();
    saveDraft(s, 'typed by hand');
    for (let i = 0; i < MAX_OPENED + 5; i++) replaceDraft(s, `link ${i}`, { now: i });
    const saved = loadSaved(s);
    expect(saved.earlier).toEqual([{ text: 'typed by hand', at: 0 }]);
    expect(saved.opened).toHaveLength(MAX_OPENED);
    expect(saved.opened[0].text).toBe(`link ${MAX_OPENED + 3}`);
    // Editing an opened link makes it the person's own: replaced, it is kept as typed.
    saveDraft(s, 'link 14, edited');
    replaceDraft(s, 'another link', { now: 99 });
    expect(loadSaved(s).earlier.map((e) => e.text)).toEqual(['link 14, edited', 'typed by hand']);
    // A typed draft brought back stays typed.
    replaceDraft(s, 'typed by hand', { typed: true, now: 100 });
    expect(loadSaved(s).typed).toBe(true);
  });

  it('reads a store written before opened drafts were kept apart as all typed', () => {
    const old = memory('{"draft":"mine","earlier":[{"text":"older","at":5}],"run":null}');
    expect(loadSaved(old)).toEqual({ draft: 'mine', typed: true, earlier: [{ text: 'older', at: 5 }], opened: [], run: null });
    replaceDraft(old, 'a link', { now: 6 });
    expect(loadSaved(old).earlier.map((e) => e.text)).toEqual(['mine', 'older']);
  });

  it('reads whatever is stored without throwing, keeping the fields that make sense', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ draft: v, earlier: v, run: v }))), (stored) => {
        const saved = loadSaved(memory(stored));
        expect(saved.draft === null || typeof saved.draft === 'string').toBe(true);
        expect(Array.isArray(saved.earlier)).toBe(true);
        expect(saved.run === null || (typeof saved.run.text === 'string' && Number.isSafeInteger(saved.run.step))).toBe(true);
      }),
    );
    expect(loadSaved(memory('{"draft":"ok","earlier":[{"text":1}],"run":{"text":"x","step":-1}}'))).toEqual({ draft: 'ok', typed: true, earlier: [], opened: [], run: null });
  });

  it('answers false, and keeps what was there, when storage is full or forbidden', () => {
    const full: ScenarioStorage = {
      getItem: () => JSON.stringify({ draft: 'kept' }),
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    };
    expect(saveDraft(full, 'new')).toBe(false);
    expect(loadSaved(full).draft).toBe('kept');
    expect(saveDraft(null, 'x')).toBe(false);
    expect(loadSaved(null)).toEqual({ draft: null, typed: true, earlier: [], opened: [], run: null });
  });
});
