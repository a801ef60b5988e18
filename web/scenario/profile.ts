// The kernel profiles a scenario can name (`profile linux-7.2`), oldest first, and the profile
// line of a scenario's text: which one it names, and the text naming another.
// wasm-core/run/tests/presets.rs checks that PROFILE_IDS is the simulator's `PROFILES`.

export const PROFILE_IDS = ['linux-6.6', 'linux-6.12', 'linux-6.18', 'linux-7.2'] as const;
export type ProfileId = (typeof PROFILE_IDS)[number];

/** What a scenario runs under without a profile line. */
export const DEFAULT_PROFILE: ProfileId = 'linux-6.6';

const LINE = /^[ \t]*profile[ \t]+(\S+)[ \t]*(?:#.*)?$/m;

/** The profile the text names (its first profile line), or the default. */
export function profileOf(text: string): string {
  return LINE.exec(text)?.[1] ?? DEFAULT_PROFILE;
}

/** The text with its profile line naming `id`: the line replaced where there is one, else added
 *  under the format line (`slabscope-scenario N`) and the comments right below it, or at the top. */
export function withProfile(text: string, id: ProfileId): string {
  if (LINE.test(text)) return text.replace(LINE, `profile ${id}`);
  const lines = text.split('\n');
  let at = 0;
  if (/^\s*slabscope-scenario\b/.test(lines[0] ?? '')) {
    at = 1;
    while (at < lines.length && /^\s*#/.test(lines[at])) at++;
  }
  lines.splice(at, 0, `profile ${id}`);
  return lines.join('\n');
}
