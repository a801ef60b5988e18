// Layout of the CPU panel: one snapshot in, a scene out (structured columns for the text
// alternative, positioned marks for the SVG). No DOM, no React, no simulator.
//
// One column per CPU, labelled `cpu N (node M)`, for the cache the snapshot shows in full.
// - SLUB (`struct kmem_cache_cpu`): `c->tid`; `c->freelist` as a chain of objects, head first,
//   each box pointing at the next one (the chain the snapshot followed through the stored free
//   pointers); `c->slab`, drawn frozen (a cpu slab always is); `c->partial` from the top, each
//   slab with its `slabs` count (slabs from it to the bottom of the stack, as
//   `put_cpu_partial()` keeps it in v6.6) and inuse/objects. Slabs on the cpu partial stack are
//   frozen in v6.6 (delayed freezing came in 6.8); the outline follows each slab's own `frozen`.
// - SLAB (`struct array_cache`): the entries as a stack drawn top first; `entry[avail-1]` is
//   the hottest, the next object out. avail/limit, batchcount, touched.
// What the step touched (`transient.slabs`, `transient.objects`) is highlighted.
// - The shared words a micro-step of a concurrent block touched (`options.words`, from
//   sharedWords.ts), for the cache shown: a SLUB CPU's `c->tid`, `c->freelist` and `c->slab`
//   labels are emphasised with a mark of who did what beside them ("read by cpu1",
//   "✗ the task migrated"), and `c->lock` (`local_lock`) is marked on the CPU's title line.
// - RCU, per CPU and for every cache (`snapshot.rcu`), under both allocators, only when some
//   CPU has any: the CPU's `krc` (`kfree_rcu()` pointers queued in pages and chained through
//   their `rcu_head`, the batches waiting for a grace period, the page cache, the monitor) and
//   its `call_rcu()` callbacks waiting to run. This section lines up across columns below the
//   cache's own.
//
// Ids: `cpu-N` for a column, `slab-PFN` for a slab wherever it sits in the panel (so a slab
// leaving the partial stack for `c->slab` moves), `cpu-N-obj-ADDR` for objects.
// Labels are i18n keys under `cpuView` with arguments (see marks.ts).

import type { Snapshot } from '../core/generated/Snapshot';
import type { CacheView } from '../core/generated/CacheView';
import type { CpuView } from '../core/generated/CpuView';
import type { RcuView } from '../core/generated/RcuView';
import type { BoxMark, Capped, Marks } from './marks';
import { batchcountText, boxMark, capList, emptyMarks, label, literal, shortAddr, type Label } from './marks';
import { frozenStroke, markStroke, rcuStyle, slotStyle } from './palette';
import { findWord, wordLabel, type SharedWord, type WordName } from './sharedWords';

export interface CpuPanelOptions {
  /** Objects of `c->freelist` drawn before "+N more". */
  maxFreelist?: number;
  /** Slabs of the cpu partial stack drawn before "+N more". */
  maxPartial?: number;
  /** Array cache entries drawn (from the top) before "+N more". */
  maxEntries?: number;
  /** `kfree_rcu()` pointers drawn before "+N more". */
  maxRcu?: number;
  /** The shared words the step's micro-steps touched (`sharedWords(step)`). */
  words?: readonly SharedWord[];
}

export interface ObjectItem {
  id: string;
  addr: string;
  /** The step allocated or freed it. */
  highlight: boolean;
}

export interface SlabItem {
  id: string;
  pfn: number;
  inuse: number;
  objects: number;
  frozen: boolean;
  highlight: boolean;
}

export interface PartialItem extends SlabItem {
  /** `slab->slabs`: slabs from this one to the bottom of the stack. */
  slabs: number;
}

export interface EntryItem extends ObjectItem {
  /** Index in `ac->entry`. */
  index: number;
}

