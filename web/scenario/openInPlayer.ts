// Opening a scenario from another page (the interleaving explorer's "Open this schedule") in
// the visualizer, the way a share link opens: the address carries it as a link's `s` value, and
// the visualizer puts it into the editor with the draft rules of a link (scenario/store.ts
// `replaceDraft`: what the person typed is kept among their earlier drafts, never lost). A text
// too long for a link goes the way of a long shared scenario: into the editor by the same rule
// here, and opened as the saved run.

import { scenarioAddress } from '../url/urlState';
import { encodeScenario, fitsInLink } from './link';
import { replaceDraft, saveRun, type ScenarioStorage } from './store';

/** The address of the visualizer at `href`'s site showing `text` from its start. */
export async function playerHref(href: string, text: string, storage: ScenarioStorage | null): Promise<string> {
  const encoded = await encodeScenario(text);
  if (fitsInLink(encoded)) return scenarioAddress(href, { preset: null, link: encoded });
  replaceDraft(storage, text);
  saveRun(storage, text, 0);
  return scenarioAddress(href, { preset: null, link: null });
}
