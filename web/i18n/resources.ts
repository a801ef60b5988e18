// Every language's strings at once, for tests and tools. The app loads only the language it
// shows (i18n.ts, `loadLanguage`), so the other stays out of the first download.

import en from './en.json';
import enLater from './en.later.json';
import ko from './ko.json';
import koLater from './ko.later.json';
import stepsEn from './steps.en.json';
import stepsKo from './steps.ko.json';

export const resources = {
  en: { translation: { ...en, ...enLater, step: stepsEn } },
  ko: { translation: { ...ko, ...koLater, step: stepsKo } },
};
