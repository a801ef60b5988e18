import { describe, expect, it } from 'vitest';
import enFirst from './en.json';
import enLater from './en.later.json';
import koFirst from './ko.json';
import koLater from './ko.later.json';
import { rememberTranslations } from './i18n';

// Each language's strings: those of the first view and those loaded after it.
const en = { ...enFirst, ...enLater };
const ko = { ...koFirst, ...koLater };

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

function placeholders(text: string): string[] {
  return [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
}

describe('UI strings', () => {
  it('splits each language the same way, with no section in both halves', () => {
    expect(Object.keys(koLater).sort()).toEqual(Object.keys(enLater).sort());
    expect(Object.keys(enFirst).filter((k) => k in enLater)).toEqual([]);
    expect(Object.keys(koFirst).filter((k) => k in koLater)).toEqual([]);
  });

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
});

describe('remembered translations', () => {
  it('answer as i18next does, follow a language change and new resources', async () => {
    const { createInstance } = await import('i18next');
    const instance = createInstance();
    await instance.init({
      resources: { en: { translation: { hi: 'hello {{who}}', n_one: '{{count}} slab', n_other: '{{count}} slabs' } }, ko: { translation: { hi: '{{who}} 안녕' } } },
      lng: 'en',
      fallbackLng: false,
      interpolation: { escapeValue: false },
    });
    const raw = instance.t.bind(instance);
    const expected = [raw('hi', { who: 'cpu0' }), raw('n', { count: 1 }), raw('n', { count: 3 })];
    rememberTranslations(instance);
    rememberTranslations(instance); // wrapping twice changes nothing
    for (let i = 0; i < 3; i++) expect([instance.t('hi', { who: 'cpu0' }), instance.t('n', { count: 1 }), instance.t('n', { count: 3 })]).toEqual(expected);
    expect(instance.t('hi', { who: 'cpu1' })).toBe('hello cpu1');
    await instance.changeLanguage('ko');
    expect(instance.t('hi', { who: 'cpu0' })).toBe('cpu0 안녕');
    expect(instance.getFixedT('en')('hi', { who: 'cpu0' })).toBe('hello cpu0');
    instance.addResource('ko', 'translation', 'hi', '{{who}}님 안녕');
    expect(instance.t('hi', { who: 'cpu0' })).toBe('cpu0님 안녕');
  });
});

describe('counted words', () => {
  it('the explorer summary says one schedule, one forced switch, one outcome in the singular', async () => {
    const { createInstance } = await import('i18next');
    const instance = createInstance();
    await instance.init({
      resources: { en: { translation: en }, ko: { translation: ko } },
      lng: 'en',
      fallbackLng: false,
      interpolation: { escapeValue: false },
    });
    const summary = (schedules: number, switches: number, outcomes: number) =>
      instance.t('interleavings.summary', {
        schedules: instance.t('interleavings.scheduleCount', { count: schedules, n: String(schedules) }),
        line: 4,
        switches: instance.t('interleavings.switchCount', { count: switches, n: String(switches) }),
        outcomes: instance.t('interleavings.outcomeCount', { count: outcomes, n: String(outcomes) }),
      });
    expect(summary(1, 1, 1)).toBe('1 schedule of the block at line 4, each with at most 1 forced switch: 1 outcome.');
    expect(summary(57, 2, 6)).toBe('57 schedules of the block at line 4, each with at most 2 forced switches: 6 different outcomes.');
    await instance.changeLanguage('ko');
    expect(summary(1, 1, 1)).toBe('4번째 줄 블록의 스케줄 1개(각각 강제 전환 최대 1번)를 실행했고, 결과는 1가지입니다.');
    expect(summary(57, 2, 6)).toBe('4번째 줄 블록의 스케줄 57개(각각 강제 전환 최대 2번)를 실행했고, 결과는 6가지입니다.');
  });
});