export interface SlubCpuColumn {
  kind: 'slub';
  id: string;
  cpu: number;
  node: number;
  tid: number;
  /** `c->freelist`, head first. */
  freelist: Capped<ObjectItem>;
  /** `c->slab`. */
  slab: SlabItem | null;
  /** `c->partial`, from the top. */
  partial: Capped<PartialItem>;
  /** The CPU's RCU state; null when no CPU has any (the section is not drawn). */
  rcu: RcuColumn | null;
  /** Its `kmem_cache_cpu` words the step's micro-step touched. */
  words: CpuWords;
}

/** A CPU's words a micro-step touched, each null when untouched. */
export interface CpuWords {
  tid: SharedWord | null;
  freelist: SharedWord | null;
  slab: SharedWord | null;
  /** `c->lock` (`local_lock_irqsave(&s->cpu_slab->lock)`). */
  lock: SharedWord | null;
}

export interface SlabCpuColumn {
  kind: 'slab';
  id: string;
  cpu: number;
  node: number;
  avail: number;
  limit: number;
  batchcount: string;
  touched: boolean;
  /** `ac->entry[]` in kernel order (bottom first); the last shown is the next out. Capped from
   * the bottom: `more` entries below the first shown are left out. */
  entries: Capped<EntryItem>;
  /** The CPU's RCU state; null when no CPU has any (the section is not drawn). */
  rcu: RcuColumn | null;
}

/** A CPU's `kfree_rcu()` and `call_rcu()` state (`snapshot.rcu`). */
export interface RcuColumn {
  /** Pointers `kfree_rcu()` queued here: those in pages (newest page first), then those chained
   * through their `rcu_head` (newest first). */
  queued: Capped<ObjectItem & { chained: boolean }>;
  objects: number;
  inPages: number;
  pages: number;
  chained: number;
  /** Pointers in each `krw_arr[]` batch (waiting for a grace period). */
  batches: number[];
  /** `bkvcache`: empty pages kept for reuse. */
  cachedPages: number;
  monitorPending: boolean;
  /** `call_rcu()` callbacks waiting to run here, and how many of them may run now. */
  callbacks: number;
  readyCallbacks: number;
}

export type CpuColumn = SlubCpuColumn | SlabCpuColumn;

export interface CpuPanelScene {
  allocator: Snapshot['allocator'];
  cacheName: string | null;
  columns: CpuColumn[];
  marks: Marks;
}

export const COLUMN_WIDTH = 230;
const GAP = 18;
const PAD = 10;
const BOX_W = COLUMN_WIDTH - 2 * PAD;
const OBJ_H = 18;
const OBJ_STEP = 28;
const SLAB_H = 26;
const SLAB_STEP = 30;
const LINE = 16;

