import { describe, expect, it } from 'vitest';
import { fixture } from './fixtures/fixture';
import { layoutSheaves } from './sheaves';

describe('layoutSheaves', () => {
  it('draws every sheaf whole: its objects in order with the top marked, then its free room', () => {
    const s = fixture('sheaves-7.2');
    const scene = layoutSheaves(s, 420);
    const cache = s.cache!;
    expect(scene.capacity).toBe(cache.sheaf_capacity);
    const ids = [...scene.marks.boxes, ...scene.marks.texts, ...scene.marks.locks].map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    const all = [...scene.cpus.flatMap((c) => c.sheaves.map((e) => e.sheaf)), ...scene.nodes.flatMap((n) => [...n.full, ...n.empty])].filter((x) => x !== null);
    // cpu0 main and spare, cpu1 main, the barn's two full and one empty sheaf.
    expect(all.map((x) => x.objects.length)).toEqual([2, 4, 1, 4, 4, 0]);
    for (const sh of all) {
      const frame = scene.marks.boxes.find((b) => b.id === `sheaf-${sh.id}`)!;
      expect(frame).toBeDefined();
      const objects = sh.objects.map((a) => scene.marks.boxes.find((b) => b.id === `obj-${a}`)!);
      expect(objects.map((b) => b.glyph)).toEqual(sh.objects.map((_, i) => (i === sh.objects.length - 1 ? '▲' : '')));
      const empty = scene.marks.boxes.filter((b) => b.kind === 'cell' && b.x >= frame.x && b.y >= frame.y && b.y < frame.y + frame.h);
      expect(empty).toHaveLength(sh.capacity - sh.objects.length);
    }
    expect(scene.marks.height).toBeGreaterThan(0);
  });

  it('draws the rcu_free sheaves that wait for a grace period', () => {
    const s = fixture('sheaves-rcu-7.2');
    const scene = layoutSheaves(s, 420);
    expect(scene.rcu).toHaveLength(1);
    const sh = scene.rcu[0];
    expect(sh.objects).toHaveLength(sh.capacity);
    expect(scene.marks.boxes.some((b) => b.id === `sheaf-${sh.id}`)).toBe(true);
    // The CPU that submitted it has no rcu_free sheaf any more.
    const cpu0 = s.cache!.cpus[0];
    expect(cpu0.kind === 'slub' && cpu0.sheaves?.rcu_free).toBeNull();
  });

  it('has nothing to draw for a cache without sheaves', () => {
    const scene = layoutSheaves(fixture('slub-numa-300'), 420);
    expect(scene.capacity).toBe(0);
    expect(scene.marks.boxes).toHaveLength(0);
  });
});
