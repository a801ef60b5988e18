import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import en from '../i18n/en.json';
import ko from '../i18n/ko.json';
import { parseUrlState } from '../url/urlState';
import fixtures from './fixtures/links.json';
import { decodeScenario, encodeScenario, fitsInLink, LINK_PARAM, MAX_LINK_CHARS, MAX_SCENARIO_BYTES, type LinkErrorKey } from './link';
import { presetText, PRESET_IDS } from './presets';

const ERROR_KEYS: LinkErrorKey[] = ['link.version', 'link.encoding', 'link.corrupt', 'link.tooLong', 'link.tooLarge', 'link.text', 'link.empty'];

function lookup(messages: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((at, part) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[part] : undefined), messages);
}

describe('share links: the scenario in `s`', () => {
  it('gives back every text it encodes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 400 }), async (text) => {
        const decoded = await decodeScenario(await encodeScenario(text));
        expect(decoded).toEqual({ ok: true, text });
      }),
      { numRuns: 200 },
    );
  });

  it('fits every preset but the large one in a link', async () => {
    for (const id of PRESET_IDS) {
      const text = await presetText(id);
      const encoded = await encodeScenario(text);
      expect(fitsInLink(encoded), id).toBe(id !== 'large' || encoded.length <= MAX_LINK_CHARS);
      expect(await decodeScenario(encoded)).toEqual({ ok: true, text });
    }
  });

  it('keeps opening the links of every released version exactly as they were made', async () => {
    expect(fixtures.length).toBeGreaterThan(0);
    // The link format carries the text of every scenario format; fixtures hold one of each.
    expect(new Set(fixtures.map((f) => f.text.split('\n')[0]))).toEqual(new Set(['slabscope-scenario 1', 'slabscope-scenario 2', 'slabscope-scenario 3']));
    for (const f of fixtures) {
      const params = new URLSearchParams(f.query);
      expect(await decodeScenario(params.get(LINK_PARAM) ?? ''), f.query).toEqual({ ok: true, text: f.text });
      expect(parseUrlState(params)).toEqual(f.state);
    }
  });

  it('names the version of a link from a newer build instead of guessing', async () => {
    const encoded = await encodeScenario('slabscope-scenario 1\n');
    expect(await decodeScenario(`2${encoded.slice(1)}`)).toEqual({ ok: false, error: { key: 'link.version', args: { version: 2, known: '1' } } });
    expect(await decodeScenario(`999999999999.${encoded.slice(2)}`)).toMatchObject({ ok: false, error: { key: 'link.encoding' } });
  });

  it('stops inflating a small link that would expand past the scenario limit', async () => {
    const bomb = await encodeScenario('a'.repeat(MAX_SCENARIO_BYTES + 1));
    expect(bomb.length).toBeLessThan(MAX_LINK_CHARS);
    expect(await decodeScenario(bomb)).toEqual({ ok: false, error: { key: 'link.tooLarge', args: { max: MAX_SCENARIO_BYTES } } });
  });

  it('refuses text that is not UTF-8 and payloads that are too long', async () => {
    const packed = await encodeScenario('x');
    // Raw DEFLATE of the two bytes 0xff 0xfe: a stored block.
    const notUtf8 = `1.${btoa(String.fromCharCode(1, 2, 0, 0xfd, 0xff, 0xff, 0xfe)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')}`;
    expect(await decodeScenario(notUtf8)).toMatchObject({ ok: false, error: { key: 'link.text' } });
    expect(await decodeScenario(`${packed}${'A'.repeat(MAX_LINK_CHARS + 100)}`)).toMatchObject({ ok: false, error: { key: 'link.tooLong' } });
  });

  it('answers 1,000 mangled links with the text or a message in both languages, never a throw or a hang', async () => {
    const base = await Promise.all(PRESET_IDS.filter((id) => id !== 'large').map(async (id) => encodeScenario(await presetText(id))));
    const mutation = fc.oneof(
      // truncation
      fc.record({ kind: fc.constant('cut'), at: fc.nat() }),
      // a flipped bit in one character
      fc.record({ kind: fc.constant('flip'), at: fc.nat(), bit: fc.integer({ min: 0, max: 15 }) }),
      // another version, small or huge
      fc.record({ kind: fc.constant('version'), version: fc.oneof(fc.nat({ max: 20 }), fc.bigInt({ min: 10n ** 6n, max: 10n ** 40n })) }),
      // text spliced in: script, HTML, percent escapes, huge numbers, nothing
      fc.record({
        kind: fc.constant('splice'),
        at: fc.nat(),
        text: fc.oneof(
          fc.constantFrom('<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '%00%ff', '\u0000', '..', '.', '9'.repeat(400), '=', '+/'),
          fc.string({ maxLength: 40 }),
        ),
      }),
      // repeated payload
      fc.record({ kind: fc.constant('repeat'), times: fc.integer({ min: 2, max: 40 }) }),
    );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: base.length - 1 }), mutation, async (which, m) => {
        const link = base[which];
        let value: string;
        switch (m.kind) {
          case 'cut':
            value = link.slice(0, m.at % link.length);
            break;
          case 'flip': {
            const i = m.at % link.length;
            value = link.slice(0, i) + String.fromCharCode(link.charCodeAt(i) ^ (1 << m.bit)) + link.slice(i + 1);
            break;
          }
          case 'version':
            value = `${m.version}${link.slice(link.indexOf('.'))}`;
            break;
          case 'splice': {
            const i = m.at % (link.length + 1);
            value = link.slice(0, i) + m.text + link.slice(i);
            break;
          }
          case 'repeat':
            value = link.repeat(m.times);
            break;
        }
        const decoded = await Promise.race([
          decodeScenario(value),
          new Promise<'hang'>((resolve) => setTimeout(() => resolve('hang'), 2000)),
        ]);
        expect(decoded).not.toBe('hang');
        if (decoded === 'hang') return;
        answered++;
        if (decoded.ok) {
          expect(typeof decoded.text).toBe('string');
        } else {
          expect(ERROR_KEYS).toContain(decoded.error.key);
        }
      }),
      { numRuns: 1200 },
    );
    expect(answered).toBeGreaterThanOrEqual(1000);
  });

  it('has a message for every refusal in English and Korean', () => {
    for (const key of ERROR_KEYS) {
      expect(typeof lookup(en, key), key).toBe('string');
      expect(typeof lookup(ko, key), key).toBe('string');
    }
  });
});
