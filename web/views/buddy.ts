// Layout of the buddy allocator view: one snapshot in, a scene out. No DOM, no React, no wasm.
//
// Per node: the zone's free pages against its watermarks, `free_area[order]` as one row per
// order (nr_free and the first blocks), and every CPU's pcp lists for that zone. Above them, the
// buddy pairs the step merged (`__free_one_page()`) or split (`expand()`), each drawn as two
// halves of `order` beside the block of `order + 1` they make or come from.
//
// Rules:
// - A block chip's id is `pfn-<first pfn>`, the same whether it sits on a free_area list or on
//   a pcp list (a block is on one list at a time).
// - Element counts are bounded: at most `blocksPerRow` chips per list and MAX_PAIRS pairs.
// - Pairs have an index in their step's order: `__free_one_page()` merges upwards one order
//   at a time, `expand()` splits downwards.

import type { BuddyPair } from '../core/generated/BuddyPair';
import type { PcpView } from '../core/generated/PcpView';
import type { Snapshot } from '../core/generated/Snapshot';
import type { ZoneView } from '../core/generated/ZoneView';

/** Buddy pairs shown at most for one step. */
export const MAX_PAIRS = 24;

export interface BuddyOptions {
  /** Blocks shown per list (free_area order or pcp list); the rest are counted. */
  blocksPerRow?: number;
}

export interface BlockChip {
  /** `pfn-<first pfn>`. */
  id: string;
  pfn: number;
  order: number;
  x: number;
  y: number;
  width: number;
  /** Where it is: a free_area list or a CPU's pcp list. */
  list: 'free_area' | 'pcp';
  /** A block of a pair merged or split in this step. */
  highlighted: boolean;
}

export interface ListRow {
  /** `fa-<node>-<order>` or `pcp-<cpu>-<node>-<order>`. */
  id: string;
  order: number;
  /** nr_free (free_area) or the list's length (pcp). */
  count: number;
  /** First pfns shown (ids in `chips`). */
  pfns: number[];
  /** Blocks not shown. */
  more: number;
  x: number;
  y: number;
  /** Where the "+N more" note goes, after the chips. */
  moreX: number;
}

export interface Gauge {
  /** The value drawn (free pages, or pcp count). */
  value: number;
  /** The scale's end (the gauge's full width). */
  max: number;
  x: number;
  y: number;
  width: number;
  /** Width of the filled part. */
  filled: number;
  /** Tick marks: watermarks, or pcp high and batch. */
  ticks: { name: string; value: number; x: number }[];
}

/** Where the zone's free pages stand against its watermarks (`zone_watermark_ok()` terms). */
export type WatermarkLevel = 'below_min' | 'below_low' | 'below_high' | 'above_high';

export interface PcpScene {
  /** `pcp-<cpu>-<node>`. */
  id: string;
  cpu: number;
  node: number;
  count: number;
  high: number;
  batch: number;
  freeFactor: number;
  /** 6.7+: the list tunes itself; null before (then `freeFactor` applies). */
  tuning: { highMin: number; highMax: number; allocFactor: number; freeCount: number } | null;
  y: number;
  gauge: Gauge;
  lists: ListRow[];
}

export interface NodeScene {
  /** `node-<node>`. */
  id: string;
  node: number;
  startPfn: number;
  pages: number;
  freePages: number;
  watermark: { min: number; low: number; high: number };
  level: WatermarkLevel;
  y: number;
  height: number;
  gauge: Gauge;
  freeArea: ListRow[];
  pcp: PcpScene[];
}

export interface PairScene {
  /** `merge-<i>` / `split-<i>` plus the pair: stable for one step, new for the next. */
  id: string;
  kind: 'merge' | 'split';
  /** 1-based position in the step. */
  seq: number;
  node: number;
  lower: number;
  upper: number;
  /** Order of each half; the whole block is `order + 1`. */
  order: number;
  x: number;
  y: number;
  /** Width of one half; the whole is two halves. */
  half: number;
  height: number;
  /** Gap between the halves when apart. */
  gap: number;
}

