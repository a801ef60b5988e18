// Small helpers the draw modules share: one child element per role, and motion that honours
// prefers-reduced-motion. No React, no simulator.

import type { BaseType, Selection } from 'd3-selection';
import 'd3-transition';

/** The one `<tag class=cls>` child of `parent`, created on first use. */
export function ensure<E extends Element>(
  parent: Selection<BaseType, unknown, null, undefined>,
  tag: string,
  cls: string,
): Selection<E, unknown, null, undefined> {
  const child = parent.select<E>(`:scope > ${tag}.${cls}`);
  return child.empty() ? parent.append<E>(tag).attr('class', cls) : child;
}

/** A transition's duration: 0 when the person asked for reduced motion. */
export function duration(reducedMotion: boolean, ms = 300): number {
  return reducedMotion ? 0 : ms;
}

/** Adds an arrowhead marker (idempotent). */
export function defineArrowhead(svg: Selection<SVGSVGElement, unknown, null, undefined>, id: string, colour: string): void {
  if (!svg.select(`#${id}`).empty()) return;
  let defs = svg.select<SVGDefsElement>('defs.arrows');
  if (defs.empty()) defs = svg.append('defs').attr('class', 'arrows');
  defs
    .append('marker')
    .attr('id', id)
    .attr('viewBox', '0 0 8 8')
    .attr('refX', 7)
    .attr('refY', 4)
    .attr('markerWidth', 7)
    .attr('markerHeight', 7)
    .attr('orient', 'auto-start-reverse')
    .append('path')
    .attr('d', 'M0,0L8,4L0,8z')
    .attr('fill', colour);
}
