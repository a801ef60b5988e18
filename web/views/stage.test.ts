import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../core/generated/Snapshot';
import { fixture, type FixtureName } from './fixtures/fixture';
import type { BoxMark, Marks } from './marks';
import { frozenStroke } from './palette';
import { layoutStage } from './stage';

const FIXTURES: FixtureName[] = ['slub-remote-free-104', 'slub-remote-free-120', 'slub-numa-300', 'slub-bulk-free', 'slub-hardened', 'slab-300', 'slab-cached', 'buddy-merge', 'buddy-split', 'rcu-waiting', 'sheaves-7.2'];

function box(m: Marks, id: string): BoxMark {
  const b = m.boxes.find((x) => x.id === id);
  if (!b) throw new Error(`no box ${id}`);
  return b;
}

/** Whether `inner` lies inside `outer` (a card's frame). */
function inside(inner: BoxMark, outer: BoxMark): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w + 0.001 && inner.y + inner.h <= outer.y + outer.h + 0.001;
}

/** Unique ids, and every box and text within the stage's width and height. */
function expectWellFormed(m: Marks): void {
  const ids = [...m.boxes, ...m.texts, ...m.lines, ...m.locks].map((x) => x.id);
  expect(new Set(ids).size, 'ids are unique').toBe(ids.length);
  for (const b of m.boxes) {
    expect(b.x, b.id).toBeGreaterThanOrEqual(0);
    expect(b.x + b.w, b.id).toBeLessThanOrEqual(m.width + 0.001);
    expect(b.y + b.h, b.id).toBeLessThanOrEqual(m.height + 0.001);
  }
  for (const t of m.texts) {
    expect(t.x, t.id).toBeGreaterThanOrEqual(0);
    expect(t.x, t.id).toBeLessThanOrEqual(m.width);
    expect(t.y, t.id).toBeLessThanOrEqual(m.height);
  }
}

/** Where each slab of the shown cache sits in the snapshot: the card its box must be in. */
function expectedCard(s: Snapshot, pfn: number): string | null {
  const cache = s.cache!;
  for (const c of cache.cpus) {
    if (c.kind === 'slub' && (c.slab === pfn || c.partial.some((p) => p.pfn === pfn))) return `cpu-${c.cpu}-frame`;
  }
  const b = cache.slabs.find((x) => x.pfn === pfn);
  return b ? `node-${b.node}-frame` : null;
}

