import { describe, expect, it } from 'vitest';
import { DEFAULT_FORM, MAX_POINTS, parseCpuList, toGrid } from './sweepForm';

describe('parseCpuList', () => {
  it('reads numbers and ranges, sorted and without repeats', () => {
    expect(parseCpuList('4-6, 1, 2, 5')).toEqual([1, 2, 4, 5, 6]);
    expect(parseCpuList('1-64')).toHaveLength(64);
  });
  it('refuses what it cannot read or what is out of range', () => {
    for (const bad of ['0', '65', '3-1', 'two', '1;2', '1-', '-4']) expect(parseCpuList(bad), bad).toBeNull();
  });
});

describe('toGrid', () => {
  it('turns the default form into the default grid', () => {
    const r = toGrid(DEFAULT_FORM);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.points).toBe(8185 * 64 * 3);
    expect(r.grid).toMatchObject({ size_from: 8, size_to: 8192, size_step: 1, slub_max_order: 3 });
    expect(r.grid.page_sizes).toEqual([4096, 16384, 65536]);
    // Linux 6.6 unless another kernel is picked; the grid carries the pick.
    expect(r.grid.profile).toBe('linux-6.6');
    const later = toGrid({ ...DEFAULT_FORM, profile: 'linux-7.2' });
    expect(later.ok && later.grid.profile).toBe('linux-7.2');
  });

  it('names the field and the bounds of a bad number', () => {
    const r = toGrid({ ...DEFAULT_FORM, sizeStep: '0' });
    expect(r).toEqual({
      ok: false,
      error: { key: 'error.range', args: { field: 'geometry.sizeStep', min: 1, max: 4 << 20 } },
    });
    expect(toGrid({ ...DEFAULT_FORM, sizeFrom: '1.5' })).toMatchObject({ ok: false, error: { key: 'error.notInteger' } });
    expect(toGrid({ ...DEFAULT_FORM, sizeFrom: '<script>' })).toMatchObject({ ok: false });
  });

  it('checks order, alignment, CPU list, page sizes and size of the grid', () => {
    expect(toGrid({ ...DEFAULT_FORM, sizeFrom: '100', sizeTo: '10' })).toMatchObject({ error: { key: 'error.order' } });
    expect(toGrid({ ...DEFAULT_FORM, align: '48' })).toMatchObject({ error: { key: 'error.align' } });
    expect(toGrid({ ...DEFAULT_FORM, cpus: ' ' })).toMatchObject({ error: { key: 'error.noCpus' } });
    expect(toGrid({ ...DEFAULT_FORM, cpus: '1,99' })).toMatchObject({ error: { key: 'error.badCpus' } });
    expect(toGrid({ ...DEFAULT_FORM, pageSizes: [] })).toMatchObject({ error: { key: 'error.noPages' } });
    const huge = toGrid({ ...DEFAULT_FORM, sizeFrom: '1', sizeTo: '100000', sizeStep: '1' });
    expect(huge).toMatchObject({ ok: false, error: { key: 'error.tooMany', args: { max: MAX_POINTS } } });
  });
});
