// The explorer's form: what a person typed, checked and turned into a SweepGrid. Errors are
// i18n keys with arguments, so they reach the person in their language, and the typed text is
// never discarded.

import type { SlabFlags } from '../core/generated/SlabFlags';
import type { SweepGrid } from '../core/generated/SweepGrid';
import type { ProfileId } from '../scenario/profile';

/** Same bound as MAX_POINTS in wasm-core/sim/src/sweep.rs. */
export const MAX_POINTS = 2_000_000;
export const PAGE_SIZES = [4096, 16384, 65536] as const;

export interface SweepForm {
  sizeFrom: string;
  sizeTo: string;
  sizeStep: string;
  align: string;
  cpus: string;
  pageSizes: number[];
  flags: SlabFlags;
  ctor: boolean;
  slubMinObjects: string;
  slubMaxOrder: string;
  slubMinOrder: string;
  /** The kernel whose kmem_cache_create() lays the caches out. */
  profile: ProfileId;
}

export const DEFAULT_FORM: SweepForm = {
  sizeFrom: '8',
  sizeTo: '8192',
  sizeStep: '1',
  align: '0',
  cpus: '1-64',
  pageSizes: [...PAGE_SIZES],
  flags: {
    hwcache_align: false,
    typesafe_by_rcu: false,
    poison: false,
    red_zone: false,
    store_user: false,
    consistency_checks: false,
    // The merge flags do not change SLUB's layout; the explorer leaves them off.
    account: false,
    reclaim_account: false,
    cache_dma: false,
    cache_dma32: false,
    no_merge: false,
  },
  ctor: false,
  slubMinObjects: '0',
  slubMaxOrder: '3',
  slubMinOrder: '0',
  profile: 'linux-6.6',
};

export interface FormError {
  key: string;
  args?: Record<string, string | number>;
}

export type FormResult = { ok: true; grid: SweepGrid; points: number } | { ok: false; error: FormError };

/** "1, 2, 4-8" → [1, 2, 4, 5, 6, 7, 8]; null if unreadable or out of 1..64. */
export function parseCpuList(text: string): number[] | null {
  const out = new Set<number>();
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  for (const part of parts) {
    const m = /^(\d+)(?:\s*[-–]\s*(\d+))?$/.exec(part);
    if (!m) return null;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (lo < 1 || hi > 64 || lo > hi) return null;
    for (let c = lo; c <= hi; c++) out.add(c);
  }
  return [...out].sort((a, b) => a - b);
}

function integer(
  text: string,
  field: string,
  min: number,
  max: number,
): { ok: true; value: number } | { ok: false; error: FormError } {
  if (!/^\s*\d+\s*$/.test(text)) return { ok: false, error: { key: 'error.notInteger', args: { field } } };
  const value = Number(text);
  if (value < min || value > max) {
    return { ok: false, error: { key: 'error.range', args: { field, min, max } } };
  }
  return { ok: true, value };
}

export function toGrid(form: SweepForm): FormResult {
  const fields = {
    from: integer(form.sizeFrom, 'geometry.sizeFrom', 1, 4 << 20),
    to: integer(form.sizeTo, 'geometry.sizeTo', 1, 4 << 20),
    step: integer(form.sizeStep, 'geometry.sizeStep', 1, 4 << 20),
    align: integer(form.align, 'geometry.align', 0, 1 << 20),
    minObjects: integer(form.slubMinObjects, 'slub_min_objects', 0, 32767),
    maxOrder: integer(form.slubMaxOrder, 'slub_max_order', 0, 13),
    minOrder: integer(form.slubMinOrder, 'slub_min_order', 0, 10),
  };
  for (const f of Object.values(fields)) if (!f.ok) return f;
  const v = Object.fromEntries(
    Object.entries(fields).map(([k, f]) => [k, (f as { value: number }).value]),
  ) as Record<keyof typeof fields, number>;
  if (v.from > v.to) return { ok: false, error: { key: 'error.order' } };
  if (v.align !== 0 && (v.align & (v.align - 1)) !== 0) return { ok: false, error: { key: 'error.align' } };
  if (form.cpus.trim() === '') return { ok: false, error: { key: 'error.noCpus' } };
  const cpus = parseCpuList(form.cpus);
  if (!cpus) return { ok: false, error: { key: 'error.badCpus', args: { text: form.cpus } } };
  if (cpus.length === 0) return { ok: false, error: { key: 'error.noCpus' } };
  const pageSizes = PAGE_SIZES.filter((p) => form.pageSizes.includes(p));
  if (pageSizes.length === 0) return { ok: false, error: { key: 'error.noPages' } };
  const points = (Math.floor((v.to - v.from) / v.step) + 1) * cpus.length * pageSizes.length;
  if (points > MAX_POINTS) {
    return { ok: false, error: { key: 'error.tooMany', args: { points, max: MAX_POINTS } } };
  }
  return {
    ok: true,
    points,
    grid: {
      size_from: v.from,
      size_to: v.to,
      size_step: v.step,
      cpus,
      page_sizes: [...pageSizes],
      align: v.align,
      flags: form.flags,
      ctor: form.ctor,
      slub_min_objects: v.minObjects,
      slub_max_order: v.maxOrder,
      slub_min_order: v.minOrder,
      profile: form.profile,
    },
  };
}
