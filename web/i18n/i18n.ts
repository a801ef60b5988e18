// UI strings: one JSON file per language, the same keys in each (i18n.test.ts checks). The
// language is kept in the URL (?lang=ko) so a shared link opens in the sender's language.
// The narration of the simulator's steps lives in steps.<lang>.json and is mounted under the
// `step` key, so a caption key from Rust (`step.rmqueue_bulk`) is a translation key as it is
// (captions.ts renders them; captions.test.ts keeps them in line with the Rust source).
//
// The app downloads only the language it shows; switching loads the other before changing.
// The strings of what loads after the first view (the scenario bar and editor, exports, the
// geometry page) are in <lang>.later.json, fetched with that code (`loadLaterStrings`), so the
// first view does not wait for them.

import i18next, { type Resource, type ResourceLanguage } from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['en', 'ko'] as const;
export type Language = (typeof LANGUAGES)[number];

/** One language's strings, fetched on demand (each language is its own chunk). */
async function bundle(language: Language): Promise<ResourceLanguage> {
  const [ui, steps] =
    language === 'ko'
      ? await Promise.all([import('./ko.json'), import('./steps.ko.json')])
      : await Promise.all([import('./en.json'), import('./steps.en.json')]);
  return { translation: { ...ui.default, step: steps.default } };
}

/** Languages whose later strings are loaded; once any are wanted, a switch loads them too. */
const laterLoaded = new Set<Language>();
let laterWanted = false;

async function addLater(language: Language): Promise<void> {
  if (laterLoaded.has(language)) return;
  const later = language === 'ko' ? await import('./ko.later.json') : await import('./en.later.json');
  i18next.addResourceBundle(language, 'translation', later.default, true, false);
  laterLoaded.add(language);
}

/** Loads the later strings of the language shown (and of any language switched to after). */
export async function loadLaterStrings(): Promise<void> {
  laterWanted = true;
  await addLater((i18next.language as Language) ?? 'en');
}

/** Starts i18next with `resources` (tests pass every language; see resources.ts). */
export function initI18n(language: Language, resources: Resource) {
  void i18next.use(initReactI18next).init({
    resources,
    lng: language,
    fallbackLng: false,
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  rememberTranslations(i18next);
  return i18next;
}

/** Translations remembered at most (the views ask for a few hundred distinct ones a step). */
const MAX_REMEMBERED = 20_000;
const remembering = new WeakSet<object>();

/**
 * Makes `instance.t` remember its answers: the views translate the same labels with the same
 * arguments at every step, and each i18next lookup (key resolution, interpolation, plurals)
 * costs far more than a Map hit; while playing that was a frame's budget in itself. The memory
 * is keyed by the key and all options (which carry the language for the `t` of
 * react-i18next), forgotten when the language or the resources change, and bounded.
 */
export function rememberTranslations(instance: typeof i18next): void {
  if (remembering.has(instance)) return;
  remembering.add(instance);
  const translate = instance.t.bind(instance) as unknown as (...args: unknown[]) => unknown;
  const memory = new Map<string, unknown>();
  const forget = () => memory.clear();
  instance.on('languageChanged', forget);
  // Resources added or removed later (a language loaded on demand) are the store's events.
  instance.store.on('added', forget);
  instance.store.on('removed', forget);
  const remembered = (...args: unknown[]) => {
    let key: string;
    try {
      key = JSON.stringify(args);
    } catch {
      return translate(...args);
    }
    if (memory.has(key)) return memory.get(key);
    const value = translate(...args);
    if (memory.size >= MAX_REMEMBERED) memory.clear();
    memory.set(key, value);
    return value;
  };
  instance.t = remembered as unknown as typeof instance.t;
}

/** Starts i18next with only `language` loaded. */
export async function startI18n(language: Language) {
  return initI18n(language, { [language]: await bundle(language) });
}

/** Loads `language` if it is not loaded yet, then switches to it. */
export async function changeLanguage(language: Language) {
  if (!i18next.hasResourceBundle(language, 'translation')) {
    i18next.addResourceBundle(language, 'translation', (await bundle(language)).translation);
  }
  if (laterWanted) await addLater(language);
  await i18next.changeLanguage(language);
}
