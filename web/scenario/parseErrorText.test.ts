// Parse errors worded from their key and arguments, against the simulator itself: the fixture
// holds a bad scenario for every key with the error the Rust parser gives for it (a Rust test,
// wasm-core/scenario/tests/parse_errors.rs, keeps it current). English must come out exactly as the
// simulator's English; Korean must be complete.

import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import type { ParseError } from '../core/generated/ParseError';
import en from '../i18n/en.later.json';
import ko from '../i18n/ko.later.json';
import { resources } from '../i18n/resources';
import parseErrors from './fixtures/parse-errors.json';
import { parseErrorText } from './parseErrorText';

type Translate = (key: string, args?: Record<string, unknown>) => string;

const cases = parseErrors as { text: string; repeat?: number; error: ParseError }[];

async function translator(lng: 'en' | 'ko'): Promise<Translate> {
  const i = createInstance();
  await i.init({ resources, lng, fallbackLng: false, interpolation: { escapeValue: false } });
  return i.t.bind(i) as Translate;
}

type Templates = Record<string, { message: string; hint?: string }>;
const templates = { en: en.scenarioError as unknown as Templates, ko: ko.scenarioError as unknown as Templates };

function short(key: string): string {
  return key.replace(/^scenario\./, '');
}

function placeholders(text: string | undefined): string[] {
  return [...(text ?? '').matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
}

describe('parse errors in the reader’s language', () => {
  it('has a case for many keys, each case a real error', () => {
    expect(new Set(cases.map((c) => c.error.key)).size).toBeGreaterThanOrEqual(80);
    for (const c of cases) expect(c.error.key, c.text).toMatch(/^scenario\.[a-z0-9_]+$/);
  });

  it('words every case in English exactly as the simulator does', async () => {
    const t = await translator('en');
    for (const { text, error } of cases) {
      const shown = parseErrorText(t, error);
      expect(shown.message, `${error.key}: ${text}`).toBe(error.message);
      expect(shown.hint, `${error.key}: ${text}`).toBe(error.hint);
      expect(shown.where).toBe(`line ${error.line}, column ${error.column}`);
    }
  });

  it('words every case in Korean, with nothing left untranslated', async () => {
    const t = await translator('ko');
    for (const { text, error } of cases) {
      const label = `${error.key}: ${text}`;
      const shown = parseErrorText(t, error);
      expect(shown.where).toBe(`${error.line}행 ${error.column}열`);
      expect(shown.message, label).not.toBe(error.message);
      expect(shown.message, label).toMatch(/[가-힣]/);
      expect(shown.message, label).not.toMatch(/\{\{|scenarioError\.|scenario\./);
      if (error.hint === null) {
        expect(shown.hint, label).toBeNull();
      } else {
        expect(shown.hint, label).not.toBe(error.hint);
        expect(shown.hint, label).toMatch(/[가-힣]/);
        expect(shown.hint, label).not.toMatch(/\{\{|scenarioError\./);
      }
    }
  });

  it('has a message in both languages for every key, and a hint exactly where the simulator gives one', () => {
    for (const { error } of cases) {
      for (const [lng, words] of Object.entries(templates)) {
        const entry = words[short(error.key)];
        expect(entry, `${lng}: ${error.key}`).toBeDefined();
        expect(typeof entry.message, `${lng}: ${error.key}`).toBe('string');
        expect(entry.hint !== undefined, `${lng}: ${error.key} hint`).toBe(error.hint !== null);
      }
    }
  });

  it('uses only the arguments each error carries', () => {
    for (const { error } of cases) {
      const names = error.args.map(([name]) => name);
      for (const [lng, words] of Object.entries(templates)) {
        const entry = words[short(error.key)];
        for (const p of [...placeholders(entry.message), ...placeholders(entry.hint)]) {
          expect(names, `${lng}: ${error.key} uses {{${p}}}`).toContain(p);
        }
      }
    }
  });

  it('has no words for keys the simulator no longer gives', () => {
    const given = new Set(cases.map((c) => short(c.error.key)));
    for (const words of Object.values(templates)) {
      const stale = Object.keys(words).filter((k) => k !== 'where' && !given.has(k));
      expect(stale).toEqual([]);
    }
  });

  it("falls back to the simulator's English for a key or an argument it has no words for", async () => {
    const t = await translator('ko');
    const unknown: ParseError = { line: 2, column: 5, key: 'scenario.something_new', args: [], message: 'something new', hint: 'try again' };
    expect(parseErrorText(t, unknown)).toEqual({ where: '2행 5열', message: 'something new', hint: 'try again' });
    const foreign: ParseError = { line: 1, column: 1, key: 'run.something', args: [], message: 'm', hint: null };
    expect(parseErrorText(t, foreign).message).toBe('m');
    // A translator with no strings at all (keys come back as they are).
    const none: Translate = (key) => key;
    const cpu = cases.find((c) => c.error.key === 'scenario.cpu')!.error;
    expect(parseErrorText(none, cpu)).toEqual({ where: `line ${cpu.line}, column ${cpu.column}`, message: cpu.message, hint: cpu.hint });
  });
});
