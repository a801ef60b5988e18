import { describe, expect, it } from 'vitest';
import en from '../i18n/en.later.json';
import ko from '../i18n/ko.later.json';
import { EXAMPLE_IDS } from './exploreForm';
import { exampleText } from './interleavingExamples';

describe('the interleaving explorer’s examples', () => {
  it('are format 3 scenarios with a concurrent block, named in both languages', async () => {
    for (const id of EXAMPLE_IDS) {
      const text = await exampleText(id);
      expect(text.split('\n')[0], id).toBe('slabscope-scenario 3');
      expect(text, id).toMatch(/^concurrent\b/m);
      expect(en.interleavings.example[id], id).toBeTruthy();
      expect(ko.interleavings.example[id], id).toBeTruthy();
    }
  });
});
