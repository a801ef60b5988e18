import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../i18n/i18n';
import type { RunOutline } from '../core/client';
import { initialPlayer, playerActions, playerReducer } from '../player/playerState';
import { addressOf } from '../player/usePlayerAddress';
import links from '../scenario/fixtures/links.json';
import { openingScenario } from '../scenario/opening';
import type { Saved } from '../scenario/store';
import {
  MAX_CACHE_NAME,
  VIEWS,
  formatUrlState,
  fullPageUrl,
  isCacheName,
  languageAddress,
  lessonHref,
  pageAddress,
  scenarioAddress,
  parsePageQuery,
  parseScenarioQuery,
  parseUrlState,
  seedLink,
  type UrlState,
} from './urlState';

describe('parseUrlState', () => {
  it('reads every parameter', () => {
    expect(parseUrlState('?step=120&lang=ko&view=slab&cache=kmalloc-64&follow=obj:0xffff888000001000')).toEqual({
      step: 120,
      lang: 'ko',
      view: 'slab',
      cache: 'kmalloc-64',
      follow: { kind: 'obj', address: '0xffff888000001000' },
    });
    expect(parseUrlState('follow=page:1234').follow).toEqual({ kind: 'page', pfn: 1234 });
    expect(parseUrlState(new URLSearchParams('view=buddy')).view).toBe('buddy');
  });

  it('reads escaped values and normalises addresses to lower case', () => {
    expect(parseUrlState('?follow=obj%3A0xFFFF8880').follow).toEqual({ kind: 'obj', address: '0xffff8880' });
    expect(parseUrlState('?cache=%EC%BA%90%EC%8B%9C_1').cache).toBe('캐시_1');
  });

  it('drops bad values and keeps the good ones', () => {
    const bad = [
      'step=-1',
      'step=1.5',
      'step=1e3',
      'step=',
      'step=0x10',
      `step=${'9'.repeat(13)}`,
      'lang=fr',
      'lang=KO',
      'view=heap',
      'view=',
      'cache=',
      'cache=1abc',
      'cache=a..b',
      'cache=a%20b',
      'cache=<script>',
      `cache=a${'b'.repeat(MAX_CACHE_NAME)}`,
      'follow=obj:',
      'follow=obj:ffff',
      'follow=obj:0x',
      'follow=obj:0x12345678901234567',
      'follow=obj:0xgg',
      'follow=page:-3',
      'follow=page:1.5',
      'follow=slab:3',
      'follow=page',
      'follow=%E0%A4%A',
    ];
    for (const q of bad) expect(parseUrlState(`?${q}`), q).toEqual({});
    expect(parseUrlState('?step=x&view=cpu&lang=fr&cache=kmalloc-8&follow=page:')).toEqual({ view: 'cpu', cache: 'kmalloc-8' });
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.string(), (q) => {
        parseUrlState(q);
        formatUrlState(parseUrlState(q), q);
      }),
    );
  });

  it('accepts the kernel’s cache names', () => {
    for (const name of ['kmalloc-64', 'kmalloc-rcl-192', 'dma-kmalloc-8', 'kmalloc-cg-1k', 'task_struct', 'ext4_inode_cache', 'UDPv6', 'names_cache', 'ip6-frags', '_x.y']) {
      expect(isCacheName(name), name).toBe(true);
    }
  });
});

describe('formatUrlState', () => {
  it('writes our parameters in a fixed order with readable follows', () => {
    expect(formatUrlState({ lang: 'ko', follow: { kind: 'obj', address: '0xffff888000001000' }, step: 5, view: 'slab', cache: 'kmalloc-64' })).toBe(
      '?step=5&view=slab&cache=kmalloc-64&follow=obj:0xffff888000001000&lang=ko',
    );
    expect(formatUrlState({})).toBe('');
  });

  it('keeps unknown parameters exactly as written, and replaces or removes ours', () => {
    const base = '?s=eJz%2Bab+c&step=9&x&view=cpu&empty=&a=%E0%A4%A&step=10';
    expect(formatUrlState({ step: 3 }, base)).toBe('?s=eJz%2Bab+c&x&empty=&a=%E0%A4%A&step=3');
    expect(formatUrlState({}, base)).toBe('?s=eJz%2Bab+c&x&empty=&a=%E0%A4%A');
    expect(formatUrlState({ view: 'files' }, 'lang=ko')).toBe('?view=files');
  });

  it('recognises our parameters however their names are escaped', () => {
    expect(formatUrlState({}, '?st%65p=4&%76iew=cpu&keep=1')).toBe('?keep=1');
  });

  it('leaves out values that would not parse back', () => {
    expect(formatUrlState({ step: -1 })).toBe('');
    expect(formatUrlState({ step: 2.5 })).toBe('');
    expect(formatUrlState({ cache: 'a b' })).toBe('');
    expect(formatUrlState({ view: 'heap' as never, lang: 'fr' as never })).toBe('');
    expect(formatUrlState({ follow: { kind: 'obj', address: 'nowhere' } })).toBe('');
    expect(formatUrlState({ follow: { kind: 'page', pfn: -1 } })).toBe('');
  });

  it('round-trips any valid state, beside any other parameters', () => {
    const stateArb: fc.Arbitrary<UrlState> = fc.record(
      {
        step: fc.nat({ max: 1e9 }),
        lang: fc.constantFrom(...LANGUAGES),
        view: fc.constantFrom(...VIEWS),
        cache: fc.stringMatching(/^[a-z_][a-z0-9_-]{0,30}$/),
        follow: fc.oneof(
          fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((a) => ({ kind: 'obj' as const, address: `0x${a.toString(16)}` })),
          fc.nat({ max: 1e9 }).map((pfn) => ({ kind: 'page' as const, pfn })),
        ),
      },
      { requiredKeys: [] },
    );
    const otherArb = fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,4}$/), fc.string()), { maxLength: 4 }).map((pairs) =>
      pairs.filter(([k]) => !['step', 'lang', 'view', 'cache', 'follow'].includes(k)),
    );
    fc.assert(
      fc.property(stateArb, otherArb, (state, others) => {
        const base = new URLSearchParams(others).toString();
        const query = formatUrlState(state, base);
        expect(parseUrlState(query)).toEqual(state);
        const params = new URLSearchParams(query);
        for (const [k, v] of others) expect(params.getAll(k)).toContain(v);
        expect(formatUrlState(parseUrlState(query), query)).toBe(query);
      }),
    );
  });
});

