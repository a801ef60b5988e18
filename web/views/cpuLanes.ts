// CPU lanes: one lane per task of a concurrent block (cpu0, cpu0 task 1, cpu1 irq, …), one
// column per micro-step around the cursor, each cell coloured by what the micro-step did — a
// load, a cmpxchg that succeeded or failed, a lock taken, waited on or dropped, work under a
// lock, a preemption, an interrupt. Layout only (data → cells); the component draws it.

import type { LaneStep } from '../core/generated/LaneStep';

/** What a cell shows, from the micro-step's caption key. */
export type CellKind = 'start' | 'load' | 'store' | 'cas-ok' | 'cas-failed' | 'lock' | 'spin' | 'unlock' | 'local' | 'work' | 'preempt' | 'irq' | 'diagnostic';

export function cellKind(key: string): CellKind {
  const name = key.replace(/^micro\./, '');
  if (key.startsWith('step.')) return 'diagnostic';
  if (name === 'start') return 'start';
  if (name.startsWith('read_') || name === 'get_freepointer') return 'load';
  if (name === 'set_freepointer') return 'store';
  if (/_failed(_at)?$/.test(name)) return 'cas-failed';
  if (name.startsWith('cmpxchg')) return 'cas-ok';
  if (name === 'spin_lock') return 'lock';
  if (name === 'spin_wait') return 'spin';
  if (name === 'spin_unlock') return 'unlock';
  if (name.startsWith('local_')) return 'local';
  if (name === 'preempted') return 'preempt';
  if (name.startsWith('irq_')) return 'irq';
  return 'work';
}

/** Colours kept apart for colour-blind readers (Okabe–Ito), with a letter in each cell too. */
export const CELL_COLOUR: Record<CellKind, string> = {
  start: '#ffffff',
  load: '#d9d9d9',
  store: '#bdbdbd',
  'cas-ok': '#009e73',
  'cas-failed': '#d55e00',
  lock: '#e69f00',
  spin: '#f0e442',
  unlock: '#ffd28a',
  local: '#56b4e9',
  work: '#0072b2',
  preempt: '#cc79a7',
  irq: '#000000',
  diagnostic: '#d55e00',
};

export const CELL_LETTER: Record<CellKind, string> = {
  start: 'S',
  load: 'L',
  store: 'W',
  'cas-ok': '✓',
  'cas-failed': '✗',
  lock: 'K',
  spin: '~',
  unlock: 'U',
  local: 'l',
  work: '·',
  preempt: 'P',
  irq: 'I',
  diagnostic: '!',
};

export interface LaneCell {
  step: number;
  lane: number;
  column: number;
  kind: CellKind;
  current: boolean;
}

/** The cells of the `width` micro-steps around `cursor` (steps are 0-based; the cursor is
 *  after step `cursor - 1`, which is the one marked current). */
export function laneCells(steps: readonly LaneStep[], cursor: number, width: number): { cells: LaneCell[]; first: number } {
  const at = steps.findIndex((s) => s.step === cursor - 1);
  const centre = at < 0 ? 0 : at;
  const first = Math.max(0, Math.min(centre - Math.floor(width / 2), steps.length - width));
  const shown = steps.slice(first, first + width);
  return {
    first,
    cells: shown.map((s, i) => ({
      step: s.step,
      lane: s.task,
      column: i,
      kind: cellKind(s.caption.key),
      current: s.step === cursor - 1,
    })),
  };
}