export function layoutCpuPanel(snapshot: Snapshot, options: CpuPanelOptions = {}): CpuPanelScene {
  const maxFreelist = options.maxFreelist ?? 10;
  const maxPartial = options.maxPartial ?? 8;
  const maxEntries = options.maxEntries ?? 10;
  const maxRcu = options.maxRcu ?? 6;
  const cache = snapshot.cache;
  const scene: CpuPanelScene = {
    allocator: snapshot.allocator,
    cacheName: cache?.name ?? null,
    columns: [],
    marks: emptyMarks(),
  };
  if (!cache) return scene;
  const touchedSlabs = new Set(snapshot.transient.slabs);
  const touchedObjects = new Set(snapshot.transient.objects);
  const brief = new Map(cache.slabs.map((s) => [s.pfn, s]));

  const object = (cpu: number, addr: string): ObjectItem => ({
    id: `cpu-${cpu}-obj-${addr}`,
    addr,
    highlight: touchedObjects.has(addr),
  });

  const rcu = rcuColumns(snapshot, touchedObjects, maxRcu);
  const word = (cpu: number, name: WordName) => findWord(options.words, name, (w) => w.cache === cache.id && w.cpu === cpu);
  scene.columns = cache.cpus.map((c) => column(c, cache));

  placeColumns(scene);
  return scene;

  function column(c: CpuView, cache: CacheView): CpuColumn {
    if (c.kind === 'slub') {
      const s = c.slab === null ? undefined : brief.get(c.slab);
      return {
        kind: 'slub',
        id: `cpu-${c.cpu}`,
        cpu: c.cpu,
        node: c.node,
        tid: c.tid,
        freelist: capList(c.freelist.map((a) => object(c.cpu, a)), maxFreelist),
        slab:
          c.slab === null
            ? null
            : {
                id: `slab-${c.slab}`,
                pfn: c.slab,
                inuse: s?.inuse ?? 0,
                objects: s?.objects ?? cache.objs_per_slab,
                // A cpu slab is frozen by definition (`freeze_slab()`/`get_partial()`).
                frozen: s?.frozen ?? true,
                highlight: touchedSlabs.has(c.slab),
              },
        partial: capList(
          c.partial.map((p) => ({
            id: `slab-${p.pfn}`,
            pfn: p.pfn,
            inuse: p.inuse,
            objects: p.objects,
            slabs: p.slabs,
            frozen: brief.get(p.pfn)?.frozen ?? false,
            highlight: touchedSlabs.has(p.pfn),
          })),
          maxPartial,
        ),
        rcu: rcu?.[c.cpu] ?? null,
        words: { tid: word(c.cpu, 'c->tid'), freelist: word(c.cpu, 'c->freelist'), slab: word(c.cpu, 'c->slab'), lock: word(c.cpu, 'c->lock') },
      };
    }
    const ac = c.ac;
    const live = ac.entry.slice(0, ac.avail);
    return {
      kind: 'slab',
      id: `cpu-${c.cpu}`,
      cpu: c.cpu,
      node: c.node,
      avail: ac.avail,
      limit: ac.limit,
      batchcount: batchcountText(ac.batchcount),
      touched: ac.touched,
      entries: capList(
        live.map((addr, index) => ({ ...object(c.cpu, addr), index })),
        maxEntries,
        'last',
      ),
      rcu: rcu?.[c.cpu] ?? null,
    };
  }
}

/** Every CPU's RCU column, or null when no CPU has anything RCU holds. Snapshots written before
 * RCU was modelled have no `rcu`. */
function rcuColumns(snapshot: Snapshot, touched: ReadonlySet<string>, max: number): RcuColumn[] | null {
  const rcu = snapshot.rcu as RcuView | undefined;
  if (!rcu) return null;
  const columns = rcu.cpus.map((c): RcuColumn => {
    const q = c.krc.queued;
    const item = (addr: string, chained: boolean) => ({
      id: `cpu-${c.cpu}-krc-${addr}`,
      addr,
      highlight: touched.has(addr),
      chained,
    });
    const inPages = q.pages.reduce((n, p) => n + p.nr_records, 0);
    // The snapshot lists at most 64 pointers a page and 64 chained objects: what is left out is
    // counted from the queue's own total, not from the list.
    const listed = capList([...q.pages.flatMap((p) => p.records.map((a) => item(a, false))), ...q.head.map((a) => item(a, true))], max);
    return {
      queued: { shown: listed.shown, more: q.objects - listed.shown.length },
      objects: q.objects,
      inPages,
      pages: q.pages.length,
      chained: q.head_count,
      batches: c.krc.batches.map((b) => b.objects),
      cachedPages: c.krc.cached_pages.length,
      monitorPending: c.krc.monitor_pending,
      callbacks: c.callbacks.length,
      readyCallbacks: c.callbacks.filter((cb) => cb.ready).length,
    };
  });
  const any = columns.some((c) => c.objects + c.batches.reduce((a, b) => a + b, 0) + c.cachedPages + c.callbacks > 0);
  return any ? columns : null;
}

function slabBox(item: SlabItem, x: number, y: number): BoxMark {
  return boxMark({
    id: item.id,
    x,
    y,
    w: BOX_W,
    h: SLAB_H,
    kind: 'slab',
    stroke: item.frozen ? frozenStroke.stroke : markStroke,
    strokeWidth: item.frozen ? frozenStroke.width : 1,
    dash: item.frozen ? frozenStroke.dash : '',
    level: item.objects ? item.inuse / item.objects : 0,
    highlight: item.highlight,
    target: { kind: 'slab', pfn: item.pfn },
  });
}

