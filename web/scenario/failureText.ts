// Why a scenario could not be opened, in the reader's language: a parse error (where, what,
// hint) or a run error, worded from its key and arguments; the simulator's English text when
// this build has no words for a key.

import type { ScenarioError } from '../core/client';
import { parseErrorText } from './parseErrorText';

type Translate = (key: string, args?: Record<string, unknown>) => string;

export function failureText(t: Translate, exists: (key: string) => boolean, error: ScenarioError | Error): string {
  const e = error as Partial<ScenarioError>;
  if (e.parse) {
    const p = parseErrorText(t, e.parse);
    return [`${p.where}: ${p.message}`, p.hint].filter(Boolean).join(' — ');
  }
  if (e.run) {
    const key = `runError.${e.run.key.replace(/^run\./, '')}`;
    return exists(key) ? t(key, Object.fromEntries(e.run.args)) : e.run.message;
  }
  return error.message;
}
