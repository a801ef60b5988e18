// UI strings: one JSON file per language, the same keys in each (i18n.test.ts checks). The
// language is kept in the URL (?lang=ko) so a shared link opens in the sender's language.
// The narration of the simulator's steps lives in steps.<lang>.json and is mounted under the
// `step` key, so a caption key from Rust (`step.rmqueue_bulk`) is a translation key as it is
// (captions.ts renders them; captions.test.ts keeps them in line with the Rust source).

import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import ko from './ko.json';
import stepsEn from './steps.en.json';
import stepsKo from './steps.ko.json';

export const LANGUAGES = ['en', 'ko'] as const;
export type Language = (typeof LANGUAGES)[number];

export const resources = {
  en: { translation: { ...en, step: stepsEn } },
  ko: { translation: { ...ko, step: stepsKo } },
};

export function languageFromUrl(search: string): Language {
  const lang = new URLSearchParams(search).get('lang');
  return (LANGUAGES as readonly string[]).includes(lang ?? '') ? (lang as Language) : 'en';
}

export function initI18n(language: Language) {
  void i18next.use(initReactI18next).init({
    resources,
    lng: language,
    fallbackLng: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  return i18next;
}
