import { describe, expect, it } from 'vitest';
import { parseStepInput } from './stepInput';

describe('parseStepInput', () => {
  it('reads whole numbers from 0 to steps', () => {
    expect(parseStepInput('0', 40)).toEqual({ ok: true, cursor: 0 });
    expect(parseStepInput(' 17 ', 40)).toEqual({ ok: true, cursor: 17 });
    expect(parseStepInput('040', 40)).toEqual({ ok: true, cursor: 40 });
  });

  it('refuses everything else', () => {
    for (const bad of ['', '  ', '41', '-1', '1.5', '1e3', '0x10', '+3', '3 4', 'ten', '１２', 'NaN', 'Infinity', '9'.repeat(13)]) {
      expect(parseStepInput(bad, 40), JSON.stringify(bad)).toEqual({ ok: false });
    }
  });
});
