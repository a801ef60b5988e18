import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../core/generated/Snapshot';
import remote104 from './fixtures/slub-remote-free-104.json';
import { layoutSlabPage, type SlotCell } from './slabPage';
import { slotsToRedraw } from './slabPageDraw';

const slots = (): SlotCell[] => layoutSlabPage(remote104 as unknown as Snapshot).slots;

describe('slotsToRedraw', () => {
  it('redraws nothing when every slot looks the same, even if what only its tooltip says changed', () => {
    const before = slots();
    const after = before.map((c) => ({ ...c, allocatedBy: null, freedBy: { op: 1, step: 2, cpu: 3 } }));
    expect(slotsToRedraw(before, after)).toEqual([]);
  });

  it('redraws the one slot a step freed, and its neighbour whose highlight went out', () => {
    const before = slots();
    const after = before.map((c) =>
      c.index === 5 ? { ...c, kind: 'free' as const, fill: '#ffffff', mark: '□', freeRank: 0 } : c.index === 0 ? { ...c, highlighted: false } : c,
    );
    expect(slotsToRedraw(before, after)?.map((c) => c.index)).toEqual([0, 5]);
  });

  it('redraws all when the slots are other ones: another count, another place, or many changed', () => {
    const before = slots();
    expect(slotsToRedraw(before, before.slice(1))).toBeNull();
    expect(slotsToRedraw(before, before.map((c) => (c.index === 3 ? { ...c, x: c.x + 1 } : c)))).toBeNull();
    const quarter = before.length / 4;
    const relabel = (n: number) => before.map((c) => (c.index < n ? { ...c, freeRank: (c.freeRank ?? 0) + 1 } : c));
    expect(slotsToRedraw(before, relabel(quarter))).toHaveLength(quarter);
    expect(slotsToRedraw(before, relabel(quarter + 1))).toBeNull();
  });
});
