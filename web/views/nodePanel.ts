// Layout of the node panel: one snapshot in, a scene out (structured blocks for the text
// alternative, positioned marks for the SVG). No DOM, no React, no simulator.
//
// One block per node of the cache the snapshot shows in full (`struct kmem_cache_node`).
// - SLUB: `n->partial` as a row of slabs, head first, each with inuse/objects and a level by
//   fullness; `nr_partial` against `min_partial` (a gauge with a marker at min_partial: at or
//   above it, a slab that becomes empty goes back to the page allocator, below it the slab stays
//   on the list — `__slab_free()`/`deactivate_slab()` in v6.6); `n->full` when not empty (debug
//   caches only); nr_slabs and total_objects.
// - SLAB: the three lists `slabs_partial`, `slabs_full`, `slabs_free`; `free_objects` against
//   `free_limit` (a bar with a marker at the limit: above it `free_block()` gives free slabs
//   back); the shared array and one alien cache per remote node, each avail/limit. Their
//   batchcount is 0xbaadf00d, as the kernel sets it (those arrays are never refilled in
//   batches), so it is shown in hex, never as a count.
// - Both: `n->list_lock` as a padlock, lit when the step took it or (in a concurrent block) a
//   CPU holds it at this step, with the acquisitions so far.
// - The shared words a micro-step of a concurrent block touched (`options.words`, from
//   sharedWords.ts), for the cache shown: `n->list_lock` taken, spun on or dropped, with a mark
//   of which CPU did it beside the lock (a lock spun on is lit: another CPU holds it); SLUB's
//   `n->nr_partial` read without the lock, marked beside its gauge.
//
// Ids: `node-N` for a block, `slab-PFN` for a slab (so a slab moving between lists slides).
// Labels are i18n keys under `nodeView` with arguments (see marks.ts).

import type { Snapshot } from '../core/generated/Snapshot';
import type { ArrayView } from '../core/generated/ArrayView';
import type { SlabBrief } from '../core/generated/SlabBrief';
import type { BoxMark, Capped, Marks } from './marks';
import { batchcountText, boxMark, capList, emptyMarks, label, literal } from './marks';
import { frozenStroke } from './palette';
import { findWord, wordLabel, type SharedWord } from './sharedWords';

export interface NodePanelOptions {
  /** Slabs drawn per list before "+N more". */
  maxSlabs?: number;
  /** The shared words the step's micro-steps touched (`sharedWords(step)`). */
  words?: readonly SharedWord[];
}

export interface NodeSlab {
  id: string;
  pfn: number;
  inuse: number;
  objects: number;
  frozen: boolean;
  /** The step changed it. */
  highlight: boolean;
}

export interface LockItem {
  /** The step that led here took `n->list_lock`. */
  takenNow: boolean;
  takenTotal: number;
  /** Inside a concurrent block: the CPU holding it at this step (taken earlier, not yet
   *  dropped), or null. */
  heldBy: number | null;
  /** What a micro-step of the step did to it (taken, spun on, dropped), or null. */
  word: SharedWord | null;
}

export interface ArrayItem {
  id: string;
  avail: number;
  limit: number;
  /** Decimal, or `0xbaadf00d` for shared and alien arrays. */
  batchcount: string;
}

export interface AlienItem extends ArrayItem {
  /** The node whose objects this array holds. */
  remote: number;
}

export interface SlubNodeBlock {
  kind: 'slub';
  id: string;
  node: number;
  partial: Capped<NodeSlab>;
  nrPartial: number;
  minPartial: number;
  full: Capped<NodeSlab>;
  nrSlabs: number;
  totalObjects: number;
  lock: LockItem;
  /** `n->nr_partial` read without the lock by the step's micro-step, or null. */
  nrPartialWord: SharedWord | null;
}

export interface SlabNodeBlock {
  kind: 'slab';
  id: string;
  node: number;
  slabsPartial: Capped<NodeSlab>;
  slabsFull: Capped<NodeSlab>;
  slabsFree: Capped<NodeSlab>;
  totalSlabs: number;
  freeSlabs: number;
  freeObjects: number;
  freeLimit: number;
  shared: ArrayItem | null;
  alien: AlienItem[];
  lock: LockItem;
}

export type NodeBlock = SlubNodeBlock | SlabNodeBlock;

