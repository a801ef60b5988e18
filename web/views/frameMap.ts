// Layout of the page-frame map: every page of simulated memory as a cell of a grid, coloured by
// who holds it. One snapshot in, a scene out. No DOM, no React, no wasm.
//
// Rules:
// - The map is drawn per run, never per page: adjacent blocks with the same owner (kind, CPU,
//   cache and order alike) and on the same node make one run, and a run is at most three
//   rectangles of the grid. A machine of 2^18 pages stays a few thousand runs.
// - A run's id is `run-<first pfn>`; runs are in pfn order (binary search finds a pfn's run).
// - The map ends with the last node's memory: the hole that rounds its span up to a MAX_ORDER
//   block is not drawn (holes between nodes are).
// - Colour is never alone: buddy blocks are greys by order, pcp pages hatched, holes crossed,
//   large kmalloc pages dotted, slabs waiting for an RCU grace period striped, and the legend
//   and table name every owner.

import type { BlockOwner } from '../core/generated/BlockOwner';
import type { Snapshot } from '../core/generated/Snapshot';
import { buddyOrderColour, cacheColour, ownerColour } from './palette';

export type OwnerKind = BlockOwner['kind'];
export type RunPattern = 'none' | 'hatch' | 'cross' | 'dots' | 'stripes';

/** Runs listed in the text alternative at most. */
export const MAX_TABLE_RUNS = 200;

export interface FrameMapOptions {
  /** Pages per grid row; by default a power of two that keeps the grid about twice as wide as tall. */
  columns?: number;
  /** Width available, in px: sets the cell size (1 to 12 px). */
  maxWidth?: number;
}

export interface FrameRun {
  /** `run-<first pfn>`. */
  id: string;
  pfn: number;
  pages: number;
  /** Blocks it is made of. */
  blocks: number;
  owner: BlockOwner;
  node: number;
  /** Name of the cache, for slab runs (and slabs waiting for RCU). */
  cacheName: string | null;
  /** The legend entry it belongs to. */
  legend: string;
  colour: string;
  pattern: RunPattern;
  highlighted: boolean;
}

export interface LegendItem {
  /** `buddy-<order>`, `slab-<cache>`, or the owner kind (one `slab_rcu` entry for every cache). */
  key: string;
  kind: OwnerKind;
  order: number | null;
  cache: number | null;
  cacheName: string | null;
  colour: string;
  pattern: RunPattern;
  pages: number;
}

export interface OwnerTotal {
  kind: OwnerKind;
  pages: number;
  runs: number;
}

export interface NodeMark {
  node: number;
  pfn: number;
  pages: number;
  /** Grid cell of its first page. */
  row: number;
  col: number;
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface FrameMapScene {
  firstPfn: number;
  totalPages: number;
  columns: number;
  rows: number;
  cell: number;
  width: number;
  height: number;
  runs: FrameRun[];
  legend: LegendItem[];
  totals: OwnerTotal[];
  nodes: NodeMark[];
}

const KIND_ORDER: OwnerKind[] = ['buddy', 'pcp', 'slab', 'slab_rcu', 'large_kmalloc', 'kfree_rcu', 'pages', 'detached', 'hole'];

function ownerKey(o: BlockOwner): string {
  switch (o.kind) {
    case 'hole':
      return 'hole';
    case 'pcp':
      return `pcp-${o.cpu}-${o.order}`;
    case 'slab':
      return `slab-${o.cache}-${o.order}`;
    case 'slab_rcu':
      return `slab_rcu-${o.cache}-${o.order}`;
    case 'kfree_rcu':
      return `kfree_rcu-${o.cpu}-${o.order}`;
    default:
      return `${o.kind}-${o.order}`;
  }
}

function legendOf(o: BlockOwner, maxOrder: number): Pick<LegendItem, 'key' | 'order' | 'cache' | 'colour' | 'pattern'> {
  switch (o.kind) {
    case 'buddy':
      return { key: `buddy-${o.order}`, order: o.order, cache: null, colour: buddyOrderColour(o.order, maxOrder), pattern: 'none' };
    case 'slab':
      return { key: `slab-${o.cache}`, order: null, cache: o.cache, colour: cacheColour(o.cache), pattern: 'none' };
    case 'pcp':
      return { key: 'pcp', order: null, cache: null, colour: ownerColour.pcp, pattern: 'hatch' };
    case 'large_kmalloc':
      return { key: o.kind, order: null, cache: null, colour: ownerColour.large_kmalloc, pattern: 'dots' };
    case 'hole':
      return { key: o.kind, order: null, cache: null, colour: ownerColour.hole, pattern: 'cross' };
    case 'slab_rcu':
      return { key: o.kind, order: null, cache: null, colour: ownerColour.slab_rcu, pattern: 'stripes' };
    default:
      return { key: o.kind, order: null, cache: null, colour: ownerColour[o.kind], pattern: 'none' };
  }
}

function defaultColumns(total: number): number {
  let cols = 64;
  while (total / cols > cols / 2 && cols < 1024) cols *= 2;
  return cols;
}

/** The page-frame map scene of a snapshot. */
export function layoutFrameMap(snapshot: Snapshot, options: FrameMapOptions = {}): FrameMapScene {
  const { zones, max_order: maxOrder } = snapshot.buddy;
  // The last node's span is rounded up to a MAX_ORDER block; what lies past its memory is no
  // memory at all, and on a small machine it would be nearly the whole map (a 16-page node
  // spans 1,024 pfns). Holes between nodes stay: they separate the nodes' pfn ranges.
  let end = snapshot.buddy.blocks.length;
  while (end > 0 && snapshot.buddy.blocks[end - 1].owner.kind === 'hole') end--;
  const blocks = snapshot.buddy.blocks.slice(0, end);
  const firstPfn = blocks.length > 0 ? blocks[0].pfn : 0;
  const last = blocks[blocks.length - 1];
  const totalPages = last ? last.pfn + last.pages - firstPfn : 0;
  const columns = Math.max(1, options.columns ?? defaultColumns(totalPages));
  const rows = Math.ceil(totalPages / columns);
  const cell = Math.max(1, Math.min(12, Math.floor((options.maxWidth ?? 768) / columns)));
  const cacheNames = new Map(snapshot.caches.map((c) => [c.id, c.name]));

  const starts = [...zones].sort((a, b) => a.start_pfn - b.start_pfn);
  const nodeOf = (pfn: number) => {
    let node = starts[0]?.node ?? 0;
    for (const z of starts) if (z.start_pfn <= pfn) node = z.node;
    return node;
  };
  const touched = [...snapshot.transient.slabs];
  for (const p of [...snapshot.transient.merges, ...snapshot.transient.splits]) touched.push(p.pfn, p.buddy);

  const runs: FrameRun[] = [];
  let key = '';
  for (const b of blocks) {
    const k = ownerKey(b.owner);
    const node = nodeOf(b.pfn);
    const prev = runs[runs.length - 1];
    if (prev && k === key && prev.node === node && prev.pfn + prev.pages === b.pfn) {
      prev.pages += b.pages;
      prev.blocks += 1;
      continue;
    }
    const legend = legendOf(b.owner, maxOrder);
    key = k;
    runs.push({
      id: `run-${b.pfn}`,
      pfn: b.pfn,
      pages: b.pages,
      blocks: 1,
      owner: b.owner,
      node,
      cacheName: b.owner.kind === 'slab' || b.owner.kind === 'slab_rcu' ? (cacheNames.get(b.owner.cache) ?? null) : null,
      legend: legend.key,
      colour: legend.colour,
      pattern: legend.pattern,
      highlighted: false,
    });
  }
  for (const pfn of touched) {
    const run = findRun(runs, pfn);
    if (run) run.highlighted = true;
  }

  const legendByKey = new Map<string, LegendItem>();
  const totals = new Map<OwnerKind, OwnerTotal>();
  for (const r of runs) {
    const item = legendByKey.get(r.legend);
    if (item) item.pages += r.pages;
    else {
      // One legend entry stands for every cache's waiting slabs: it names no cache.
      const cacheName = r.owner.kind === 'slab' ? r.cacheName : null;
      legendByKey.set(r.legend, { ...legendOf(r.owner, maxOrder), kind: r.owner.kind, cacheName, pages: r.pages });
    }
    const t = totals.get(r.owner.kind) ?? { kind: r.owner.kind, pages: 0, runs: 0 };
    t.pages += r.pages;
    t.runs += 1;
    totals.set(r.owner.kind, t);
  }
  const byKind = (a: { kind: OwnerKind }, b: { kind: OwnerKind }) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind);
  const legend = [...legendByKey.values()].sort((a, b) => byKind(a, b) || (a.order ?? a.cache ?? 0) - (b.order ?? b.cache ?? 0));