export interface BuddyScene {
  maxOrder: number;
  pairs: PairScene[];
  pairsHidden: number;
  nodes: NodeScene[];
  /** Every block chip of every list, for one keyed join. */
  chips: BlockChip[];
  width: number;
  height: number;
}

export const LABEL_W = 116;
/** A chip is drawn CHIP_H high, CHIP_TOP below its row's top. */
export const CHIP_TOP = 2;
export const CHIP_H = 16;
const CHIP_W = 46;
const CHIP_GAP = 4;
const ROW_H = 20;
const GAUGE_W = 300;
/** A node's heading, then its watermark gauge with labels above and below. */
const NODE_HEADER_H = 60;
/** A pcp's heading, then its count/high gauge. */
const PCP_HEADER_H = 56;
/** The gauge's top, below a heading. */
const GAUGE_TOP = 30;
const PAIR_HALF = 54;
const PAIR_GAP = 10;
const PAIR_H = 22;
const PAIR_BLOCK_W = 2 * PAIR_HALF + PAIR_GAP + 24;
const PAIRS_H = 70;
/** pcp lists kept per order: 0..=PAGE_ALLOC_COSTLY_ORDER (3) in Linux 6.6. */
const PCP_ORDERS = 4;

export function watermarkLevel(free: number, [min, low, high]: [number, number, number]): WatermarkLevel {
  if (free < min) return 'below_min';
  if (free < low) return 'below_low';
  if (free < high) return 'below_high';
  return 'above_high';
}

function gauge(value: number, max: number, ticks: [string, number][], x: number, y: number): Gauge {
  const scale = (v: number) => Math.round((GAUGE_W * Math.min(v, max)) / Math.max(1, max) * 10) / 10;
  return { value, max, x, y, width: GAUGE_W, filled: scale(value), ticks: ticks.map(([name, v]) => ({ name, value: v, x: x + scale(v) })) };
}

function listRow(id: string, order: number, count: number, pfns: number[], perRow: number, y: number): ListRow {
  const shown = pfns.slice(0, perRow);
  return {
    id,
    order,
    count,
    pfns: shown,
    more: Math.max(0, count - shown.length),
    x: LABEL_W,
    y,
    moreX: LABEL_W + shown.length * (CHIP_W + CHIP_GAP) + 2,
  };
}

function chipsOf(row: ListRow, list: BlockChip['list'], touched: Set<number>): BlockChip[] {
  return row.pfns.map((pfn, i) => ({
    id: `pfn-${pfn}`,
    pfn,
    order: row.order,
    x: row.x + i * (CHIP_W + CHIP_GAP),
    y: row.y,
    width: CHIP_W,
    list,
    highlighted: touched.has(pfn),
  }));
}

function pairScenes(kind: PairScene['kind'], pairs: BuddyPair[], start: number): PairScene[] {
  return pairs.map((p, i) => {
    const n = start + i;
    const lower = Math.min(p.pfn, p.buddy);
    const upper = Math.max(p.pfn, p.buddy);
    return {
      id: `${kind}-${i}-${p.node}-${lower}-${p.order}`,
      kind,
      seq: i + 1,
      node: p.node,
      lower,
      upper,
      order: p.order,
      x: 4 + n * PAIR_BLOCK_W,
      y: 16,
      half: PAIR_HALF,
      height: PAIR_H,
      gap: PAIR_GAP,
    };
  });
}

