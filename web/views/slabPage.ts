// Layout of the slab page view: one snapshot in, a scene out. No DOM, no React, no wasm.
//
// The scene shows `cache.slab` (the slab the snapshot shows slot by slot) and a strip of every
// slab of the cache to pick another one.
//
// Rules:
// - A slot's id is its object address, a bar's id its first pfn, an arrow's id the address of
//   the free object it starts from: keyed joins then move what moved and nothing else.
// - Slots are in address order (index order), left to right, row by row.
// - Free pointers are the decoded ones (`next`); a hardened cache's stored word rides along
//   (`stored`) for the tooltip and the table, never as the arrow's target.
// - Element counts are bounded (MAX_SLOTS, MAX_BARS): the drawing stays cheap when played.
// - Marks show steps 1-based (the cursor after the step), ops as `#op+1`, as the timeline does.
// - The shared words a micro-step of a concurrent block touched (`options.words`, from
//   sharedWords.ts) are marked where this view shows them: the shown slab's `slab->freelist`
//   (its head and header) and `slab->counters` (the header), a slab's words on its bar of the
//   strip, and an object's free pointer on its slot (outlined, with a head saying who read or
//   wrote it). A slab's words are the cache's when the slab is; an object's when its slot is.

import type { CacheView } from '../core/generated/CacheView';
import type { Mark } from '../core/generated/Mark';
import type { SlabBrief } from '../core/generated/SlabBrief';
import type { SlabPlace } from '../core/generated/SlabPlace';
import type { SlabView } from '../core/generated/SlabView';
import type { SlotState } from '../core/generated/SlotState';
import type { Snapshot } from '../core/generated/Snapshot';
import { slotStyle, type SlotKind } from './palette';
import { findWord, type SharedWord } from './sharedWords';

/** Slots drawn and listed at most (a slab of 8-byte objects on 64K pages has thousands). */
export const MAX_SLOTS = 1024;
/** Slabs in the strip at most. */
export const MAX_BARS = 512;

export interface SlabPageOptions {
  /** Slots per row; by default chosen from the object count. */
  columns?: number;
  /** Side of a slot cell, in px. */
  cell?: number;
  /** Width available to the strip of slabs, in px. */
  stripWidth?: number;
  /** The shared words the step's micro-steps touched (`sharedWords(step)`). */
  words?: readonly SharedWord[];
}

/** Who allocated or freed an object, as shown. */
export interface MarkShown {
  /** `#op+1`, or null for a boot step. */
  op: number | null;
  /** 1-based: the cursor right after the step. */
  step: number;
  cpu: number;
}

export interface SlotCell {
  /** The object's address. */
  id: string;
  index: number;
  addr: string;
  kind: SlotKind;
  /** `cpu_freelist`: the CPU whose `c->freelist` holds it; `sheaf`: the CPU whose sheaf holds
   * it (null: the barn's or one a task holds). */
  cpu: number | null;
  x: number;
  y: number;
  size: number;
  fill: string;
  /** The glyph that tells the state without colour. */
  mark: string;
  /** Decoded free pointer: object index in this slab, or null (NULL or not a free object). */
  next: number | null;
  nextAddr: string | null;
  /** Hardened caches: the word as stored at `s->offset`. */
  stored: string | null;
  /** Position in the order free objects will be handed out (0: next out), from `free_order`. */
  freeRank: number | null;
  allocatedBy: MarkShown | null;
  freedBy: MarkShown | null;
  /** The step allocated or freed it. */
  highlighted: boolean;
  /** Its free pointer, read or written by the step's micro-step; null when untouched. */
  word: SharedWord | null;
}

/** A free pointer, from a free slot to the slot it points at (or to NULL: a ground symbol). */
export interface FreeArrow {
  /** `fp-` + the address of the free object holding the pointer. */
  id: string;
  from: number;
  /** Object index pointed at; null for NULL. */
  to: number | null;
  /** SVG path: a curve to the target, or a stem and ground symbol for NULL. */
  d: string;
  /** On c->freelist (true) or slab->freelist (false). */
  cpu: boolean;
  stored: string | null;
}