  const nodes = starts.map((z) => {
    const i = z.start_pfn - firstPfn;
    return { node: z.node, pfn: z.start_pfn, pages: z.pages, row: Math.floor(i / columns), col: i % columns };
  });

  return {
    firstPfn,
    totalPages,
    columns,
    rows,
    cell,
    width: columns * cell,
    height: rows * cell,
    runs,
    legend,
    totals: [...totals.values()].sort(byKind),
    nodes,
  };
}

function findRun(runs: FrameRun[], pfn: number): FrameRun | null {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = runs[mid];
    if (pfn < r.pfn) hi = mid - 1;
    else if (pfn >= r.pfn + r.pages) lo = mid + 1;
    else return r;
  }
  return null;
}

/** The run holding a pfn, or null outside the map. */
export function runAt(scene: FrameMapScene, pfn: number): FrameRun | null {
  return findRun(scene.runs, pfn);
}

/** The pfn under a point of the drawing (in the drawing's own px), or null outside the map. */
export function pfnAt(scene: FrameMapScene, x: number, y: number): number | null {
  if (x < 0 || y < 0 || x >= scene.width || y >= scene.height) return null;
  const index = Math.floor(y / scene.cell) * scene.columns + Math.floor(x / scene.cell);
  return index < scene.totalPages ? scene.firstPfn + index : null;
}

/** A run as at most three rectangles: the rest of its first row, whole rows, the start of its last. */
export function runRects(scene: FrameMapScene, pfn: number, pages: number): Rect[] {
  const { columns: cols, cell } = scene;
  const first = pfn - scene.firstPfn;
  const end = first + pages;
  const r0 = Math.floor(first / cols);
  const r1 = Math.floor((end - 1) / cols);
  const c0 = first % cols;
  const c1 = ((end - 1) % cols) + 1;
  if (r0 === r1) return [{ x: c0 * cell, y: r0 * cell, w: (c1 - c0) * cell, h: cell }];
  // Rows the run fills whole are one rectangle, including its first and last when aligned.
  const fullFrom = c0 === 0 ? r0 : r0 + 1;
  const fullTo = c1 === cols ? r1 : r1 - 1;
  const rects: Rect[] = [];
  if (c0 > 0) rects.push({ x: c0 * cell, y: r0 * cell, w: (cols - c0) * cell, h: cell });
  if (fullTo >= fullFrom) rects.push({ x: 0, y: fullFrom * cell, w: cols * cell, h: (fullTo - fullFrom + 1) * cell });
  if (c1 < cols) rects.push({ x: 0, y: r1 * cell, w: c1 * cell, h: cell });
  return rects;
}
