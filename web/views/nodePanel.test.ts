import { describe, expect, it } from 'vitest';
import { fixture } from './fixtures/fixture';
import { gaugeMax, layoutNodePanel, type SlabNodeBlock, type SlubNodeBlock } from './nodePanel';
import type { SharedWord } from './sharedWords';

const find = <T extends { id: string }>(list: T[], id: string) => {
  const x = list.find((e) => e.id === id);
  if (!x) throw new Error(`no mark ${id}`);
  return x;
};

describe('layoutNodePanel, SLUB', () => {
  it('shows n->partial head first with nr_partial against min_partial', () => {
    const s = layoutNodePanel(fixture('slub-remote-free-120'));
    const n = s.blocks[0] as SlubNodeBlock;
    expect(n.partial.shown).toEqual([{ id: 'slab-0', pfn: 0, inuse: 16, objects: 32, frozen: false, highlight: true }]);
    expect([n.nrPartial, n.minPartial, n.nrSlabs, n.totalObjects]).toEqual([1, 5, 3, 96]);
    const bar = find(s.marks.boxes, 'node-0-nr-partial-bar');
    const marker = find(s.marks.lines, 'node-0-nr-partial-marker');
    // The level (1 of the scale) stops well before the min_partial marker (5).
    expect(bar.level).toBeCloseTo(1 / gaugeMax(1, 5));
    expect(marker.x1).toBeCloseTo(bar.x + (bar.w * 5) / gaugeMax(1, 5));
    expect(bar.x + bar.w * bar.level!).toBeLessThan(marker.x1);
    expect(find(s.marks.boxes, 'slab-0').level).toBeCloseTo(0.5);
  });

  it('lights list_lock when the step took it', () => {
    const taken = layoutNodePanel(fixture('slub-remote-free-120'));
    expect((taken.blocks[0] as SlubNodeBlock).lock).toEqual({ takenNow: true, takenTotal: 1, heldBy: null, word: null });
    expect(find(taken.marks.locks, 'node-0-lock').lit).toBe(true);
    expect(find(taken.marks.texts, 'node-0-lock-text')).toMatchObject({ emphasis: true, label: { key: 'nodeView.lockTaken' } });

    const free = layoutNodePanel(fixture('slub-remote-free-104'));
    expect(find(free.marks.locks, 'node-0-lock').lit).toBe(false);
    expect(find(free.marks.texts, 'node-0-lock-text').emphasis).toBe(false);
    expect(find(free.marks.texts, 'node-0-partial-empty').label).toEqual({ key: 'nodeView.empty' });
  });

  it('lights list_lock while a CPU holds it across the steps of a concurrent block', () => {
    const snap = fixture('slub-remote-free-104');
    const nodes = snap.cache!.nodes.map((n) => ({ ...n, list_lock: { ...n.list_lock, held_by: 1 } }));
    const held = layoutNodePanel({ ...snap, cache: { ...snap.cache!, nodes } });
    expect(find(held.marks.locks, 'node-0-lock').lit).toBe(true);
    expect(find(held.marks.texts, 'node-0-lock-text')).toMatchObject({ emphasis: true, label: { key: 'nodeView.lockHeldBy', args: { cpu: 1 } } });
  });

  it('has a block per node and shows n->full only when it holds slabs', () => {
    const snap = fixture('slub-numa-300');
    const s = layoutNodePanel(snap);
    expect(s.blocks.map((b) => b.id)).toEqual(['node-0', 'node-1']);
    expect(s.blocks[1]).toMatchObject({ nrSlabs: 7, totalObjects: 112 });
    expect(s.marks.texts.some((t) => t.id.endsWith('-full-label'))).toBe(false);

    const n1 = snap.cache!.nodes[1];
    if (n1.kind !== 'slub') throw new Error('SLUB fixture');
    n1.full = snap.cache!.slabs.filter((x) => x.place.kind === 'unlisted').map((x) => ({ ...x, place: { kind: 'node_full' } }));
    const d = layoutNodePanel(snap);
    expect((d.blocks[1] as SlubNodeBlock).full.shown.map((x) => x.pfn)).toEqual([1032, 1036, 1040, 1044]);
    expect(find(d.marks.texts, 'node-1-full-label').label).toEqual({ text: 'n->full' });
    // Blocks do not overlap.
    const f0 = find(d.marks.boxes, 'node-0-frame');
    const f1 = find(d.marks.boxes, 'node-1-frame');
    expect(f0.y + f0.h).toBeLessThan(f1.y);
    expect(d.marks.height).toBeGreaterThanOrEqual(f1.y + f1.h);
  });

  it('caps a long n->partial and says how many it left out', () => {
    const snap = fixture('slub-remote-free-120');
    const n = snap.cache!.nodes[0];
    if (n.kind !== 'slub') throw new Error('SLUB fixture');
    const one = n.partial[0];
    n.partial = Array.from({ length: 30 }, (_, i) => ({ ...one, pfn: 100 + i }));
    n.nr_partial = 30;
    const s = layoutNodePanel(snap);
    const b = s.blocks[0] as SlubNodeBlock;
    expect(b.partial.shown.map((x) => x.pfn)).toEqual(Array.from({ length: 12 }, (_, i) => 100 + i));
    expect(b.partial.more).toBe(18);
    expect(find(s.marks.texts, 'node-0-partial-more').label).toEqual({ key: 'nodeView.more', args: { count: 18 } });
    expect(s.marks.boxes.every((x) => x.x + x.w <= s.marks.width)).toBe(true);
    // Above min_partial the level passes the marker.
    const bar = find(s.marks.boxes, 'node-0-nr-partial-bar');
    expect(bar.x + bar.w * bar.level!).toBeGreaterThan(find(s.marks.lines, 'node-0-nr-partial-marker').x1);
  });
});