export interface NodePanelScene {
  allocator: Snapshot['allocator'];
  cacheName: string | null;
  blocks: NodeBlock[];
  marks: Marks;
}

export const PANEL_WIDTH = 760;
const PAD = 10;
const SLAB_W = 54;
const SLAB_H = 34;
const SLAB_GAP = 6;
const GAUGE_W = 240;
const ROW_LABEL_H = 18;

export function layoutNodePanel(snapshot: Snapshot, options: NodePanelOptions = {}): NodePanelScene {
  const maxSlabs = options.maxSlabs ?? 12;
  const cache = snapshot.cache;
  const scene: NodePanelScene = {
    allocator: snapshot.allocator,
    cacheName: cache?.name ?? null,
    blocks: [],
    marks: emptyMarks(),
  };
  if (!cache) return scene;
  const touched = new Set(snapshot.transient.slabs);
  const slabs = (list: SlabBrief[]) =>
    capList(
      list.map((s) => ({
        id: `slab-${s.pfn}`,
        pfn: s.pfn,
        inuse: s.inuse,
        objects: s.objects,
        frozen: s.frozen,
        highlight: touched.has(s.pfn),
      })),
      maxSlabs,
    );
  const array = (id: string, ac: ArrayView): ArrayItem => ({
    id,
    avail: ac.avail,
    limit: ac.limit,
    batchcount: batchcountText(ac.batchcount),
  });

  scene.blocks = cache.nodes.map((n): NodeBlock => {
    const id = `node-${n.node}`;
    const word = (name: 'n->list_lock' | 'n->nr_partial') => findWord(options.words, name, (w) => w.cache === cache.id && w.node === n.node);
    const lock = { takenNow: n.list_lock.taken_now, takenTotal: n.list_lock.taken_total, heldBy: n.list_lock.held_by, word: word('n->list_lock') };
    if (n.kind === 'slub') {
      return {
        kind: 'slub',
        id,
        node: n.node,
        partial: slabs(n.partial),
        nrPartial: n.nr_partial,
        minPartial: n.min_partial,
        full: slabs(n.full),
        nrSlabs: n.nr_slabs,
        totalObjects: n.total_objects,
        lock,
        nrPartialWord: word('n->nr_partial'),
      };
    }
    return {
      kind: 'slab',
      id,
      node: n.node,
      slabsPartial: slabs(n.slabs_partial),
      slabsFull: slabs(n.slabs_full),
      slabsFree: slabs(n.slabs_free),
      totalSlabs: n.total_slabs,
      freeSlabs: n.free_slabs,
      freeObjects: n.free_objects,
      freeLimit: n.free_limit,
      shared: n.shared ? array(`${id}-shared`, n.shared) : null,
      alien: n.alien.map((a) => ({ ...array(`${id}-alien-${a.remote}`, a.ac), remote: a.remote })),
      lock,
    };
  });
  placeBlocks(scene);
  return scene;
}

function box(id: string, x: number, y: number, w: number, h: number, kind: string, level: number | null): BoxMark {
  return boxMark({ id, x, y, w, h, kind, level });
}

/** Where the gauge's scale ends: room past the limit so both the level and the marker show. */
export function gaugeMax(value: number, limit: number): number {
  return Math.max(1, value, Math.ceil(limit * 1.5));
}

function placeBlocks(scene: NodePanelScene): void {
  const m = scene.marks;
  const x = PAD;
  let y = 0;
  for (const b of scene.blocks) {
    const top = y;
    const frame = box(`${b.id}-frame`, 0, top, PANEL_WIDTH, 0, 'frame', null);
    frame.fill = 'none';
    frame.stroke = '#d0d4d9';
    m.boxes.push(frame);
    y = placeBlockTitle(m, x, y + 6, b);
    y = b.kind === 'slub' ? placeSlubLists(m, x, y, b) : placeSlabLists(m, x, y, b);
    y += 6;
    frame.h = y - top;
    y += 12;
  }
  m.width = PANEL_WIDTH;
  m.height = Math.max(0, y - 12);
}

/** A node block's title line at `y`: the node, and its list_lock (taken by the step that led
 *  here or not, and how often in all). Returns the y below it. */
