// The page's address: the one module that reads or writes the URL's query and the browser's
// history. What it says:
//   page=lessons|geometry|interleavings   the page (none: the visualizer)
//   lesson=<id>                  the lesson open on the lessons page
//   seed=<n>                     a student's seed for exercise variants (lessons/variant.ts)
//   embed=1                      the minimal player (or one lesson) for an iframe
//   s=1.…                        a share link's scenario (scenario/link.ts)
//   preset=<id>                  a preset scenario
//   src=saved                    the run saved in this browser (a scenario too long for a link)
// and the visualizer's place, so a link opens where its sender stood:
//   step=120                     the cursor
//   lang=ko                      the language (i18n/i18n.ts LANGUAGES)
//   view=slab                    the panel in focus (VIEWS)
//   cache=kmalloc-64             the cache in focus
//   follow=obj:0xffff888000001000 | follow=page:1234   the object or page frame being followed
//
// Rules:
//  - A query comes from anyone: parsing never throws, and a value that is not well formed is
//    dropped as if absent (the rest of the query still counts). Nothing read here is ever
//    rendered as HTML.
//  - Parameters this module does not own (the scenario, ...) are kept byte for byte, in their
//    order, when formatting; ours follow them in the fixed order of URL_KEYS.
//  - Formatting then parsing gives back the same state (urlState.test.ts checks).
//  - The player's address is derived from its state (`playerAddress`); nothing else writes it.

import { LANGUAGES, type Language } from '../i18n/i18n';
import { LINK_PARAM } from '../scenario/link';

/** The panels a link can put in focus. */
export const VIEWS = ['cpu', 'node', 'slab', 'bulk', 'buddy', 'files', 'explain', 'lanes', 'sheaves'] as const;
export type View = (typeof VIEWS)[number];

/** The object (by address) or page frame (by page frame number) being followed. */
export type Follow = { kind: 'obj'; address: string } | { kind: 'page'; pfn: number };

export interface UrlState {
  step?: number;
  lang?: Language;
  view?: View;
  cache?: string;
  follow?: Follow;
}

/** The parameters this module owns, in the order `formatUrlState` writes them. */
export const URL_KEYS = ['step', 'view', 'cache', 'follow', 'lang'] as const;

/** Cursors are far below this; more digits than it has are not a step. */
const MAX_STEP_DIGITS = 12;
/** Longest cache name accepted (the kernel's own names are far shorter). */
export const MAX_CACHE_NAME = 64;
/**
 * A cache name as the scenario format spells it (wasm-core/scenario/src/lex.rs, `Word`): a
 * letter or `_`, then letters, digits, `_`, `-`, and `.` not followed by another `.`.
 */
const CACHE_NAME = /^[\p{Alphabetic}_](?:[\p{Alphabetic}\p{N}_-]|\.(?!\.))*$/u;
/** A kernel virtual address: 0x and 1 to 16 hex digits (stored in lower case). */
const ADDRESS = /^0x[0-9a-f]{1,16}$/i;
const PFN = /^[0-9]{1,12}$/;

/** Reads our parameters from a query string (`?a=b&c=d` or `a=b&c=d`) or a URLSearchParams. */
export function parseUrlState(query: string | URLSearchParams): UrlState {
  const params = typeof query === 'string' ? new URLSearchParams(query) : query;
  const state: UrlState = {};
  const step = parseStep(params.get('step'));
  if (step !== undefined) state.step = step;
  const lang = params.get('lang');
  if (lang !== null && (LANGUAGES as readonly string[]).includes(lang)) state.lang = lang as Language;
  const view = params.get('view');
  if (view !== null && (VIEWS as readonly string[]).includes(view)) state.view = view as View;
  const cache = params.get('cache');
  if (cache !== null && isCacheName(cache)) state.cache = cache;
  const follow = parseFollow(params.get('follow'));
  if (follow !== undefined) state.follow = follow;
  return state;
}

/**
 * Writes `state` into the query `base` (default empty): our parameters are replaced or removed,
 * every other parameter is kept as it was written. Values that would not parse back are left
 * out. Returns `?...`, or '' when nothing is left.
 */
export function formatUrlState(state: UrlState, base = ''): string {
  const raw = base.startsWith('?') ? base.slice(1) : base;
  const kept = raw.split('&').filter((part) => part !== '' && !isOurs(part));
  const ours: string[] = [];
  for (const key of URL_KEYS) {
    const value = formatValue(state, key);
    if (value !== undefined) ours.push(`${key}=${encodeValue(value)}`);
  }
  const all = [...kept, ...ours];
  return all.length > 0 ? `?${all.join('&')}` : '';
}

