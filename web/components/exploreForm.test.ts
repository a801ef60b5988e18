import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, defaultForm, hasBlock, MAX_PREEMPTIONS, MAX_SCHEDULES, toBounds } from './exploreForm';

const ABA = 'slabscope-scenario 3\nmachine cpus=1\ncache t size=256\nconcurrent explicit\n  a = kmem_cache_alloc(t) on cpu0\nend\n';

describe('the interleaving explorer’s form', () => {
  it('opens on the draft when it has a concurrent block, else on the ABA example', () => {
    expect(defaultForm(ABA).source).toBe('draft');
    expect(defaultForm('slabscope-scenario 1\nmachine cpus=1\n# concurrent, one day\n').source).toBe('smp-aba-no-tid');
    expect(defaultForm(null)).toEqual({ source: 'smp-aba-no-tid', ...DEFAULT_BOUNDS });
    expect(hasBlock('  concurrent random seed=3\n')).toBe(true);
    expect(hasBlock('concurrently = kmalloc(8) on cpu0\n')).toBe(false);
  });

  it('turns the default bounds into numbers', () => {
    expect(toBounds(defaultForm(null))).toEqual({ ok: true, bounds: { preemptions: 2, maxSchedules: 10_000 } });
    expect(toBounds({ source: 'draft', preemptions: ' 0 ', maxSchedules: '1' })).toEqual({ ok: true, bounds: { preemptions: 0, maxSchedules: 1 } });
  });

  it('names the field and its range when a bound is not a whole number in range', () => {
    const form = defaultForm(null);
    expect(toBounds({ ...form, preemptions: 'two' })).toEqual({ ok: false, error: { key: 'error.notInteger', args: { field: 'interleavings.preemptionsField' } } });
    expect(toBounds({ ...form, preemptions: '6' })).toEqual({
      ok: false,
      error: { key: 'error.range', args: { field: 'interleavings.preemptionsField', min: 0, max: MAX_PREEMPTIONS } },
    });
    expect(toBounds({ ...form, maxSchedules: '0' })).toMatchObject({ ok: false, error: { key: 'error.range', args: { field: 'interleavings.maxSchedulesField', min: 1 } } });
    expect(toBounds({ ...form, maxSchedules: '1e4' })).toMatchObject({ ok: false, error: { key: 'error.notInteger' } });
    expect(toBounds({ ...form, maxSchedules: '' })).toMatchObject({ ok: false, error: { key: 'error.notInteger' } });
  });

  it('has the simulator’s own limits', () => {
    const rust = readFileSync(new URL('../../wasm-core/run/src/explore_report.rs', import.meta.url), 'utf8');
    expect(rust).toContain(`pub const MAX_PREEMPTIONS: u32 = ${MAX_PREEMPTIONS};`);
    expect(rust).toContain(`pub const MAX_SCHEDULES: u32 = ${MAX_SCHEDULES.toLocaleString('en').replace(/,/g, '_')};`);
  });
});
