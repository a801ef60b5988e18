import { describe, expect, it } from 'vitest';
import en from './en.json';
import ko from './ko.json';
import { languageFromUrl } from './i18n';

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
}

describe('UI strings', () => {
  it('English and Korean have exactly the same keys', () => {
    expect(keys(ko).sort()).toEqual(keys(en).sort());
  });

  it('every translation uses the same placeholders as the English text', () => {
    const lookup = (obj: unknown, path: string) =>
      path.split('.').reduce((o, k) => (o as Record<string, unknown>)[k], obj) as string;
    for (const key of keys(en)) {
      expect(placeholders(lookup(ko, key)), key).toEqual(placeholders(lookup(en, key)));
    }
  });

  it('no string is empty', () => {
    for (const [name, file] of [['en', en], ['ko', ko]] as const) {
      const lookup = (path: string) =>
        path.split('.').reduce((o, k) => (o as Record<string, unknown>)[k], file as unknown);
      for (const key of keys(file)) expect(String(lookup(key)).trim(), `${name}:${key}`).not.toBe('');
    }
  });

  it('reads the language from the URL and falls back to English', () => {
    expect(languageFromUrl('?lang=ko')).toBe('ko');
    expect(languageFromUrl('?lang=xx')).toBe('en');
    expect(languageFromUrl('')).toBe('en');
  });
});