export function isCacheName(text: string): boolean {
  return text.length <= MAX_CACHE_NAME && CACHE_NAME.test(text);
}

export function parseFollow(text: string | null): Follow | undefined {
  const colon = text === null ? -1 : text.indexOf(':');
  if (text === null || colon < 0) return undefined;
  const kind = text.slice(0, colon);
  const value = text.slice(colon + 1);
  if (kind === 'obj' && ADDRESS.test(value)) return { kind: 'obj', address: value.toLowerCase() };
  if (kind === 'page' && PFN.test(value)) return { kind: 'page', pfn: Number(value) };
  return undefined;
}

export function formatFollow(follow: Follow): string {
  return follow.kind === 'obj' ? `obj:${follow.address}` : `page:${follow.pfn}`;
}

function parseStep(text: string | null): number | undefined {
  if (text === null || text.length === 0 || text.length > MAX_STEP_DIGITS || !/^[0-9]+$/.test(text)) return undefined;
  return Number(text);
}

/** The value of `key` to write, or undefined when absent or not one that parses back. */
function formatValue(state: UrlState, key: (typeof URL_KEYS)[number]): string | undefined {
  switch (key) {
    case 'step':
      return state.step === undefined ? undefined : keepIf(String(state.step), (s) => parseStep(s) === state.step);
    case 'lang':
      return state.lang !== undefined && (LANGUAGES as readonly string[]).includes(state.lang) ? state.lang : undefined;
    case 'view':
      return state.view !== undefined && (VIEWS as readonly string[]).includes(state.view) ? state.view : undefined;
    case 'cache':
      return state.cache !== undefined && isCacheName(state.cache) ? state.cache : undefined;
    case 'follow':
      return state.follow === undefined ? undefined : keepIf(formatFollow(state.follow), (s) => parseFollow(s) !== undefined);
  }
}

function keepIf(text: string, ok: (text: string) => boolean): string | undefined {
  return ok(text) ? text : undefined;
}

/** Whether a raw `key=value` part names one of our parameters (as URLSearchParams reads it). */
function isOurs(part: string): boolean {
  const eq = part.indexOf('=');
  const rawKey = eq < 0 ? part : part.slice(0, eq);
  // URLSearchParams decodes malformed escapes leniently; so does this, by keeping them as text.
  const key = new URLSearchParams(`${rawKey}=`).keys().next().value;
  return (URL_KEYS as readonly string[]).includes(key ?? '');
}

/** Percent-encodes a value, leaving `:` readable (it needs no escape in a query). */
function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':');
}

// ---- The scenario a query names (scenario/opening.ts decides what to open from it) ----

/** The query value of `src` that names the saved run. */
export const SAVED_SOURCE = 'saved';

export interface ScenarioQuery {
  /** A share link's `s` value. */
  link: string | null;
  preset: string | null;
  src: string | null;
}

export function parseScenarioQuery(query: string): ScenarioQuery {
  const params = new URLSearchParams(query);
  return { link: params.get(LINK_PARAM), preset: params.get('preset'), src: params.get('src') };
}

/**
 * How the address names the scenario shown: a preset by its id; another scenario by its `s`
 * value when it fits in a link (`link`), else as the saved run (`link` null). `link` undefined:
 * not known yet, and the query's scenario is left as it is.
 */
export type ScenarioRef = { preset: string } | { preset: null; link: string | null | undefined };

function writeScenario(params: URLSearchParams, ref: ScenarioRef): void {
  if (ref.preset !== null) {
    params.set('preset', ref.preset);
    params.delete(LINK_PARAM);
    params.delete('src');
    return;
  }
  if (ref.link === undefined) return;
  params.delete('preset');
  if (ref.link === null) {
    params.delete(LINK_PARAM);
    params.set('src', SAVED_SOURCE);
  } else {
    params.set(LINK_PARAM, ref.link);
    params.delete('src');
  }
}

/** The player's address: `href` with the player's place and scenario in its query. */
export function playerAddress(href: string, state: UrlState, scenario: ScenarioRef | null): string {
  const url = new URL(href);
  url.search = formatUrlState(state, url.search);
  if (scenario) writeScenario(url.searchParams, scenario);
  return url.toString();
}

// ---- The page, the lesson, the seed, the embed ----

