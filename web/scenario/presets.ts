// The preset scenarios the visualizer opens: the .slab files of docs/scenarios/, bundled as
// text, each its own small chunk fetched when it is opened (fifteen of them in the page's
// first script would cost the first view several kilobytes). Their titles and one-line
// descriptions are UI strings (`presets.<id>.title/.summary` in web/i18n/*.json), so a preset
// reads in the person's language.

import type { PresetId } from './presetIds';

export { PRESET_IDS, isPresetId, type PresetId } from './presetIds';

const files = import.meta.glob('../../docs/scenarios/*.slab', {
  query: '?raw',
  import: 'default',
}) as Record<string, () => Promise<string>>;

/** The scenario text of a preset. */
export async function presetText(id: PresetId): Promise<string> {
  const load = files[`../../docs/scenarios/${id}.slab`];
  if (load === undefined) throw new Error(`preset ${id} is not bundled`);
  return load();
}