function placeBlockTitle(m: Marks, x: number, y: number, b: NodeBlock): number {
  m.texts.push({ id: `${b.id}-title`, x, y: y + 14, label: label('nodeView.nodeLabel', { node: b.node }), anchor: 'start', role: 'title' });
  const lx = PANEL_WIDTH - 250;
  const word = b.lock.word;
  // Held across steps in a concurrent block, or spun on (another CPU holds it now).
  const held = b.lock.takenNow || b.lock.heldBy !== null || word?.how === 'waited';
  m.locks.push({ id: `${b.id}-lock`, x: lx, y: y + 1, lit: held });
  m.texts.push({
    id: `${b.id}-lock-text`,
    x: lx + 20,
    y: y + 14,
    label: b.lock.takenNow
      ? label('nodeView.lockTaken')
      : b.lock.heldBy !== null
        ? label('nodeView.lockHeldBy', { cpu: b.lock.heldBy })
        : label(held ? 'nodeView.lockHeld' : 'nodeView.lockFree'),
    anchor: 'start',
    role: 'value',
    emphasis: held,
  });
  if (word) {
    m.texts.push({ id: `${b.id}-lock-word`, x: lx - 80, y: y + 14, label: wordLabel(word), anchor: 'end', role: 'word', emphasis: true });
  }
  m.texts.push({
    id: `${b.id}-lock-total`,
    x: lx + 110,
    y: y + 14,
    label: label('nodeView.takenTotal', { count: b.lock.takenTotal }),
    anchor: 'start',
    role: 'note',
  });
  m.texts.push({ id: `${b.id}-lock-name`, x: lx - 6, y: y + 14, label: literal('list_lock'), anchor: 'end', role: 'mono' });
  return y + 26;
}

/** A SLUB node's struct kmem_cache_node from `top` down: n->partial, nr_partial against
 *  min_partial, n->full (drawn when it holds slabs: SLUB keeps it only for SLAB_STORE_USER
 *  caches, add_full in mm/slub.c), and the slab and object counts.
 *  Returns the y below it. */
function placeSlubLists(m: Marks, x: number, top: number, b: SlubNodeBlock): number {
  let y = slabRow(m, x, top, `${b.id}-partial`, 'n->partial', b.partial);
  if (b.nrPartialWord) {
    // Beside the gauge, past its bar.
    m.texts.push({ id: `${b.id}-nr-partial-word`, x: x + 300 + GAUGE_W + 12, y: y + 13, label: wordLabel(b.nrPartialWord), anchor: 'start', role: 'word', emphasis: true });
  }
  y = gauge(
    m,
    x,
    y,
    `${b.id}-nr-partial`,
    b.nrPartial,
    b.minPartial,
    label('nodeView.nrPartial', { nr: b.nrPartial, min: b.minPartial }),
    label('nodeView.minPartial', { min: b.minPartial }),
  );
  if (b.full.shown.length) y = slabRow(m, x, y, `${b.id}-full`, 'n->full', b.full);
  m.texts.push({
    id: `${b.id}-counts`,
    x,
    y: y + 13,
    label: label('nodeView.counts', { slabs: b.nrSlabs, objects: b.totalObjects }),
    anchor: 'start',
    role: 'value',
  });
  return y + 22;
}

/** A SLAB node's struct kmem_cache_node from `top` down: its three slab lists, free_objects
 *  against free_limit, the slab totals, then the shared and alien array caches. Returns the y
 *  below it. */
function placeSlabLists(m: Marks, x: number, top: number, b: SlabNodeBlock): number {
  let y = slabRow(m, x, top, `${b.id}-slabs-partial`, 'slabs_partial', b.slabsPartial);
  y = slabRow(m, x, y, `${b.id}-slabs-full`, 'slabs_full', b.slabsFull);
  y = slabRow(m, x, y, `${b.id}-slabs-free`, 'slabs_free', b.slabsFree);
  y = gauge(
    m,
    x,
    y,
    `${b.id}-free-objects`,
    b.freeObjects,
    b.freeLimit,
    label('nodeView.freeObjects', { free: b.freeObjects, limit: b.freeLimit }),
    label('nodeView.freeLimit', { limit: b.freeLimit }),
  );
  m.texts.push({
    id: `${b.id}-totals`,
    x,
    y: y + 13,
    label: label('nodeView.slabTotals', { slabs: b.totalSlabs, free: b.freeSlabs }),
    anchor: 'start',
    role: 'value',
  });
  y += 22;
  if (b.shared) {
    y = arrayLine(m, x, y, b.shared, label('nodeView.shared', { avail: b.shared.avail, limit: b.shared.limit, batchcount: b.shared.batchcount }));
  } else {
    m.texts.push({ id: `${b.id}-no-shared`, x, y: y + 13, label: label('nodeView.noShared'), anchor: 'start', role: 'note' });
    y += 20;
  }
  for (const a of b.alien) {
    y = arrayLine(m, x, y, a, label('nodeView.alien', { remote: a.remote, avail: a.avail, limit: a.limit, batchcount: a.batchcount }));
  }
  return y;
}

