// Colours, patterns and shapes every view shares. The palette is Okabe–Ito (safe for the
// common colour-vision deficiencies), and no state is told by colour alone: each slot state
// also has its own fill pattern or mark, and frozen slabs a dashed double outline.
//
// Views take these as plain values; `definePatterns` adds the SVG <pattern>s once per <svg>.

import type { Selection } from 'd3-selection';
import { defineArrowhead } from './drawUtil';

export const okabeIto = {
  black: '#000000',
  orange: '#E69F00',
  skyBlue: '#56B4E9',
  bluishGreen: '#009E73',
  yellow: '#F0E442',
  blue: '#0072B2',
  vermillion: '#D55E00',
  reddishPurple: '#CC79A7',
} as const;

/** How each slot state is drawn: a fill (colour or pattern) and a mark for text/legends. */
export const slotStyle = {
  allocated: { fill: okabeIto.blue, pattern: null, mark: '■' },
  free: { fill: '#ffffff', pattern: null, mark: '□' },
  cpu_freelist: { fill: 'url(#pat-cpu-freelist)', pattern: 'pat-cpu-freelist', mark: '▨' },
  cached: { fill: 'url(#pat-cached)', pattern: 'pat-cached', mark: '▦' },
  /** In a sheaf (6.18+): free to callers, in use to its slab. */
  sheaf: { fill: 'url(#pat-sheaf)', pattern: 'pat-sheaf', mark: '▤' },
  /** Taken off a sheaf by the operation at work, on its way back to its slab. */
  stacked: { fill: '#cfe8dd', pattern: null, mark: '▥' },
} as const;

export type SlotKind = keyof typeof slotStyle;

/** An object `kfree_rcu()` queued: still allocated, waiting for a grace period. Its mark says
 * where it waits: in a page of pointers, or chained through its own `rcu_head`. */
export const rcuStyle = { fill: '#b8a9d9', mark: '◷', chainedMark: '⛓' } as const;

/** A frozen slab's outline: dashed, in orange. */
export const frozenStroke = { stroke: okabeIto.orange, dash: '4 2', width: 2 } as const;

/** Who owns a block of pages, for the page-frame map and the buddy lanes. */
export const ownerColour = {
  buddy: '#d9d9d9',
  pcp: okabeIto.yellow,
  large_kmalloc: okabeIto.vermillion,
  pages: okabeIto.reddishPurple,
  /** A slab freed through `call_rcu()`, waiting for its grace period: a light violet, striped. */
  slab_rcu: rcuStyle.fill,
  /** A page of a CPU's `kfree_rcu()` pointers. */
  kfree_rcu: '#8c6d3f',
  detached: okabeIto.black,
  hole: '#ffffff',
} as const;

/**
 * Free buddy blocks by order: greys, darker for small orders, so fragmented free memory stands
 * out against the large blocks (order 0 #8c8c8c to max_order #ececec).
 */
export function buddyOrderColour(order: number, maxOrder: number): string {
  const t = maxOrder > 0 ? Math.min(1, Math.max(0, order / maxOrder)) : 1;
  const v = Math.round(0x8c + t * (0xec - 0x8c));
  const hex = v.toString(16).padStart(2, '0');
  return `#${hex}${hex}${hex}`;
}

/** Colours for slabs of different caches: a cache keeps its colour for the whole run. */
const cacheColours = [
  okabeIto.blue,
  okabeIto.bluishGreen,
  okabeIto.orange,
  okabeIto.skyBlue,
  okabeIto.reddishPurple,
  '#7f6d00',
  '#005a8c',
  '#00694c',
];

export function cacheColour(cacheId: number): string {
  return cacheColours[((cacheId % cacheColours.length) + cacheColours.length) % cacheColours.length];
}

/** The step's highlights (a slab or object the current step touched). */
export const highlight = { stroke: okabeIto.vermillion, width: 3 } as const;

/** How full a slab or an array is: the level drawn from the left; the numbers are always
 * printed beside it. */
export const levelFill = okabeIto.skyBlue;

/** The outline of most boxes and the colour of lines and locks in the structure views. */
export const markStroke = '#33425a';

/** Entries of the array `kmem_cache_free_bulk()` works through (bulk-free view): a fill and a
 * mark each, so the states differ without colour. */
export const bulkCellStyle = {
  /** Not examined by this `build_detached_freelist()` call. */
  pending: { fill: '#ffffff', pattern: null, mark: '' },
  /** Examined, of another slab: costs one lookahead, left for a later call. */
  skipped: { fill: 'url(#pat-skipped)', pattern: 'pat-skipped', mark: '×' },
  /** Gathered into the detached freelist and parked at the top of the unfinished part. */
  parked: { fill: okabeIto.bluishGreen, pattern: null, mark: '●' },
  /** The last unfinished entry, taken first: the detached freelist's tail. */
  tail: { fill: okabeIto.bluishGreen, pattern: null, mark: 'T' },
  /** Freed by an earlier call. */
  finished: { fill: '#d9d9d9', pattern: null, mark: '✓' },
} as const;

export type BulkCellKind = keyof typeof bulkCellStyle;

/** Adds the shared fill patterns to an <svg> (idempotent). */
export function definePatterns(svg: Selection<SVGSVGElement, unknown, null, undefined>): void {
  let defs = svg.select<SVGDefsElement>('defs.palette');
  if (!defs.empty()) return;
  defs = svg.insert<SVGDefsElement>('defs', ':first-child').attr('class', 'palette');
  const hatch = defs
    .append('pattern')
    .attr('id', 'pat-cpu-freelist')
    .attr('patternUnits', 'userSpaceOnUse')
    .attr('width', 6)
    .attr('height', 6)
    .attr('patternTransform', 'rotate(45)');
  hatch.append('rect').attr('width', 6).attr('height', 6).attr('fill', '#ffffff');
  hatch.append('line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', 6).attr('stroke', okabeIto.skyBlue).attr('stroke-width', 3);
  const dots = defs
    .append('pattern')
    .attr('id', 'pat-cached')
    .attr('patternUnits', 'userSpaceOnUse')
    .attr('width', 5)
    .attr('height', 5);
  dots.append('rect').attr('width', 5).attr('height', 5).attr('fill', okabeIto.yellow);
  dots.append('circle').attr('cx', 2.5).attr('cy', 2.5).attr('r', 1.2).attr('fill', okabeIto.black);
  const rows = defs
    .append('pattern')
    .attr('id', 'pat-sheaf')
    .attr('patternUnits', 'userSpaceOnUse')
    .attr('width', 6)
    .attr('height', 6);
  rows.append('rect').attr('width', 6).attr('height', 6).attr('fill', '#ffffff');
  rows.append('rect').attr('y', 1).attr('width', 6).attr('height', 2.5).attr('fill', okabeIto.bluishGreen);
  const cross = defs
    .append('pattern')
    .attr('id', 'pat-skipped')
    .attr('patternUnits', 'userSpaceOnUse')
    .attr('width', 6)
    .attr('height', 6);
  cross.append('rect').attr('width', 6).attr('height', 6).attr('fill', '#ffffff');
  cross.append('path').attr('d', 'M0,0 L6,6 M6,0 L0,6').attr('stroke', okabeIto.orange).attr('stroke-width', 1);
  defineArrowhead(svg, 'arrow-head', markStroke);
}
