// A way to run a scenario for the split view: a kernel profile and an allocator
// (`linux-7.2/slub`), and the scenario's text rewritten to run that way.

import { DEFAULT_PROFILE, PROFILE_IDS, profileOf, withProfile, type ProfileId } from './profile';

export type Allocator = 'slub' | 'slab';

export interface Variant {
  profile: ProfileId;
  allocator: Allocator;
}

/** SLAB is in the kernel up to 6.7 (removed in 6.8): of our profiles, 6.6 only. */
export function hasSlab(profile: ProfileId): boolean {
  return profile === 'linux-6.6';
}

/** Every variant there is, oldest kernel first, SLUB before SLAB. */
export const VARIANTS: readonly Variant[] = PROFILE_IDS.flatMap((profile) =>
  (['slub', 'slab'] as const).filter((a) => a === 'slub' || hasSlab(profile)).map((allocator) => ({ profile, allocator })),
);

export function variantId(v: Variant): string {
  return `${v.profile}/${v.allocator}`;
}

/** `linux-7.2/slub` as a variant; null for anything else (a hand-edited address). */
export function parseVariant(id: string | null): Variant | null {
  return VARIANTS.find((v) => variantId(v) === id) ?? null;
}

const ALLOCATOR_LINE = /^[ \t]*allocator[ \t]+(\S+)[ \t]*(?:#.*)?$/m;

/** How the text runs as it stands. */
export function variantOf(text: string): Variant {
  const profile = (PROFILE_IDS as readonly string[]).includes(profileOf(text)) ? (profileOf(text) as ProfileId) : DEFAULT_PROFILE;
  const allocator = ALLOCATOR_LINE.exec(text)?.[1] === 'slab' ? 'slab' : 'slub';
  return { profile, allocator };
}

/** The text rewritten to run as `v`: its profile line, and its allocator line (replaced, or
 *  added under the profile line for SLAB; SLUB is the default). */
export function withVariant(text: string, v: Variant): string {
  let out = withProfile(text, v.profile);
  if (ALLOCATOR_LINE.test(out)) return out.replace(ALLOCATOR_LINE, `allocator ${v.allocator}`);
  if (v.allocator === 'slab') out = out.replace(/^([ \t]*profile[ \t]+\S+.*)$/m, `$1\nallocator slab`);
  return out;
}

/** What to set beside `v` when nothing else is asked for: 7.2 beside anything else, 6.6 beside
 *  7.2 (SLUB both). */
export function counterpart(v: Variant): Variant {
  return v.profile === 'linux-7.2' ? { profile: 'linux-6.6', allocator: 'slub' } : { profile: 'linux-7.2', allocator: 'slub' };
}