function objectBox(item: ObjectItem, x: number, y: number, kind: string, fill: string, glyph: string): BoxMark {
  return boxMark({
    id: item.id,
    x,
    y,
    w: BOX_W,
    h: OBJ_H,
    kind,
    fill,
    glyph,
    highlight: item.highlight,
    target: { kind: 'object', addr: item.addr },
  });
}

/** Positions every column; sections line up across columns so CPUs compare at a glance. */
function placeColumns(scene: CpuPanelScene): void {
  const m = scene.marks;
  const cols = scene.columns;
  const slub = cols.filter((c): c is SlubCpuColumn => c.kind === 'slub');
  const slab = cols.filter((c): c is SlabCpuColumn => c.kind === 'slab');
  // Section heights: the tallest column decides.
  const flRows = Math.max(1, ...slub.map((c) => c.freelist.shown.length + (c.freelist.more ? 1 : 0)));
  const entryRows = Math.max(1, ...slab.map((c) => c.entries.shown.length + (c.entries.more ? 1 : 0)));
  let bottom = 0;
  cols.forEach((col, i) => {
    const x0 = i * (COLUMN_WIDTH + GAP);
    const x = x0 + PAD;
    m.boxes.push(boxMark({
      id: `${col.id}-frame`,
      x: x0,
      y: 0,
      w: COLUMN_WIDTH,
      h: 0, // set below, once the height is known
      kind: 'frame',
      fill: 'none',
      stroke: '#d0d4d9',
    }));
    m.texts.push({
      id: `${col.id}-title`,
      x,
      y: 18,
      label: label('cpuView.cpuLabel', { cpu: col.cpu, node: col.node }),
      anchor: 'start',
      role: 'title',
    });
    const y = col.kind === 'slub' ? placeSlubColumn(m, col, x, 28, flRows) : placeSlabColumn(m, col, x, 28, entryRows);
    bottom = Math.max(bottom, y + PAD);
  });
  if (cols.some((c) => c.rcu)) bottom = placeRcu(scene, bottom);
  for (const b of m.boxes) if (b.kind === 'frame') b.h = bottom;
  m.width = Math.max(COLUMN_WIDTH, cols.length * (COLUMN_WIDTH + GAP) - GAP);
  m.height = bottom;
}

/** A SLUB CPU's struct kmem_cache_cpu from `top` down: its tid, c->freelist (`flRows` rows tall,
 *  the tallest of the CPUs'), c->slab and c->partial. Returns the y below it. */