/** One slab list at `top`: its name, then a box per slab shown (filled to inuse/objects, frozen
 *  ones outlined) and how many more there are, or that it is empty. Returns the y below it. */
function slabRow(m: Marks, x: number, top: number, id: string, name: string, list: Capped<NodeSlab>): number {
  m.texts.push({ id: `${id}-label`, x, y: top + 13, label: literal(name), anchor: 'start', role: 'label' });
  const y = top + ROW_LABEL_H;
  if (list.shown.length === 0) {
    m.texts.push({ id: `${id}-empty`, x, y: y + 14, label: label('nodeView.empty'), anchor: 'start', role: 'note' });
    return y + 22;
  }
  list.shown.forEach((s, k) => {
    const sx = x + k * (SLAB_W + SLAB_GAP);
    const b = box(s.id, sx, y, SLAB_W, SLAB_H, 'slab', s.objects ? s.inuse / s.objects : 0);
    if (s.frozen) Object.assign(b, { stroke: frozenStroke.stroke, strokeWidth: frozenStroke.width, dash: frozenStroke.dash });
    b.highlight = s.highlight;
    b.target = { kind: 'slab', pfn: s.pfn };
    m.boxes.push(b);
    m.texts.push({ id: `${s.id}-pfn`, x: sx + SLAB_W / 2, y: y + 12, label: literal(String(s.pfn)), anchor: 'middle', role: 'mono' });
    m.texts.push({
      id: `${s.id}-count`,
      x: sx + SLAB_W / 2,
      y: y + 25,
      label: label('nodeView.slabBox', { inuse: s.inuse, objects: s.objects }),
      anchor: 'middle',
      role: 'value',
    });
  });
  if (list.more) {
    m.texts.push({
      id: `${id}-more`,
      x: x + list.shown.length * (SLAB_W + SLAB_GAP),
      y: y + 21,
      label: label('nodeView.more', { count: list.more }),
      anchor: 'start',
      role: 'more',
    });
  }
  return y + SLAB_H + 8;
}

/** A bar of `value` on a scale to `max`, with a marker at `limit`, at `y`. Returns the y below
 *  it. */
function gauge(m: Marks, x: number, y: number, id: string, value: number, limit: number, text: ReturnType<typeof label>, markerText: ReturnType<typeof label>): number {
  const max = gaugeMax(value, limit);
  m.texts.push({ id: `${id}-text`, x, y: y + 13, label: text, anchor: 'start', role: 'value' });
  const gx = x + 300;
  m.boxes.push(box(`${id}-bar`, gx, y + 2, GAUGE_W, 12, 'bar', Math.min(1, value / max)));
  const mx = gx + (GAUGE_W * limit) / max;
  m.lines.push({ id: `${id}-marker`, x1: mx, y1: y - 2, x2: mx, y2: y + 18, kind: 'marker' });
  m.texts.push({ id: `${id}-marker-text`, x: mx + 4, y: y + 28, label: markerText, anchor: 'start', role: 'note' });
  return y + 34;
}

/** An array cache (shared or alien) at `y`: its text, and a bar of avail against limit. Returns
 *  the y below it. */
function arrayLine(m: Marks, x: number, y: number, a: ArrayItem, text: ReturnType<typeof label>): number {
  m.texts.push({ id: `${a.id}-text`, x, y: y + 13, label: text, anchor: 'start', role: 'value' });
  m.boxes.push(box(`${a.id}-bar`, x + 460, y + 3, 120, 10, 'bar', a.limit ? Math.min(1, a.avail / a.limit) : 0));
  return y + 20;
}
