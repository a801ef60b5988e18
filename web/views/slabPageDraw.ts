// Drawing of the slab page: a scene in, SVG out. Keyed joins (slots by address, arrows by the
// free object holding the pointer, bars by pfn) so a step moves and recolours what changed and
// re-creates nothing else; cheap enough to run on every frame while playing.
//
// Texts (tooltips) come in as functions: the layout knows no language.

import { select, type BaseType, type Selection } from 'd3-selection';
import 'd3-transition';
import { changed, defineArrowhead, duration, ensure, leave, move, type Motion } from './drawUtil';
import { definePatterns, frozenStroke, highlight, okabeIto } from './palette';
import type { FreeArrow, FreelistHead, SlabPageScene, SlotCell } from './slabPage';

export interface SlabPageText {
  slotTitle: (cell: SlotCell) => string;
  arrowTitle: (arrow: FreeArrow) => string;
}

export interface SlabPageDrawOptions {
  motion: Motion;
  text: SlabPageText;
  /** What `text` depends on besides each datum (the translate function): a new one rewrites every text. */
  textContext: unknown;
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
  const ms = duration(options.motion);
  const root = svg as unknown as Selection<BaseType, unknown, null, undefined>;
  // Tooltips are written only when not playing, and texts depend on the language and allocator.
  const context = [options.textContext, options.motion.playing, scene.allocator, scene.hardened];

  const slots = ensure<SVGGElement>(root, 'g', 'slots');
  slots
    .selectAll<SVGGElement, SlotCell>('g.slot')
    // Keyed by position, not by address: when another slab is shown (most steps, while
    // playing), its slots take over the same cells instead of every cell being rebuilt.
    .data(scene.slots, (d) => String(d.index))
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
      (exit) => leave(exit, 'slot', ms),
    )
    .on('click', (_e, d) => options.onFollowObject?.(d.addr))
    .call((all) => {
      // Only slots whose state changed are touched (see `changed`).
      const g = changed(all, context);
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
      if (!options.motion.playing) g.select('title').text((d) => options.text.slotTitle(d));
      move(g, 'slot', ms)
        .attr('opacity', 1)
        .attr('transform', (d) => `translate(${d.x},${d.y})`);
    });

  const arrows = ensure<SVGGElement>(root, 'g', 'arrows').attr('fill', 'none');
  arrows
    .selectAll<SVGPathElement, FreeArrow>('path.fp')
    .data(scene.arrows, (d) => String(d.from))
    .join(
      (enter) => enter.append('path').attr('class', 'fp').attr('d', (d) => d.d).attr('opacity', 0),
      (update) => update,
      (exit) => exit.remove(),
    )
    .call((all) => {
      const p = changed(all, context)
        .attr('stroke', (d) => (d.cpu ? CPU_ARROW_COLOUR : okabeIto.black))
        .attr('stroke-width', 1.3)
        .attr('stroke-dasharray', (d) => (d.cpu ? '4 2' : null))
        .attr('marker-end', (d) => (d.to === null ? null : `url(#${d.cpu ? ARROW_CPU : ARROW_SLAB})`));
      if (!options.motion.playing) {
        p.selectAll<SVGTitleElement, FreeArrow>('title')
          .data((d) => [d])
          .join('title')
          .text((d) => options.text.arrowTitle(d));
      }
      move(p, 'fp', ms)
        .attr('opacity', 1)
        .attr('d', (d) => d.d);
    });

  const heads = ensure<SVGGElement>(root, 'g', 'heads');
  heads
    .selectAll<SVGTextElement, FreelistHead>('text.head')
    .data(scene.heads, (d) => d.id)
    .join((enter) => enter.append('text').attr('class', 'head').attr('x', (d) => d.x).attr('y', (d) => d.y))
    .attr('font-size', 9)
    .attr('text-anchor', (d) => d.anchor)
    .attr('fill', (d) => (d.id === 'head-slab' ? okabeIto.black : CPU_ARROW_COLOUR))
    .text((d) => (d.anchor === 'start' ? `▼ ${d.label}` : `${d.label} ▼`))
    .call((h) => {
      move(h, 'head', ms)
        .attr('x', (d) => d.x)
        .attr('y', (d) => d.y);
    });
}

/**
 * Draws the strip of every slab of the cache on a Canvas (up to MAX_BARS bars: one element
 * each would cost a frame while playing): bars of inuse/objects; frozen ones outlined dashed,
 * the step's outlined in the highlight colour; a caret under the shown one (selection is told by
 * shape, not colour alone). Drawing the same strip again does nothing.
 */
export function drawSlabStrip(canvas: HTMLCanvasElement, strip: SlabPageScene['strip'], options: { pixelRatio?: number } = {}): void {
  if (drawnStrips.get(canvas) === strip) return;
  const ratio = options.pixelRatio ?? 1;
  const w = Math.max(1, strip.width);
  const h = Math.max(1, strip.height);
  canvas.width = Math.round(w * ratio);
  canvas.height = Math.round(h * ratio);
  canvas.style.width = `${w}px`;
  canvas.style.aspectRatio = `${w} / ${h}`;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, w, h);
  for (const bar of strip.bars) {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(bar.x, bar.y, bar.width, bar.height);
    ctx.fillStyle = okabeIto.blue;
    ctx.fillRect(bar.x + 1, bar.y + bar.height - bar.inuseHeight, bar.width - 2, bar.inuseHeight);
    ctx.strokeStyle = bar.highlighted ? highlight.stroke : bar.frozen ? frozenStroke.stroke : '#4a5360';
    ctx.lineWidth = bar.selected || bar.highlighted || bar.frozen ? 2 : 1;
    ctx.setLineDash(bar.frozen ? frozenStroke.dash.split(' ').map(Number) : []);
    ctx.strokeRect(bar.x + 0.5, bar.y + 0.5, bar.width - 1, bar.height - 1);
    if (bar.selected) {
      ctx.setLineDash([]);
      ctx.fillStyle = okabeIto.black;
      ctx.beginPath();
      ctx.moveTo(bar.x + bar.width / 2, bar.y + bar.height + 0.5);
      ctx.lineTo(bar.x + bar.width / 2 - 3, bar.y + bar.height + 4.5);
      ctx.lineTo(bar.x + bar.width / 2 + 3, bar.y + bar.height + 4.5);
      ctx.closePath();
      ctx.fill();
    }
  }
  ctx.setLineDash([]);
  drawnStrips.set(canvas, strip);
}

const drawnStrips = new WeakMap<HTMLCanvasElement, SlabPageScene['strip']>();