export const PAGES = ['visualizer', 'lessons', 'geometry', 'interleavings', 'live', 'compare'] as const;
export type Page = (typeof PAGES)[number];

export interface PageQuery {
  page: Page;
  lesson: string | null;
  /** The seed as written (lessons/variant.ts `parseSeed` reads it). */
  seed: string | null;
  embed: boolean;
  lang: Language;
}

export function parsePageQuery(query: string): PageQuery {
  const params = new URLSearchParams(query);
  const page = params.get('page');
  return {
    page: page !== null && (PAGES as readonly string[]).includes(page) ? (page as Page) : 'visualizer',
    lesson: params.get('lesson'),
    seed: params.get('seed'),
    embed: params.get('embed') === '1',
    lang: parseUrlState(params).lang ?? 'en',
  };
}

/** `href` showing `page` (and, on the lessons page, `lesson`; null: the index). */
export function pageAddress(href: string, page: Page, lesson: string | null = null): string {
  const url = new URL(href);
  if (page === 'visualizer') url.searchParams.delete('page');
  else url.searchParams.set('page', page);
  if (page === 'lessons' && lesson !== null) url.searchParams.set('lesson', lesson);
  else url.searchParams.delete('lesson');
  return url.toString();
}

/** `href` showing the visualizer at the start of `scenario`, a link's `s` value or the saved
 *  run (`link` null): the player's place of `href` dropped, its language and every parameter
 *  this module does not own kept. The person's draft is the opener's to keep (scenario/store.ts). */
export function scenarioAddress(href: string, scenario: { preset: null; link: string | null }): string {
  const url = new URL(pageAddress(href, 'visualizer'));
  const { lang } = parseUrlState(url.searchParams);
  return playerAddress(url.toString(), lang ? { lang } : {}, scenario);
}

/** The split view's place: the two ways the scenario runs (`linux-7.2/slub`) and the operation
 *  both sides have done (0: none yet). */
export interface CompareQuery {
  a: string | null;
  b: string | null;
  op: number;
}

export function parseCompareQuery(query: string): CompareQuery {
  const params = new URLSearchParams(query);
  const op = Number(params.get('op'));
  return { a: params.get('a'), b: params.get('b'), op: Number.isInteger(op) && op >= 0 ? op : 0 };
}

/** `href` showing the split view of `scenario` run as `a` and `b`, after `op` operations; the
 *  scenario is a preset, a link's or the saved run, or a lesson's own (`{ lesson }`). */
export function compareAddress(href: string, scenario: ScenarioRef | { lesson: string }, place: { a: string; b: string; op: number }): string {
  const url = new URL(pageAddress(href, 'compare'));
  for (const k of ['step', 'cache', 'follow', 'view', 'op']) url.searchParams.delete(k);
  if ('lesson' in scenario) url.searchParams.set('lesson', scenario.lesson);
  else writeScenario(url.searchParams, scenario);
  url.searchParams.set('a', place.a);
  url.searchParams.set('b', place.b);
  if (place.op > 0) url.searchParams.set('op', String(place.op));
  return url.toString();
}

/** `href` in language `lang`, the rest kept. */
export function languageAddress(href: string, lang: Language): string {
  const url = new URL(href);
  url.searchParams.set('lang', lang);
  return url.toString();
}

/** This page as a full Slabscope page: the same state, without `embed`. */
export function fullPageUrl(href: string): string {
  const url = new URL(href);
  url.searchParams.delete('embed');
  return url.toString();
}

/** A relative link to a lesson (null: the lessons index). */
export function lessonHref(id: string | null): string {
  return id === null ? '?page=lessons' : `?page=lessons&lesson=${encodeURIComponent(id)}`;
}

/** A whole address handing a student `seed` on the lessons page of the site at `href`. */
export function seedLink(href: string, seed: number): string {
  const url = new URL(href);
  return `${url.origin}${url.pathname}?page=lessons&seed=${seed}`;
}

// ---- The browser's address bar and history ----

/** The query of the page's address (`?…` or ''). */
export function currentQuery(): string {
  return window.location.search;
}

export function currentHref(): string {
  return window.location.href;
}

/** Replaces the address without a history entry (the player's place as it moves). */
export function replaceAddress(href: string): void {
  if (href !== window.location.href) window.history.replaceState(null, '', href);
}

/** Goes to another page of the app: a history entry, so Back returns. */
export function pushAddress(href: string): void {
  window.history.pushState(null, '', href);
}
