// The checker's findings in the reader's language. The simulator reports each violated
// invariant and each piece of known damage as a `Problem`: a key (`check.slab_inuse_live`,
// `damage.stale_cpu_freelist`), the values it names, and its English wording
// (wasm-core/sim/src/machine/check/problem.rs). The words are in <lang>.later.json under
// `check` and `damage`; the few fixed English words among the values (which freelist) are
// translated through `problemWords.<argument>`. problems.test.ts keeps the keys and their
// arguments in line with the Rust source.

import type { Problem } from '../core/generated/Problem';

type Translate = (key: string, options?: Record<string, unknown>) => unknown;

const KEY = /^(check|damage)\.\w+$/;

/** The translation of the fixed words among the values, by argument name then word. */
function wordTable(t: Translate): Record<string, Record<string, string>> {
  const table = t('problemWords', { returnObjects: true });
  return typeof table === 'object' && table !== null ? (table as Record<string, Record<string, string>>) : {};
}

/** The text of `problem` in `t`'s language; the simulator's English when this build has no
 *  words for its key (or the words name a value the problem does not carry). */
export function problemText(t: Translate, problem: Problem): string {
  if (!KEY.test(problem.key)) return problem.message;
  const words = wordTable(t);
  const values = Object.fromEntries(
    problem.args.map(([name, value]) => {
      const word = Object.hasOwn(words, name) && Object.hasOwn(words[name], value) ? words[name][value] : undefined;
      return [name, typeof word === 'string' ? word : value];
    }),
  );
  // `replace` keeps the values out of i18next's own options (count, context, lng, ...).
  const text = t(problem.key, { replace: values, defaultValue: '' });
  if (typeof text !== 'string' || text === '' || /\{\{\s*\w+\s*\}\}/.test(text)) return problem.message;
  return text;
}