/** A list head (`slab->freelist`, a CPU's `c->freelist`) pointing into the slab. */
export interface FreelistHead {
  id: string;
  /** Kernel name, shown as is. */
  label: string;
  to: number;
  /** Where the label is anchored: the target cell's left edge, or its right edge in the right half. */
  x: number;
  anchor: 'start' | 'end';
  y: number;
  /** What the step's micro-step did to the word this head names, when it touched it. */
  word: SharedWord | null;
}

/** A bar of the strip: the slab's counters and where the bar is drawn. */
export interface SlabBar extends SlabBrief {
  /** `slab-` + first pfn. */
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Height of the in-use part, from the bottom. */
  inuseHeight: number;
  selected: boolean;
  highlighted: boolean;
  /** The slab's `freelist`/`counters`, read or cmpxchg'd by the step's micro-step; null when
   *  untouched. */
  word: SharedWord | null;
}

/** The shown slab's counters and list heads, printed above its slots. */
export interface SlabHeader extends SlabBrief {
  addr: string;
  /** SLUB `slab->freelist`; SLAB where the index array is. */
  freelist: string | null;
  /** SLAB only. */
  colourOff: number | null;
  freeOrder: number[];
  /** `c->freelist` heads into this slab: (cpu, address). */
  cpuFreelists: { cpu: number; head: string }[];
  /** Its words the step's micro-step touched, each null when untouched. */
  words: { freelist: SharedWord | null; counters: SharedWord | null };
}

export interface SlabPageScene {
  allocator: Snapshot['allocator'];
  cacheName: string | null;
  hardened: boolean;
  /** SLUB `s->random`, the hardening key. */
  random: string | null;
  /** Null: no slab to show (the message says why via `cacheName`). */
  header: SlabHeader | null;
  slots: SlotCell[];
  /** Slots left out beyond MAX_SLOTS. */
  slotsHidden: number;
  arrows: FreeArrow[];
  heads: FreelistHead[];
  width: number;
  height: number;
  strip: { bars: SlabBar[]; hidden: number; width: number; height: number };
}

const GAP = 6;
/** Room between rows for free-pointer curves and head labels. */
const ROW_GAP = 26;
const TOP = 30;
const BAR_W = 10;
const BAR_GAP = 3;
const BAR_H = 32;
const BAR_ROW = BAR_H + 6;

export function markShown(mark: Mark | null): MarkShown | null {
  return mark ? { op: mark.op === null ? null : mark.op + 1, step: mark.step + 1, cpu: mark.cpu } : null;
}

export function slotKind(state: SlotState): SlotKind {
  return state.kind;
}

/** Place kind and CPU, for a translation key `place.<kind>` with `{{cpu}}`. */
export function placeKey(place: SlabPlace): { kind: SlabPlace['kind']; cpu: number | null } {
  return { kind: place.kind, cpu: 'cpu' in place ? place.cpu : null };
}

