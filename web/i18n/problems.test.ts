// The checker's findings against the simulator's Rust source: every key a `problem!` in
// wasm-core/sim/src makes has words in both languages, the words use only values that
// `problem!` passes with that key, no words are left for a key the source no longer makes, and
// problemText words a finding (or falls back to its English).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import en from './en.later.json';
import ko from './ko.later.json';
import { problemText } from './problems';
import { resources } from './resources';

const SIM = fileURLToPath(new URL('../../wasm-core/sim/src', import.meta.url));

interface Made {
  key: string;
  args: string[];
  file: string;
}

function rustFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return rustFiles(path);
    return e.name.endsWith('.rs') && e.name !== 'tests.rs' && !e.name.endsWith('_tests.rs') ? [path] : [];
  });
}

/** The text of a Rust string literal starting at `at` (a `"`), and the index after it. */
function literal(src: string, at: number): [string, number] {
  let j = at + 1;
  let value = '';
  while (src[j] !== '"') {
    if (src[j] === '\\') {
      // A line continuation drops the newline and the next line's indentation.
      if (src[j + 1] === '\n') j = /\S/.exec(src.slice(j + 2))!.index + j + 2;
      else {
        value += src[j + 1];
        j += 2;
      }
    } else value += src[j++];
  }
  return [value, j + 1];
}

/** Every `problem!("key", "wording", name = value, ...)` of the source (test code and comments
 *  left out): its key and the names of its values. */
function made(): Made[] {
  const out: Made[] = [];
  for (const file of rustFiles(SIM)) {
    let src = readFileSync(file, 'utf8');
    const cut = src.indexOf('#[cfg(test)]');
    if (cut >= 0) src = src.slice(0, cut);
    src = src.replace(/^\s*\/\/.*$/gm, '');
    for (const m of src.matchAll(/problem!\(\s*"/g)) {
      const [key, afterKey] = literal(src, m.index + m[0].length - 1);
      const [, afterWording] = literal(src, src.indexOf('"', afterKey));
      // The values, up to the `)` that closes the call, split at its own commas.
      const names: string[] = [];
      let depth = 0;
      let part = '';
      for (let j = afterWording; depth >= 0; j++) {
        const c = src[j];
        if (c === '"') {
          const [, next] = literal(src, j);
          j = next - 1;
          continue;
        }
        if ('([{'.includes(c)) depth++;
        if (')]}'.includes(c)) depth--;
        if ((c === ',' && depth === 0) || depth < 0) {
          const name = /^\s*(\w+)\s*=(?!=)/.exec(part);
          if (name) names.push(name[1]);
          part = '';
        } else part += c;
      }
      out.push({ key, args: names, file });
    }
  }
  return out;
}

const MADE = made();

function lookup(file: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), file);
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
}

describe('the checker’s findings', () => {
  it('are read from the source: damage and invariants of every part of the machine', () => {
    const keys = new Set(MADE.map((m) => m.key));
    expect(keys.size).toBe(MADE.length);
    for (const key of ['damage.stale_cpu_freelist', 'damage.wrong_cache_free', 'check.slab_inuse_live', 'check.pcp_count', 'check.rcu_queued_twice']) {
      expect(keys, key).toContain(key);
    }
    expect(MADE.find((m) => m.key === 'damage.stale_cpu_freelist')?.args).toEqual(['cpu', 'cache', 'object']);
  });

  it('have words in both languages that use only the values the simulator passes', () => {
    for (const [lang, file] of [['en', en], ['ko', ko]] as const) {
      for (const { key, args } of MADE) {
        const text = lookup(file, key);
        expect(typeof text, `${lang} ${key}`).toBe('string');
        for (const name of placeholders(text as string)) expect(args, `${lang} ${key}: {{${name}}}`).toContain(name);
      }
    }
  });

  it('have no words for keys the simulator no longer makes', () => {
    const keys = new Set(MADE.map((m) => m.key));
    for (const section of ['check', 'damage'] as const) {
      for (const name of Object.keys(en[section])) expect(keys, `${section}.${name}`).toContain(`${section}.${name}`);
    }
  });

  it('translate every fixed word the source passes as a value', () => {
    const source = readFileSync(join(SIM, 'slub/check.rs'), 'utf8');
    const words = [...source.matchAll(/"((?:slab->|c->|a task's )freelist)"/g)].map((m) => m[1]);
    expect(new Set(words)).toEqual(new Set(Object.keys(en.problemWords.what)));
  });
});

describe('problemText', () => {
  let t: { en: TFunction; ko: TFunction };
  beforeAll(async () => {
    const instance = i18next.createInstance();
    await instance.init({ resources, lng: 'en', fallbackLng: false, interpolation: { escapeValue: false } });
    t = { en: instance.getFixedT('en'), ko: instance.getFixedT('ko') };
  });

  const stale = {
    key: 'damage.stale_cpu_freelist',
    args: [['cpu', '0'], ['cache', 't'], ['object', '0xffff888000000100']] as [string, string][],
    message: 'known damage: cpu0’s c->freelist of t points at 0xffff888000000100, …',
  };

  it('words a finding in the reader’s language, values filled in', () => {
    expect(problemText(t.en, stale)).toMatch(/^cpu0's c->freelist of t points at 0xffff888000000100, which a caller holds/);
    const korean = problemText(t.ko, stale);
    expect(korean).toContain('cpu0의 t c->freelist');
    expect(korean).toContain('0xffff888000000100');
  });

  it('translates the fixed words among the values', () => {
    const both = { key: 'check.object_free_and_allocated', args: [['object', '0x10'], ['what', "a task's freelist"]] as [string, string][], message: 'x' };
    expect(problemText(t.ko, both)).toContain('태스크가 쥔 freelist');
    expect(problemText(t.en, both)).toBe("object 0x10 is both free (a task's freelist) and allocated");
  });

  it('falls back to the simulator’s English for a key it has no words for, or a value missing', () => {
    expect(problemText(t.ko, { key: 'check.not_yet_known', args: [], message: 'english' })).toBe('english');
    expect(problemText(t.ko, { key: 'damage.stale_cpu_freelist', args: [['cpu', '0']], message: 'english' })).toBe('english');
    expect(problemText(t.ko, { key: 'toString', args: [], message: 'english' })).toBe('english');
  });
});
