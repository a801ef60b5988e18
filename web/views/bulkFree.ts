// Layout of the bulk-free view: one snapshot in, a scene out (structured parts for the text
// alternative, positioned marks for the SVG). No DOM, no React, no simulator.
//
// It shows `snapshot.transient.detached`: what one call of `build_detached_freelist()` did
// during `kmem_cache_free_bulk()`/`kfree_bulk()`. The semantics, read from
// wasm-core/sim/src/slub/bulk.rs, which mirrors mm/slub.c of v6.6 (the `same`/`swap` version):
// - The call starts with `size` unfinished entries `p[0..size)`; entries `p[size..]` were
//   freed by earlier calls. It takes `p[size-1]` first: that object is the detached freelist's
//   tail (`df->tail`, its free pointer set to NULL), and its slab is `df->slab`.
// - It then walks down from `p[size-2]`. An entry of the same slab is put in front of the
//   list (so the list is head first, the tail last) and parked: swapped to `p[same-1]`, just
//   below the entries already gathered. An entry of another slab costs one of the three
//   lookahead misses (`lookahead`, starting at 3) and stays; the walk stops at the third miss
//   or at `p[0]`. `scanned` counts the entries walked (the tail is not among them).
// - It returns `same`: entries from `done_from` (= same) on are finished. The next call
//   starts with `size = done_from`.
// So, with n gathered objects, the call began with size = done_from + n; the tail sits at
// `size-1`; the parked objects at `[done_from, size-1)` (in list order: `array[done_from + i]`
// is `objects[i]`); the entries walked are `[size-1-scanned, size-1)`, of which those below
// `done_from` are the misses, left for later; entries below the walk were not examined.
// - On the next step (`reversed`, a list of two or more), `slab_free()`'s
//   `slab_free_freelist_hook()` has pushed every object onto a new list: `objects` is then the
//   list reversed (`objects[i]` is `array[size-1-i]`, the tail taken first now the head), the
//   array unchanged. That list is freed with one `do_slab_free()`: spliced onto `c->freelist`
//   when the slab is the running CPU's `c->slab`, else onto the slab's freelist by
//   `__slab_free()`, each with one cmpxchg (`splice`; a debug cache takes the node's list lock
//   instead).
//
// Ids: `detached-K` per detached freelist of the step, `bulk-K-ADDR` per array cell (a cell is
// keyed by its object, so a swap moves it), `detached-K-obj-ADDR` per gathered object.
// Labels are i18n keys under `bulkView` with arguments (see marks.ts).

import type { DetachedView } from '../core/generated/DetachedView';
import type { Snapshot } from '../core/generated/Snapshot';
import type { Splice } from '../core/generated/Splice';
import type { BoxMark, Capped, Marks } from './marks';
import { boxMark, capList, emptyMarks, label, literal, shortAddr } from './marks';
import { bulkCellStyle, levelFill, type BulkCellKind } from './palette';

/** `build_detached_freelist()`'s lookahead budget (mm/slub.c, v6.6: `int lookahead = 3`). */
export const LOOKAHEAD = 3;

export interface BulkFreeOptions {
  /** Array cells drawn; a longer array is shown around the part this call worked on. */
  maxCells?: number;
  /** Gathered objects drawn before "+N more". */
  maxObjects?: number;
}

export interface BulkCell {
  id: string;
  index: number;
  addr: string;
  state: BulkCellKind;
}

export interface DetachedObject {
  id: string;
  addr: string;
}

