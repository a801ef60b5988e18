// Drawing of the buddy allocator view: a scene in, pixels out. The lists (free_area and pcp
// rows of block chips), the gauges and the headings are painted on a Canvas: a step of a large
// run changes most of their few hundred labels, and as SVG they cost the browser more layout and
// paint than the rest of the page together (docs/bench.md). The step's buddy pairs are SVG laid
// over it, with keyed joins and the split and merge animation.
//
// The split and merge animation: a merged pair enters as two halves apart and closes into one
// block of order + 1; a split pair enters whole and opens into its halves. Only entering pairs
// animate, so redrawing the same step every frame changes nothing; with reduced motion the
// pairs appear in their final state.

import { select, type BaseType, type Selection } from 'd3-selection';
import 'd3-transition';
import { CHIP_H, CHIP_TOP, type BlockChip, type BuddyScene, type Gauge, type ListRow, type NodeScene, type PairScene, type PcpScene } from './buddy';
import { duration, ensure, move, drawingContext, present, type Context2D, type Motion } from './drawUtil';
import { highlight, okabeIto, ownerColour } from './palette';

export interface BuddyText {
  nodeTitle: (node: NodeScene) => string;
  pcpTitle: (pcp: PcpScene) => string;
  rowLabel: (row: ListRow, list: 'free_area' | 'pcp') => string;
  more: (count: number) => string;
  pairLabel: (pair: PairScene) => string;
  chipTitle: (chip: BlockChip) => string;
}

export interface BuddyDrawOptions {
  motion: Motion;
  text: BuddyText;
  onFollowPage?: (pfn: number) => void;
}

const PAIR_FILL = { merge: okabeIto.skyBlue, split: okabeIto.bluishGreen } as const;
/** The page's own fonts, so that Korean labels are drawn with a Korean face. */
const FAMILY = "system-ui, 'Noto Sans', 'Noto Sans CJK KR', sans-serif";
const INK = '#1b1f24';
const GREY = '#4a5360';

/** The size of the drawing: the canvas and the pair overlay share it. */
export function buddySize(scene: BuddyScene): { width: number; height: number } {
  return { width: Math.max(1, scene.width), height: Math.max(1, scene.height) };
}

const drawnLists = new WeakMap<HTMLCanvasElement, { scene: BuddyScene; text: BuddyText; ratio: number }>();

/** Paints the headings, gauges and list rows with their block chips (skipped when unchanged). */
export function drawBuddyLists(canvas: HTMLCanvasElement, scene: BuddyScene, text: BuddyText, options: { pixelRatio?: number } = {}): void {
  const ratio = options.pixelRatio ?? 1;
  const last = drawnLists.get(canvas);
  if (last && last.scene === scene && last.text === text && last.ratio === ratio) return;
  const { width, height } = buddySize(scene);
  canvas.style.width = `${width}px`;
  canvas.style.aspectRatio = `${width} / ${height}`;
  const ctx = drawingContext(canvas, width, height, ratio);
  if (!ctx) return;
  ctx.textBaseline = 'alphabetic';

  for (const n of scene.nodes) {
    heading(ctx, n.y + 12, text.nodeTitle(n));
    gauge(ctx, n.gauge, n.level === 'above_high' ? okabeIto.bluishGreen : okabeIto.vermillion);
    for (const row of n.freeArea) listRow(ctx, row, text.rowLabel(row, 'free_area'), text);
    for (const p of n.pcp) {
      heading(ctx, p.y + 12, text.pcpTitle(p));
      gauge(ctx, p.gauge, ownerColour.pcp);
      for (const row of p.lists) listRow(ctx, row, text.rowLabel(row, 'pcp'), text);
    }
  }

  // Block chips: yellow and dashed on a pcp list (told by shape too), grey on free_area; the
  // blocks of the step's pairs in the highlight outline. Labels last, one font.
  for (const c of scene.chips) {
    ctx.fillStyle = c.list === 'pcp' ? ownerColour.pcp : ownerColour.buddy;
    ctx.strokeStyle = c.highlighted ? highlight.stroke : GREY;
    ctx.lineWidth = c.highlighted ? highlight.width : 1;
    ctx.setLineDash(c.list === 'pcp' ? [3, 2] : []);
    ctx.beginPath();
    ctx.roundRect(c.x, c.y + CHIP_TOP, c.width, CHIP_H, 3);
    ctx.fill();
    ctx.stroke();
  }
  ctx.setLineDash([]);
  ctx.font = `10px ${FAMILY}`;
  ctx.textAlign = 'center';
  ctx.fillStyle = INK;
  for (const c of scene.chips) ctx.fillText(String(c.pfn), c.x + c.width / 2, c.y + CHIP_TOP + 10);
  present(canvas, ctx);
  drawnLists.set(canvas, { scene, text, ratio });
}

function heading(ctx: Context2D, y: number, label: string): void {
  ctx.font = `600 12px ${FAMILY}`;
  ctx.textAlign = 'left';
  ctx.fillStyle = INK;
  ctx.fillText(label, 0, y);
}

