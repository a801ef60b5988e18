import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../core/generated/Snapshot';
import { CHIP_H, CHIP_TOP, chipAt, layoutBuddy, MAX_PAIRS, watermarkLevel } from './buddy';
import buddyMerge from './fixtures/buddy-merge.json';
import buddySplit from './fixtures/buddy-split.json';
import slab300 from './fixtures/slab-300.json';
import remote104 from './fixtures/slub-remote-free-104.json';

const snap = (s: unknown) => s as Snapshot;

describe('layoutBuddy', () => {
  it('draws each merged buddy pair of free_pcppages_bulk, lower pfn first, in the order they merged', () => {
    const scene = layoutBuddy(snap(buddyMerge));
    expect(scene.pairs.map((p) => [p.kind, p.seq, p.lower, p.upper, p.order])).toEqual([
      ['merge', 1, 2, 3, 0],
      ['merge', 2, 0, 2, 1],
      ['merge', 3, 0, 4, 2],
    ]);
    // Pairs side by side, none overlapping.
    const xs = scene.pairs.map((p) => p.x);
    for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThanOrEqual(xs[i - 1] + 2 * scene.pairs[i - 1].half + scene.pairs[i - 1].gap);
    expect(new Set(scene.pairs.map((p) => p.id)).size).toBe(3);
    // The merged block lands on free_area[3] at pfn 0, and is highlighted as a block the step touched.
    const row3 = scene.nodes[0].freeArea[3];
    expect(row3).toMatchObject({ order: 3, count: 1, pfns: [0], more: 0 });
    expect(scene.chips.find((c) => c.id === 'pfn-0')).toMatchObject({ list: 'free_area', order: 3, highlighted: true });
    expect(scene.chips.find((c) => c.id === 'pfn-12')).toMatchObject({ list: 'free_area', order: 2, highlighted: false });
  });

  it('draws each split of expand(): order-3 block at 0 into 0|8, then order-2 into 0|4', () => {
    const scene = layoutBuddy(snap(buddySplit));
    expect(scene.pairs.map((p) => [p.kind, p.lower, p.upper, p.order])).toEqual([
      ['split', 0, 8, 3],
      ['split', 0, 4, 2],
    ]);
    // The halves went to CPU 1's pcp list of order 2 and free_area[3].
    const pcp1 = scene.nodes[0].pcp.find((p) => p.cpu === 1)!;
    expect(pcp1.lists[2]).toMatchObject({ count: 2, pfns: [0, 4] });
    expect(scene.chips.filter((c) => c.list === 'pcp').map((c) => c.id)).toEqual(['pfn-0', 'pfn-4']);
    expect(scene.nodes[0].freeArea[3].pfns).toEqual([8]);
  });

  it('has no pairs on a step without merges or splits, and starts the nodes at the top', () => {
    const scene = layoutBuddy(snap(remote104));
    expect(scene.pairs).toEqual([]);
    expect(scene.nodes[0].y).toBe(0);
    expect(layoutBuddy(snap(buddyMerge)).nodes[0].y).toBeGreaterThan(0);
  });

  it('shows every order of free_area per node with nr_free, and the zone against its watermarks', () => {
    const scene = layoutBuddy(snap(slab300));
    expect(scene.nodes.map((n) => n.node)).toEqual([0, 1]);
    for (const [i, n] of scene.nodes.entries()) {
      const zone = slab300.buddy.zones[i];
      expect(n.freeArea.map((r) => r.count)).toEqual(zone.free_area.map((f) => f.nr_free));
      expect(n.freeArea).toHaveLength(scene.maxOrder + 1);
      expect(n.freePages).toBe(zone.free_pages);
      expect(n.watermark).toEqual({ min: 45, low: 56, high: 67 });
      expect(n.level).toBe('above_high');
      // Ticks in watermark order on the gauge, inside it.
      const ticks = n.gauge.ticks.map((t) => t.x);
      expect([...ticks].sort((a, b) => a - b)).toEqual(ticks);
      expect(ticks.every((x) => x >= n.gauge.x && x <= n.gauge.x + n.gauge.width)).toBe(true);
    }
    // Nodes stacked without overlap.
    expect(scene.nodes[1].y).toBeGreaterThanOrEqual(scene.nodes[0].y + scene.nodes[0].height);
    expect(scene.height).toBeGreaterThanOrEqual(scene.nodes[1].y + scene.nodes[1].height);
  });

  it('lists pcp per CPU and node: count against high, batch, four order lists', () => {
    const scene = layoutBuddy(snap(slab300));
    const pcp = scene.nodes.flatMap((n) => n.pcp);
    expect(pcp.map((p) => p.id)).toEqual(['pcp-0-0', 'pcp-1-0', 'pcp-0-1', 'pcp-1-1']);
    const p00 = pcp[0];
    expect(p00).toMatchObject({ count: 5, high: 28, batch: 7 });
    expect(p00.lists.map((l) => l.count)).toEqual([5, 0, 0, 0]);
    expect(p00.gauge.ticks.map((t) => t.name)).toEqual(['batch', 'high']);
    expect(p00.gauge.filled).toBeCloseTo((p00.gauge.width * 5) / 28, 0);
  });

  it('a small machine with watermarks above its size is below min, and its gauge still fits', () => {
    const scene = layoutBuddy(snap(buddyMerge));
    const n = scene.nodes[0];
    expect(n.level).toBe('below_min');
    expect(n.gauge.max).toBe(48);
    expect(n.gauge.ticks.map((t) => t.x)).toContain(n.gauge.x + n.gauge.width);
  });

  it('classifies watermark levels at their edges', () => {
    expect(watermarkLevel(44, [45, 56, 67])).toBe('below_min');
    expect(watermarkLevel(45, [45, 56, 67])).toBe('below_low');
    expect(watermarkLevel(56, [45, 56, 67])).toBe('below_high');
    expect(watermarkLevel(67, [45, 56, 67])).toBe('above_high');
  });

  it('bounds chips per list, counts the rest, and keeps chip ids unique', () => {
    const base = snap(slab300);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 1, max: 12 }), (n, perRow) => {
        const pfns = Array.from({ length: n }, (_, i) => 4096 + i * 2);
        const zones = base.buddy.zones.map((z, zi) =>
          zi === 0 ? { ...z, free_area: z.free_area.map((f) => (f.order === 1 ? { ...f, nr_free: n + 3, pfns } : f)) } : z,
        );
        const scene = layoutBuddy({ ...base, buddy: { ...base.buddy, zones } }, { blocksPerRow: perRow });
        const row = scene.nodes[0].freeArea[1];
        expect(row.pfns).toEqual(pfns.slice(0, perRow));
        expect(row.more).toBe(n + 3 - row.pfns.length);
        const ids = scene.chips.map((c) => c.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(scene.chips.every((c) => c.x + c.width <= scene.width)).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it('caps the pairs of one step at MAX_PAIRS', () => {
    const base = snap(buddyMerge);
    const merges = Array.from({ length: MAX_PAIRS + 5 }, (_, i) => ({ node: 0, pfn: i * 2, buddy: i * 2 + 1, order: 0 }));
    const scene = layoutBuddy({ ...base, transient: { ...base.transient, merges } });
    expect(scene.pairs).toHaveLength(MAX_PAIRS);
    expect(scene.pairsHidden).toBe(5);
  });
});

describe('chipAt', () => {
  it('finds each chip inside its drawn box, and nothing between chips, in labels or in the gaps', () => {
    for (const fixture of [buddyMerge, buddySplit, remote104, slab300]) {
      const scene = layoutBuddy(snap(fixture));
      expect(scene.chips.length).toBeGreaterThan(0);
      for (const c of scene.chips) {
        expect(chipAt(scene, c.x + 1, c.y + CHIP_TOP + 1)).toBe(c);
        expect(chipAt(scene, c.x + c.width / 2, c.y + CHIP_TOP + CHIP_H / 2)).toBe(c);
        expect(chipAt(scene, c.x + c.width - 0.5, c.y + CHIP_TOP + CHIP_H - 0.5)).toBe(c);
        // Just above the box, and in the gap after it (unless the next chip starts there).
        expect(chipAt(scene, c.x + 1, c.y + CHIP_TOP - 0.5)).toBeNull();
        const after = chipAt(scene, c.x + c.width + 0.5, c.y + CHIP_TOP + 1);
        expect(after).toBeNull();
      }
      // The row labels left of the chips are not chips.
      for (const n of scene.nodes) for (const row of n.freeArea) expect(chipAt(scene, 10, row.y + 10)).toBeNull();
    }
  });
});
