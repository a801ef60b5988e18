// The ids of the preset scenarios, apart from their texts (presets.ts): a page that only needs
// to know whether an id names a preset imports no loader of the texts. A module that loads
// chunks on demand and is imported both by the first script and by a page loaded later makes
// the bundler split what they share out of the first script (more files before the first view).

/**
 * The presets in the order the picker lists them, a learning path: the SLUB fast path, the
 * slow paths, frees and the partial lists, bulk, the page allocator, SLAB, hardening; the
 * benchmark last. The first opens by default.
 */
export const PRESET_IDS = [
  'slub-fast-path',
  'slub-refill-remote',
  'slub-cpu-partial-pop',
  'slub-node-partial',
  'slub-new-slab-fallback',
  'slub-remote-free',
  'slub-cpu-partial-flush',
  'slub-min-partial',
  'bulk-free',
  'bulk-free-interleaved',
  'buddy-split-merge',
  'pcp-refill-drain',
  'slab-paths',
  'slab-vs-slub',
  'slub-hardened-random',
  'large',
] as const;

export type PresetId = (typeof PRESET_IDS)[number];

export function isPresetId(value: string | null | undefined): value is PresetId {
  return (PRESET_IDS as readonly string[]).includes(value ?? '');
}
