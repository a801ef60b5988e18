// The whole run at a glance, and the breakpoints: each step's kinds and kernel path, decoded
// from the simulator's `Overview` (wasm-core/run/src/overview.rs), summed over ranges of steps
// for the overview strip, and searched for the next (or previous) step a breakpoint names.
// No DOM, no React.
//
// Step `i` is what cursor `i + 1` shows: a search from cursor `c` looks at steps `c`, `c + 1`, …
// (forward) or `c - 2`, `c - 3`, … (back) and answers a cursor.

import type { Overview } from '../core/generated/Overview';

/** The kind bits, as overview.rs sets them. */
export const KIND = {
  fast: 1,
  slow: 2,
  listLock: 4,
  newSlab: 8,
  discard: 16,
  diagnostic: 32,
  listMove: 64,
  pages: 128,
} as const;

export type KindName = keyof typeof KIND;

/** The kinds the strip shows, from the top of a column down (the rarer and louder first). */
export const STRIP_KINDS = ['diagnostic', 'discard', 'newSlab', 'listLock', 'slow', 'fast'] as const;
export type StripKind = (typeof STRIP_KINDS)[number];

export interface StepTable {
  /** Kind bits of each step. */
  kinds: Uint8Array;
  /** Each step's entry in `paths` (255: not listed). */
  pathOf: Uint8Array;
  paths: Overview['paths'];
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function decodeOverview(o: Overview): StepTable {
  return { kinds: hexBytes(o.kinds), pathOf: hexBytes(o.path_of), paths: o.paths };
}

/** One column of the strip: its steps (`first` … `last`, 0-based) and how many of them have each
 *  kind. */
export interface Column {
  first: number;
  last: number;
  counts: Record<StripKind, number>;
}

/** The strip's columns: the steps cut into `n` ranges as even as can be (fewer columns than `n`
 *  when there are fewer steps). */
export function columns(table: StepTable, n: number): Column[] {
  const steps = table.kinds.length;
  const count = Math.max(0, Math.min(n, steps));
  const out: Column[] = [];
  for (let c = 0; c < count; c++) {
    const first = Math.floor((c * steps) / count);
    const last = Math.floor(((c + 1) * steps) / count) - 1;
    const counts = { diagnostic: 0, discard: 0, newSlab: 0, listLock: 0, slow: 0, fast: 0 };
    for (let i = first; i <= last; i++) {
      const k = table.kinds[i];
      for (const name of STRIP_KINDS) if (k & KIND[name]) counts[name] += 1;
    }
    out.push({ first, last, counts });
  }
  return out;
}

/** What a breakpoint stops at. */
export type Breakpoint =
  | { kind: KindName }
  /** A kernel function and path (an index into `paths`). */
  | { kind: 'path'; path: number }
  /** The steps that allocate or free one object (their cursors, from its lane). */
  | { kind: 'cursors'; cursors: readonly number[] };

/** Whether step `i` is one `bp` stops at. */
function matches(table: StepTable, bp: Breakpoint, i: number): boolean {
  if (bp.kind === 'path') return table.pathOf[i] === bp.path;
  if (bp.kind === 'cursors') return bp.cursors.includes(i + 1);
  return (table.kinds[i] & KIND[bp.kind]) !== 0;
}

/** The cursor of the next step after `cursor` (or the last before it, `dir` −1) that `bp` stops
 *  at; null when there is none. */
export function findStep(table: StepTable, bp: Breakpoint, cursor: number, dir: 1 | -1): number | null {
  const steps = table.kinds.length;
  if (dir > 0) {
    for (let i = Math.max(0, cursor); i < steps; i++) if (matches(table, bp, i)) return i + 1;
  } else {
    for (let i = Math.min(steps, cursor - 1) - 1; i >= 0; i--) if (matches(table, bp, i)) return i + 1;
  }
  return null;
}
