import { describe, expect, it } from 'vitest';
import { defaultLiveForm, MAX_OPS, toLiveRequest } from './liveForm';

describe('the live form', () => {
  it('gives the request it shows', () => {
    const r = toLiveRequest({ ...defaultLiveForm(4), ops: '1,000', seed: '7' }, 4);
    expect(r).toEqual({ ok: true, request: { threads: 2, ops: 1000, seed: 7, frees: 'remote', record: true } });
  });

  it('starts with one thread on a pool of one', () => {
    expect(defaultLiveForm(1).threads).toBe('1');
  });

  it('names the field and the range it breaks; recording does not lower the bound', () => {
    expect(toLiveRequest({ ...defaultLiveForm(2), threads: '3' }, 2)).toEqual({
      ok: false,
      error: { key: 'error.range', args: { field: 'live.threadsField', min: 1, max: 2 } },
    });
    expect(toLiveRequest({ ...defaultLiveForm(2), ops: 'many' }, 2)).toEqual({
      ok: false,
      error: { key: 'error.notInteger', args: { field: 'live.opsField' } },
    });
    expect(toLiveRequest({ ...defaultLiveForm(2), ops: String(MAX_OPS) }, 2).ok).toBe(true);
    expect(toLiveRequest({ ...defaultLiveForm(2), ops: String(MAX_OPS + 1) }, 2)).toEqual({
      ok: false,
      error: { key: 'error.range', args: { field: 'live.opsField', min: 1, max: MAX_OPS } },
    });
    expect(toLiveRequest({ ...defaultLiveForm(2), ops: String(MAX_OPS + 1), record: false }, 2).ok).toBe(false);
  });
});
