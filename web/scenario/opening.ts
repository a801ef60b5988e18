// Which scenario the visualizer opens with, from the page's query and what the browser saved:
//
//   ?s=1.…          the scenario a share link carries (link.ts)
//   ?preset=ID      a preset
//   ?src=saved      the scenario last shown in this browser, at its step (used when a scenario
//                   is too long for its link)
//   nothing         the same as ?src=saved, or the first preset when nothing was saved
//
// A link whose scenario cannot be read opens what the rest of the query names (or the saved
// run, or the first preset) and reports why; it never touches the person's own draft.

import { SAVED_SOURCE, type ScenarioQuery } from '../url/urlState';
import { decodeScenario, type LinkError } from './link';
import { isPresetId, presetText, PRESET_IDS, type PresetId } from './presets';
import type { Saved } from './store';

export interface Opening {
  text: string;
  /** The preset it is, or null for a scenario of the person's own (or of a link). */
  preset: PresetId | null;
  /** Where it came from. */
  from: 'link' | 'preset' | 'saved' | 'default';
  /** The saved run's step, when the saved run is opened. */
  step?: number;
  /** Why the link's scenario was not opened. */
  linkError: LinkError | null;
}

export async function openingScenario(query: ScenarioQuery, saved: Saved): Promise<Opening> {
  let linkError: LinkError | null = null;
  const s = query.link;
  if (s !== null) {
    const decoded = await decodeScenario(s);
    if (decoded.ok) return { text: decoded.text, preset: null, from: 'link', linkError: null };
    linkError = decoded.error;
  }
  const preset = query.preset;
  if (isPresetId(preset)) return { text: await presetText(preset), preset, from: 'preset', linkError };
  const bare = s === null && query.src === null;
  if ((query.src === SAVED_SOURCE || linkError !== null || bare) && saved.run) {
    const { preset: id, step } = saved.run;
    // A step from the query wins over the saved one (the caller applies it).
    if (isPresetId(id)) return { text: await presetText(id), preset: id, from: 'saved', step, linkError };
    if (saved.run.text !== '') return { text: saved.run.text, preset: null, from: 'saved', step, linkError };
  }
  return { text: await presetText(PRESET_IDS[0]), preset: PRESET_IDS[0], from: 'default', linkError };
}