function placeSlubColumn(m: CpuPanelScene['marks'], col: SlubCpuColumn, x: number, top: number, flRows: number): number {
  let y = top;
  const w = col.words;
  const lit = (word: SharedWord | null) => (word ? { emphasis: true } : {});
  const mark = (id: string, word: SharedWord | null, at: number, reason = false) => {
    if (word) m.texts.push({ id: `${col.id}-${id}-word`, x: x + BOX_W, y: at, label: wordLabel(word, reason), anchor: 'end', role: 'word', emphasis: true });
  };
  if (w.lock) {
    m.texts.push({ id: `${col.id}-lock-word`, x: x + BOX_W, y: top - 10, label: label(`sharedWord.lock.${w.lock.how}`), anchor: 'end', role: 'word', emphasis: true });
  }
  m.texts.push({ id: `${col.id}-tid`, x, y: y + 12, label: label('cpuView.tid', { tid: col.tid }), anchor: 'start', role: 'value', ...lit(w.tid) });
  mark('tid', w.tid, y + 12, true);
  y += LINE + 8;
  m.texts.push({ id: `${col.id}-fl-label`, x, y: y + 12, label: literal('c->freelist'), anchor: 'start', role: 'label', ...lit(w.freelist) });
  mark('fl', w.freelist, y + 12);
  y += LINE + 4;
  const fl = col.freelist;
  if (fl.shown.length === 0) {
    m.texts.push({ id: `${col.id}-fl-null`, x, y: y + 13, label: literal('NULL'), anchor: 'start', role: 'mono' });
  }
  fl.shown.forEach((o, k) => {
    const oy = y + k * OBJ_STEP;
    m.boxes.push(objectBox(o, x, oy, 'object', slotStyle.cpu_freelist.fill, slotStyle.cpu_freelist.mark));
    m.texts.push({ id: `${o.id}-addr`, x: x + 6, y: oy + 13, label: literal(shortAddr(o.addr, 8)), anchor: 'start', role: 'mono' });
    if (k < fl.shown.length - 1 || fl.more) {
      m.lines.push({ id: `${o.id}-next`, x1: x + 24, y1: oy + OBJ_H, x2: x + 24, y2: oy + OBJ_STEP, kind: 'arrow' });
    }
  });
  if (fl.more) {
    m.texts.push({
      id: `${col.id}-fl-more`,
      x,
      y: y + fl.shown.length * OBJ_STEP + 12,
      label: label('cpuView.more', { count: fl.more }),
      anchor: 'start',
      role: 'more',
    });
  }
  y += flRows * OBJ_STEP + 6;
  m.texts.push({ id: `${col.id}-slab-label`, x, y: y + 12, label: literal('c->slab'), anchor: 'start', role: 'label', ...lit(w.slab) });
  mark('slab', w.slab, y + 12);
  y += LINE + 4;
  if (col.slab) {
    const s = col.slab;
    m.boxes.push(slabBox(s, x, y));
    m.texts.push({
      id: `${s.id}-text`,
      x: x + 6,
      y: y + 17,
      label: label('cpuView.slabBox', { pfn: s.pfn, inuse: s.inuse, objects: s.objects }),
      anchor: 'start',
      role: 'value',
    });
  } else {
    m.texts.push({ id: `${col.id}-slab-null`, x, y: y + 17, label: literal('NULL'), anchor: 'start', role: 'mono' });
  }
  y += SLAB_STEP + 6;
  m.texts.push({ id: `${col.id}-partial-label`, x, y: y + 12, label: literal('c->partial'), anchor: 'start', role: 'label' });
  y += LINE + 4;
  const p = col.partial;
  if (p.shown.length === 0) {
    m.texts.push({ id: `${col.id}-partial-null`, x, y: y + 17, label: literal('NULL'), anchor: 'start', role: 'mono' });
    y += SLAB_STEP;
  }
  p.shown.forEach((s) => {
    m.boxes.push(slabBox(s, x, y));
    m.texts.push({
      id: `${s.id}-text`,
      x: x + 6,
      y: y + 17,
      label: label('cpuView.partialBox', { pfn: s.pfn, inuse: s.inuse, objects: s.objects, slabs: s.slabs }),
      anchor: 'start',
      role: 'value',
    });
    y += SLAB_STEP;
  });
  if (p.more) {
    m.texts.push({ id: `${col.id}-partial-more`, x, y: y + 12, label: label('cpuView.more', { count: p.more }), anchor: 'start', role: 'more' });
    y += LINE;
  }
  return y;
}

/** A SLAB CPU's struct array_cache from `top` down: avail against limit, batchcount, touched and
 *  the entry[] stack (`entryRows` rows tall, the tallest of the CPUs'). Returns the y below it. */
