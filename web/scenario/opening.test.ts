import { describe, expect, it } from 'vitest';
import { encodeScenario } from './link';
import { openingScenario } from './opening';
import { parseScenarioQuery } from '../url/urlState';
import { presetText, PRESET_IDS } from './presets';
import type { Saved } from './store';

const none: Saved = { draft: 'my draft', typed: true, earlier: [], opened: [], run: null };
const withRun: Saved = { draft: 'my draft', typed: true, earlier: [], opened: [], run: { text: 'slabscope-scenario 1\nseed 9\n', step: 17 } };
const q = (s: string) => parseScenarioQuery(s);

describe('the scenario a page opens with', () => {
  it("opens a link's scenario before anything else", async () => {
    const s = await encodeScenario('slabscope-scenario 1\nseed 2\n');
    expect(await openingScenario(q(`?s=${s}&preset=bulk-free`), withRun)).toEqual({
      text: 'slabscope-scenario 1\nseed 2\n',
      preset: null,
      from: 'link',
      linkError: null,
    });
  });

  it('opens a preset, the saved run when asked for, or the first preset', async () => {
    expect(await openingScenario(q('?preset=bulk-free'), withRun)).toMatchObject({ preset: 'bulk-free', text: await presetText('bulk-free'), from: 'preset' });
    expect(await openingScenario(q('?src=saved'), withRun)).toMatchObject({ preset: null, text: withRun.run?.text, step: 17, from: 'saved' });
    expect(await openingScenario(q('?src=saved'), none)).toMatchObject({ preset: PRESET_IDS[0], from: 'default' });
    expect(await openingScenario(q('?preset=<script>'), none)).toMatchObject({ preset: PRESET_IDS[0], from: 'default' });
  });

  it('comes back to the scenario last shown, at its step, when the address names none', async () => {
    expect(await openingScenario(q(''), withRun)).toMatchObject({ preset: null, text: withRun.run?.text, step: 17, from: 'saved' });
    const lastPreset: Saved = { draft: null, typed: true, earlier: [], opened: [], run: { text: '', step: 40, preset: 'slab-paths' } };
    expect(await openingScenario(q('?lang=ko'), lastPreset)).toMatchObject({ preset: 'slab-paths', text: await presetText('slab-paths'), step: 40, from: 'saved' });
    const gone: Saved = { draft: null, typed: true, earlier: [], opened: [], run: { text: '', step: 3, preset: 'no-such-preset' } };
    expect(await openingScenario(q(''), gone)).toMatchObject({ preset: PRESET_IDS[0], from: 'default' });
    expect(await openingScenario(q(''), none)).toMatchObject({ preset: PRESET_IDS[0], from: 'default' });
  });

  it('reports a bad link and falls back to the preset it names, else the saved run, else the first preset', async () => {
    expect(await openingScenario(q('?s=1.%%%&preset=slab-paths'), withRun)).toMatchObject({
      preset: 'slab-paths',
      linkError: { key: 'link.encoding' },
    });
    expect(await openingScenario(q('?s=7.AAAA'), withRun)).toMatchObject({ from: 'saved', linkError: { key: 'link.version' } });
    expect(await openingScenario(q('?s=1.AAAA'), none)).toMatchObject({ from: 'default', linkError: { key: 'link.corrupt' } });
  });
});
