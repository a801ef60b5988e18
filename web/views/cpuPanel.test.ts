import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../core/generated/Snapshot';
import { layoutCpuPanel, type SlabCpuColumn, type SlubCpuColumn } from './cpuPanel';
import { fixture } from './fixtures/fixture';
import type { Marks } from './marks';
import { frozenStroke } from './palette';
import type { SharedWord } from './sharedWords';

const slub = (s: ReturnType<typeof layoutCpuPanel>, cpu: number) => s.columns[cpu] as SlubCpuColumn;
const slab = (s: ReturnType<typeof layoutCpuPanel>, cpu: number) => s.columns[cpu] as SlabCpuColumn;

function expectWellFormed(m: Marks) {
  const ids = [...m.boxes, ...m.texts, ...m.lines, ...m.locks].map((x) => x.id);
  expect(new Set(ids).size, 'ids are unique').toBe(ids.length);
  for (const b of m.boxes) {
    expect(b.x + b.w, b.id).toBeLessThanOrEqual(m.width + 0.001);
    expect(b.y + b.h, b.id).toBeLessThanOrEqual(m.height + 0.001);
  }
}

describe('layoutCpuPanel, SLUB', () => {
  const numa = layoutCpuPanel(fixture('slub-numa-300'));

  it('has one column per CPU, labelled with its node', () => {
    expect(numa.columns.map((c) => [c.id, c.cpu, c.node])).toEqual([
      ['cpu-0', 0, 0],
      ['cpu-1', 1, 1],
    ]);
    const title = numa.marks.texts.find((t) => t.id === 'cpu-1-title');
    expect(title?.label).toEqual({ key: 'cpuView.cpuLabel', args: { cpu: 1, node: 1 } });
    expectWellFormed(numa.marks);
  });

  it('draws c->freelist head first, capped, each box pointing at the next', () => {
    const snap = fixture('slub-numa-300');
    const cpu1 = snap.cache!.cpus[1];
    if (cpu1.kind !== 'slub') throw new Error('SLUB fixture');
    const col = slub(numa, 1);
    expect(col.freelist.shown.map((o) => o.addr)).toEqual(cpu1.freelist.slice(0, 10));
    expect(col.freelist.more).toBe(cpu1.freelist.length - 10);
    const ys = col.freelist.shown.map((o) => numa.marks.boxes.find((b) => b.id === o.id)!.y);
    expect([...ys].sort((a, b) => a - b)).toEqual(ys);
    // An arrow leaves every shown object (the last one points at "+N more").
    const arrows = numa.marks.lines.filter((l) => l.id.startsWith('cpu-1-obj-'));
    expect(arrows).toHaveLength(10);
    expect(numa.marks.texts.find((t) => t.id === 'cpu-1-fl-more')?.label).toEqual({ key: 'cpuView.more', args: { count: 2 } });
    expect(col.tid).toBe(6785);
  });

  it('draws c->slab frozen and the cpu partial stack with slabs counts from the top', () => {
    const col0 = slub(numa, 0);
    expect(col0.slab).toBeNull();
    expect(col0.partial.shown.map((p) => [p.pfn, p.slabs, p.inuse, p.objects, p.frozen])).toEqual([
      [1028, 2, 14, 16, true],
      [1024, 1, 0, 16, true],
    ]);
    const col1 = slub(numa, 1);
    expect(col1.slab).toMatchObject({ pfn: 1048, frozen: true, inuse: 16, objects: 16 });
    const box = numa.marks.boxes.find((b) => b.id === 'slab-1048')!;
    expect(box.dash).toBe(frozenStroke.dash);
    expect(box.stroke).toBe(frozenStroke.stroke);
    // The top of the stack is drawn above the slab below it.
    const top = numa.marks.boxes.find((b) => b.id === 'slab-1028')!;
    const below = numa.marks.boxes.find((b) => b.id === 'slab-1024')!;
    expect(top.y).toBeLessThan(below.y);
    expect(top.level).toBeCloseTo(14 / 16);
  });

  it('highlights what the step touched', () => {
    expect(slub(numa, 0).partial.shown.map((p) => p.highlight)).toEqual([true, false]);
    expect(numa.marks.boxes.filter((b) => b.highlight).map((b) => b.id)).toEqual(['slab-1028']);
  });

  it('shows the frozen slab on cpu1 partial stack after a remote free', () => {
    const s = layoutCpuPanel(fixture('slub-remote-free-104'));
    const col = slub(s, 1);
    expect(col.slab).toBeNull();
    expect(col.partial.shown).toEqual([
      { id: 'slab-0', pfn: 0, inuse: 31, objects: 32, slabs: 1, frozen: true, highlight: true },
    ]);
    expect(slub(s, 0).slab).toMatchObject({ pfn: 2, frozen: true, highlight: false });
    expect(s.marks.texts.find((t) => t.id === 'cpu-0-fl-null')?.label).toEqual({ text: 'NULL' });
  });

  it('keeps a slab id when it moves from c->partial to c->slab', () => {
    const snap = fixture('slub-numa-300');
    const before = layoutCpuPanel(snap);
    const moved = structuredClone(snap);
    const c0 = moved.cache!.cpus[0];
    if (c0.kind !== 'slub') throw new Error('SLUB fixture');
    c0.slab = 1028;
    c0.partial = c0.partial.slice(1);
    const after = layoutCpuPanel(moved);
    const a = before.marks.boxes.find((b) => b.id === 'slab-1028')!;
    const b = after.marks.boxes.find((x) => x.id === 'slab-1028')!;
    expect(a.x).toBe(b.x);
    expect(b.y).toBeLessThan(a.y);
    expect(slub(after, 0).slab?.pfn).toBe(1028);
  });

  it('stays bounded however long the lists are', () => {
    const snap = fixture('slub-numa-300');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 60 }), (n, p) => {
        const s = structuredClone(snap) as Snapshot;
        const c = s.cache!.cpus[1];
        if (c.kind !== 'slub') return;
        c.freelist = Array.from({ length: n }, (_, i) => `0x${(0xffff888000000000n + BigInt(i * 64)).toString(16)}`);
        c.partial = Array.from({ length: p }, (_, i) => ({ pfn: 4000 + i, slabs: p - i, inuse: 1, objects: 16 }));
        const scene = layoutCpuPanel(s);
        expect(slub(scene, 1).freelist.shown.length).toBe(Math.min(n, 10));
        expect(slub(scene, 1).freelist.more).toBe(Math.max(0, n - 10));
        expect(slub(scene, 1).partial.shown.map((x) => x.slabs)).toEqual(
          Array.from({ length: Math.min(p, 8) }, (_, i) => p - i),
        );
        expect(scene.marks.boxes.length).toBeLessThan(60);
        expectWellFormed(scene.marks);
      }),
      { numRuns: 40 },
    );
  });
});