function placeSlabColumn(m: CpuPanelScene['marks'], col: SlabCpuColumn, x: number, top: number, entryRows: number): number {
  let y = top;
  m.texts.push({
    id: `${col.id}-avail`,
    x,
    y: y + 12,
    label: label('cpuView.availLimit', { avail: col.avail, limit: col.limit }),
    anchor: 'start',
    role: 'value',
  });
  y += LINE + 2;
  m.boxes.push(boxMark({
    id: `${col.id}-level`,
    x,
    y,
    w: BOX_W,
    h: 8,
    kind: 'bar',
    level: col.limit ? Math.min(1, col.avail / col.limit) : 0,
  }));
  y += 14;
  m.texts.push({ id: `${col.id}-batch`, x, y: y + 12, label: label('cpuView.batchcount', { batchcount: col.batchcount }), anchor: 'start', role: 'value' });
  y += LINE;
  m.texts.push({
    id: `${col.id}-touched`,
    x,
    y: y + 12,
    label: label(col.touched ? 'cpuView.touchedYes' : 'cpuView.touchedNo'),
    anchor: 'start',
    role: 'value',
  });
  y += LINE + 6;
  m.texts.push({ id: `${col.id}-entry-label`, x, y: y + 12, label: literal('ac->entry[]'), anchor: 'start', role: 'label' });
  y += LINE + 4;
  const e = col.entries;
  if (e.shown.length === 0) {
    m.texts.push({ id: `${col.id}-entry-empty`, x, y: y + 13, label: label('cpuView.empty'), anchor: 'start', role: 'note' });
  }
  // Top of the stack (the next out) at the top.
  const topFirst = [...e.shown].reverse();
  topFirst.forEach((o, k) => {
    const oy = y + k * (OBJ_H + 4);
    m.boxes.push(objectBox(o, x, oy, 'entry', slotStyle.cached.fill, slotStyle.cached.mark));
    m.texts.push({
      id: `${o.id}-addr`,
      x: x + 6,
      y: oy + 13,
      label: literal(`[${o.index}] ${shortAddr(o.addr, 8)}`),
      anchor: 'start',
      role: 'mono',
    });
  });
  if (topFirst.length) {
    m.texts.push({ id: `${col.id}-next-out`, x: x + BOX_W - 18, y: y - 4, label: label('cpuView.nextOut'), anchor: 'end', role: 'note' });
  }
  if (e.more) {
    m.texts.push({
      id: `${col.id}-entry-more`,
      x,
      y: y + topFirst.length * (OBJ_H + 4) + 12,
      label: label('cpuView.moreBelow', { count: e.more }),
      anchor: 'start',
      role: 'more',
    });
  }
  y += entryRows * (OBJ_H + 4);
  return y;
}

/** The RCU section of every column, from `top` on; returns the new bottom. */
function placeRcu(scene: CpuPanelScene, top: number): number {
  const m = scene.marks;
  let bottom = top;
  scene.columns.forEach((col, i) => {
    const r = col.rcu;
    if (!r) return;
    const x = i * (COLUMN_WIDTH + GAP) + PAD;
    let y = top;
    const text = (id: string, l: Label, role = 'value') => {
      m.texts.push({ id: `${col.id}-${id}`, x, y: y + 12, label: l, anchor: 'start', role });
      y += LINE;
    };
    text('krc-label', literal('krc (kfree_rcu)'), 'label');
    text('krc-queued', label('cpuView.krcQueued', { objects: r.objects, inPages: r.inPages, pages: r.pages, chained: r.chained }));
    y += 4;
    r.queued.shown.forEach((o) => {
      m.boxes.push(objectBox(o, x, y, 'rcu', rcuStyle.fill, o.chained ? rcuStyle.chainedMark : rcuStyle.mark));
      m.texts.push({ id: `${o.id}-addr`, x: x + 6, y: y + 13, label: literal(shortAddr(o.addr, 8)), anchor: 'start', role: 'mono' });
      y += OBJ_H + 4;
    });
    if (r.queued.more) text('krc-more', label('cpuView.more', { count: r.queued.more }), 'more');
    r.batches.forEach((objects, batch) => {
      if (objects > 0) text(`krc-batch-${batch}`, label('cpuView.krcBatch', { batch, objects }));
    });
    text('krc-cache', label('cpuView.krcCache', { pages: r.cachedPages }));
    if (r.monitorPending) text('krc-monitor', label('cpuView.krcMonitor'), 'note');
    text('rcu-callbacks', label('cpuView.rcuCallbacks', { count: r.callbacks, ready: r.readyCallbacks }));
    bottom = Math.max(bottom, y + PAD);
  });
  return bottom;
}