function listRow(ctx: Context2D, row: ListRow, label: string, text: BuddyText): void {
  ctx.font = `${row.count > 0 ? '600 ' : ''}11px ${FAMILY}`;
  ctx.textAlign = 'left';
  ctx.fillStyle = INK;
  ctx.fillText(label, 4, row.y + 14);
  if (row.more > 0) {
    ctx.font = `10px ${FAMILY}`;
    ctx.fillStyle = GREY;
    ctx.fillText(text.more(row.more), row.moreX, row.y + 14);
  }
}

/** A gauge: track, filled part, and ticks whose labels alternate above and below. */
function gauge(ctx: Context2D, g: Gauge, colour: string): void {
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(g.x, g.y, g.width, 10);
  ctx.strokeStyle = GREY;
  ctx.lineWidth = 1;
  ctx.strokeRect(g.x, g.y, g.width, 10);
  ctx.fillStyle = colour;
  ctx.fillRect(g.x, g.y, g.filled, 10);
  ctx.strokeStyle = okabeIto.black;
  ctx.lineWidth = 1.5;
  ctx.font = `9px ${FAMILY}`;
  ctx.fillStyle = INK;
  const last = g.ticks.length - 1;
  g.ticks.forEach((t, i) => {
    ctx.beginPath();
    ctx.moveTo(t.x, g.y - 3);
    ctx.lineTo(t.x, g.y + 13);
    ctx.stroke();
    // The first label reads leftwards and the last rightwards: close ticks stay apart.
    ctx.textAlign = i === 0 && last > 0 ? 'right' : i === last && i > 0 ? 'left' : 'center';
    ctx.fillText(t.name, t.x, i % 2 === 0 ? g.y - 5 : g.y + 22);
  });
}

/** Draws the step's merged and split buddy pairs on the SVG laid over the lists. */
export function drawBuddyPairs(svgElement: SVGSVGElement, scene: BuddyScene, options: BuddyDrawOptions): void {
  const { width, height } = buddySize(scene);
  const svg = select(svgElement);
  svg.attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  const root = svg as unknown as Selection<BaseType, unknown, null, undefined>;
  drawPairs(ensure<SVGGElement>(root, 'g', 'pairs'), scene.pairs, duration(options.motion, 2), options);
}

function drawPairs(
  parent: Selection<SVGGElement, unknown, null, undefined>,
  pairs: PairScene[],
  pairMs: number,
  options: BuddyDrawOptions,
): void {
  // Final positions of the upper half: touching the lower one when merged, apart when split.
  const upperX = (p: PairScene) => (p.kind === 'merge' ? p.half : p.half + p.gap);
  const startUpperX = (p: PairScene) => (p.kind === 'merge' ? p.half + p.gap : p.half);
  const wholeOpacity = (p: PairScene) => (p.kind === 'merge' ? 1 : 0.35);

  const groups = parent
    .selectAll<SVGGElement, PairScene>('g.pair')
    .data(pairs, (d) => d.id)
    .join(
      (enter) => {
        const g = enter
          .append('g')
          .attr('class', 'pair')
          .attr('transform', (d) => `translate(${d.x},${d.y})`);
        g.append('text').attr('class', 'caption').attr('font-size', 10).attr('y', -4);
        g.append('rect')
          .attr('class', 'whole')
          .attr('fill', 'none')
          .attr('stroke', okabeIto.black)
          .attr('stroke-width', 2)
          .attr('x', -3)
          .attr('y', -2)
          .attr('rx', 4)
          .attr('height', (d) => d.height + 4)
          .attr('width', (d) => startUpperX(d) + d.half + 6)
          .attr('opacity', (d) => (d.kind === 'merge' ? 0 : 1));
        for (const half of ['lower', 'upper'] as const) {
          const h = g
            .append('g')
            .attr('class', `half ${half}`)
            .style('cursor', 'pointer')
            .attr('transform', (d) => `translate(${half === 'lower' ? 0 : startUpperX(d)},0)`);
          h.append('rect').attr('height', (d) => d.height).attr('width', (d) => d.half).attr('stroke', '#4a5360');
          h.append('text').attr('font-size', 10).attr('x', (d) => d.half / 2).attr('y', 15).attr('text-anchor', 'middle');
        }
        return g;
      },
      (update) => update,
      (exit) => exit.remove(),
    )
    .attr('transform', (d) => `translate(${d.x},${d.y})`);

  groups.select('text.caption').text((d) => options.text.pairLabel(d));
  for (const half of ['lower', 'upper'] as const) {
    const h = groups.select<SVGGElement>(`g.${half}`);
    h.on('click', (_e, d) => options.onFollowPage?.(half === 'lower' ? d.lower : d.upper));
    h.select('rect').attr('fill', (d) => PAIR_FILL[d.kind]);
    h.select('text').text((d) => (half === 'lower' ? d.lower : d.upper));
  }
  move(groups.select('g.upper'), 'pair', pairMs).attr('transform', (d) => `translate(${upperX(d)},0)`);
  const whole = groups.select('rect.whole').attr('stroke-dasharray', (d) => (d.kind === 'split' ? '4 3' : null));
  move(whole, 'pair', pairMs)
    .attr('width', (d) => upperX(d) + d.half + 6)
    .attr('opacity', (d) => wholeOpacity(d));
}