export interface DetachedScene {
  id: string;
  cache: number;
  /** `df->slab`, first pfn. */
  slab: number;
  /** The CPU running the bulk free, and where `do_slab_free()` put the list. */
  cpu: number;
  splice: Splice;
  /** The step of `slab_free_freelist_hook()`: `objects` is the list reversed. */
  reversed: boolean;
  /** Unfinished entries when the call began. */
  size: number;
  scanned: number;
  lookaheadLeft: number;
  doneFrom: number;
  /** First index the walk examined. */
  scanFrom: number;
  /** All entries of the array. */
  length: number;
  /** The cells shown, in index order; `before`/`after` cells left out on each side. */
  cells: { shown: BulkCell[]; before: number; after: number };
  /** The detached freelist, head first (reversed when `reversed`). */
  objects: Capped<DetachedObject>;
}

export interface BulkFreeScene {
  detached: DetachedScene[];
  marks: Marks;
}

export const BULK_WIDTH = 760;
const PAD = 10;
const CELL_W = 20;
const CELL_H = 22;
const CELL_GAP = 2;
const PER_ROW = 32;
const OBJ_W = 96;
const OBJ_H = 20;
const OBJ_GAP = 18;

/** The state of each entry after the call (see the header). */
export function cellStates(d: DetachedView): BulkCellKind[] {
  const size = d.done_from + d.objects.length;
  const scanFrom = size - 1 - d.scanned;
  return d.array.map((_, i) => {
    if (i >= size) return 'finished';
    if (i === size - 1) return 'tail';
    if (i >= d.done_from) return 'parked';
    if (i >= scanFrom) return 'skipped';
    return 'pending';
  });
}

export function layoutBulkFree(snapshot: Snapshot, options: BulkFreeOptions = {}): BulkFreeScene {
  const maxCells = options.maxCells ?? 64;
  const maxObjects = options.maxObjects ?? 6;
  const scene: BulkFreeScene = { detached: [], marks: emptyMarks() };
  scene.detached = snapshot.transient.detached.map((d, k) => {
    const id = `detached-${k}`;
    const size = d.done_from + d.objects.length;
    const scanFrom = size - 1 - d.scanned;
    const states = cellStates(d);
    // Window: end a little past the tail (to show some finished entries), reach back to the
    // start of the walk when it fits.
    let end = d.array.length;
    let start = 0;
    if (d.array.length > maxCells) {
      end = Math.min(d.array.length, Math.max(size + 4, maxCells));
      start = Math.max(0, end - maxCells);
    }
    const shown = d.array.slice(start, end).map((addr, j) => ({
      id: `bulk-${k}-${addr}`,
      index: start + j,
      addr,
      state: states[start + j],
    }));
    return {
      id,
      cache: d.cache,
      slab: d.slab,
      cpu: d.cpu,
      splice: d.splice,
      reversed: d.reversed,
      size,
      scanned: d.scanned,
      lookaheadLeft: d.lookahead_left,
      doneFrom: d.done_from,
      scanFrom,
      length: d.array.length,
      cells: { shown, before: start, after: d.array.length - end },
      objects: capList(
        d.objects.map((addr) => ({ id: `${id}-obj-${addr}`, addr })),
        maxObjects,
      ),
    };
  });
  place(scene);
  return scene;
}

function cellBox(c: BulkCell, x: number, y: number): BoxMark {
  const style = bulkCellStyle[c.state];
  return boxMark({
    id: c.id,
    x,
    y,
    w: CELL_W,
    h: CELL_H,
    kind: `cell cell-${c.state}`,
    fill: style.fill,
    strokeWidth: c.state === 'tail' ? 2 : 1,
    glyph: style.mark,
    target: { kind: 'object', addr: c.addr },
  });
}

function place(scene: BulkFreeScene): void {
  const m = scene.marks;
  const x0 = PAD;
  let y = 0;
  for (const d of scene.detached) {
    y = placeArray(m, d, x0, y);
    y = placeLegend(m, d, x0, y);
    y = placeLookahead(m, d, x0, y);
    y = placeDetachedList(m, d, x0, y);
  }
  m.width = BULK_WIDTH;
  m.height = Math.max(0, y);
}

/** One call's array from `top` down: its label, the cells shown (with their indexes), the window
 *  the lookahead scanned as a bracket per row it crosses, and how many cells are not shown.
 *  Returns the y below it. */
