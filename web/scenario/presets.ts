// The preset scenarios the visualizer opens: the .slab files of docs/scenarios/, bundled as
// text, each its own small chunk fetched when it is opened (fifteen of them in the page's
// first script would cost the first view several kilobytes). Their titles and one-line
// descriptions are UI strings (`presets.<id>.title/.summary` in web/i18n/*.json), so a preset
// reads in the person's language.

const files = import.meta.glob('../../docs/scenarios/*.slab', {
  query: '?raw',
  import: 'default',
}) as Record<string, () => Promise<string>>;

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

/** The scenario text of a preset. */
export async function presetText(id: PresetId): Promise<string> {
  const load = files[`../../docs/scenarios/${id}.slab`];
  if (load === undefined) throw new Error(`preset ${id} is not bundled`);
  return load();
}