describe('layoutCpuPanel, SLAB', () => {
  it('shows each array_cache with avail/limit, batchcount and touched', () => {
    const s = layoutCpuPanel(fixture('slab-300'));
    expect(s.allocator).toBe('slab');
    expect(s.columns.map((c) => c.kind)).toEqual(['slab', 'slab']);
    expect(slab(s, 0)).toMatchObject({ avail: 0, limit: 54, batchcount: '27', touched: false, node: 0 });
    expect(slab(s, 1)).toMatchObject({ touched: true, node: 1 });
    expect(s.marks.texts.find((t) => t.id === 'cpu-1-touched')?.label).toEqual({ key: 'cpuView.touchedYes' });
    expectWellFormed(s.marks);
  });

  it('stacks the entries with the next out on top and leaves out the bottom', () => {
    const snap = fixture('slab-300');
    const c = snap.cache!.cpus[0];
    if (c.kind !== 'slab') throw new Error('SLAB fixture');
    c.ac.entry = Array.from({ length: 14 }, (_, i) => `0x${(0xffff888000400000n + BigInt(i * 0x400)).toString(16)}`);
    c.ac.avail = 14;
    snap.transient.objects = [c.ac.entry[13]];
    const s = layoutCpuPanel(snap);
    const e = slab(s, 0).entries;
    expect(e.more).toBe(4);
    expect(e.shown.map((x) => x.index)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const y = (i: number) => s.marks.boxes.find((b) => b.id === e.shown[i].id)!.y;
    expect(y(9)).toBeLessThan(y(0)); // entry[13], the next out, is drawn on top
    expect(e.shown[9].highlight).toBe(true);
    expect(s.marks.texts.find((t) => t.id === 'cpu-0-entry-more')?.label).toEqual({ key: 'cpuView.moreBelow', args: { count: 4 } });
  });

  it('shows no columns without a cache', () => {
    const snap = fixture('slab-300');
    snap.cache = null;
    const s = layoutCpuPanel(snap);
    expect(s.columns).toEqual([]);
    expect(s.marks.boxes).toEqual([]);
  });
});

describe('layoutCpuPanel, RCU', () => {
  const scene = layoutCpuPanel(fixture('rcu-waiting'));

  it("lists each CPU's kfree_rcu() pointers, its batches, page cache and call_rcu callbacks below the cache's own", () => {
    // cpu0: three kmalloc-64 objects kfree_rcu()d, the first chained through its rcu_head (the
    // page cache was empty), the others in a page; cpu1 ran the shrink that queued sighand's slab.
    const [cpu0, cpu1] = scene.columns.map((c) => c.rcu!);
    expect(cpu0.queued.shown.map((o) => [o.addr, o.chained])).toEqual([
      ['0xffff888000008040', false],
      ['0xffff888000008080', false],
      ['0xffff888000008000', true],
    ]);
    expect(cpu0).toMatchObject({ objects: 3, inPages: 2, pages: 1, chained: 1, cachedPages: 4, monitorPending: true, callbacks: 0 });
    expect(cpu1).toMatchObject({ objects: 0, callbacks: 1, readyCallbacks: 0, monitorPending: false });
    expect(scene.marks.texts.find((t) => t.id === 'cpu-1-rcu-callbacks')?.label).toEqual({
      key: 'cpuView.rcuCallbacks',
      args: { count: 1, ready: 0 },
    });
    expect(scene.marks.texts.some((t) => t.id === 'cpu-0-krc-monitor')).toBe(true);
    expect(scene.marks.texts.some((t) => t.id === 'cpu-1-krc-monitor')).toBe(false);
    // The section starts at the same height in both columns, below everything else.
    const y0 = scene.marks.texts.find((t) => t.id === 'cpu-0-krc-label')!.y;
    expect(scene.marks.texts.find((t) => t.id === 'cpu-1-krc-label')!.y).toBe(y0);
    const above = scene.marks.boxes.filter((b) => b.kind !== 'frame' && b.kind !== 'rcu');
    expect(above.every((b) => b.y + b.h <= y0)).toBe(true);
    expectWellFormed(scene.marks);
  });

  it('counts the pointers it leaves out from the queue, not from the part the snapshot lists', () => {
    // A full page holds 507 pointers; the snapshot lists 64 of them.
    const full = fixture('rcu-waiting');
    const q = full.rcu.cpus[0].krc.queued;
    const records = Array.from({ length: 64 }, (_, i) => `0xffff8880000${(0x10000 + i * 64).toString(16)}`);
    q.pages = [{ ...q.pages[0], nr_records: 507, records }];
    q.head = [];
    q.head_count = 0;
    q.objects = 507;
    const cpu0 = layoutCpuPanel(full, { maxRcu: 3 }).columns[0].rcu!;
    expect(cpu0.queued.shown).toHaveLength(3);
    expect(cpu0.queued.more).toBe(504);
  });

  it('leaves the section out when RCU holds nothing, or the snapshot predates it', () => {
    const quiet = fixture('rcu-waiting');
    for (const c of quiet.rcu.cpus) {
      c.callbacks = [];
      c.krc = { ...c.krc, queued: { pages: [], head: [], head_count: 0, objects: 0 }, cached_pages: [], monitor_pending: false };
    }
    const s = layoutCpuPanel(quiet);
    expect(s.columns.every((c) => c.rcu === null)).toBe(true);
    expect(s.marks.texts.some((t) => t.id.includes('krc'))).toBe(false);
    const old = layoutCpuPanel(fixture('slub-numa-300'));
    expect(old.columns.every((c) => c.rcu === null)).toBe(true);
  });
});

describe('layoutCpuPanel, the shared words of a micro-step', () => {
  const snap = fixture('slub-numa-300'); // cache 52, cpu 1's c->slab is 1048
  const cache = snap.cache!.id;
  const text = (s: ReturnType<typeof layoutCpuPanel>, id: string) => s.marks.texts.find((t) => t.id === id);

  it('marks the touched CPU c->freelist and c->tid with the cmpxchg, the tid saying why it failed', () => {
    const words: SharedWord[] = [
      { word: 'c->freelist', how: 'cmpxchg_failed', by: 1, cache, cpu: 1, reason: 'migrated' },
      { word: 'c->tid', how: 'cmpxchg_failed', by: 1, cache, cpu: 1, reason: 'migrated' },
    ];
    const s = layoutCpuPanel(snap, { words });
    expect(slub(s, 1).words).toEqual({ freelist: words[0], tid: words[1], slab: null, lock: null });
    expect(slub(s, 0).words).toEqual({ freelist: null, tid: null, slab: null, lock: null });
    // Its own pair: the column says whose it is.
    expect(text(s, 'cpu-1-fl-word')).toMatchObject({ label: { key: 'sharedWord.own.cmpxchg_failed' }, emphasis: true, anchor: 'end' });
    expect(text(s, 'cpu-1-tid-word')).toMatchObject({ label: { key: 'sharedWord.failed.migrated' }, emphasis: true });
    // The field's own label is emphasised too; the other CPU's are not.
    expect(text(s, 'cpu-1-fl-label')?.emphasis).toBe(true);
    expect(text(s, 'cpu-1-tid')?.emphasis).toBe(true);
    expect(text(s, 'cpu-0-fl-label')?.emphasis).toBeUndefined();
    expect(s.marks.texts.filter((t) => t.id.startsWith('cpu-0-') && t.id.endsWith('-word'))).toEqual([]);
    // Each mark sits on its field's line.
    expect(text(s, 'cpu-1-fl-word')?.y).toBe(text(s, 'cpu-1-fl-label')?.y);
    expect(text(s, 'cpu-1-tid-word')?.y).toBe(text(s, 'cpu-1-tid')?.y);
    expectWellFormed(s.marks);
  });

  it("marks c->slab read by another CPU, and c->lock on the CPU's title line", () => {
    const words: SharedWord[] = [
      { word: 'c->slab', how: 'read', by: 0, cache, cpu: 1 },
      { word: 'c->lock', how: 'held', by: 0, cache, cpu: 0 },
    ];
    const s = layoutCpuPanel(snap, { words });
    expect(slub(s, 1).words.slab).toBe(words[0]);
    expect(text(s, 'cpu-1-slab-word')).toMatchObject({ label: { key: 'sharedWord.read', args: { cpu: 0 } } });
    expect(slub(s, 0).words.lock).toBe(words[1]);
    expect(text(s, 'cpu-0-lock-word')).toMatchObject({ label: { key: 'sharedWord.lock.held' }, y: text(s, 'cpu-0-title')?.y });
    expectWellFormed(s.marks);
  });

  it("marks nothing for another cache's words, or without words", () => {
    const other: SharedWord[] = [{ word: 'c->tid', how: 'read', by: 1, cache: cache + 1, cpu: 1 }];
    const plain = layoutCpuPanel(snap);
    expect(layoutCpuPanel(snap, { words: other }).marks).toEqual(plain.marks);
    expect(plain.marks.texts.some((t) => t.id.endsWith('-word'))).toBe(false);
  });
});
