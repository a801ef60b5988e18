// Drawing of the geometry chart: a scene in, SVG out, with D3 keyed joins so that a new sweep
// moves the lines instead of redrawing them. Knows nothing of React or the simulator.

import { axisBottom, axisLeft } from 'd3-axis';
import { scaleLinear, scaleLog, scaleOrdinal } from 'd3-scale';
import { select } from 'd3-selection';
import { curveStepAfter, line } from 'd3-shape';
import type { GeometryScene, ScenePoint, SceneSeries } from './geometryScene';
import { cpuLabel } from './geometryScene';

/** Okabe–Ito: distinguishable with the common colour-vision deficiencies. */
export const SERIES_COLOURS = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#D55E00',
  '#CC79A7',
  '#56B4E9',
  '#F0E442',
  '#000000',
];
/** Dash patterns, so lines differ by shape as well as colour. */
const DASHES = ['', '6 3', '2 2', '8 3 2 3', '1 3', '10 4', '4 4', '12 2'];

export interface ChartLabels {
  x: string;
  y: string;
  cpus: string;
}

export interface ChartSize {
  width: number;
  height: number;
}

const MARGIN = { top: 12, right: 120, bottom: 40, left: 56 };

export function drawGeometryChart(
  svgElement: SVGSVGElement,
  scene: GeometryScene,
  labels: ChartLabels,
  size: ChartSize,
): void {
  const { width, height } = size;
  const innerW = width - MARGIN.left - MARGIN.right;
  const innerH = height - MARGIN.top - MARGIN.bottom;
  const svg = select(svgElement).attr('viewBox', `0 0 ${width} ${height}`);

  const x = scaleLinear().domain(scene.xDomain).range([0, innerW]);
  // Objects per slab span 1 to thousands: a log axis keeps large objects readable.
  const y = scene.logY
    ? scaleLog().domain([1, Math.max(2, scene.yDomain[1])]).nice().range([innerH, 0])
    : scaleLinear().domain(scene.yDomain).nice().range([innerH, 0]);
  const colour = scaleOrdinal<string, string>().range(SERIES_COLOURS);
  const dash = scaleOrdinal<string, string>().range(DASHES);
  const keys = scene.series.map((s) => s.key);
  colour.domain(keys);
  dash.domain(keys);

  const root = svg
    .selectAll<SVGGElement, null>('g.plot')
    .data([null])
    .join('g')
    .attr('class', 'plot')
    .attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);

  root
    .selectAll<SVGGElement, null>('g.x-axis')
    .data([null])
    .join('g')
    .attr('class', 'x-axis')
    .attr('transform', `translate(0,${innerH})`)
    .call(axisBottom(x).ticks(8));
  root
    .selectAll<SVGGElement, null>('g.y-axis')
    .data([null])
    .join('g')
    .attr('class', 'y-axis')
    .call(axisLeft(y).ticks(6, scene.logY ? '~s' : undefined));

  root
    .selectAll<SVGTextElement, string>('text.x-label')
    .data([labels.x])
    .join('text')
    .attr('class', 'x-label')
    .attr('x', innerW / 2)
    .attr('y', innerH + 34)
    .attr('text-anchor', 'middle')
    .text((d) => d);
  root
    .selectAll<SVGTextElement, string>('text.y-label')
    .data([labels.y])
    .join('text')
    .attr('class', 'y-label')
    .attr('transform', `translate(-44,${innerH / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle')
    .text((d) => d);

  const path = line<ScenePoint>()
    .x((p) => x(p.x))
    .y((p) => y(p.y))
    .curve(curveStepAfter);

  root
    .selectAll<SVGPathElement, SceneSeries>('path.series')
    .data(scene.series, (s) => s.key)
    .join('path')
    .attr('class', 'series')
    .attr('fill', 'none')
    .attr('stroke-width', 1.5)
    .attr('stroke', (s) => colour(s.key))
    .attr('stroke-dasharray', (s) => dash(s.key))
    .attr('d', (s) => path(s.points) ?? '');

  const legend = root
    .selectAll<SVGGElement, SceneSeries>('g.legend-item')
    .data(scene.series, (s) => s.key)
    .join((enter) => {
      const g = enter.append('g').attr('class', 'legend-item');
      g.append('line').attr('x1', 0).attr('x2', 22).attr('stroke-width', 2);
      g.append('text').attr('x', 28).attr('dy', '0.32em');
      return g;
    })
    .attr('transform', (_, i) => `translate(${innerW + 12},${10 + i * 18})`);
  legend
    .select('line')
    .attr('stroke', (s) => colour(s.key))
    .attr('stroke-dasharray', (s) => dash(s.key));
  legend.select('text').text((s) => `${labels.cpus} ${cpuLabel(s.cpus)}`);
}
