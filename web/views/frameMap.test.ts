import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BlockView } from '../core/generated/BlockView';
import type { Snapshot } from '../core/generated/Snapshot';
import buddyMerge from './fixtures/buddy-merge.json';
import slab300 from './fixtures/slab-300.json';
import rcuWaiting from './fixtures/rcu-waiting.json';
import remote104 from './fixtures/slub-remote-free-104.json';
import { layoutFrameMap, pfnAt, runAt, runRects } from './frameMap';
import { buddyOrderColour, cacheColour, ownerColour } from './palette';

const snap = (s: unknown) => s as Snapshot;

describe('layoutFrameMap', () => {
  it('covers all memory up to the last node\'s end, with runs in pfn order that tile it exactly', () => {
    for (const fixture of [buddyMerge, slab300, remote104, rcuWaiting]) {
      const s = snap(fixture);
      const scene = layoutFrameMap(s);
      const blocks = s.buddy.blocks;
      const past = blocks.length - [...blocks].reverse().findIndex((b) => b.owner.kind !== 'hole');
      expect(scene.totalPages).toBe(blocks.slice(0, past).reduce((n, b) => n + b.pages, 0));
      expect(scene.runs.at(-1)?.owner.kind).not.toBe('hole');
      let pfn = scene.firstPfn;
      for (const r of scene.runs) {
        expect(r.pfn).toBe(pfn);
        pfn += r.pages;
      }
      expect(pfn).toBe(scene.firstPfn + scene.totalPages);
      expect(scene.totals.reduce((n, t) => n + t.pages, 0)).toBe(scene.totalPages);
      expect(scene.legend.reduce((n, t) => n + t.pages, 0)).toBe(scene.totalPages);
    }
  });

  it('merges adjacent blocks of one owner into a run: three order-0 slabs of kmalloc-128, four pcp pages', () => {
    const scene = layoutFrameMap(snap(remote104));
    const [slabs, pcp, buddy] = scene.runs;
    expect(slabs).toMatchObject({ pfn: 0, pages: 3, blocks: 3, owner: { kind: 'slab', cache: 5 }, cacheName: 'kmalloc-128' });
    expect(slabs.colour).toBe(cacheColour(5));
    expect(pcp).toMatchObject({ pfn: 3, pages: 4, blocks: 4, owner: { kind: 'pcp', cpu: 0, order: 0 }, pattern: 'hatch' });
    expect(buddy).toMatchObject({ pfn: 7, pages: 1, owner: { kind: 'buddy', order: 0 } });
    expect(buddy.colour).toBe(buddyOrderColour(0, 10));
    // The step freed an object of the slab at pfn 0: its run is highlighted.
    expect(scene.runs.filter((r) => r.highlighted).map((r) => r.id)).toEqual(['run-0']);
  });

  it('marks node boundaries and does not merge a run across them', () => {
    const scene = layoutFrameMap(snap(slab300));
    expect(scene.nodes.map((n) => [n.node, n.pfn])).toEqual([
      [0, 0],
      [1, 1024],
    ]);
    expect(scene.runs.some((r) => r.pfn < 1024 && r.pfn + r.pages > 1024)).toBe(false);
    expect(runAt(scene, 1024)?.node).toBe(1);
    expect(runAt(scene, 1023)?.node).toBe(0);
    const n1 = scene.nodes[1];
    expect(n1.row * scene.columns + n1.col).toBe(1024);
  });

  it('counts pages per owner kind, leaves out the hole past the last node, and names slab owners in the legend', () => {
    // A 16-page node spans 1,024 pfns: the 1,008 past its memory are not drawn.
    const scene = layoutFrameMap(snap(buddyMerge));
    expect(scene.totalPages).toBe(16);
    expect(scene.totals).toEqual([
      { kind: 'buddy', pages: 12, runs: 2 },
      { kind: 'pcp', pages: 4, runs: 1 },
    ]);
    expect(scene.legend.map((l) => l.key)).toEqual(['buddy-2', 'buddy-3', 'pcp']);
    // A hole between two nodes is kept.
    const between = snap(structuredClone(buddyMerge));
    const hole = between.buddy.blocks.at(-1)!;
    between.buddy.blocks.push({ ...between.buddy.blocks[0], pfn: hole.pfn + hole.pages });
    expect(layoutFrameMap(between).totals.find((t) => t.kind === 'hole')).toEqual({ kind: 'hole', pages: 1008, runs: 1 });
    const s300 = layoutFrameMap(snap(slab300));
    const slabs = s300.legend.filter((l) => l.kind === 'slab');
    expect(slabs.length).toBeGreaterThan(0);
    expect(slabs.every((l) => l.cacheName !== null && l.colour === cacheColour(l.cache!))).toBe(true);
  });

  it('shows a slab waiting for its RCU grace period in its own striped colour, and kfree_rcu pointer pages', () => {
    // rcu-waiting: sighand (SLAB_TYPESAFE_BY_RCU) emptied and shrunk on cpu1, three kmalloc-64
    // objects kfree_rcu()d on cpu0 (one chained, two in a page; four pages still cached).
    const scene = layoutFrameMap(snap(rcuWaiting));
    const waiting = scene.runs.find((r) => r.owner.kind === 'slab_rcu')!;
    expect(waiting).toMatchObject({ pfn: 0, pages: 4, blocks: 1, cacheName: 'sighand', pattern: 'stripes' });
    expect(waiting.colour).toBe(ownerColour.slab_rcu);
    // Not a slab of the cache any more: no run of sighand's own colour.
    expect(scene.runs.some((r) => r.owner.kind === 'slab' && r.cacheName === 'sighand')).toBe(false);
    const pointers = scene.runs.filter((r) => r.owner.kind === 'kfree_rcu');
    expect(pointers.map((r) => [r.pfn, r.pages, r.blocks])).toEqual([[9, 5, 5]]);
    expect(scene.legend.filter((l) => l.kind === 'slab_rcu' || l.kind === 'kfree_rcu')).toEqual([
      { key: 'slab_rcu', kind: 'slab_rcu', order: null, cache: null, cacheName: null, colour: ownerColour.slab_rcu, pattern: 'stripes', pages: 4 },
      { key: 'kfree_rcu', kind: 'kfree_rcu', order: null, cache: null, cacheName: null, colour: ownerColour.kfree_rcu, pattern: 'none', pages: 5 },
    ]);
    expect(scene.totals.map((t) => t.kind)).toEqual(['buddy', 'pcp', 'slab', 'slab_rcu', 'kfree_rcu']);
  });

  it('finds the pfn under a point and nothing outside the map', () => {
    const scene = layoutFrameMap(snap(buddyMerge), { columns: 4, maxWidth: 40 });
    expect(scene.cell).toBe(10);
    expect(pfnAt(scene, 0, 0)).toBe(0);
    expect(pfnAt(scene, 15, 5)).toBe(1);
    expect(pfnAt(scene, 5, 15)).toBe(4);
    expect(pfnAt(scene, scene.width - 1, scene.height - 1)).toBe(15);
    expect(pfnAt(scene, scene.width, 0)).toBeNull();
    expect(pfnAt(scene, -1, 0)).toBeNull();
  });

  it('keeps a map of 2^18 pages in bounds: at most 1024 columns, one run per owner stretch', () => {
    const base = snap(buddyMerge);
    const blocks: BlockView[] = [];
    for (let pfn = 0; pfn < 1 << 18; pfn += 1024) blocks.push({ pfn, pages: 1024, owner: { kind: 'buddy', order: 10 } });
    const scene = layoutFrameMap({ ...base, buddy: { ...base.buddy, blocks, zones: [{ ...base.buddy.zones[0], pages: 1 << 18 }] } });
    expect(scene.columns).toBe(1024);
    expect(scene.rows).toBe(256);
    expect(scene.cell).toBe(1);
    expect(scene.runs).toHaveLength(1);
    expect(runRects(scene, 0, 1 << 18)).toEqual([{ x: 0, y: 0, w: 1024, h: 256 }]);
  });

  it('draws a run as at most three rectangles that cover exactly its pages', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 400 }), (cols, pfn, pages) => {
        const base = snap(buddyMerge);
        const scene = { ...layoutFrameMap(base, { columns: cols, maxWidth: cols }), firstPfn: 0, totalPages: 1000 };
        const rects = runRects(scene, pfn, pages);
        expect(rects.length).toBeLessThanOrEqual(3);
        const cells = new Set<number>();
        for (const r of rects) {
          for (let y = r.y; y < r.y + r.h; y++) for (let x = r.x; x < r.x + r.w; x++) cells.add(y * cols + x);
        }
        expect(cells.size).toBe(pages);
        expect(Math.min(...cells)).toBe(pfn);
        expect(Math.max(...cells)).toBe(pfn + pages - 1);
      }),
      { numRuns: 60 },
    );
  });
});
