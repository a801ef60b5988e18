// Drawing of the slab page: a scene in, SVG out. Keyed joins (slots by address, arrows by the
// free object holding the pointer, bars by pfn) so a step moves and recolours what changed and
// re-creates nothing else; cheap enough to run on every frame while playing.
//
// Texts (tooltips) come in as functions: the layout knows no language.

import { select, type BaseType, type Selection } from 'd3-selection';
import 'd3-transition';
import { defineArrowhead, duration, ensure } from './drawUtil';
import { definePatterns, frozenStroke, highlight, okabeIto } from './palette';
import type { FreeArrow, FreelistHead, SlabBar, SlabPageScene, SlotCell } from './slabPage';

export interface SlabPageText {
  slotTitle: (cell: SlotCell) => string;
  arrowTitle: (arrow: FreeArrow) => string;
  barTitle: (bar: SlabBar) => string;
}

export interface SlabPageDrawOptions {
  reducedMotion: boolean;
  text: SlabPageText;
  onSelectSlab?: (pfn: number) => void;
  onFollowObject?: (addr: string) => void;
}

const ARROW_SLAB = 'slabscope-fp-slab';
const ARROW_CPU = 'slabscope-fp-cpu';
const CPU_ARROW_COLOUR = okabeIto.blue;

/** Draws the slots, free pointers and list heads of the shown slab. */
export function drawSlabPage(svgElement: SVGSVGElement, scene: SlabPageScene, options: SlabPageDrawOptions): void {
  const svg = select(svgElement);
  const width = Math.max(1, scene.width);
  const height = Math.max(1, scene.height + 12);
  svg.attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  definePatterns(svg);
  defineArrowhead(svg, ARROW_SLAB, okabeIto.black);
  defineArrowhead(svg, ARROW_CPU, CPU_ARROW_COLOUR);
  const ms = duration(options.reducedMotion);
  const root = svg as unknown as Selection<BaseType, unknown, null, undefined>;

  const slots = ensure<SVGGElement>(root, 'g', 'slots');
  slots
    .selectAll<SVGGElement, SlotCell>('g.slot')
    .data(scene.slots, (d) => d.id)
    .join(
      (enter) => {
        const g = enter
          .append('g')
          .attr('class', 'slot')
          .attr('transform', (d) => `translate(${d.x},${d.y})`)
          .style('cursor', 'pointer')
          .attr('opacity', 0);
        g.append('rect').attr('class', 'cell').attr('width', (d) => d.size).attr('height', (d) => d.size).attr('rx', 2);
        g.append('text').attr('class', 'index').attr('font-size', 9).attr('x', 2).attr('y', 9);
        g.append('text').attr('class', 'mark').attr('font-size', 11).attr('text-anchor', 'end');
        g.append('title');
        return g;
      },
      (update) => update,
      (exit) => exit.transition('slot').duration(ms).attr('opacity', 0).remove(),
    )
    .on('click', (_e, d) => options.onFollowObject?.(d.addr))
    .call((g) => {
      g.select('rect.cell')
        .attr('width', (d) => d.size)
        .attr('height', (d) => d.size)
        .attr('fill', (d) => d.fill)
        .attr('stroke', (d) => (d.highlighted ? highlight.stroke : '#4a5360'))
        .attr('stroke-width', (d) => (d.highlighted ? highlight.width : 1));
      // Text on patterned fills gets a white halo so it stays readable. `select` (not
      // `selectAll`) so each text takes the slot's new datum.
      for (const cls of ['index', 'mark']) {
        g.select(`text.${cls}`)
          .attr('paint-order', 'stroke')
          .attr('stroke', (d) => (d.kind === 'allocated' ? 'none' : '#ffffff'))
          .attr('stroke-width', 2.5);
      }
      g.select('text.index')
        .attr('fill', (d) => (d.kind === 'allocated' ? '#ffffff' : '#1b1f24'))
        .text((d) => d.index);
      g.select('text.mark')
        .attr('x', (d) => d.size - 2)
        .attr('y', (d) => d.size - 3)
        .attr('fill', (d) => (d.kind === 'allocated' ? '#ffffff' : '#1b1f24'))
        .text((d) => (d.freeRank === null ? d.mark : `${d.mark}${d.freeRank + 1}`));
      g.select('title').text((d) => options.text.slotTitle(d));
    })
    .transition('slot')
    .duration(ms)
    .attr('opacity', 1)
    .attr('transform', (d) => `translate(${d.x},${d.y})`);

  const arrows = ensure<SVGGElement>(root, 'g', 'arrows').attr('fill', 'none');
  arrows
    .selectAll<SVGPathElement, FreeArrow>('path.fp')
    .data(scene.arrows, (d) => d.id)
    .join(
      (enter) => enter.append('path').attr('class', 'fp').attr('d', (d) => d.d).attr('opacity', 0),
      (update) => update,
      (exit) => exit.remove(),
    )
    .attr('stroke', (d) => (d.cpu ? CPU_ARROW_COLOUR : okabeIto.black))
    .attr('stroke-width', 1.3)
    .attr('stroke-dasharray', (d) => (d.cpu ? '4 2' : null))
    .attr('marker-end', (d) => (d.to === null ? null : `url(#${d.cpu ? ARROW_CPU : ARROW_SLAB})`))
    .call((p) =>
      p
        .selectAll<SVGTitleElement, FreeArrow>('title')
        .data((d) => [d])
        .join('title')
        .text((d) => options.text.arrowTitle(d)),
    )
    .transition('fp')
    .duration(ms)
    .attr('opacity', 1)
    .attr('d', (d) => d.d);

  const heads = ensure<SVGGElement>(root, 'g', 'heads');
  heads
    .selectAll<SVGTextElement, FreelistHead>('text.head')
    .data(scene.heads, (d) => d.id)
    .join((enter) => enter.append('text').attr('class', 'head').attr('x', (d) => d.x).attr('y', (d) => d.y))
    .attr('font-size', 9)
    .attr('text-anchor', (d) => d.anchor)
    .attr('fill', (d) => (d.id === 'head-slab' ? okabeIto.black : CPU_ARROW_COLOUR))
    .text((d) => (d.anchor === 'start' ? `▼ ${d.label}` : `${d.label} ▼`))
    .transition('head')
    .duration(ms)
    .attr('x', (d) => d.x)
    .attr('y', (d) => d.y);
}

