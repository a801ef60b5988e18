import { describe, expect, it } from 'vitest';
import { decodeScenario, MAX_LINK_CHARS } from './link';
import { openingScenario } from './opening';
import { playerHref } from './openInPlayer';
import { loadSaved, saveDraft, type ScenarioStorage } from './store';
import { parseScenarioQuery } from '../url/urlState';

function memory(): ScenarioStorage {
  const items = new Map<string, string>();
  return { getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v) };
}

const HREF = 'https://x.example/?page=interleavings&lang=ko';

describe('opening a scenario in the player from another page', () => {
  it('carries a short scenario in the address as a share link does, touching no storage', async () => {
    const storage = memory();
    saveDraft(storage, 'what I typed');
    const href = await playerHref(HREF, 'slabscope-scenario 3\n# replay\n', storage);
    const url = new URL(href);
    expect(url.searchParams.get('page')).toBeNull();
    expect(url.searchParams.get('lang')).toBe('ko');
    const decoded = await decodeScenario(url.searchParams.get('s')!);
    expect(decoded).toEqual({ ok: true, text: 'slabscope-scenario 3\n# replay\n' });
    // The visualizer opens it as a link (and keeps the draft among the earlier ones then).
    const opening = await openingScenario(parseScenarioQuery(url.search), loadSaved(storage));
    expect(opening.from).toBe('link');
    expect(loadSaved(storage).draft).toBe('what I typed');
  });

  it('opens a scenario too long for a link as the saved run, the typed draft kept', async () => {
    const storage = memory();
    saveDraft(storage, 'what I typed');
    // Text that does not compress: more than a link holds.
    let text = 'slabscope-scenario 3\n';
    let x = 7;
    while (text.length < MAX_LINK_CHARS * 2) {
      x = (x * 1103515245 + 12345) % 2147483648;
      text += `# ${x.toString(36)}\n`;
    }
    const href = await playerHref(HREF, text, storage);
    expect(new URL(href).search).toBe('?lang=ko&src=saved');
    const saved = loadSaved(storage);
    expect(saved.draft).toBe(text);
    expect(saved.earlier.map((e) => e.text)).toEqual(['what I typed']);
    const opening = await openingScenario(parseScenarioQuery(new URL(href).search), saved);
    expect(opening).toMatchObject({ from: 'saved', text, step: 0 });
  });
});
