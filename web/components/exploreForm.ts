// The interleaving explorer's form: which scenario (the person's draft or an example) and the
// search's bounds, as typed, checked and turned into what the simulator takes. Errors are i18n
// keys with arguments, so they reach the person in their language; the typed text is kept.

import type { FormError } from './sweepForm';

/** Same bounds as MAX_PREEMPTIONS and MAX_SCHEDULES in wasm-core/run/src/explore_report.rs,
 *  which refuses anything past them. */
export const MAX_PREEMPTIONS = 5;
export const MAX_SCHEDULES = 20_000;

/** The example scenarios the page offers (interleavingExamples.ts loads them). */
export const EXAMPLE_IDS = ['smp-aba-no-tid', 'smp-aba-tid', 'smp-races'] as const;
export type ExampleId = (typeof EXAMPLE_IDS)[number];

/** Where the scenario comes from: the editor's draft or an example. */
export type Source = 'draft' | ExampleId;

export interface ExploreForm {
  source: Source;
  preemptions: string;
  maxSchedules: string;
}

export interface Bounds {
  preemptions: number;
  maxSchedules: number;
}

/** As `slabscope explore` starts (wasm-core/run/src/explore.rs, `Bounds::default`). */
export const DEFAULT_BOUNDS = { preemptions: '2', maxSchedules: '10000' };

/** The form the page opens with: the draft when it has a concurrent block to explore, else
 *  the ABA race without the tid. */
export function defaultForm(draft: string | null): ExploreForm {
  const source: Source = draft !== null && hasBlock(draft) ? 'draft' : 'smp-aba-no-tid';
  return { source, ...DEFAULT_BOUNDS };
}

/** Whether `text` has a line that opens a concurrent block (the parser has the last word). */
export function hasBlock(text: string): boolean {
  return /^\s*concurrent\b/m.test(text);
}

function whole(text: string, field: string, min: number, max: number): { ok: true; value: number } | { ok: false; error: FormError } {
  const trimmed = text.trim();
  if (!/^[0-9]+$/.test(trimmed)) return { ok: false, error: { key: 'error.notInteger', args: { field } } };
  const value = Number(trimmed);
  if (value < min || value > max) return { ok: false, error: { key: 'error.range', args: { field, min, max } } };
  return { ok: true, value };
}

/** The bounds the form gives, or the first thing wrong with them. */
export function toBounds(form: ExploreForm): { ok: true; bounds: Bounds } | { ok: false; error: FormError } {
  const preemptions = whole(form.preemptions, 'interleavings.preemptionsField', 0, MAX_PREEMPTIONS);
  if (!preemptions.ok) return preemptions;
  const maxSchedules = whole(form.maxSchedules, 'interleavings.maxSchedulesField', 1, MAX_SCHEDULES);
  if (!maxSchedules.ok) return maxSchedules;
  return { ok: true, bounds: { preemptions: preemptions.value, maxSchedules: maxSchedules.value } };
}