/** Draws the strip of every slab of the cache: bars of inuse/objects, frozen ones outlined. */
export function drawSlabStrip(svgElement: SVGSVGElement, scene: SlabPageScene, options: SlabPageDrawOptions): void {
  const strip = scene.strip;
  const svg = select(svgElement);
  const width = Math.max(1, strip.width);
  const height = Math.max(1, strip.height);
  svg.attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  const ms = duration(options.reducedMotion);
  const root = svg as unknown as Selection<BaseType, unknown, null, undefined>;
  ensure<SVGGElement>(root, 'g', 'bars')
    .selectAll<SVGGElement, SlabBar>('g.bar')
    .data(strip.bars, (d) => d.id)
    .join((enter) => {
      const g = enter
        .append('g')
        .attr('class', 'bar')
        .attr('transform', (d) => `translate(${d.x},${d.y})`)
        .style('cursor', 'pointer');
      g.append('rect').attr('class', 'frame').attr('fill', '#ffffff');
      g.append('rect').attr('class', 'inuse').attr('fill', okabeIto.blue);
      g.append('title');
      return g;
    })
    .on('click', (_e, d) => options.onSelectSlab?.(d.pfn))
    .call((g) => {
      g.select('rect.frame')
        .attr('width', (d) => d.width)
        .attr('height', (d) => d.height)
        .attr('stroke', (d) => (d.highlighted ? highlight.stroke : d.frozen ? frozenStroke.stroke : '#4a5360'))
        .attr('stroke-width', (d) => (d.selected || d.highlighted || d.frozen ? 2 : 1))
        .attr('stroke-dasharray', (d) => (d.frozen ? frozenStroke.dash : null));
      g.select('title').text((d) => options.text.barTitle(d));
    })
    .call((g) =>
      g
        .select('rect.inuse')
        .transition('bar')
        .duration(ms)
        .attr('x', 1)
        .attr('width', (d) => d.width - 2)
        .attr('y', (d) => d.height - d.inuseHeight)
        .attr('height', (d) => d.inuseHeight),
    )
    .transition('bar')
    .duration(ms)
    .attr('transform', (d) => `translate(${d.x},${d.y})`);

  // The shown slab gets a caret under its bar: selection is told by shape, not colour alone.
  const selected = strip.bars.filter((b) => b.selected);
  ensure<SVGGElement>(root, 'g', 'selected')
    .selectAll<SVGPathElement, SlabBar>('path.caret')
    .data(selected, (d) => d.id)
    .join('path')
    .attr('class', 'caret')
    .attr('fill', okabeIto.black)
    .attr('d', (d) => `M${d.x + d.width / 2},${d.y + d.height + 0.5}l-3,4h6z`);
}