function placeArray(m: BulkFreeScene['marks'], d: DetachedScene, x0: number, top: number): number {
  let y = top;
  m.texts.push({
    id: `${d.id}-array-label`,
    x: x0,
    y: y + 14,
    label: label('bulkView.array', { count: d.length }),
    anchor: 'start',
    role: 'label',
  });
  y += 22;
  const shiftX = d.cells.before ? 70 : 0;
  if (d.cells.before) {
    m.texts.push({
      id: `${d.id}-before`,
      x: x0,
      y: y + 24,
      label: label('bulkView.moreBefore', { count: d.cells.before }),
      anchor: 'start',
      role: 'more',
    });
  }
  const perRow = d.cells.before ? PER_ROW - 3 : PER_ROW;
  const pos = (j: number) => ({
    x: x0 + shiftX + (j % perRow) * (CELL_W + CELL_GAP),
    y: y + 14 + Math.floor(j / perRow) * (CELL_H + 26),
  });
  d.cells.shown.forEach((c, j) => {
    const p = pos(j);
    m.boxes.push(cellBox(c, p.x, p.y));
    if (c.index % 8 === 0 || j === 0) {
      m.texts.push({ id: `${c.id}-index`, x: p.x + 1, y: p.y - 3, label: literal(String(c.index)), anchor: 'start', role: 'note' });
    }
  });
  const rows = Math.max(1, Math.ceil(d.cells.shown.length / perRow));
  // The walk, as one bracket per row it crosses, below the cells.
  const first = d.cells.shown[0]?.index ?? 0;
  const from = Math.max(d.scanFrom, first) - first;
  const to = Math.min(d.size - 2, first + d.cells.shown.length - 1) - first;
  if (d.scanned > 0 && to >= from) {
    for (let r = Math.floor(from / perRow); r <= Math.floor(to / perRow); r++) {
      const a = pos(Math.max(from, r * perRow));
      const b = pos(Math.min(to, r * perRow + perRow - 1));
      m.lines.push({ id: `${d.id}-scan-${r}`, x1: a.x, y1: a.y + CELL_H + 5, x2: b.x + CELL_W, y2: b.y + CELL_H + 5, kind: 'bracket' });
      if (r === Math.floor(from / perRow)) {
        m.texts.push({
          id: `${d.id}-scan-text`,
          x: a.x,
          y: a.y + CELL_H + 18,
          label: label('bulkView.scanWindow', { scanned: d.scanned }),
          anchor: 'start',
          role: 'note',
        });
      }
    }
  }
  if (d.cells.after) {
    const p = pos(d.cells.shown.length - 1);
    m.texts.push({
      id: `${d.id}-after`,
      x: p.x + CELL_W + 6,
      y: p.y + 15,
      label: label('bulkView.more', { count: d.cells.after }),
      anchor: 'start',
      role: 'more',
    });
  }
  y += 14 + rows * (CELL_H + 26) + 4;
  return y;
}

/** Legend: every state with its mark, so the cells read without colour. Returns the y below. */
function placeLegend(m: BulkFreeScene['marks'], d: DetachedScene, x0: number, y: number): number {
  const kinds: BulkCellKind[] = ['pending', 'skipped', 'parked', 'tail', 'finished'];
  const keys = ['legendPending', 'legendSkipped', 'legendParked', 'legendTail', 'legendFinished'];
  let lx = x0;
  kinds.forEach((kind, i) => {
    m.boxes.push({ ...cellBox({ id: `${d.id}-legend-${kind}`, index: -1, addr: '', state: kind }, lx, y), w: 14, h: 14, target: null });
    m.texts.push({ id: `${d.id}-legend-${kind}-text`, x: lx + 18, y: y + 11, label: label(`bulkView.${keys[i]}`), anchor: 'start', role: 'note' });
    lx += i === 1 ? 230 : 130;
  });
  return y + 26;
}

