// Layout of the stage: the whole allocator for one cache in one diagram, laid out the way the
// kernel's structures relate. One snapshot and a width in, positioned marks out (marks.ts); no
// DOM, no React, no simulator.
//
// Three bands, top to bottom, as the allocation paths go down them:
// - Per CPU (`struct kmem_cache_cpu` under SLUB, `struct array_cache` under SLAB): one card per
//   CPU. SLUB: `c->tid`, `c->freelist` as a chain of objects (head first), `c->slab` (frozen),
//   `c->partial` from the top with its `slabs` count against `s->cpu_partial_slabs`. SLAB: the
//   array's entries, the next one out first, with avail/limit and batchcount.
// - Per node (`struct kmem_cache_node`): `list_lock` as a padlock (lit when the step took it,
//   with the CPU holding it inside a concurrent block); SLUB: `n->partial` head first with
//   `nr_partial` against `min_partial`, `n->full` (debug caches), and the full slabs that are on
//   no list at all (SLUB keeps none of them on a list without `SLAB_STORE_USER`); SLAB: the three
//   lists, the shared array and the alien arrays.
// - The page allocator: each node's zone with `free_area[order].nr_free` for every order, and
//   each CPU's per-CPU page list (`count` against `high`, `batch`).
//
// Ids are the structure views' (`slab-PFN`, `obj-ADDR`), unique across the stage, so a slab that
// leaves `c->partial` for `n->partial` slides there on the screen, an object popped off
// `c->freelist` fades where it was. Semantic zoom: `detail: 'slots'` (close in) draws the shown
// slab (`cache.slab`, the one the step touched or the reader chose) slot by slot with its free
// order; `'bars'` draws every slab as its occupancy bar. Only the shown slab's slots are in a
// snapshot: the others say how many of their objects are in use, and a click shows their slots.
//
// Sizes are CSS pixels at zoom 1; texts are drawn at 13 px (titles 14 px) times `fontScale`,
// never smaller (styles.css `.stage`), and every box that carries a text is wide enough for it.

import type { CacheView } from '../core/generated/CacheView';
import type { CpuView } from '../core/generated/CpuView';
import type { NodeView } from '../core/generated/NodeView';
import type { SheafView } from '../core/generated/SheafView';
import type { SlabBrief } from '../core/generated/SlabBrief';
import type { Snapshot } from '../core/generated/Snapshot';
import type { BoxMark, Label, Marks } from './marks';
import { batchcountText, boxMark, capList, emptyMarks, label, literal, shortAddr } from './marks';
import { buddyOrderColour, frozenStroke, markStroke, ownerColour, slotStyle } from './palette';
import { findWord, wordLabel, type SharedWord, type WordName } from './sharedWords';

export type StageDetail = 'bars' | 'slots';

export interface StageOptions {
  /** The width to lay out for, in CSS pixels at zoom 1. */
  width: number;
  detail?: StageDetail;
  /** Large text (projectors): every size times this. */
  fontScale?: number;
  /** The shared words the step's micro-steps touched (`sharedWords(step)`). */
  words?: readonly SharedWord[];
}

