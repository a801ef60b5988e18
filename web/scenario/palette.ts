// The editor's palette, for people who would rather click than type: a call, its arguments,
// the CPU and a name for the result become one operation line of the scenario format. The line
// is checked by the simulator's parser like any typed line; this only assembles it.

import { CALLS, CPU_REFUSED_CALLS } from './vocabulary';

/**
 * Calls the palette writes without a CPU (docs/scenario-format.md, "Operations"): the ones that
 * run on every CPU when none is named, and the grace-period calls, which belong to no CPU (the
 * parser refuses `rcu_barrier() on cpu0`).
 */
export const NO_CPU_CALLS: ReadonlySet<string> = new Set([
  'flush_all',
  'kmem_cache_shrink',
  'kmem_cache_destroy',
  'cache_reap',
  'kfree_rcu_monitor',
  ...CPU_REFUSED_CALLS,
]);
/** Calls whose result is a list: their target is always `NAME` (the call fills it). */
const LIST_RESULT = new Set(['kmem_cache_alloc_bulk']);
/** Calls that return something worth naming. */
const RETURNS = new Set(['kmalloc', 'kmalloc_node', 'kmem_cache_alloc', 'kmem_cache_alloc_node', 'alloc_pages', 'alloc_pages_node', 'kmem_cache_alloc_bulk']);

export type ArgKind = 'number' | 'cache' | 'name';

/** The arguments a call takes, by kind, in order. */
export function argKinds(call: string): { label: string; kind: ArgKind }[] {
  const spec = CALLS.find((c) => c.name === call)?.args ?? '';
  return spec
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map((label) => ({ label, kind: label === 'CACHE' ? 'cache' : label === 'OBJ' || label === 'LIST' || label === 'PAGES' ? 'name' : 'number' }));
}

export function returnsValue(call: string): boolean {
  return RETURNS.has(call);
}

export interface PaletteChoice {
  call: string;
  args: string[];
  /** null: no CPU (only for the calls that run without one). */
  cpu: number | null;
  /** A name for the result, `t[]` to append it to a list, or '' for none. */
  target: string;
  /** Times to run it (1: no `repeat`). */
  repeat: number;
}

export type PaletteLine = { ok: true; line: string } | { ok: false; key: 'palette.missingArg' | 'palette.badTarget' | 'palette.needsCpu'; args: Record<string, string> };

const NAME = /^[A-Za-z_]\w*$/;
const ARG = /^[A-Za-z0-9_.\-[\]]+$/;

/** The scenario line for a choice, or which part is missing. */
export function paletteLine(choice: PaletteChoice): PaletteLine {
  const kinds = argKinds(choice.call);
  for (let i = 0; i < kinds.length; i++) {
    const a = (choice.args[i] ?? '').trim();
    if (a === '' || !ARG.test(a)) return { ok: false, key: 'palette.missingArg', args: { arg: kinds[i].label } };
  }
  const target = choice.target.trim();
  const listTarget = target.endsWith('[]');
  if (target !== '' && (!NAME.test(listTarget ? target.slice(0, -2) : target) || (LIST_RESULT.has(choice.call) && listTarget))) {
    return { ok: false, key: 'palette.badTarget', args: { target } };
  }
  if (choice.cpu === null && !NO_CPU_CALLS.has(choice.call)) return { ok: false, key: 'palette.needsCpu', args: { call: choice.call } };
  const call = `${choice.call}(${kinds.map((_, i) => choice.args[i].trim()).join(', ')})`;
  const named = target !== '' && returnsValue(choice.call) ? `${target} = ${call}` : call;
  const repeated = choice.repeat > 1 ? `repeat ${Math.floor(choice.repeat)} ${named}` : named;
  return { ok: true, line: choice.cpu === null ? repeated : `${repeated} on cpu${choice.cpu}` };
}

/** `text` with `line` added as its last line. */
export function appendLine(text: string, line: string): string {
  if (text === '') return `${line}\n`;
  return text.endsWith('\n') ? `${text}${line}\n` : `${text}\n${line}\n`;
}
