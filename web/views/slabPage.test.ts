import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../core/generated/Snapshot';
import slab300 from './fixtures/slab-300.json';
import slabCached from './fixtures/slab-cached.json';
import bulkFreed from './fixtures/slub-bulk-free-8.json';
import buddyMerge from './fixtures/buddy-merge.json';
import hardened from './fixtures/slub-hardened.json';
import numa300 from './fixtures/slub-numa-300.json';
import remote104 from './fixtures/slub-remote-free-104.json';
import remote120 from './fixtures/slub-remote-free-120.json';
import type { SharedWord } from './sharedWords';
import { barAt, layoutSlabPage, markShown, MAX_BARS, MAX_SLOTS } from './slabPage';

const snap = (s: unknown) => s as Snapshot;

describe('layoutSlabPage', () => {
  it('shows a frozen slab on a cpu partial stack with its one free object pointing to NULL', () => {
    const scene = layoutSlabPage(snap(remote104));
    expect(scene.header).toMatchObject({ pfn: 0, inuse: 31, objects: 32, frozen: true, place: { kind: 'cpu_partial', cpu: 1 } });
    expect(scene.header?.freelist).toBe('0xffff888000000000');
    expect(scene.slots).toHaveLength(32);
    expect(scene.slots.filter((s) => s.kind === 'free').map((s) => s.index)).toEqual([0]);
    expect(scene.arrows).toEqual([expect.objectContaining({ id: 'fp-0xffff888000000000', from: 0, to: null })]);
    // The step freed object 0 on CPU 1: highlighted, and its marks shown 1-based.
    const zero = scene.slots[0];
    expect(zero.highlighted).toBe(true);
    expect(scene.slots.filter((s) => s.highlighted)).toHaveLength(1);
    expect(zero.freedBy).toEqual({ op: 97, step: 104, cpu: 1 });
    expect(zero.allocatedBy).toEqual({ op: 1, step: 4, cpu: 0 });
    expect(scene.heads.map((h) => [h.label, h.to])).toEqual([['slab->freelist', 0]]);
  });

  it('chains the free objects of a slab in freelist order, 15 → 14 → … → 0 → NULL', () => {
    const scene = layoutSlabPage(snap(remote120));
    const next = new Map(scene.arrows.map((a) => [a.from, a.to]));
    const chain: number[] = [];
    let at: number | null | undefined = scene.slots.find((s) => s.addr === scene.header?.freelist)?.index;
    while (at !== null && at !== undefined && chain.length <= 32) {
      chain.push(at);
      at = next.get(at);
    }
    expect(chain).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(scene.header?.freeOrder).toEqual(chain);
    expect(scene.slots[15].freeRank).toBe(0);
    expect(scene.slots[0].freeRank).toBe(15);
    expect(scene.slots[16].freeRank).toBeNull();
    // One arrow per free object, none from allocated ones.
    expect(scene.arrows).toHaveLength(16);
    expect(scene.header?.place).toEqual({ kind: 'node_partial' });
  });

  it('keeps a slot id (its address) and its position stable across steps', () => {
    const a = layoutSlabPage(snap(remote104));
    const b = layoutSlabPage(snap(remote120));
    expect(a.slots.map((s) => [s.id, s.x, s.y])).toEqual(b.slots.map((s) => [s.id, s.x, s.y]));
    expect(a.strip.bars.map((s) => s.id)).toEqual(b.strip.bars.map((s) => s.id));
  });

  it('shows c->freelist slots, the CPU head, and the stored (encoded) pointer of a hardened cache', () => {
    const scene = layoutSlabPage(snap(hardened));
    expect(scene.hardened).toBe(true);
    expect(scene.random).toBe('0x6288a91589f24aa1');
    const onCpu = scene.slots.filter((s) => s.kind === 'cpu_freelist');
    expect(onCpu).toHaveLength(61);
    expect(onCpu.every((s) => s.cpu === 0 && s.stored !== null && s.stored !== s.nextAddr)).toBe(true);
    const three = scene.slots[3];
    expect(three).toMatchObject({ next: 4, nextAddr: '0xffff888000000100', stored: '0x7d772195097ab45e' });
    const arrow = scene.arrows.find((a) => a.from === 3);
    expect(arrow).toMatchObject({ to: 4, cpu: true, stored: '0x7d772195097ab45e' });
    expect(scene.heads.map((h) => [h.label, h.to])).toEqual([['cpu0 c->freelist', 3]]);
    expect(scene.header?.cpuFreelists).toEqual([{ cpu: 0, head: '0xffff8880000000c0' }]);
    // The last free object points to NULL.
    expect(scene.arrows.find((a) => a.from === 63)?.to).toBeNull();
  });

  it('shows SLAB slots allocated, free on the slab (in index-array order) and cached, with no free pointers', () => {
    const scene = layoutSlabPage(snap(slabCached));
    expect(scene.allocator).toBe('slab');
    const kinds = scene.slots.map((s) => s.kind);
    expect(kinds.filter((k) => k === 'cached')).toHaveLength(14);
    expect(kinds.filter((k) => k === 'free')).toHaveLength(4);
    expect(kinds.filter((k) => k === 'allocated')).toHaveLength(2);
    expect(scene.arrows).toEqual([]);
    expect(scene.heads).toEqual([]);
    expect(scene.header).toMatchObject({ colourOff: 0, freeOrder: [16, 17, 18, 19], place: { kind: 'slabs_partial' } });
    expect(scene.slots.filter((s) => s.freeRank !== null).map((s) => [s.index, s.freeRank])).toEqual([
      [16, 0],
      [17, 1],
      [18, 2],
      [19, 3],
    ]);
    // Every state has its own glyph as well as its own fill.
    const glyphs = new Set(scene.slots.map((s) => s.kind + s.mark));
    expect(new Set(scene.slots.map((s) => s.mark)).size).toBe(glyphs.size);
  });

  it('lists every slab of the cache in the strip, the shown one selected, frozen ones flagged', () => {
    const scene = layoutSlabPage(snap(numa300));
    expect(scene.strip.bars.map((b) => b.pfn)).toEqual(numa300.cache.slabs.map((s) => s.pfn));
    expect(scene.strip.bars.filter((b) => b.selected).map((b) => b.pfn)).toEqual([1028]);
    expect(scene.strip.bars.filter((b) => b.highlighted).map((b) => b.pfn)).toEqual([1028]);
    const bar = scene.strip.bars.find((b) => b.pfn === 1028)!;
    expect(bar.frozen).toBe(true);
    expect(bar.inuseHeight).toBeCloseTo((bar.height * 14) / 16, 1);
    const ids = scene.strip.bars.map((b) => b.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('picks the bar under a point of the strip, and nothing between bars', () => {
    const strip = layoutSlabPage(snap(numa300)).strip;
    for (const bar of strip.bars) {
      expect(barAt(strip, bar.x, bar.y)?.pfn).toBe(bar.pfn);
      expect(barAt(strip, bar.x + bar.width - 0.5, bar.y + bar.height - 0.5)?.pfn).toBe(bar.pfn);
      expect(barAt(strip, bar.x + bar.width + 0.5, bar.y)?.pfn ?? null).not.toBe(bar.pfn);
    }
    expect(barAt(strip, -1, 5)).toBeNull();
    expect(barAt(strip, 5, strip.height + 10)).toBeNull();
  });

  it('shows SLAB colour_off', () => {
    const scene = layoutSlabPage(snap(slab300));
    expect(scene.header).toMatchObject({ colourOff: 0, inuse: 4, objects: 4, freelist: null });
    expect(scene.strip.bars).toHaveLength(23);
  });

  it('has no slab to show when the cache has none, but still an empty strip', () => {
    const scene = layoutSlabPage(snap(buddyMerge));
    expect(scene.header).toBeNull();
    expect(scene.slots).toEqual([]);
    expect(scene.cacheName).toBe('kmalloc-8');
    const none = layoutSlabPage({ ...snap(buddyMerge), cache: null });
    expect(none.cacheName).toBeNull();
    expect(none.strip.bars).toEqual([]);
  });

  it('highlights all objects a bulk free touched', () => {
    // Step 8: __slab_free() of the detached freelist (step 6 only gathered it).
    const scene = layoutSlabPage(snap(bulkFreed));
    expect(scene.slots.every((s) => s.highlighted)).toBe(true);
    expect(scene.arrows).toHaveLength(20);
  });

  it('never overlaps two slots, and bounds what it draws, for any slab size and column count', () => {
    const base = snap(remote120);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1500 }), fc.integer({ min: 1, max: 40 }), (objects, columns) => {
        const slots = Array.from({ length: objects }, (_, i) => ({
          index: i,
          addr: `0x${(0x1000 + i * 8).toString(16)}`,
          state: { kind: 'free' as const },
          next: i + 1 < objects ? i + 1 : null,
          next_addr: null,
          stored: null,
          allocated_by: null,
          freed_by: null,
        }));
        const cache = { ...base.cache!, slab: { ...base.cache!.slab!, slots, free_order: [] } };
        const scene = layoutSlabPage({ ...base, cache }, { columns });
        expect(scene.slots.length).toBe(Math.min(objects, MAX_SLOTS));
        expect(scene.slotsHidden).toBe(objects - scene.slots.length);
        const seen = new Set(scene.slots.map((s) => `${s.x},${s.y}`));
        expect(seen.size).toBe(scene.slots.length);
        for (const s of scene.slots) {
          expect(s.x + s.size).toBeLessThanOrEqual(scene.width);
          expect(s.y + s.size).toBeLessThanOrEqual(scene.height);
        }
        // Pointers beyond the drawn slots are left out, never drawn to nowhere.
        expect(scene.arrows.every((a) => a.to === null || a.to < MAX_SLOTS)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('caps the strip at MAX_BARS and says how many are left out', () => {
    const base = snap(slab300);
    const slabs = Array.from({ length: MAX_BARS + 7 }, (_, i) => ({ ...base.cache!.slabs[0], pfn: i }));
    const scene = layoutSlabPage({ ...base, cache: { ...base.cache!, slabs } });
    expect(scene.strip.bars).toHaveLength(MAX_BARS);
    expect(scene.strip.hidden).toBe(7);
  });

  it('shows boot steps without an op', () => {
    expect(markShown({ step: 0, op: null, cpu: 1 })).toEqual({ step: 1, op: null, cpu: 1 });
    expect(markShown(null)).toBeNull();
  });
});

describe('layoutSlabPage, the shared words of a micro-step', () => {
  // kmalloc-128 (cache 5): slab 0 shown, its slab->freelist at object 0, slabs 0, 1 and 2.
  const base = snap(remote104);

  it("marks the shown slab's freelist and counters, its head and its bar", () => {
    const words: SharedWord[] = [
      { word: 'slab->freelist', how: 'cmpxchg_ok', by: 2, cache: null, pfn: 0, site: '__slab_free' },
      { word: 'slab->counters', how: 'cmpxchg_ok', by: 2, cache: null, pfn: 0, site: '__slab_free' },
    ];
    const scene = layoutSlabPage(base, { words });
    expect(scene.header?.words).toEqual({ freelist: words[0], counters: words[1] });
    expect(scene.heads).toEqual([expect.objectContaining({ id: 'head-slab', label: 'slab->freelist', to: 0, word: words[0] })]);
    expect(scene.strip.bars.map((b) => b.word)).toEqual([words[0], null, null]);
    // The step's own changes stay as they were.
    expect(scene.strip.bars.map((b) => b.highlighted)).toEqual(layoutSlabPage(base).strip.bars.map((b) => b.highlighted));
  });

  it("marks another slab's words on its bar only", () => {
    const words: SharedWord[] = [{ word: 'slab->freelist', how: 'read', by: 1, cache: null, pfn: 2 }];
    const scene = layoutSlabPage(base, { words });
    expect(scene.header?.words).toEqual({ freelist: null, counters: null });
    expect(scene.heads.every((h) => h.word === null)).toBe(true);
    expect(scene.strip.bars.find((b) => b.pfn === 2)?.word).toBe(words[0]);
  });

  it('marks the object whose free pointer was read, with a head above any other on it', () => {
    const words: SharedWord[] = [{ word: 'freepointer', how: 'read', by: 0, cache: null, object: '0xffff888000000000' }];
    const scene = layoutSlabPage(base, { words });
    expect(scene.slots.filter((s) => s.word).map((s) => s.index)).toEqual([0]);
    const [slabHead, fp] = scene.heads;
    expect(fp).toMatchObject({ id: 'head-fp-0xffff888000000000', label: 'freepointer', to: 0, word: words[0] });
    expect(fp.y).toBeLessThan(slabHead.y);
    // An object of another slab marks nothing here.
    const elsewhere = layoutSlabPage(base, { words: [{ ...words[0], object: '0xffff888000001000' }] });
    expect(elsewhere.slots.some((s) => s.word)).toBe(false);
    expect(elsewhere.heads).toHaveLength(1);
  });
});