function defaultColumns(objects: number): number {
  if (objects <= 16) return Math.max(1, objects);
  if (objects <= 64) return 16;
  return 32;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** The curve from slot `a` to slot `b` (cells of the same size), bulging into the row gap. */
function curve(a: SlotCell, b: SlotCell): string {
  const s = a.size;
  if (a.y === b.y) {
    const x1 = a.x + s * 0.65;
    const x2 = b.x + s * 0.35;
    const lift = Math.min(ROW_GAP - 6, 8 + Math.abs(x2 - x1) * 0.12);
    return `M${r1(x1)},${a.y}Q${r1((x1 + x2) / 2)},${r1(a.y - lift)} ${r1(x2)},${a.y}`;
  }
  // Another row: leave by the side facing it, arrive at the facing side of the target.
  const down = b.y > a.y;
  const x1 = a.x + s / 2;
  const y1 = down ? a.y + s : a.y;
  const x2 = b.x + s / 2;
  const y2 = down ? b.y : b.y + s;
  const bend = down ? ROW_GAP / 2 : -ROW_GAP / 2;
  return `M${r1(x1)},${r1(y1)}C${r1(x1)},${r1(y1 + bend)} ${r1(x2)},${r1(y2 - bend)} ${r1(x2)},${r1(y2)}`;
}

/** A stem down from the cell and the electrical ground symbol: NULL. */
function ground(a: SlotCell): string {
  const x = r1(a.x + a.size / 2);
  const y0 = a.y + a.size;
  const y1 = y0 + 8;
  return `M${x},${y0}V${y1}M${r1(x - 6)},${y1}H${r1(x + 6)}M${r1(x - 4)},${y1 + 3}H${r1(x + 4)}M${r1(x - 2)},${y1 + 6}H${r1(x + 2)}`;
}

function cpuHeads(cache: CacheView, pfn: number): { cpu: number; head: string }[] {
  const heads: { cpu: number; head: string }[] = [];
  for (const c of cache.cpus) {
    if (c.kind === 'slub' && c.slab === pfn && c.freelist.length > 0) heads.push({ cpu: c.cpu, head: c.freelist[0] });
  }
  return heads;
}

function layoutSlots(slab: SlabView, highlighted: Set<string>, columns: number, size: number, words?: readonly SharedWord[]): SlotCell[] {
  const rank = new Map<number, number>();
  slab.free_order.forEach((idx, i) => {
    if (!rank.has(idx)) rank.set(idx, i);
  });
  return slab.slots.slice(0, MAX_SLOTS).map((s) => {
    const kind = slotKind(s.state);
    const col = s.index % columns;
    const row = Math.floor(s.index / columns);
    return {
      id: s.addr,
      index: s.index,
      addr: s.addr,
      kind,
      cpu: s.state.kind === 'cpu_freelist' || s.state.kind === 'sheaf' ? s.state.cpu : null,
      x: col * (size + GAP),
      y: TOP + row * (size + ROW_GAP),
      size,
      fill: slotStyle[kind].fill,
      mark: slotStyle[kind].mark,
      next: s.next,
      nextAddr: s.next_addr,
      stored: s.stored,
      freeRank: rank.get(s.index) ?? null,
      allocatedBy: markShown(s.allocated_by),
      freedBy: markShown(s.freed_by),
      highlighted: highlighted.has(s.addr),
      word: findWord(words, 'freepointer', (w) => w.object === s.addr),
    };
  });
}

/** Free pointers of SLUB's free objects. SLAB keeps no pointer in the object: none. */
function layoutArrows(allocator: Snapshot['allocator'], slots: SlotCell[]): FreeArrow[] {
  if (allocator !== 'slub') return [];
  const byIndex = new Map(slots.map((c) => [c.index, c]));
  const arrows: FreeArrow[] = [];
  for (const c of slots) {
    if (c.kind !== 'free' && c.kind !== 'cpu_freelist') continue;
    const target = c.next === null ? undefined : byIndex.get(c.next);
    // A pointer to an object beyond MAX_SLOTS is left out rather than drawn to nowhere.
    if (c.next !== null && !target) continue;
    arrows.push({
      id: `fp-${c.addr}`,
      from: c.index,
      to: c.next,
      d: target ? curve(c, target) : ground(c),
      cpu: c.kind === 'cpu_freelist',
      stored: c.stored,
    });
  }
  return arrows;
}

function layoutStrip(cache: CacheView, selectedPfn: number | null, changed: Set<number>, width: number, words?: readonly SharedWord[]): SlabPageScene['strip'] {
  const perRow = Math.max(1, Math.floor((width + BAR_GAP) / (BAR_W + BAR_GAP)));
  const shown: SlabBrief[] = cache.slabs.slice(0, MAX_BARS);
  const bars = shown.map((b, i) => ({
    id: `slab-${b.pfn}`,
    ...b,
    x: (i % perRow) * (BAR_W + BAR_GAP) + 2,
    y: Math.floor(i / perRow) * BAR_ROW + 2,
    width: BAR_W,
    height: BAR_H,
    inuseHeight: b.objects > 0 ? r1((BAR_H * b.inuse) / b.objects) : 0,
    selected: b.pfn === selectedPfn,
    highlighted: changed.has(b.pfn),
    word: slabWord(words, 'slab->freelist', b.pfn) ?? slabWord(words, 'slab->counters', b.pfn),
  }));
  const rows = Math.max(1, Math.ceil(bars.length / perRow));
  return {
    bars,
    hidden: cache.slabs.length - bars.length,
    width: Math.min(perRow, Math.max(1, bars.length)) * (BAR_W + BAR_GAP) + 4,
    height: rows * BAR_ROW + 4,
  };
}

/** The step's micro-step's touch of slab `pfn`'s word `word`, or null. */
function slabWord(words: readonly SharedWord[] | undefined, word: 'slab->freelist' | 'slab->counters', pfn: number): SharedWord | null {
  return findWord(words, word, (w) => w.pfn === pfn);
}

/** The slab page scene of a snapshot. */
export function layoutSlabPage(snapshot: Snapshot, options: SlabPageOptions = {}): SlabPageScene {
  const cache = snapshot.cache;
  const slab = cache?.slab ?? null;
  const size = options.cell ?? 28;
  const changedSlabs = new Set(snapshot.transient.slabs);
  const strip = cache
    ? layoutStrip(cache, slab?.brief.pfn ?? null, changedSlabs, options.stripWidth ?? 640, options.words)
    : { bars: [], hidden: 0, width: 0, height: 0 };
  const base = {
    allocator: snapshot.allocator,
    cacheName: cache?.name ?? null,
    hardened: cache?.hardened ?? false,
    random: cache?.random ?? null,
  };
  // The strip goes last: the views' deep compare (useStable) stops at the first difference, and
  // a step changes the shown slab's header or slots far more often than it leaves them alone;
  // walking the strip's hundreds of bars first cost a large part of a frame while playing.
  if (!cache || !slab) {
    return { ...base, header: null, slots: [], slotsHidden: 0, arrows: [], heads: [], width: 0, height: 0, strip };
  }
  const columns = Math.max(1, options.columns ?? defaultColumns(slab.slots.length));
  const slots = layoutSlots(slab, new Set(snapshot.transient.objects), columns, size, options.words);
  const byAddr = new Map(slots.map((c) => [c.addr, c]));
  const cpuFreelists = cpuHeads(cache, slab.brief.pfn);

  const heads: FreelistHead[] = [];
  const gridWidth = Math.min(columns, Math.max(1, slots.length)) * (size + GAP);
  const addHead = (id: string, label: string, addr: string | null, word: SharedWord | null = null) => {
    const cell = addr ? byAddr.get(addr) : undefined;
    if (!cell) return;
    // Labels run away from the nearer edge so they are never cut off; a second one on the same
    // slot goes above the first.
    const end = cell.x + cell.size / 2 > gridWidth / 2;
    const above = heads.filter((h) => h.to === cell.index).length;
    heads.push({ id, label, to: cell.index, x: end ? cell.x + cell.size : cell.x, y: cell.y - 4 - 11 * above, anchor: end ? 'end' : 'start', word });
  };
  const pfn = slab.brief.pfn;
  const words = { freelist: slabWord(options.words, 'slab->freelist', pfn), counters: slabWord(options.words, 'slab->counters', pfn) };
  // SLAB's slab->freelist is the index array, not an object: no head arrow for it.
  if (snapshot.allocator === 'slub') addHead('head-slab', 'slab->freelist', slab.freelist, words.freelist);
  for (const h of cpuFreelists) addHead(`head-cpu-${h.cpu}`, `cpu${h.cpu} c->freelist`, h.head);
  for (const c of slots) if (c.word) addHead(`head-fp-${c.addr}`, 'freepointer', c.addr, c.word);

  const rows = Math.ceil(slots.length / columns);
  return {
    ...base,
    header: {
      ...slab.brief,
      addr: slab.addr,
      freelist: slab.freelist,
      colourOff: snapshot.allocator === 'slab' ? slab.colour_off : null,
      freeOrder: slab.free_order,
      cpuFreelists,
      words,
    },
    slots,
    slotsHidden: slab.slots.length - slots.length,
    arrows: layoutArrows(snapshot.allocator, slots),
    heads,
    width: gridWidth,
    height: TOP + rows * (size + ROW_GAP),
    strip,
  };
}

/** The bar of the strip under the point (x, y) in strip coordinates, or null: what a click on
 * the strip's canvas picks. */
export function barAt(strip: SlabPageScene['strip'], x: number, y: number): SlabBar | null {
  return strip.bars.find((b) => x >= b.x && x < b.x + b.width && y >= b.y && y < b.y + b.height) ?? null;
}

/** The slot under the point (x, y) of the slab page drawing, or null: what a click on the slot
 * canvas picks. */
export function slotAt(scene: SlabPageScene, x: number, y: number): SlotCell | null {
  return scene.slots.find((c) => x >= c.x && x < c.x + c.size && y >= c.y && y < c.y + c.size) ?? null;
}
