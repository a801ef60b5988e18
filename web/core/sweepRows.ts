// Typed access to a sweep's row-major table, and the selections the explorer shows.

import type { SweepRow } from './generated/SweepRow';
import type { SweepResult } from './protocol';

export type { SweepRow };

export type SweepColumn = keyof SweepRow;

/** Reads point `index` of the table. */
export function rowAt(result: SweepResult, index: number): SweepRow {
  const width = result.columns.length;
  const row = {} as Record<string, number>;
  result.columns.forEach((name, c) => {
    row[name] = result.rows[index * width + c];
  });
  return row as unknown as SweepRow;
}

/** Every point for one page size and CPU count, in size order. */
export function selectRows(result: SweepResult, pageSize: number, cpus: number): SweepRow[] {
  const width = result.columns.length;
  const pageCol = result.columns.indexOf('page_size');
  const cpusCol = result.columns.indexOf('cpus');
  const out: SweepRow[] = [];
  for (let i = 0; i < result.points; i++) {
    // Compare in the typed array first: building objects for every point of a large sweep is slow.
    if (result.rows[i * width + pageCol] === pageSize && result.rows[i * width + cpusCol] === cpus) {
      out.push(rowAt(result, i));
    }
  }
  return out;
}

/** True when two sweeps hold the same table. */
export function sameTable(a: SweepResult, b: SweepResult): boolean {
  if (a.rows.length !== b.rows.length) return false;
  for (let i = 0; i < a.rows.length; i++) if (a.rows[i] !== b.rows[i]) return false;
  return true;
}
