// The drawing vocabulary the structure views share (CPU panel, node panel, bulk free): a scene
// carries, beside its structured parts for the text alternative, a flat list of positioned
// marks — boxes, texts, lines, locks — each with a stable id, which `drawMarks` joins by key.
//
// Rules:
// - Ids are stable across snapshots and name the kernel thing they draw (`slab-1028`,
//   `cpu-1-fl-0xffff…`), so a slab that moves from a partial list to `c->slab` keeps its id and
//   slides instead of being redrawn. Within one scene an id is unique.
// - Labels are i18n keys with arguments (`{ key, args }`) or literal text (`{ text }`: addresses,
//   kernel identifiers). Views never hold language; the caller translates with its own `t`.
// - Every list a view draws is capped (`capList`) so drawing stays bounded per frame; the scene
//   says how many items it left out, and both the SVG and the text alternative say "+N more".

import { markStroke } from './palette';

/** A label: an i18n key with its arguments, or literal text (addresses, kernel names). */
export type Label = { key: string; args?: Record<string, string | number> } | { text: string };

/** What the caller passes to translate labels (i18next's `t` fits). */
export type Translate = (key: string, args?: Record<string, string | number>) => string;

export function label(key: string, args?: Record<string, string | number>): Label {
  return args ? { key, args } : { key };
}

export function literal(text: string): Label {
  return { text };
}

export function labelText(l: Label, t: Translate): string {
  return 'text' in l ? l.text : t(l.key, l.args);
}

/** What activating a mark means: show a slab, or follow an object. */
export type Target = { kind: 'slab'; pfn: number } | { kind: 'object'; addr: string };

export interface BoxMark {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** For CSS: `object`, `slab`, `entry`, `cell`, `bar`, `frame`. */
  kind: string;
  /** A colour or `url(#pattern)` from palette.ts. */
  fill: string;
  stroke: string;
  strokeWidth: number;
  /** `stroke-dasharray`, or '' for a solid outline (frozen slabs are dashed). */
  dash: string;
  /** 0..1: the part filled from the left (slab fullness, array level, in palette.ts's
   * `levelFill`); null for none. */
  level: number | null;
  /** A glyph drawn at the box's right end so state is never told by colour alone. */
  glyph: string;
  /** The step touched it: drawn with the palette's highlight outline. */
  highlight: boolean;
  target: Target | null;
}

export interface TextMark {
  id: string;
  x: number;
  y: number;
  label: Label;
  anchor: 'start' | 'middle' | 'end';
  /** For CSS: `title`, `label`, `value`, `mono`, `note`, `more`, `word` (what a micro-step did
   * to a shared word: small, and always with `emphasis`). */
  role: string;
  /** Drawn bold and in the highlight colour (a lit list_lock, a touched count). */
  emphasis?: boolean;
}

export interface LineMark {
  id: string;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  /** `arrow` (with a head), `marker` (a limit, drawn thick), `bracket` (a span). */
  kind: 'arrow' | 'marker' | 'bracket';
}

/** A padlock: `n->list_lock`, lit when the step took it. */
export interface LockMark {
  id: string;
  x: number;
  y: number;
  lit: boolean;
}

export interface Marks {
  width: number;
  height: number;
  boxes: BoxMark[];
  texts: TextMark[];
  lines: LineMark[];
  locks: LockMark[];
}

/**
 * A box as most are drawn: white, a thin solid outline, no level, glyph, halo or target.
 * `fields` gives its place and kind and whatever differs.
 */
export function boxMark(fields: Pick<BoxMark, 'id' | 'x' | 'y' | 'w' | 'h' | 'kind'> & Partial<BoxMark>): BoxMark {
  return {
    fill: '#ffffff',
    stroke: markStroke,
    strokeWidth: 1,
    dash: '',
    level: null,
    glyph: '',
    highlight: false,
    target: null,
    ...fields,
  };
}

export function emptyMarks(): Marks {
  return { width: 0, height: 0, boxes: [], texts: [], lines: [], locks: [] };
}

/** A list cut to `max` items: `shown` in order, `more` left out. */
export interface Capped<T> {
  shown: T[];
  more: number;
}

/** Keeps the first `max` items (or the last, for stacks whose top is at the end). */
export function capList<T>(items: readonly T[], max: number, keep: 'first' | 'last' = 'first'): Capped<T> {
  if (items.length <= max) return { shown: [...items], more: 0 };
  const shown = keep === 'first' ? items.slice(0, max) : items.slice(items.length - max);
  return { shown, more: items.length - max };
}

/** The low digits of an address, for boxes too small for all sixteen. */
export function shortAddr(addr: string, digits = 5): string {
  const hex = addr.startsWith('0x') ? addr.slice(2) : addr;
  return hex.length <= digits ? `0x${hex}` : `…${hex.slice(-digits)}`;
}

/** SLAB's shared and alien arrays carry this batchcount (mm/slab.c, v6.6: `alloc_arraycache`
 * callers pass 0xbaadf00d: those arrays are never refilled in batches). */
export const BAADF00D = 0xbaadf00d;

export function batchcountText(batchcount: number): string {
  return batchcount === BAADF00D ? '0xbaadf00d' : String(batchcount);
}
