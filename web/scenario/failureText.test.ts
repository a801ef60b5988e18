import { readFileSync } from 'node:fs';
import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import { ScenarioError, type RunFailure } from '../core/client';
import { resources } from '../i18n/resources';
import { failureText } from './failureText';
import runErrors from './fixtures/run-errors.json';

async function translator(lng: 'en' | 'ko') {
  const i = createInstance();
  await i.init({ resources, lng, fallbackLng: false, interpolation: { escapeValue: false } });
  return { t: i.t.bind(i) as (key: string, args?: Record<string, unknown>) => string, exists: (k: string) => i.exists(k) };
}

describe('run errors in the reader’s language', () => {
  it('word every error the simulator gives as it does in English, and in Korean', async () => {
    const en = await translator('en');
    const ko = await translator('ko');
    expect(runErrors.length).toBeGreaterThanOrEqual(5);
    for (const c of runErrors) {
      const run = c.error as RunFailure;
      const error = new ScenarioError(run.message, null, run);
      expect(failureText(en.t, en.exists, error), c.text).toBe(run.message);
      const korean = failureText(ko.t, ko.exists, error);
      expect(korean).not.toBe(run.message);
      expect(korean).not.toMatch(/\{\{|runError\./);
    }
  });

  it('has words in both languages for every key the simulator can give', async () => {
    const source = readFileSync('wasm-core/run/src/run.rs', 'utf8');
    const keys = [...new Set([...source.matchAll(/"run\.([a-z_]+)"/g)].map((m) => m[1]))];
    expect(keys.length).toBeGreaterThanOrEqual(10);
    for (const lng of ['en', 'ko'] as const) {
      const { exists } = await translator(lng);
      for (const k of keys) expect(exists(`runError.${k}`), `${lng}: runError.${k}`).toBe(true);
    }
  });

  it("falls back to the simulator's English for a key this build does not know", async () => {
    const en = await translator('en');
    const error = new ScenarioError('line 2: something new', null, { line: 2, key: 'run.new_kind', args: [], message: 'line 2: something new' });
    expect(failureText(en.t, en.exists, error)).toBe('line 2: something new');
    expect(failureText(en.t, en.exists, new Error('plain'))).toBe('plain');
  });
});
