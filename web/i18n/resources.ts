// Every language's strings at once, for tests and tools. The app loads only the language it
// shows (i18n.ts, `loadLanguage`), so the other stays out of the first download.

import en from './en.json';
import ko from './ko.json';
import stepsEn from './steps.en.json';
import stepsKo from './steps.ko.json';

export const resources = {
  en: { translation: { ...en, step: stepsEn } },
  ko: { translation: { ...ko, step: stepsKo } },
};