/** The lookahead budget: tokens left filled, spent ones crossed. Returns the y below it. */
function placeLookahead(m: BulkFreeScene['marks'], d: DetachedScene, x0: number, y: number): number {
  m.texts.push({
    id: `${d.id}-lookahead-text`,
    x: x0,
    y: y + 13,
    label: label('bulkView.lookahead', { left: d.lookaheadLeft, max: LOOKAHEAD }),
    anchor: 'start',
    role: 'value',
  });
  for (let i = 0; i < LOOKAHEAD; i++) {
    const left = i < d.lookaheadLeft;
    m.boxes.push(boxMark({
      id: `${d.id}-lookahead-${i}`,
      x: x0 + 190 + i * 18,
      y: y + 2,
      w: 14,
      h: 14,
      kind: left ? 'token token-left' : 'token token-spent',
      fill: left ? levelFill : '#ffffff',
      glyph: left ? '' : '×',
    }));
  }
  return y + 26;
}

/** The detached freelist, head first (as built, or reversed by the hook), then the splice into
 *  its slab. Returns the y below it. */
function placeDetachedList(m: BulkFreeScene['marks'], d: DetachedScene, x0: number, top: number): number {
  let y = top;
  m.texts.push({
    id: `${d.id}-objects-label`,
    x: x0,
    y: y + 13,
    label: label(d.reversed ? 'bulkView.reversed' : 'bulkView.detached', { count: d.objects.shown.length + d.objects.more }),
    anchor: 'start',
    role: 'label',
  });
  y += 20;
  d.objects.shown.forEach((o, i) => {
    const ox = x0 + i * (OBJ_W + OBJ_GAP);
    m.boxes.push(boxMark({
      id: o.id,
      x: ox,
      y,
      w: OBJ_W,
      h: OBJ_H,
      kind: 'object',
      fill: bulkCellStyle.parked.fill,
      target: { kind: 'object', addr: o.addr },
    }));
    m.texts.push({ id: `${o.id}-addr`, x: ox + 5, y: y + 14, label: literal(shortAddr(o.addr, 8)), anchor: 'start', role: 'mono' });
    if (i < d.objects.shown.length - 1 || d.objects.more) {
      m.lines.push({ id: `${o.id}-next`, x1: ox + OBJ_W, y1: y + OBJ_H / 2, x2: ox + OBJ_W + OBJ_GAP, y2: y + OBJ_H / 2, kind: 'arrow' });
    }
  });
  if (d.objects.more) {
    m.texts.push({
      id: `${d.id}-objects-more`,
      x: x0 + d.objects.shown.length * (OBJ_W + OBJ_GAP) + 2,
      y: y + 14,
      label: label('bulkView.more', { count: d.objects.more }),
      anchor: 'start',
      role: 'more',
    });
  }
  m.lines.push({ id: `${d.id}-splice`, x1: x0 + 20, y1: y + OBJ_H, x2: x0 + 20, y2: y + OBJ_H + 22, kind: 'arrow' });
  y += OBJ_H + 24;
  m.boxes.push(boxMark({
    id: `${d.id}-slab-${d.slab}`,
    x: x0,
    y,
    w: 120,
    h: 26,
    kind: 'slab',
    highlight: true,
    target: { kind: 'slab', pfn: d.slab },
  }));
  m.texts.push({ id: `${d.id}-slab-text`, x: x0 + 6, y: y + 17, label: literal(`slab ${d.slab}`), anchor: 'start', role: 'mono' });
  m.texts.push({
    id: `${d.id}-result`,
    x: x0 + 132,
    y: y + 17,
    label: label(`bulkView.splice.${d.splice}`, { slab: d.slab, cpu: d.cpu }),
    anchor: 'start',
    role: 'value',
  });
  y += 40;
  return y;
}