/** A rectangle of the stage. */
export interface Area {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface StageScene {
  cacheName: string | null;
  marks: Marks;
  /** What the step changed, as one rectangle (the camera keeps it in view); null: nothing. */
  focus: Area | null;
}

/** The widest a CPU or node card is laid out before another joins its row. */
const MIN_CARD = 230;

/** Sizes at font scale 1. */
const BASE = { pad: 10, gap: 10, line: 20, obj: 18, objGap: 12, slabH: 24, slabW: 118, band: 22 } as const;

type Sizes = { [K in keyof typeof BASE]: number };

/** Everything a band needs while it lays itself out. */
interface Ctx {
  snapshot: Snapshot;
  cache: CacheView;
  marks: Marks;
  s: Sizes;
  width: number;
  detail: StageDetail;
  touchedSlabs: ReadonlySet<number>;
  touchedObjects: ReadonlySet<string>;
  briefs: ReadonlyMap<number, SlabBrief>;
  words: readonly SharedWord[] | undefined;
}

export function layoutStage(snapshot: Snapshot, options: StageOptions): StageScene {
  const cache = snapshot.cache;
  const width = Math.max(300, Math.floor(options.width));
  const scale = options.fontScale ?? 1;
  const s = Object.fromEntries(Object.entries(BASE).map(([k, v]) => [k, Math.round(v * scale)])) as Sizes;
  const marks = emptyMarks();
  marks.width = width;
  if (!cache) return { cacheName: null, marks, focus: null };
  const ctx: Ctx = {
    snapshot,
    cache,
    marks,
    s,
    width,
    detail: options.detail ?? 'bars',
    touchedSlabs: new Set(snapshot.transient.slabs),
    touchedObjects: new Set(snapshot.transient.objects),
    briefs: new Map(cache.slabs.map((b) => [b.pfn, b])),
    words: options.words,
  };
  let y = s.pad;
  y = cpuBand(ctx, y);
  y = nodeBand(ctx, y + s.gap);
  y = buddyBand(ctx, y + s.gap);
  marks.height = y + s.pad;
  return { cacheName: cache.name, marks, focus: focusOf(marks) };
}

/** The union of the highlighted boxes. */
function focusOf(marks: Marks): Area | null {
  const lit = marks.boxes.filter((b) => b.highlight);
  if (lit.length === 0) return null;
  const x = Math.min(...lit.map((b) => b.x));
  const y = Math.min(...lit.map((b) => b.y));
  const x2 = Math.max(...lit.map((b) => b.x + b.w));
  const y2 = Math.max(...lit.map((b) => b.y + b.h));
  return { x, y, w: x2 - x, h: y2 - y };
}

// --- helpers ---------------------------------------------------------------------------------

function text(ctx: Ctx, id: string, x: number, y: number, l: Label, role: string, anchor: 'start' | 'middle' | 'end' = 'start', emphasis = false): void {
  ctx.marks.texts.push({ id, x, y, label: l, anchor, role, emphasis });
}

/** Cards of equal width in rows across the stage: their x and width, row by row. */
function cardRows(ctx: Ctx, count: number): { x: number; w: number; row: number }[] {
  const { pad, gap } = ctx.s;
  const inner = ctx.width - 2 * pad;
  const fits = Math.max(1, Math.min(count, Math.floor((inner + gap) / (MIN_CARD * (ctx.s.line / BASE.line) + gap))));
  // Rows as even as they can be: four CPUs where three fit are two rows of two.
  const perRow = Math.ceil(count / Math.ceil(count / fits));
  const w = (inner - gap * (perRow - 1)) / perRow;
  return Array.from({ length: count }, (_, i) => ({ x: pad + (i % perRow) * (w + gap), w, row: Math.floor(i / perRow) }));
}

/** The band's heading; returns the y below it. */
function bandTitle(ctx: Ctx, id: string, y: number, l: Label): number {
  text(ctx, `band-${id}`, ctx.s.pad, y + ctx.s.line * 0.8, l, 'band');
  return y + ctx.s.band;
}

/** A card's frame, drawn behind its contents (its height is known once they are). */
function frame(ctx: Ctx, id: string, x: number, y: number, w: number): BoxMark {
  const b = boxMark({ id, x, y, w, h: 0, kind: 'frame', fill: 'none', stroke: '#c3c9d1' });
  ctx.marks.boxes.push(b);
  return b;
}

/** Lays out cards row by row: `draw` fills one card from its top and returns its bottom; cards of
 * a row share the tallest height. Returns the bottom of the last row. */
function cards<T>(ctx: Ctx, items: readonly T[], top: number, id: (item: T) => string, draw: (item: T, x: number, y: number, w: number) => number): number {
  const places = cardRows(ctx, items.length);
  let y = top;
  let row = 0;
  let rowFrames: BoxMark[] = [];
  let bottom = top;
  const closeRow = () => {
    for (const f of rowFrames) f.h = bottom - f.y;
    y = bottom + ctx.s.gap;
    rowFrames = [];
  };
  items.forEach((item, i) => {
    const p = places[i];
    if (p.row !== row) {
      closeRow();
      row = p.row;
    }
    const f = frame(ctx, `${id(item)}-frame`, p.x, y, p.w);
    rowFrames.push(f);
    bottom = Math.max(bottom, draw(item, p.x + ctx.s.pad * 0.7, y, p.w - ctx.s.pad * 1.4) + ctx.s.pad * 0.6);
  });
  closeRow();
  return bottom;
}

function slabStyle(frozen: boolean): Pick<BoxMark, 'stroke' | 'strokeWidth' | 'dash'> {
  return frozen ? { stroke: frozenStroke.stroke, strokeWidth: frozenStroke.width, dash: frozenStroke.dash } : { stroke: markStroke, strokeWidth: 1, dash: '' };
}

/** A slab as its occupancy bar with `pfn · inuse/objects` inside; close in, the shown slab slot
 * by slot below its bar. Returns the height used. */
function slabMark(ctx: Ctx, b: { pfn: number; inuse: number; objects: number; frozen: boolean }, x: number, y: number, w: number): number {
  const { slabH } = ctx.s;
  ctx.marks.boxes.push(
    boxMark({
      id: `slab-${b.pfn}`,
      x,
      y,
      w,
      h: slabH,
      kind: 'slab',
      ...slabStyle(b.frozen),
      level: b.objects ? b.inuse / b.objects : 0,
      highlight: ctx.touchedSlabs.has(b.pfn),
      target: { kind: 'slab', pfn: b.pfn },
    }),
  );
  text(ctx, `slab-${b.pfn}-t`, x + 6, y + slabH * 0.62, label('stage.slab', { pfn: b.pfn, inuse: b.inuse, objects: b.objects }), 'value');
  const shown = ctx.cache.slab;
  if (ctx.detail !== 'slots' || !shown || shown.brief.pfn !== b.pfn) return slabH;
  return slabH + slots(ctx, shown, x, y + slabH + 4, w) + 4;
}

/** The shown slab's slots in rows under its bar, each filled as the slab page view fills it,
 * the free ones numbered in the order they will be handed out. Returns the height used. */
function slots(ctx: Ctx, slab: NonNullable<CacheView['slab']>, x: number, y: number, w: number): number {
  const n = slab.slots.length;
  const cell = Math.max(16, Math.min(26, Math.floor(w / Math.min(n, 16))));
  const perRow = Math.max(1, Math.floor(w / cell));
  const order = new Map(slab.free_order.map((index, i) => [index, i + 1]));
  slab.slots.forEach((slot, i) => {
    const cx = x + (i % perRow) * cell;
    const cy = y + Math.floor(i / perRow) * cell;
    const kind = slot.state.kind;
    ctx.marks.boxes.push(
      boxMark({
        id: `slot-${slab.brief.pfn}-${slot.index}`,
        x: cx,
        y: cy,
        w: cell - 2,
        h: cell - 2,
        kind: 'cell',
        fill: slotStyle[kind].fill,
        highlight: ctx.touchedObjects.has(slot.addr),
        target: { kind: 'object', addr: slot.addr },
      }),
    );
    const next = order.get(slot.index);
    if (next !== undefined) text(ctx, `slot-${slab.brief.pfn}-${slot.index}-n`, cx + (cell - 2) / 2, cy + cell * 0.62, literal(String(next)), 'cell', 'middle');
  });
  return Math.ceil(n / perRow) * cell;
}

/** A list of slabs in a row that wraps, capped at `rows` rows with "+N" after them. */
function slabRow(ctx: Ctx, id: string, list: readonly { pfn: number; inuse: number; objects: number; frozen: boolean }[], x: number, y: number, w: number, rows = 2): number {
  const { slabH, slabW } = ctx.s;
  if (list.length === 0) {
    text(ctx, `${id}-null`, x, y + ctx.s.line * 0.75, label('stage.empty'), 'mono');
    return ctx.s.line;
  }
  const gap = 6;
  const perRow = Math.max(1, Math.floor((w + gap) / (slabW + gap)));
  const capped = capList(list, perRow * rows - (list.length > perRow * rows ? 1 : 0));
  // Row by row: a slab drawn slot by slot makes its row taller.
  let by = y;
  let rowH = 0;
  const place = (i: number) => {
    if (i > 0 && i % perRow === 0) {
      by += rowH + gap;
      rowH = 0;
    }
    return x + (i % perRow) * (slabW + gap);
  };
  capped.shown.forEach((b, i) => {
    const bx = place(i);
    rowH = Math.max(rowH, slabMark(ctx, b, bx, by, slabW));
  });
  if (capped.more > 0) {
    const bx = place(capped.shown.length);
    text(ctx, `${id}-more`, bx + 4, by + slabH * 0.62, label('stage.more', { count: capped.more }), 'more');
    rowH = Math.max(rowH, slabH);
  }
  return by + rowH - y;
}

/** A list's name (kernel spelling) and a note on the right; returns the y below it. */
function listHead(ctx: Ctx, id: string, x: number, y: number, w: number, name: string, note: Label): number {
  text(ctx, `${id}-name`, x, y + ctx.s.line * 0.75, literal(name), 'mono');
  text(ctx, `${id}-note`, x + w, y + ctx.s.line * 0.75, note, 'note', 'end');
  return y + ctx.s.line + 2;
}

/** A row: the list's name (kernel spelling) with its note or the word a micro-step touched
 * under it on the left, its contents (`content`, which returns its height) on the right; on a
 * narrow card the contents go under the name. Returns the y below the row. */
function row(ctx: Ctx, id: string, x: number, y: number, w: number, name: string | Label, note: Label | null, word: SharedWord | null, content: (cx: number, cy: number, cw: number) => number): number {
  const { line } = ctx.s;
  const nameW = Math.round(104 * (line / BASE.line));
  const inline = w >= nameW + 150;
  text(ctx, `${id}-name`, x, y + line * 0.75, typeof name === 'string' ? literal(name) : name, typeof name === 'string' ? 'mono' : 'label', 'start', word !== null);
  const under = word ? wordLabel(word, true) : note;
  if (under) {
    if (inline) text(ctx, word ? `${id}-word` : `${id}-note`, x, y + line * 1.65, under, word ? 'word' : 'note', 'start', word !== null);
    else text(ctx, word ? `${id}-word` : `${id}-note`, x + w, y + line * 0.75, under, word ? 'word' : 'note', 'end', word !== null);
  }
  if (!inline) return y + line + 2 + content(x, y + line + 2, w) + 8;
  const h = content(x + nameW, y, w - nameW);
  return y + Math.max(h, under ? line * 2 : line) + 8;
}

// --- per CPU ---------------------------------------------------------------------------------

function cpuBand(ctx: Ctx, top: number): number {
  const slub = ctx.snapshot.allocator === 'slub';
  const narrow = ctx.width < 560 * (ctx.s.line / BASE.line);
  const sheaves = !ctx.cache.cpu_slab ? 'stage.bandCpuSheaves' : 'stage.bandCpuBoth';
  const band = !slub ? 'stage.bandCpuSlab' : ctx.cache.sheaf_capacity > 0 || !ctx.cache.cpu_slab ? (narrow ? 'stage.bandCpuShort' : sheaves) : 'stage.bandCpuSlub';
  const y = bandTitle(ctx, 'cpu', top, label(band));
  return cards(ctx, ctx.cache.cpus, y, (c) => `cpu-${c.cpu}`, (c, x, cy, w) => cpuCard(ctx, c, x, cy, w));
}

function cpuCard(ctx: Ctx, c: CpuView, x: number, top: number, w: number): number {
  const { line } = ctx.s;
  const word = (name: WordName) => findWord(ctx.words, name, (wd) => wd.cache === ctx.cache.id && wd.cpu === c.cpu);
  let y = top + 4;
  const lock = c.kind === 'slub' ? word('c->lock') : null;
  text(ctx, `cpu-${c.cpu}-title`, x, y + line * 0.8, label('stage.cpu', { cpu: c.cpu, node: c.node }), 'title', 'start', lock !== null);
  if (c.kind === 'slub' && ctx.cache.cpu_slab) {
    const tid = word('c->tid');
    text(ctx, `cpu-${c.cpu}-tid`, x + w, y + line * 0.8, tid ? wordLabel(tid, true) : label('stage.tid', { tid: c.tid }), tid ? 'word' : 'mono', 'end', tid !== null);
  }
  y = handedOut(ctx, c, x, y, w);
  y += line + 6;
  if (c.kind === 'slab') return arrayCard(ctx, c, x, y, w);
  // 6.18+: the sheaves come first (alloc_from_pcs() and free_to_pcs() are tried before the cpu
  // slab); 7.x has nothing else per CPU.
  if (c.sheaves) y = sheavesRows(ctx, c, c.sheaves, x, y, w);
  if (!ctx.cache.cpu_slab) return y - 8;
  const chain = (cx: number, cy: number, cw: number) => objectChain(ctx, `cpu-${c.cpu}-fl`, c.freelist, cx, cy, cw, slotStyle.cpu_freelist.fill);
  y = row(ctx, `cpu-${c.cpu}-fl`, x, y, w, 'c->freelist', label('stage.objects', { count: c.freelist.length }), word('c->freelist'), chain);
  const cpuSlab = c.slab;
  y = row(ctx, `cpu-${c.cpu}-slab`, x, y, w, 'c->slab', null, word('c->slab'), (cx, cy, cw) => {
    if (cpuSlab === null) {
      text(ctx, `cpu-${c.cpu}-slab-null`, cx, cy + ctx.s.line * 0.75, literal('NULL'), 'mono');
      return ctx.s.line;
    }
    const b = ctx.briefs.get(cpuSlab);
    // A cpu slab is frozen by definition (`get_partial()`/`new_slab()` install it frozen, v6.6).
    return slabMark(ctx, { pfn: cpuSlab, inuse: b?.inuse ?? 0, objects: b?.objects ?? ctx.cache.objs_per_slab, frozen: b?.frozen ?? true }, cx, cy, cw);
  });
  const note = label('stage.cpuPartial', { count: c.partial.length, limit: ctx.cache.cpu_partial_slabs });
  return row(ctx, `cpu-${c.cpu}-partial`, x, y, w, 'c->partial', note, null, (cx, cy, cw) => slabStack(ctx, c, cx, cy, cw)) - 8;
}

/** A CPU's sheaves (`s->cpu_sheaves`): `main`, `spare` and (when it has one) `rcu_free`, each a
 * row of `capacity` slots. Returns the y below them. */
function sheavesRows(ctx: Ctx, c: Extract<CpuView, { kind: 'slub' }>, pcs: NonNullable<Extract<CpuView, { kind: 'slub' }>['sheaves']>, x: number, top: number, w: number): number {
  let y = top;
  if (pcs.locked) {
    text(ctx, `cpu-${c.cpu}-pcs-lock`, x, y + ctx.s.line * 0.75, label('stage.pcsLocked'), 'word', 'start', true);
    y += ctx.s.line;
  }
  const slots: [string, SheafView | null][] = [
    ['pcs->main', pcs.main],
    ['pcs->spare', pcs.spare],
  ];
  if (pcs.rcu_free) slots.push(['pcs->rcu_free', pcs.rcu_free]);
  for (const [name, sheaf] of slots) {
    const id = `cpu-${c.cpu}-${name.slice(5)}`;
    const note = sheaf ? label('stage.sheafSize', { size: sheaf.objects.length, capacity: sheaf.capacity }) : null;
    y = row(ctx, id, x, y, w, name, note, null, (cx, cy, cw) => sheafSlots(ctx, id, sheaf, cx, cy, cw));
  }
  return y;
}

/** A sheaf as a stack of object slots lying on its side: `objects[0]` on the left, the top (the
 * next one out, where a free goes) on the right, then its free capacity as empty slots. A sheaf
 * wider than the card shows its top objects and how many are below them. Returns the height. */
function sheafSlots(ctx: Ctx, id: string, sheaf: SheafView | null, x: number, y: number, w: number): number {
  const { obj, line } = ctx.s;
  if (!sheaf) {
    text(ctx, `${id}-null`, x, y + line * 0.75, literal('NULL'), 'mono');
    return line;
  }
  const step = obj + 3;
  const fits = Math.max(2, Math.floor((w - 40) / step));
  const size = sheaf.objects.length;
  const free = sheaf.capacity - size;
  let objShown = size;
  let emptyDrawn = free;
  if (sheaf.capacity > fits) {
    // One place is left for the counts of what is not drawn; the top of the stack is what
    // matters, so objects are hidden from the bottom, and one empty slot stays in sight.
    const room = fits - 1;
    objShown = Math.min(size, Math.max(1, room - Math.min(free, 1)));
    emptyDrawn = Math.min(free, room - objShown);
  }
  const below = size - objShown;
  let cx = x;
  ctx.marks.boxes.push(boxMark({ id: `sheaf-${sheaf.id}`, x: x - 2, y: y - 2, w: 0, h: obj + 4, kind: 'frame', fill: 'none', stroke: '#9fb7ac' }));
  const frameBox = ctx.marks.boxes[ctx.marks.boxes.length - 1];
  if (below > 0) {
    text(ctx, `${id}-below`, cx, y + obj * 0.75, label('stage.more', { count: below }), 'more');
    cx += 30;
  }
  sheaf.objects.slice(below).forEach((addr) => {
    ctx.marks.boxes.push(
      boxMark({ id: `obj-${addr}`, x: cx, y, w: obj, h: obj, kind: 'object', fill: slotStyle.sheaf.fill, highlight: ctx.touchedObjects.has(addr), target: { kind: 'object', addr } }),
    );
    cx += step;
  });
  for (let i = 0; i < emptyDrawn; i++) {
    ctx.marks.boxes.push(boxMark({ id: `${id}-e${i}`, x: cx, y, w: obj, h: obj, kind: 'cell', fill: '#ffffff', stroke: '#c3c9d1', dash: '2 2' }));
    cx += step;
  }
  if (free > emptyDrawn) {
    text(ctx, `${id}-emore`, cx + 2, y + obj * 0.75, label('stage.more', { count: free - emptyDrawn }), 'more');
    cx += 30;
  }
  frameBox.w = cx - x + 1;
  return obj + 4;
}

/** The objects of the shown cache this step handed to a caller on this CPU
 *  (`transient.handed_out`; SLAB also hands out its off-slab index arrays, from a kmalloc cache): on the card's
 *  title line when there is room between the title and `c->tid` (so nothing below moves), else
 *  on a line of their own under it. Their ids are the freelist's, so an object popped off
 *  `c->freelist` moves here. Returns the y of the title line (moved down by that line, if any). */
function handedOut(ctx: Ctx, c: CpuView, x: number, y: number, w: number): number {
  const out = ctx.snapshot.transient.handed_out.filter((h) => h.cpu === c.cpu && h.cache === ctx.cache.id).map((h) => h.addr);
  if (out.length === 0) return y;
  const { obj, line } = ctx.s;
  const scale = line / BASE.line;
  // The title ("cpuN · node M") and the tid take about 120 and 90 px at 12-14 px.
  const room = w - 210 * scale;
  const inline = room >= obj + 100 * scale;
  const left = inline ? x + 120 * scale : x;
  const top = inline ? y + (line - obj) / 2 + 2 : y + line + 4;
  text(ctx, `cpu-${c.cpu}-caller-name`, left, top + obj * 0.8, label('stage.toCaller'), 'note');
  const boxesX = left + 86 * scale;
  const fits = Math.max(1, Math.floor(((inline ? room : w) - 86 * scale - 30) / (obj + 4)));
  const capped = capList(out, fits);
  capped.shown.forEach((addr, i) => {
    ctx.marks.boxes.push(
      boxMark({ id: `obj-${addr}`, x: boxesX + i * (obj + 4), y: top, w: obj, h: obj, kind: 'object', fill: slotStyle.allocated.fill, highlight: true, target: { kind: 'object', addr } }),
    );
  });
  if (capped.more > 0) text(ctx, `cpu-${c.cpu}-caller-more`, boxesX + capped.shown.length * (obj + 4) + 2, top + obj * 0.8, label('stage.more', { count: capped.more }), 'more');
  return inline ? y : y + line + 6;
}

/** `c->partial` from the top, one slab a line with its `slabs` count, capped at three. */
function slabStack(ctx: Ctx, c: Extract<CpuView, { kind: 'slub' }>, x: number, top: number, w: number): number {
  const { slabH } = ctx.s;
  if (c.partial.length === 0) {
    text(ctx, `cpu-${c.cpu}-partial-null`, x, top + ctx.s.line * 0.75, literal('NULL'), 'mono');
    return ctx.s.line;
  }
  const capped = capList(c.partial, 3);
  let y = top;
  for (const p of capped.shown) {
    const frozen = ctx.briefs.get(p.pfn)?.frozen ?? false;
    y += slabMark(ctx, { pfn: p.pfn, inuse: p.inuse, objects: p.objects, frozen }, x, y, w) + 4;
  }
  if (capped.more > 0) {
    text(ctx, `cpu-${c.cpu}-partial-more`, x, y + slabH * 0.62, label('stage.moreBelow', { count: capped.more }), 'more');
    y += slabH;
  }
  return y - top;
}

/** Objects in a chain, left to right, each pointing at the next; "+N" when they do not fit.
 * Returns the height used. */
function objectChain(ctx: Ctx, id: string, objects: readonly string[], x: number, y: number, w: number, fill: string, head = 'stage.head'): number {
  const { obj, objGap } = ctx.s;
  if (objects.length === 0) {
    text(ctx, `${id}-null`, x, y + ctx.s.line * 0.75, literal('NULL'), 'mono');
    return ctx.s.line;
  }
  const fits = Math.max(1, Math.floor((w - 44) / (obj + objGap)) + 1);
  const capped = capList(objects, objects.length > fits ? fits - 1 : fits);
  capped.shown.forEach((addr, i) => {
    const ox = x + i * (obj + objGap);
    ctx.marks.boxes.push(
      boxMark({ id: `obj-${addr}`, x: ox, y, w: obj, h: obj, kind: 'object', fill, highlight: ctx.touchedObjects.has(addr), target: { kind: 'object', addr } }),
    );
    if (i + 1 < capped.shown.length || capped.more > 0) ctx.marks.lines.push({ id: `${id}-link-${i}`, x1: ox + obj, y1: y + obj / 2, x2: ox + obj + objGap - 1, y2: y + obj / 2, kind: 'arrow' });
  });
  if (capped.more > 0) text(ctx, `${id}-more`, x + capped.shown.length * (obj + objGap) + 2, y + obj * 0.75, label('stage.more', { count: capped.more }), 'more');
  // The head's address, under the chain: what `c->freelist` holds.
  text(ctx, `${id}-head`, x, y + obj + ctx.s.line * 0.8, label(head, { addr: shortAddr(objects[0], 6) }), 'mono');
  return obj + ctx.s.line;
}

/** SLAB's `ac`: avail against limit, batchcount, and the entries, the next one out first. */
function arrayCard(ctx: Ctx, c: Extract<CpuView, { kind: 'slab' }>, x: number, top: number, w: number): number {
  const ac = c.ac;
  const note = label('stage.array', { avail: ac.avail, limit: ac.limit, batchcount: batchcountText(ac.batchcount) });
  const y = listHead(ctx, `cpu-${c.cpu}-ac`, x, top, w, 'ac->entry[]', note);
  // The hottest entry (`entry[avail-1]`) is the next one out: drawn first.
  const live = ac.entry.slice(0, ac.avail).reverse();
  return y + objectChain(ctx, `cpu-${c.cpu}-ac`, live, x, y, w, slotStyle.cached.fill, 'stage.nextOut');
}

// --- per node --------------------------------------------------------------------------------

function nodeBand(ctx: Ctx, top: number): number {
  const slub = ctx.snapshot.allocator === 'slub';
  const y = bandTitle(ctx, 'node', top, label(slub || ctx.width < 560 * (ctx.s.line / BASE.line) ? 'stage.bandNodeSlub' : 'stage.bandNodeSlab'));
  return cards(ctx, ctx.cache.nodes, y, (n) => `node-${n.node}`, (n, x, ny, w) => nodeCard(ctx, n, x, ny, w));
}

function lockNote(n: NodeView): Label {
  const l = n.list_lock;
  if (l.held_by !== null) return label('nodeView.lockHeldBy', { cpu: l.held_by });
  return l.taken_now ? label('stage.lockTaken') : label('stage.lockFree');
}

function nodeCard(ctx: Ctx, n: NodeView, x: number, top: number, w: number): number {
  const { line } = ctx.s;
  let y = top + 4;
  text(ctx, `node-${n.node}-title`, x, y + line * 0.8, label('stage.node', { node: n.node }), 'title');
  const lit = n.list_lock.taken_now || n.list_lock.held_by !== null;
  const lockWord = findWord(ctx.words, 'n->list_lock', (wd) => wd.cache === ctx.cache.id && wd.node === n.node);
  // The padlock beside the title; on a narrow card, with its note, on a line of its own.
  const narrow = w < 420 * (line / BASE.line);
  const lockX = narrow ? x : x + w * 0.42;
  if (narrow) y += line + 4;
  ctx.marks.locks.push({ id: `node-${n.node}-lock`, x: lockX, y: y + 2, lit });
  text(ctx, `node-${n.node}-lock-t`, lockX + 20, y + line * 0.8, literal('list_lock'), 'mono', 'start', lit);
  text(ctx, `node-${n.node}-lock-n`, x + w, y + line * 0.8, lockWord ? wordLabel(lockWord, true) : lockNote(n), lockWord ? 'word' : 'note', 'end', lit);
  y += line + 8;
  if (n.kind === 'slub') {
    const partial = label('stage.slabs', { count: n.nr_partial });
    y = row(ctx, `node-${n.node}-partial`, x, y, w, 'n->partial', partial, null, (cx, cy, cw) => slabRow(ctx, `node-${n.node}-partial`, n.partial, cx, cy, cw));
    if (n.full.length > 0) {
      y = row(ctx, `node-${n.node}-full`, x, y, w, 'n->full', label('stage.slabs', { count: n.full.length }), null, (cx, cy, cw) => slabRow(ctx, `node-${n.node}-full`, n.full, cx, cy, cw, 1));
    }
    const unlisted = ctx.cache.slabs.filter((b) => b.node === n.node && b.place.kind === 'unlisted');
    if (unlisted.length > 0) {
      y = row(ctx, `node-${n.node}-nolist`, x, y, w, label('stage.noListName'), label('stage.slabs', { count: unlisted.length }), null, (cx, cy, cw) => slabRow(ctx, `node-${n.node}-nolist`, unlisted, cx, cy, cw, 1));
    }
    if (n.barn) y = barnRows(ctx, n.node, n.barn, x, y, w);
    const counts = { nr: n.nr_partial, min: n.min_partial, slabs: n.nr_slabs, objects: n.total_objects };
    if (w >= 430 * (line / BASE.line)) {
      text(ctx, `node-${n.node}-counts`, x, y + line * 0.75, label('stage.nodeCounts', counts), 'note');
      return y + line;
    }
    // A narrow card: the counts on two lines.
    text(ctx, `node-${n.node}-counts`, x, y + line * 0.75, label('stage.nodeCountsPartial', counts), 'note');
    text(ctx, `node-${n.node}-counts2`, x, y + line * 1.75, label('stage.nodeCountsSlabs', counts), 'note');
    return y + 2 * line;
  }
  for (const [name, list] of [
    ['slabs_partial', n.slabs_partial],
    ['slabs_full', n.slabs_full],
    ['slabs_free', n.slabs_free],
  ] as const) {
    y = row(ctx, `node-${n.node}-${name}`, x, y, w, name, label('stage.slabs', { count: list.length }), null, (cx, cy, cw) => slabRow(ctx, `node-${n.node}-${name}`, list, cx, cy, cw, 1));
  }
  const arrays: [string, Label][] = [[`node-${n.node}-shared`, n.shared ? label('stage.shared', { avail: n.shared.avail, limit: n.shared.limit }) : label('nodeView.noShared')]];
  for (const a of n.alien) arrays.push([`node-${n.node}-alien-${a.remote}`, label('stage.alien', { remote: a.remote, avail: a.ac.avail, limit: a.ac.limit })]);
  for (const [id, l] of arrays) {
    text(ctx, id, x, y + line * 0.75, l, 'note');
    y += line;
  }
  text(ctx, `node-${n.node}-counts`, x, y + line * 0.75, label('stage.slabCounts', { slabs: n.total_slabs, free: n.free_objects, limit: n.free_limit }), 'note');
  return y + line;
}

/** The node's barn (`n->barn`): its full and empty sheaves against their limits, each sheaf a
 * bar as full as it is (a sheaf keeps its id, so one the barn takes from a CPU moves here).
 * Returns the y below it. */
function barnRows(ctx: Ctx, node: number, barn: NonNullable<Extract<NodeView, { kind: 'slub' }>['barn']>, x: number, top: number, w: number): number {
  const { line } = ctx.s;
  let y = top;
  const held = barn.held_by;
  ctx.marks.locks.push({ id: `node-${node}-barn-lock`, x, y: y + 2, lit: held !== null });
  text(ctx, `node-${node}-barn-t`, x + 20, y + line * 0.8, literal('barn->lock'), 'mono', 'start', held !== null);
  text(ctx, `node-${node}-barn-n`, x + w, y + line * 0.8, held !== null ? label('nodeView.lockHeldBy', { cpu: held }) : label('stage.lockFree'), 'note', 'end', held !== null);
  y += line + 6;
  for (const [name, list, max] of [
    ['sheaves_full', barn.full, barn.max_full],
    ['sheaves_empty', barn.empty, barn.max_empty],
  ] as const) {
    const id = `node-${node}-barn-${name}`;
    y = listHead(ctx, id, x, y, w, `barn->${name}`, label('stage.barnCount', { count: list.length, max }));
    y += sheafBars(ctx, id, list, x, y, w) + 8;
  }
  return y;
}

/** Sheaves as small bars in a row, each `size/capacity`, capped with "+N". Returns the height. */
function sheafBars(ctx: Ctx, id: string, list: readonly SheafView[], x: number, y: number, w: number): number {
  const { slabH, line } = ctx.s;
  if (list.length === 0) {
    text(ctx, `${id}-null`, x, y + line * 0.75, label('stage.empty'), 'mono');
    return line;
  }
  const bw = Math.round(56 * (line / BASE.line));
  const gap = 6;
  const capped = capList(list, Math.max(1, Math.floor((w - 30 + gap) / (bw + gap))));
  capped.shown.forEach((sh, i) => {
    const bx = x + i * (bw + gap);
    const touched = sh.objects.some((o) => ctx.touchedObjects.has(o));
    ctx.marks.boxes.push(boxMark({ id: `sheaf-${sh.id}`, x: bx, y, w: bw, h: slabH, kind: 'bar', level: sh.capacity ? sh.objects.length / sh.capacity : 0, highlight: touched }));
    text(ctx, `${id}-${sh.id}-t`, bx + 5, y + slabH * 0.62, literal(`${sh.objects.length}/${sh.capacity}`), 'value');
  });
  if (capped.more > 0) text(ctx, `${id}-more`, x + capped.shown.length * (bw + gap) + 2, y + slabH * 0.62, label('stage.more', { count: capped.more }), 'more');
  return slabH;
}

// --- the page allocator ------------------------------------------------------------------------

function buddyBand(ctx: Ctx, top: number): number {
  const buddy = ctx.snapshot.buddy;
  // A phone's stage has room for the band's name only.
  const y = bandTitle(ctx, 'buddy', top, label(ctx.width < 560 * (ctx.s.line / BASE.line) ? 'stage.bandBuddyShort' : 'stage.bandBuddy'));
  return cards(ctx, buddy.zones, y, (z) => `zone-${z.node}`, (z, x, zy, w) => zoneCard(ctx, z, x, zy, w));
}

function zoneCard(ctx: Ctx, z: Snapshot['buddy']['zones'][number], x: number, top: number, w: number): number {
  const { line } = ctx.s;
  const buddy = ctx.snapshot.buddy;
  let y = top + 4;
  text(ctx, `zone-${z.node}-title`, x, y + line * 0.8, label('stage.zone', { node: z.node, free: z.free_pages, pages: z.pages }), 'title');
  y += line + 6;
  const touched = new Set<number>();
  for (const p of ctx.snapshot.transient.merges) if (p.node === z.node) touched.add(p.order + 1);
  for (const p of ctx.snapshot.transient.splits) if (p.node === z.node) touched.add(p.order);
  y = row(ctx, `zone-${z.node}-fa`, x, y, w, 'free_area[]', label('stage.nrFree'), null, (cx, cy, cw) => freeAreas(ctx, z, touched, cx, cy, cw));
  const pcps = buddy.pcp.filter((q) => q.node === z.node);
  return row(ctx, `zone-${z.node}-pcp`, x, y, w, 'per_cpu_pages', null, null, (cx, cy, cw) => pcpLists(ctx, pcps, cx, cy, cw)) - 8;
}

/** `free_area[order].nr_free` for every order: the order above each cell, the count inside;
 * the orders a merge or split of this step touched are lit. Returns the height used. */
function freeAreas(ctx: Ctx, z: Snapshot['buddy']['zones'][number], touched: ReadonlySet<number>, x: number, y: number, w: number): number {
  const { line } = ctx.s;
  const maxOrder = ctx.snapshot.buddy.max_order;
  const cw = Math.max(20, w / (maxOrder + 1));
  const perRow = Math.max(1, Math.floor(w / cw));
  const cellH = ctx.s.slabH;
  const rowH = cellH + line;
  z.free_area.forEach((fa, i) => {
    const cx = x + (i % perRow) * cw;
    const cy = y + Math.floor(i / perRow) * rowH;
    text(ctx, `zone-${z.node}-o${fa.order}`, cx + (cw - 3) / 2, cy + line * 0.7, literal(String(fa.order)), 'note', 'middle');
    const box = boxMark({ id: `zone-${z.node}-fa-${fa.order}`, x: cx, y: cy + line - 2, w: cw - 3, h: cellH, kind: 'cell' });
    box.fill = fa.nr_free > 0 ? buddyOrderColour(fa.order, maxOrder) : ownerColour.hole;
    box.highlight = touched.has(fa.order);
    ctx.marks.boxes.push(box);
    text(ctx, `zone-${z.node}-n${fa.order}`, cx + (cw - 3) / 2, cy + line - 2 + cellH * 0.68, literal(String(fa.nr_free)), fa.nr_free > 0 ? 'oncell' : 'value', 'middle');
  });
  return Math.ceil(z.free_area.length / perRow) * rowH;
}

/** Each CPU's page list for the zone: `count` against `high` as a bar, and `batch`, in columns.
 * Returns the height used. */
function pcpLists(ctx: Ctx, pcps: readonly Snapshot['buddy']['pcp'][number][], x: number, y: number, w: number): number {
  const { line } = ctx.s;
  const colW = Math.round(250 * (line / BASE.line));
  const perRow = Math.max(1, Math.floor(w / colW));
  const bw = Math.round(44 * (line / BASE.line));
  pcps.forEach((p, i) => {
    const px = x + (i % perRow) * colW;
    const py = y + Math.floor(i / perRow) * (line + 2);
    ctx.marks.boxes.push(boxMark({ id: `pcp-${p.cpu}-${p.node}`, x: px, y: py + 4, w: bw, h: line - 6, kind: 'bar', level: p.high ? Math.min(1, p.count / p.high) : 0 }));
    text(ctx, `pcp-${p.cpu}-${p.node}-t`, px + bw + 6, py + line * 0.75, label('stage.pcp', { cpu: p.cpu, count: p.count, high: p.high, batch: p.batch }), 'note');
  });
  return Math.max(line, Math.ceil(pcps.length / perRow) * (line + 2));
}
