import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DetachedView } from '../core/generated/DetachedView';
import { cellStates, layoutBulkFree, LOOKAHEAD } from './bulkFree';
import { fixture } from './fixtures/fixture';
import type { BulkCellKind } from './palette';

describe('layoutBulkFree on the fixture', () => {
  const snap = fixture('slub-bulk-free');
  const d = snap.transient.detached[0];
  const scene = layoutBulkFree(snap);
  const det = scene.detached[0];

  it('reconstructs the call: size, tail, parked, walked, finished', () => {
    expect(det).toMatchObject({ slab: 1, size: 40, scanned: 22, lookaheadLeft: 0, doneFrom: 20, scanFrom: 17, length: 40 });
    const states = det.cells.shown.map((c) => c.state);
    expect(states.slice(0, 17).every((s) => s === 'pending')).toBe(true);
    expect(states.slice(17, 20)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(states.slice(20, 39).every((s) => s === 'parked')).toBe(true);
    expect(states[39]).toBe('tail');
    // Three misses used up the lookahead.
    expect(states.filter((s) => s === 'skipped')).toHaveLength(LOOKAHEAD - d.lookahead_left);
  });

  it('lists the detached freelist head first, matching the parked entries in order', () => {
    expect(d.array.slice(d.done_from, det.size)).toEqual(d.objects);
    expect(det.objects.shown.map((o) => o.addr)).toEqual(d.objects.slice(0, 6));
    expect(det.objects.more).toBe(14);
    const arrows = scene.marks.lines.filter((l) => l.id.startsWith('detached-0-obj-'));
    expect(arrows).toHaveLength(6);
    expect(scene.marks.texts.find((t) => t.id === 'detached-0-result')?.label).toEqual({ key: 'bulkView.splice.slab_freelist', args: { slab: 1, cpu: 1 } });
  });

  it('brackets the walked entries and shows the lookahead spent', () => {
    const scanText = scene.marks.texts.find((t) => t.id === 'detached-0-scan-text');
    expect(scanText?.label).toEqual({ key: 'bulkView.scanWindow', args: { scanned: 22 } });
    const cell = (i: number) => scene.marks.boxes.find((b) => b.id === `bulk-0-${d.array[i]}`)!;
    const brackets = scene.marks.lines.filter((l) => l.id.startsWith('detached-0-scan-'));
    // 17..38 crosses the row break at 32.
    expect(brackets).toHaveLength(2);
    expect(brackets[0].x1).toBe(cell(17).x);
    expect(brackets[1].x2).toBe(cell(38).x + cell(38).w);
    const tokens = scene.marks.boxes.filter((b) => b.id.startsWith('detached-0-lookahead-'));
    expect(tokens.map((b) => b.glyph)).toEqual(['×', '×', '×']);
  });

  it('shows the list slab_free_freelist_hook() reversed on its step, the array as it was', () => {
    const reversed: DetachedView = { ...d, reversed: true, objects: [...d.objects].reverse() };
    const scene = layoutBulkFree({ ...snap, transient: { ...snap.transient, detached: [reversed] } });
    const r = scene.detached[0];
    expect(r.reversed).toBe(true);
    // The tail build_detached_freelist() took first heads the list do_slab_free() gets.
    expect(r.objects.shown[0].addr).toBe(d.array[det.size - 1]);
    expect(r.objects.shown.map((o) => o.addr)).toEqual(reversed.objects.slice(0, 6));
    expect(r.cells.shown.map((c) => c.state)).toEqual(det.cells.shown.map((c) => c.state));
    expect(scene.marks.texts.find((t) => t.id === 'detached-0-objects-label')?.label).toEqual({ key: 'bulkView.reversed', args: { count: 20 } });
    expect(det.reversed).toBe(false);
  });

  it('explains itself when there is no detached freelist', () => {
    const none = layoutBulkFree(fixture('slub-numa-300'));
    expect(none.detached).toEqual([]);
    expect(none.marks.boxes).toEqual([]);
  });
});

/** build_detached_freelist() as bulk.rs runs it, recording which entries it examined. */
function reference(p: string[], size: number, slabOf: (a: string) => number) {
  size -= 1;
  const startSize = size + 1;
  const object = p[size];
  const slab = slabOf(object);
  const group = [object];
  let lookahead = LOOKAHEAD;
  let same = size;
  let scanned = 0;
  const truth: BulkCellKind[] = p.map((_, i) => (i >= startSize ? 'finished' : 'pending'));
  truth[size] = 'tail';
  const skippedAddrs = new Set<string>();
  while (size > 0) {
    size -= 1;
    scanned += 1;
    const o = p[size];
    if (slabOf(o) === slab) {
      group.unshift(o);
      same -= 1;
      if (size !== same) [p[size], p[same]] = [p[same], p[size]];
      continue;
    }
    skippedAddrs.add(o);
    lookahead -= 1;
    if (lookahead === 0) break;
  }
  // After the swaps: where each kind of entry ended up.
  p.forEach((a, i) => {
    if (i >= startSize) return;
    if (i === startSize - 1) truth[i] = 'tail';
    else if (group.includes(a)) truth[i] = 'parked';
    else if (skippedAddrs.has(a)) truth[i] = 'skipped';
  });
  const view: DetachedView = {
    cache: 0,
    slab,
    cpu: 0,
    splice: 'slab_freelist',
    reversed: false,
    objects: group,
    scanned,
    lookahead_left: lookahead,
    array: [...p],
    done_from: same,
  };
  return { view, truth, next: same };
}

describe('cellStates against a reference build_detached_freelist', () => {
  it('marks every entry as the call left it, for every call of a bulk free', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 60 }), (slabs) => {
        const p = slabs.map((_, i) => `0x${(0xffff888000000000n + BigInt(i * 64)).toString(16)}`);
        const slabOf = new Map(p.map((a, i) => [a, slabs[i]]));
        let size = p.length;
        let freed = 0;
        while (size > 0) {
          const { view, truth, next } = reference(p, size, (a) => slabOf.get(a)!);
          expect(cellStates(view)).toEqual(truth);
          expect(view.array.slice(view.done_from, view.done_from + view.objects.length)).toEqual(view.objects);
          expect(view.objects.every((o) => slabOf.get(o) === view.slab)).toBe(true);
          const scene = layoutBulkFree({ ...fixture('slub-bulk-free'), transient: { ...fixture('slub-bulk-free').transient, detached: [view] } });
          expect(scene.detached[0].size).toBe(size);
          expect(scene.detached[0].cells.shown.length).toBeLessThanOrEqual(64);
          freed += view.objects.length;
          size = next;
        }
        expect(freed).toBe(p.length);
      }),
      { numRuns: 60 },
    );
  });

  it('shows a long array around the part the call worked on', () => {
    const n = 300;
    const array = Array.from({ length: n }, (_, i) => `0x${(0xffff888000000000n + BigInt(i * 64)).toString(16)}`);
    const view: DetachedView = { cache: 0, slab: 9, cpu: 0, splice: 'slab_freelist', reversed: false, objects: array.slice(100, 110), scanned: 12, lookahead_left: 1, array, done_from: 100 };
    const snap = fixture('slub-bulk-free');
    snap.transient.detached = [view];
    const s = layoutBulkFree(snap).detached[0];
    expect(s.size).toBe(110);
    expect(s.cells.shown).toHaveLength(64);
    const idx = s.cells.shown.map((c) => c.index);
    expect(idx[0]).toBe(50);
    expect(idx[63]).toBe(113);
    expect(s.cells.before).toBe(50);
    expect(s.cells.after).toBe(186);
    expect(s.cells.shown.find((c) => c.index === 109)?.state).toBe('tail');
    expect(s.cells.shown.find((c) => c.index === 98)?.state).toBe('skipped');
    expect(s.cells.shown.find((c) => c.index === 96)?.state).toBe('pending');
  });
});