describe('the player derived from its address and back', () => {
  /** A run long enough for every fixture's step. */
  const outline = { steps: 1000, ops: [{ end: 1000, text: '' }], ops_start: 0, allocator: 'Slub', cpus: 2, nodes: 1, prints: [], blocks: [] } as unknown as RunOutline;
  const nothingSaved: Saved = { draft: null, typed: true, earlier: [], opened: [], run: null };

  it('opens every link fixture where its sender stood, and writes the same link back', async () => {
    for (const f of links) {
      const start = parseUrlState(f.query);
      const opening = await openingScenario(parseScenarioQuery(f.query), nothingSaved);
      expect(opening, f.query).toMatchObject({ from: 'link', text: f.text, linkError: null });
      let state = playerReducer(initialPlayer(start), playerActions.opening({ text: opening.text, preset: opening.preset }, opening.step, null));
      state = playerReducer(state, playerActions.runOpened(state.attempts, outline));
      const expected = f.state as UrlState;
      expect(state.timeline.cursor).toBe(expected.step);
      expect({ view: state.view ?? undefined, cache: state.cache ?? undefined, follow: state.follow ?? undefined }).toEqual({
        view: expected.view,
        cache: expected.cache,
        follow: expected.follow,
      });
      // Written back with the link's own `s` value, the address says the same.
      const s = new URLSearchParams(f.query).get('s') ?? '';
      state = playerReducer(state, playerActions.encoded(f.text, s));
      const written = new URL(addressOf(`https://slabscope.example/${f.query}`, state, expected.lang ?? 'en'));
      expect(written.searchParams.get('s')).toBe(s);
      expect(parseUrlState(written.search)).toEqual({ ...expected, lang: expected.lang ?? 'en' });
    }
  });

  it('names a preset by its id and a scenario too long for a link as the saved run', () => {
    const href = 'https://slabscope.example/?s=1.old&lang=ko';
    let state = playerReducer(initialPlayer(), playerActions.opening({ text: 'x', preset: 'bulk-free' }, undefined, null));
    expect(new URL(addressOf(href, state, 'ko')).search).toBe('?step=0&lang=ko&preset=bulk-free');
    state = playerReducer(initialPlayer(), playerActions.opening({ text: 'long', preset: null }, undefined, null));
    // Not encoded yet: the query's scenario is left as it is.
    expect(new URL(addressOf(href, state, 'ko')).searchParams.get('s')).toBe('1.old');
    state = playerReducer(state, playerActions.encoded('long', null));
    expect(new URL(addressOf(href, state, 'ko')).search).toBe('?step=0&lang=ko&src=saved');
  });

  it('reads the page, lesson, seed, embed and language, and writes pages', () => {
    expect(parsePageQuery('?page=lessons&lesson=04-fast-path-tid&seed=12&embed=1&lang=ko')).toEqual({
      page: 'lessons',
      lesson: '04-fast-path-tid',
      seed: '12',
      embed: true,
      lang: 'ko',
    });
    expect(parsePageQuery('?page=admin&lang=xx')).toEqual({ page: 'visualizer', lesson: null, seed: null, embed: false, lang: 'en' });
    expect(parsePageQuery('')).toMatchObject({ lang: 'en', embed: false });
    expect(pageAddress('https://x.example/?page=lessons&lesson=a&lang=ko', 'visualizer')).toBe('https://x.example/?lang=ko');
    expect(pageAddress('https://x.example/?lang=ko', 'lessons', '05 slow')).toBe('https://x.example/?lang=ko&page=lessons&lesson=05+slow');
    expect(fullPageUrl('https://x.example/?embed=1&preset=a&step=3')).toBe('https://x.example/?preset=a&step=3');
    expect(languageAddress('https://x.example/?step=3&lang=en', 'ko')).toBe('https://x.example/?step=3&lang=ko');
    expect(lessonHref('a b')).toBe('?page=lessons&lesson=a%20b');
    expect(parsePageQuery('?page=interleavings').page).toBe('interleavings');
    expect(pageAddress('https://x.example/?lang=ko', 'interleavings')).toBe('https://x.example/?lang=ko&page=interleavings');
    expect(seedLink('https://x.example/app/?page=lessons&lesson=a', 7)).toBe('https://x.example/app/?page=lessons&seed=7');
  });

  it('opens a scenario in the visualizer at its start, keeping the language and what is not ours', () => {
    const href = 'https://x.example/app/?page=interleavings&lang=ko&step=40&view=slab&preset=bulk-free&utm=x';
    expect(scenarioAddress(href, { preset: null, link: '1.abc' })).toBe('https://x.example/app/?utm=x&lang=ko&s=1.abc');
    expect(scenarioAddress('https://x.example/?page=interleavings&s=1.old', { preset: null, link: null })).toBe('https://x.example/?src=saved');
  });
});
