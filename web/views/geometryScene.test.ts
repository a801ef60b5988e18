import { describe, expect, it } from 'vitest';
import { cpuLabel, geometryScene, metricValue, type SceneRow, type SweepTableData } from './geometryScene';

const COLUMNS = ['status', 'page_size', 'cpus', 'object_size', 'kmalloc_class', 'size', 'order', 'objs_per_slab', 'waste', 'cpu_partial_slabs', 'sheaf_capacity'];

function table(rows: SceneRow[]): SweepTableData {
  const cells = rows.flatMap((r) => COLUMNS.map((c) => (c === 'kmalloc_class' ? 0 : r[c as keyof SceneRow])));
  return { columns: COLUMNS, rows: Uint32Array.from(cells), points: rows.length };
}

function row(cpus: number, object_size: number, objs_per_slab: number, page_size = 4096): SceneRow {
  return { status: 0, page_size, cpus, object_size, size: object_size, order: 0, objs_per_slab, waste: 4096 % object_size, cpu_partial_slabs: 1, sheaf_capacity: 0 };
}

describe('geometryScene', () => {
  it('merges CPU counts whose series are identical and keeps distinct ones apart', () => {
    const rows = [
      row(2, 8, 512), row(2, 16, 256),
      row(3, 8, 512), row(3, 16, 256),
      row(4, 8, 512), row(4, 16, 128),
      row(1, 8, 512, 16384),
    ];
    const scene = geometryScene(table(rows), 4096, 'objs_per_slab');
    expect(scene.series.map((s) => s.cpus)).toEqual([[2, 3], [4]]);
    expect(scene.series.map((s) => s.key)).toEqual(['cpus-2-3', 'cpus-4']);
    expect(scene.xDomain).toEqual([8, 16]);
    expect(scene.yDomain).toEqual([1, 512]);
    expect(scene.logY).toBe(true);
  });

  it('skips refused points and points of other page sizes', () => {
    const refused = { ...row(1, 24, 0), status: 1 };
    const scene = geometryScene(table([row(1, 8, 512), refused, row(1, 8, 2048, 16384)]), 4096, 'waste');
    expect(scene.series).toHaveLength(1);
    expect(scene.series[0].points).toEqual([{ x: 8, y: 0 }]);
    expect(scene.logY).toBe(false);
  });

  it('computes the waste percentage of the whole slab', () => {
    expect(metricValue({ ...row(1, 144, 28), waste: 64 }, 'waste_pct')).toBeCloseTo(1.5625);
    expect(metricValue({ ...row(1, 144, 28), waste: 64, order: 1 }, 'waste_pct')).toBeCloseTo(0.78125);
  });

  it('labels CPU ranges compactly', () => {
    expect(cpuLabel([1])).toBe('1');
    expect(cpuLabel([3, 2])).toBe('2–3');
    expect(cpuLabel([1, 4])).toBe('1, 4');
  });
});
