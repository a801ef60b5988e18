// Layout of the geometry chart: sweep rows in, a scene (series of points, axis domains and
// labels) out. No DOM, no React, no wasm: a pure function, tested on its own.
//
// CPU counts enter SLUB's order choice only through fls(nr_cpus), so several counts give the
// same line; counts with identical series are merged into one line labelled with their range.

export type Metric = 'objs_per_slab' | 'waste' | 'waste_pct' | 'order' | 'cpu_partial_slabs' | 'sheaf_capacity';

export interface ScenePoint {
  x: number;
  y: number;
}

export interface SceneSeries {
  /** Stable key for keyed joins: the CPU counts it covers. */
  key: string;
  cpus: number[];
  points: ScenePoint[];
}

export interface GeometryScene {
  metric: Metric;
  xDomain: [number, number];
  yDomain: [number, number];
  /** Draw y on a log scale (objects per slab: always >= 1, spans orders of magnitude). */
  logY: boolean;
  series: SceneSeries[];
}

/** A sweep's table as the simulator returns it: row-major, `columns.length` cells a point. */
export interface SweepTableData {
  columns: string[];
  rows: Uint32Array;
  points: number;
}

/** The row fields a scene needs. */
export interface SceneRow {
  status: number;
  page_size: number;
  cpus: number;
  object_size: number;
  size: number;
  order: number;
  objs_per_slab: number;
  waste: number;
  cpu_partial_slabs: number;
  /** 6.18+: objects per per-CPU sheaf (0 without sheaves). */
  sheaf_capacity: number;
}

export function metricValue(row: SceneRow, metric: Metric): number {
  switch (metric) {
    case 'waste_pct':
      return (100 * row.waste) / (row.page_size * 2 ** row.order);
    default:
      return row[metric];
  }
}

const SCENE_FIELDS = ['status', 'page_size', 'cpus', 'object_size', 'size', 'order', 'objs_per_slab', 'waste', 'cpu_partial_slabs', 'sheaf_capacity'] as const;

/** Builds the scene for one page size from a table of any page sizes and CPU counts. */
export function geometryScene(table: SweepTableData, pageSize: number, metric: Metric): GeometryScene {
  const width = table.columns.length;
  const col = Object.fromEntries(SCENE_FIELDS.map((f) => [f, table.columns.indexOf(f)])) as Record<
    (typeof SCENE_FIELDS)[number],
    number
  >;
  const byCpus = new Map<number, ScenePoint[]>();
  const row = {} as SceneRow;
  for (let i = 0, base = 0; i < table.points; i++, base += width) {
    if (table.rows[base + col.page_size] !== pageSize || table.rows[base + col.status] !== 0) continue;
    for (const f of SCENE_FIELDS) row[f] = table.rows[base + col[f]];
    let points = byCpus.get(row.cpus);
    if (!points) byCpus.set(row.cpus, (points = []));
    points.push({ x: row.object_size, y: metricValue(row, metric) });
  }
  const cpuCounts = [...byCpus.keys()].sort((a, b) => a - b);
  const series: SceneSeries[] = [];
  for (const cpus of cpuCounts) {
    const points = byCpus.get(cpus)!.sort((a, b) => a.x - b.x);
    const same = series.find((s) => samePoints(s.points, points));
    if (same) {
      same.cpus.push(cpus);
      same.key = seriesKey(same.cpus);
    } else {
      series.push({ key: seriesKey([cpus]), cpus: [cpus], points });
    }
  }
  let xMin = Infinity;
  let xMax = -Infinity;
  let yMax = 0;
  for (const s of series) {
    for (const p of s.points) {
      xMin = Math.min(xMin, p.x);
      xMax = Math.max(xMax, p.x);
      yMax = Math.max(yMax, p.y);
    }
  }
  if (!Number.isFinite(xMin)) [xMin, xMax] = [0, 1];
  const logY = metric === 'objs_per_slab';
  return { metric, xDomain: [xMin, xMax], yDomain: [logY ? 1 : 0, yMax || 1], logY, series };
}

function samePoints(a: ScenePoint[], b: ScenePoint[]): boolean {
  return a.length === b.length && a.every((p, i) => p.x === b[i].x && p.y === b[i].y);
}

function seriesKey(cpus: number[]): string {
  return `cpus-${cpus.join('-')}`;
}

/** "1", "2–3", "4–7", or a list when the counts are not contiguous. */
export function cpuLabel(cpus: number[]): string {
  const sorted = [...cpus].sort((a, b) => a - b);
  const contiguous = sorted.every((c, i) => i === 0 || c === sorted[i - 1] + 1);
  if (sorted.length === 1) return String(sorted[0]);
  if (contiguous) return `${sorted[0]}–${sorted[sorted.length - 1]}`;
  return sorted.join(', ');
}