function pcpScene(p: PcpView, perRow: number, touched: Set<number>, y: number, chips: BlockChip[]): PcpScene {
  const lists = Array.from({ length: PCP_ORDERS }, (_, order) => {
    const pfns = p.lists[order] ?? [];
    return listRow(`pcp-${p.cpu}-${p.node}-${order}`, order, pfns.length, pfns, perRow, y + PCP_HEADER_H + order * ROW_H);
  });
  for (const row of lists) chips.push(...chipsOf(row, 'pcp', touched));
  return {
    id: `pcp-${p.cpu}-${p.node}`,
    cpu: p.cpu,
    node: p.node,
    count: p.count,
    high: p.high,
    batch: p.batch,
    freeFactor: p.free_factor,
    tuning: p.tuned ? { highMin: p.high_min, highMax: p.high_max, allocFactor: p.alloc_factor, freeCount: p.free_count } : null,
    y,
    gauge: gauge(p.count, Math.max(p.high, p.count, 1), [['batch', p.batch], ['high', p.high]], LABEL_W, y + GAUGE_TOP),
    lists,
  };
}

function nodeScene(zone: ZoneView, pcps: PcpView[], perRow: number, touched: Set<number>, y0: number, chips: BlockChip[]): NodeScene {
  const [min, low, high] = zone.watermark;
  // Small teaching machines have watermarks above their size: the scale takes the larger.
  const max = Math.max(zone.pages, high, zone.free_pages, 1);
  let y = y0 + NODE_HEADER_H;
  const freeArea = zone.free_area.map((fa) => {
    const row = listRow(`fa-${zone.node}-${fa.order}`, fa.order, fa.nr_free, fa.pfns, perRow, y);
    y += ROW_H;
    return row;
  });
  for (const row of freeArea) chips.push(...chipsOf(row, 'free_area', touched));
  y += 10;
  const pcp = pcps.map((p) => {
    const scene = pcpScene(p, perRow, touched, y, chips);
    y += PCP_HEADER_H + PCP_ORDERS * ROW_H + 8;
    return scene;
  });
  return {
    id: `node-${zone.node}`,
    node: zone.node,
    startPfn: zone.start_pfn,
    pages: zone.pages,
    freePages: zone.free_pages,
    watermark: { min, low, high },
    level: watermarkLevel(zone.free_pages, zone.watermark),
    y: y0,
    gauge: gauge(zone.free_pages, max, [['min', min], ['low', low], ['high', high]], LABEL_W, y0 + GAUGE_TOP),
    freeArea,
    pcp,
    height: y - y0,
  };
}

/** The buddy allocator scene of a snapshot. */
export function layoutBuddy(snapshot: Snapshot, options: BuddyOptions = {}): BuddyScene {
  const perRow = Math.max(1, options.blocksPerRow ?? 8);
  const { merges, splits } = snapshot.transient;
  const all = [...pairScenes('merge', merges, 0), ...pairScenes('split', splits, merges.length)];
  const pairs = all.slice(0, MAX_PAIRS);
  const touched = new Set<number>();
  for (const p of [...merges, ...splits]) {
    touched.add(p.pfn);
    touched.add(p.buddy);
  }
  const chips: BlockChip[] = [];
  let y = pairs.length > 0 ? PAIRS_H : 0;
  const nodes = snapshot.buddy.zones.map((zone) => {
    const pcps = snapshot.buddy.pcp.filter((p) => p.node === zone.node);
    const scene = nodeScene(zone, pcps, perRow, touched, y, chips);
    y += scene.height + 16;
    return scene;
  });
  const pairsWidth = 4 + pairs.length * PAIR_BLOCK_W;
  return {
    maxOrder: snapshot.buddy.max_order,
    pairs,
    pairsHidden: all.length - pairs.length,
    nodes,
    chips,
    width: Math.max(LABEL_W + perRow * (CHIP_W + CHIP_GAP) + 70, LABEL_W + GAUGE_W + 60, pairsWidth),
    height: y,
  };
}

/** The block chip drawn at (`x`, `y`) of the drawing, or null: for clicks and tooltips. */
export function chipAt(scene: BuddyScene, x: number, y: number): BlockChip | null {
  for (const c of scene.chips) {
    if (x >= c.x && x < c.x + c.width && y >= c.y + CHIP_TOP && y < c.y + CHIP_TOP + CHIP_H) return c;
  }
  return null;
}
