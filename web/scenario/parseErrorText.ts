// A scenario parse error in the reader's language. The simulator names each kind of mistake
// with a stable key (`scenario.unknown_cache`) and the values it mentions as named arguments;
// the words are the templates under `scenarioError.<key without "scenario.">` (message, and
// hint for the kinds that have one) in web/i18n. A key this build has no words for, or words
// that need an argument the error does not carry, falls back to the simulator's English.
// web/scenario/fixtures/parse-errors.json, kept current by a Rust test, has one error of every
// key; parseErrorText.test.ts renders each in both languages.

import type { ParseError } from '../core/generated/ParseError';

type Translate = (key: string, args?: Record<string, unknown>) => string;

export interface ParseErrorText {
  /** "line 3, column 20" or its translation. */
  where: string;
  message: string;
  /** What to do about it; null when the simulator gives no hint. */
  hint: string | null;
}

/** The translation of `key`, or null when there is none or it kept a `{{placeholder}}`. */
function worded(t: Translate, key: string, args: Record<string, unknown>): string | null {
  const text = t(key, args);
  if (typeof text !== 'string' || text === '' || text === key || /\{\{\s*\w+\s*\}\}/.test(text)) return null;
  return text;
}

export function parseErrorText(t: Translate, error: ParseError): ParseErrorText {
  const { line, column } = error;
  const where = worded(t, 'scenarioError.where.position', { line, column }) ?? `line ${line}, column ${column}`;
  if (!error.key.startsWith('scenario.')) return { where, message: error.message, hint: error.hint };
  const base = `scenarioError.${error.key.slice('scenario.'.length)}`;
  const args: Record<string, unknown> = Object.fromEntries(error.args);
  const message = worded(t, `${base}.message`, args);
  const hint = error.hint === null ? null : worded(t, `${base}.hint`, args);
  // Message and hint both translated or both the simulator's English, never a mix.
  if (message === null || (error.hint !== null && hint === null)) return { where, message: error.message, hint: error.hint };
  return { where, message, hint };
}