describe('layoutNodePanel, SLAB', () => {
  const s = layoutNodePanel(fixture('slab-300'));
  const n0 = s.blocks[0] as SlabNodeBlock;
  const n1 = s.blocks[1] as SlabNodeBlock;

  it('shows the three lists', () => {
    expect(n1.slabsPartial.shown).toEqual([]);
    expect(n1.slabsFree.shown).toEqual([]);
    expect(n1.slabsFull.shown.length + n1.slabsFull.more).toBe(23);
    expect(n1.slabsFull.shown[0]).toMatchObject({ pfn: 1046, inuse: 4, objects: 4 });
    expect(n1.totalSlabs).toBe(23);
    expect(find(s.marks.texts, 'node-1-slabs-full-more').label).toEqual({ key: 'nodeView.more', args: { count: 11 } });
  });

  it('shows free_objects against free_limit, shared and alien arrays with batchcount in hex', () => {
    expect([n0.freeObjects, n0.freeLimit]).toEqual([0, 58]);
    expect(n0.shared).toEqual({ id: 'node-0-shared', avail: 0, limit: 216, batchcount: '0xbaadf00d' });
    expect(n0.alien).toEqual([{ id: 'node-0-alien-1', remote: 1, avail: 0, limit: 12, batchcount: '0xbaadf00d' }]);
    expect(n1.alien.map((a) => a.remote)).toEqual([0]);
    expect(find(s.marks.texts, 'node-0-shared-text').label).toEqual({
      key: 'nodeView.shared',
      args: { avail: 0, limit: 216, batchcount: '0xbaadf00d' },
    });
    const bar = find(s.marks.boxes, 'node-0-free-objects-bar');
    const marker = find(s.marks.lines, 'node-0-free-objects-marker');
    expect(marker.x1).toBeCloseTo(bar.x + (bar.w * 58) / gaugeMax(0, 58));
  });

  it('counts list_lock acquisitions per node', () => {
    expect([n0.lock, n1.lock]).toEqual([
      { takenNow: false, takenTotal: 3, heldBy: null, word: null },
      { takenNow: false, takenTotal: 23, heldBy: null, word: null },
    ]);
  });
});

describe('layoutNodePanel, the shared words of a micro-step', () => {
  const snap = fixture('slub-numa-300'); // cache 52, nodes 0 and 1
  const cache = snap.cache!.id;

  it('marks list_lock spun on as held, saying which CPU waits for which', () => {
    const word: SharedWord = { word: 'n->list_lock', how: 'waited', by: 2, cache, node: 1, holder: 1 };
    const s = layoutNodePanel(snap, { words: [word] });
    const [n0, n1] = s.blocks as SlubNodeBlock[];
    expect(n1.lock.word).toBe(word);
    expect(n0.lock.word).toBeNull();
    expect(find(s.marks.locks, 'node-1-lock').lit).toBe(true);
    expect(find(s.marks.texts, 'node-1-lock-text')).toMatchObject({ emphasis: true, label: { key: 'nodeView.lockHeld' } });
    expect(find(s.marks.texts, 'node-1-lock-word')).toMatchObject({ emphasis: true, label: { key: 'sharedWord.waited', args: { cpu: 2, holder: 1 } } });
    expect(find(s.marks.locks, 'node-0-lock').lit).toBe(false);
    expect(s.marks.texts.some((t) => t.id === 'node-0-lock-word')).toBe(false);
  });

  it('marks a list_lock taken or dropped, and n->nr_partial read without the lock', () => {
    const words: SharedWord[] = [
      { word: 'n->list_lock', how: 'released', by: 0, cache, node: 0 },
      { word: 'n->nr_partial', how: 'read', by: 1, cache, node: 1 },
    ];
    const s = layoutNodePanel(snap, { words });
    const [n0, n1] = s.blocks as SlubNodeBlock[];
    expect(find(s.marks.texts, 'node-0-lock-word').label).toEqual({ key: 'sharedWord.released', args: { cpu: 0 } });
    // Dropped: not held any more.
    expect(find(s.marks.locks, 'node-0-lock').lit).toBe(false);
    expect(n1.nrPartialWord).toBe(words[1]);
    expect(n0.nrPartialWord).toBeNull();
    const mark = find(s.marks.texts, 'node-1-nr-partial-word');
    expect(mark.label).toEqual({ key: 'sharedWord.read', args: { cpu: 1 } });
    expect(mark.y).toBe(find(s.marks.texts, 'node-1-nr-partial-text').y);
    expect(mark.x).toBeGreaterThan(find(s.marks.boxes, 'node-1-nr-partial-bar').x + find(s.marks.boxes, 'node-1-nr-partial-bar').w);
  });

  it("marks nothing for another cache's lock", () => {
    const other: SharedWord = { word: 'n->list_lock', how: 'held', by: 0, cache: cache + 1, node: 0 };
    expect(layoutNodePanel(snap, { words: [other] }).marks).toEqual(layoutNodePanel(snap).marks);
  });
});
