// Step captions: the simulator records each step with a caption key (`step.get_partial_node`)
// and named arguments, never text; the narration lives in steps.<lang>.json, mounted under the
// `step` key by i18n.ts. Pure functions of a TFunction and the data, so the UI and the tests
// render captions the same way.

import type { TFunction } from 'i18next';

/** A caption argument as the simulator's JSON gives it: `[name, value]`. Numbers stay numbers;
 *  addresses arrive as hex text (`0xffff888000001000`), cache names and fixed words as text. */
export type CaptionArg = [string, number | string];

/** A step's caption as the simulator's JSON gives it (`caption: {key, args}`). */
export interface Caption {
  key: string;
  args: CaptionArg[];
}

/** Where the translations of fixed English words live, by argument name then word:
 *  `step.words.deactivate["to head"]`. Read as an object, because the words contain characters
 *  that i18next would take as separators (`.` and `:`). */
export const WORDS_KEY = 'step.words';

/** A caption key is `step.` and a name; `step.words` is the word table, not a caption. A
 *  concurrent block's micro-steps are captioned `micro.` and a name, kept under `step.micro`. */
const CAPTION_KEY = /^step\.\w+$/;
const MICRO_KEY = /^micro\.\w+$/;

/** Returned by `t` for a key it does not have; a real caption is never this. */
const MISSING = '\u0000missing\u0000';

type WordTable = Record<string, Record<string, string>>;

function own<T>(table: Record<string, T> | undefined, name: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, name) ? table[name] : undefined;
}

function wordTable(t: TFunction): WordTable {
  const words: unknown = t(WORDS_KEY, { returnObjects: true });
  return typeof words === 'object' && words !== null ? (words as WordTable) : {};
}

/** The text of a caption in `t`'s language: the step's narration with its arguments filled in,
 *  fixed words translated through the word table. An unknown key gives a marked fallback with
 *  the key and the arguments as they came, never an exception. */
export function captionText(t: TFunction, caption: Caption): string {
  const words = wordTable(t);
  // Object.fromEntries makes own properties whatever the names; a repeated name keeps its
  // last value (get_partial_node records cpu_partial_slabs once per slab it pushes).
  const values = Object.fromEntries(
    caption.args.map(([name, value]): CaptionArg => {
      const word = typeof value === 'string' ? own(own(words, name), value) : undefined;
      return [name, typeof word === 'string' ? word : value];
    }),
  );
  const key = MICRO_KEY.test(caption.key) ? `step.${caption.key}` : caption.key;
  if ((CAPTION_KEY.test(key) || MICRO_KEY.test(caption.key)) && key !== WORDS_KEY) {
    // `replace` keeps argument names out of i18next's own options (count, context, lng, ...).
    const text: unknown = t(key, { replace: values, defaultValue: MISSING });
    if (typeof text === 'string' && text !== MISSING && text !== '') return text;
  }
  return fallbackText(caption);
}

/** An unknown caption, marked as such: `⚠ step.x (no text) a=1 b=kmalloc-64`. */
export function fallbackText(caption: Caption): string {
  const args = caption.args.map(([name, value]) => `${name}=${value}`);
  return [`⚠ ${caption.key} (no text)`, ...args].join(' ');
}

const ELIXIR = 'https://elixir.bootlin.com/linux/v6.6/A/ident/';

/** A link to the kernel function a step mirrors, in the Linux 6.6 source on Elixir; null for
 *  a pseudo function such as `(internal)`, which names no kernel identifier. */
export function kernelSourceUrl(fn: string): string | null {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(fn) ? ELIXIR + fn : null;
}