describe('layoutStage', () => {
  it('puts every slab it draws in the card of the CPU or node that holds it, once', () => {
    for (const name of FIXTURES) {
      const s = fixture(name);
      if (!s.cache) continue;
      const { marks } = layoutStage(s, { width: 900 });
      expectWellFormed(marks);
      const slabs = marks.boxes.filter((b) => b.kind === 'slab');
      for (const b of slabs) {
        const pfn = Number(b.id.slice('slab-'.length));
        const card = expectedCard(s, pfn);
        expect(card, `${name}: slab ${pfn} belongs somewhere`).not.toBeNull();
        expect(inside(b, box(marks, card!)), `${name}: slab ${pfn} in ${card}`).toBe(true);
      }
      // Every cpu slab and every slab of a node partial list that fits is drawn.
      for (const c of s.cache.cpus) if (c.kind === 'slub' && c.slab !== null) box(marks, `slab-${c.slab}`);
      for (const n of s.cache.nodes) if (n.kind === 'slub') for (const p of n.partial.slice(0, 4)) box(marks, `slab-${p.pfn}`);
    }
  });

  it('under 7.2 draws each CPU\'s sheaves (no tid, c->freelist, c->slab or c->partial) and the barn, top of a sheaf last', () => {
    const s = fixture('sheaves-7.2');
    const cache = s.cache!;
    expect(cache.cpu_slab).toBe(false);
    for (const width of [900, 370]) {
      const { marks } = layoutStage(s, { width });
      expectWellFormed(marks);
      const names = marks.texts.filter((t) => 'text' in t.label).map((t) => ('text' in t.label ? t.label.text : ''));
      for (const gone of ['c->freelist', 'c->slab', 'c->partial']) expect(names).not.toContain(gone);
      expect(marks.texts.some((t) => t.id.endsWith('-tid'))).toBe(false);
      for (const c of cache.cpus) {
        if (c.kind !== 'slub' || !c.sheaves?.main) throw new Error('a 7.2 CPU has a main sheaf');
        const main = c.sheaves.main;
        // The sheaf's frame is in its CPU's card, its objects inside the frame, bottom to top
        // from left to right.
        const frame = box(marks, `sheaf-${main.id}`);
        expect(inside(frame, box(marks, `cpu-${c.cpu}-frame`))).toBe(true);
        const xs = main.objects.map((a) => box(marks, `obj-${a}`).x);
        expect(xs).toEqual([...xs].sort((a, b) => a - b));
        for (const a of main.objects) expect(inside(box(marks, `obj-${a}`), frame)).toBe(true);
      }
      // The barn's sheaves are bars as full as they are, in the node's card.
      const n = cache.nodes[0];
      if (n.kind !== 'slub' || !n.barn) throw new Error('node 0 has a barn');
      for (const sh of [...n.barn.full, ...n.barn.empty]) {
        const b = box(marks, `sheaf-${sh.id}`);
        expect(b.level).toBeCloseTo(sh.objects.length / sh.capacity);
        expect(inside(b, box(marks, 'node-0-frame'))).toBe(true);
      }
    }
  });

  it('draws cpu slabs frozen and each slab as inuse/objects', () => {
    const s = fixture('slub-remote-free-104');
    const { marks } = layoutStage(s, { width: 900 });
    const cpuSlab = box(marks, 'slab-2');
    expect(cpuSlab.dash).toBe(frozenStroke.dash);
    const brief = s.cache!.slabs.find((b) => b.pfn === 2)!;
    expect(cpuSlab.level).toBeCloseTo(brief.inuse / brief.objects);
    expect(marks.texts.find((t) => t.id === 'slab-2-t')?.label).toEqual({ key: 'stage.slab', args: { pfn: 2, inuse: brief.inuse, objects: brief.objects } });
  });

  it('moves a slab between cards by keeping its id: cpu1 partial at 104, node 0 partial at 120', () => {
    const before = layoutStage(fixture('slub-remote-free-104'), { width: 900 }).marks;
    const after = layoutStage(fixture('slub-remote-free-120'), { width: 900 }).marks;
    expect(inside(box(before, 'slab-0'), box(before, 'cpu-1-frame'))).toBe(true);
    expect(inside(box(after, 'slab-0'), box(after, 'node-0-frame'))).toBe(true);
    // The step that flushed it took node 0's list_lock: the padlock is lit.
    expect(after.locks.find((l) => l.id === 'node-0-lock')?.lit).toBe(true);
    expect(before.locks.find((l) => l.id === 'node-0-lock')?.lit).toBe(false);
  });

  it('lights what the step changed and reports it as the focus', () => {
    const s = fixture('slub-remote-free-120');
    const scene = layoutStage(s, { width: 900 });
    const lit = scene.marks.boxes.filter((b) => b.highlight).map((b) => b.id);
    for (const pfn of s.transient.slabs) expect(lit).toContain(`slab-${pfn}`);
    const slab = box(scene.marks, `slab-${s.transient.slabs[0]}`);
    const f = scene.focus!;
    expect(f.x <= slab.x && f.y <= slab.y && f.x + f.w >= slab.x + slab.w && f.y + f.h >= slab.y + slab.h).toBe(true);
    const quiet = fixture('slab-300');
    expect(layoutStage({ ...quiet, transient: { ...quiet.transient, slabs: [], objects: [], merges: [], splits: [] } }, { width: 900 }).focus).toBeNull();
  });

  it('close in, draws the shown slab slot by slot with its free objects numbered in the order they go out', () => {
    const s = fixture('slub-remote-free-120');
    const shown = s.cache!.slab!;
    const bars = layoutStage(s, { width: 900, detail: 'bars' }).marks;
    expect(bars.boxes.filter((b) => b.id.startsWith('slot-'))).toHaveLength(0);
    const slots = layoutStage(s, { width: 900, detail: 'slots' }).marks;
    expectWellFormed(slots);
    const cells = slots.boxes.filter((b) => b.id.startsWith(`slot-${shown.brief.pfn}-`));
    expect(cells).toHaveLength(shown.slots.length);
    const numbers = slots.texts.filter((t) => t.id.startsWith(`slot-${shown.brief.pfn}-`)).map((t) => ({ id: t.id, n: 'text' in t.label ? Number(t.label.text) : NaN }));
    expect(numbers.map((x) => x.n).sort((a, b) => a - b)).toEqual(shown.free_order.map((_, i) => i + 1));
    // The first one out is the head of slab->freelist.
    expect(numbers.find((x) => x.n === 1)?.id).toBe(`slot-${shown.brief.pfn}-${shown.free_order[0]}-n`);
    // The slots sit under the slab's bar, and the rows below make room for them.
    const bar = box(slots, `slab-${shown.brief.pfn}`);
    for (const c of cells) expect(c.y).toBeGreaterThanOrEqual(bar.y + bar.h);
    expect(slots.height).toBeGreaterThan(bars.height);
  });

  it("draws SLAB's array cache with the next object out first", () => {
    const s = fixture('slab-cached');
    const cpu0 = s.cache!.cpus[0];
    if (cpu0.kind !== 'slab') throw new Error('SLAB fixture');
    const { marks } = layoutStage(s, { width: 900 });
    const objs = marks.boxes.filter((b) => b.kind === 'object' && b.target?.kind === 'object');
    const first = objs.reduce((a, b) => (b.x < a.x || (b.x === a.x && b.y < a.y) ? b : a));
    expect(first.id).toBe(`obj-${cpu0.ac.entry[cpu0.ac.avail - 1]}`);
    expect(marks.texts.find((t) => t.id === 'cpu-0-ac-note')?.label).toMatchObject({ key: 'stage.array', args: { avail: cpu0.ac.avail } });
  });

  it("shows each zone's free_area[] and lights the order a merge made", () => {
    const s = fixture('buddy-merge');
    const { marks } = layoutStage(s, { width: 900 });
    for (const z of s.buddy.zones) for (const fa of z.free_area) expect(marks.texts.find((t) => t.id === `zone-${z.node}-n${fa.order}`)?.label).toEqual({ text: String(fa.nr_free) });
    for (const m of s.transient.merges) expect(box(marks, `zone-${m.node}-fa-${m.order + 1}`).highlight).toBe(true);
  });

  it('lays out at any width from a phone to a wide screen, and larger under large text', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIXTURES), fc.integer({ min: 300, max: 1800 }), fc.boolean(), fc.constantFrom(1, 1.4), (name, width, slots, scale) => {
        const s = fixture(name);
        const { marks } = layoutStage(s, { width, detail: slots ? 'slots' : 'bars', fontScale: scale });
        expect(marks.width).toBe(width);
        expectWellFormed(marks);
      }),
      { numRuns: 120 },
    );
    const s = fixture('slub-numa-300');
    const normal = layoutStage(s, { width: 900 }).marks;
    const large = layoutStage(s, { width: 900, fontScale: 1.4 }).marks;
    expect(large.height).toBeGreaterThan(normal.height * 1.2);
    expect(box(large, 'slab-1048').h).toBeGreaterThan(box(normal, 'slab-1048').h);
  });

  it('moves an object popped off c->freelist to its CPU\'s caller mark, keeping its id', () => {
    const before = fixture('slub-numa-300');
    const cpu1 = before.cache!.cpus[1];
    if (cpu1.kind !== 'slub') throw new Error('SLUB fixture');
    const head = cpu1.freelist[0];
    // The next fast-path allocation on cpu1, as the snapshot after it reads.
    const after: Snapshot = {
      ...before,
      cache: { ...before.cache!, cpus: before.cache!.cpus.map((c) => (c.kind === 'slub' && c.cpu === 1 ? { ...c, freelist: c.freelist.slice(1) } : c)) },
      transient: { ...before.transient, objects: [head], handed_out: [{ addr: head, cache: before.cache!.id, cpu: 1 }], slabs: [] },
    };
    const was = box(layoutStage(before, { width: 900 }).marks, `obj-${head}`);
    const scene = layoutStage(after, { width: 900 });
    const now = box(scene.marks, `obj-${head}`);
    expect(now.highlight).toBe(true);
    expect(inside(now, box(scene.marks, 'cpu-1-frame'))).toBe(true);
    expect(now.y).toBeLessThan(was.y + 1);
    expect(scene.marks.texts.find((t) => t.id === 'cpu-1-caller-name')?.label).toEqual({ key: 'stage.toCaller' });
    expect(scene.marks.texts.some((t) => t.id === 'cpu-0-caller-name')).toBe(false);
    // An object of another cache (SLAB's off-slab index array) is not this cache's to show.
    const other: Snapshot = { ...after, transient: { ...after.transient, handed_out: [{ addr: head, cache: before.cache!.id + 1, cpu: 1 }] } };
    expect(layoutStage(other, { width: 900 }).marks.texts.some((t) => t.id === 'cpu-1-caller-name')).toBe(false);
  });

  it("shows what the simulator says a step handed out, on the CPU that ran it", () => {
    // slub-hardened: the step allocated 0xffff888000000080 on cpu0.
    const s = fixture('slub-hardened');
    expect(s.transient.handed_out).toEqual([{ addr: '0xffff888000000080', cache: s.cache!.id, cpu: 0 }]);
    const { marks } = layoutStage(s, { width: 900 });
    expect(inside(box(marks, 'obj-0xffff888000000080'), box(marks, 'cpu-0-frame'))).toBe(true);
    // A step that only freed hands nothing out.
    const freed = fixture('slub-remote-free-104');
    expect(freed.transient.objects.length).toBeGreaterThan(0);
    expect(layoutStage(freed, { width: 900 }).marks.texts.some((t) => t.id.endsWith('-caller-name'))).toBe(false);
  });

  it('draws nothing but says so when no cache is shown', () => {
    const s = fixture('slab-300');
    const scene = layoutStage({ ...s, cache: null }, { width: 900 });
    expect(scene.cacheName).toBeNull();
    expect(scene.marks.boxes).toHaveLength(0);
  });
});
