import { describe, expect, it } from 'vitest';
import en from '../i18n/en.json';
import ko from '../i18n/ko.json';
import { PRESET_IDS, presetText } from './presets';

describe('presets', () => {
  it('every preset is bundled and is a scenario of format version 1 or 2', async () => {
    for (const id of PRESET_IDS) expect(['slabscope-scenario 1', 'slabscope-scenario 2'], id).toContain((await presetText(id)).split('\n')[0]);
  });

  it('every preset has a title and a summary in both languages', () => {
    for (const [lang, file] of [['en', en], ['ko', ko]] as const) {
      const presets = (file as unknown as { presets: Record<string, { title: string; summary: string }> }).presets;
      for (const id of PRESET_IDS) {
        expect(presets[id]?.title, `${lang} ${id}`).toBeTruthy();
        expect(presets[id]?.summary, `${lang} ${id}`).toBeTruthy();
      }
    }
  });
});
