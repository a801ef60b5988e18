// Drawing of the buddy allocator view: a scene in, SVG out, with keyed joins (block chips by
// pfn across free_area and pcp lists, rows by node/order, pairs by step position).
//
// The split and merge animation: a merged pair enters as two halves apart and closes into one
// block of order + 1; a split pair enters whole and opens into its halves. Only entering pairs
// animate, so redrawing the same step every frame changes nothing; with reduced motion the
// pairs appear in their final state.

import { select, type BaseType, type Selection } from 'd3-selection';
import 'd3-transition';
import type { BlockChip, BuddyScene, Gauge, ListRow, NodeScene, PairScene, PcpScene } from './buddy';
import { changed, duration, ensure, hoverTitles, leave, move, type Motion } from './drawUtil';
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

interface Heading {
  id: string;
  y: number;
  text: string;
}

interface GaugeItem {
  id: string;
  gauge: Gauge;
  colour: string;
}

interface RowItem {
  row: ListRow;
  list: 'free_area' | 'pcp';
}

const PAIR_FILL = { merge: okabeIto.skyBlue, split: okabeIto.bluishGreen } as const;

/** What a click on a block of each drawing does now (the chips' listeners are added once). */
const following = new WeakMap<SVGSVGElement, ((pfn: number) => void) | undefined>();

export function drawBuddy(svgElement: SVGSVGElement, scene: BuddyScene, options: BuddyDrawOptions): void {
  const svg = select(svgElement);
  const width = Math.max(1, scene.width);
  const height = Math.max(1, scene.height);
  svg.attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  const root = svg as unknown as Selection<BaseType, unknown, null, undefined>;
  const ms = duration(options.motion);
  const text = options.text;

  // Elements are rewritten only when their datum or the language changed (see `changed`).
  const context = [text];
  const headings: Heading[] = scene.nodes.flatMap((n) => [
    { id: n.id, y: n.y + 12, text: text.nodeTitle(n) },
    ...n.pcp.map((p) => ({ id: p.id, y: p.y + 12, text: text.pcpTitle(p) })),
  ]);
  const headingJoin = ensure<SVGGElement>(root, 'g', 'headings')
    .selectAll<SVGTextElement, Heading>('text.heading')
    .data(headings, (d) => d.id)
    .join((enter) => enter.append('text').attr('class', 'heading').attr('font-weight', 600).attr('font-size', 12).attr('x', 0));
  changed(headingJoin, [])
    .attr('y', (d) => d.y)
    .text((d) => d.text);

  const gauges: GaugeItem[] = scene.nodes.flatMap((n) => [
    { id: `gauge-${n.id}`, gauge: n.gauge, colour: n.level === 'above_high' ? okabeIto.bluishGreen : okabeIto.vermillion },
    ...n.pcp.map((p) => ({ id: `gauge-${p.id}`, gauge: p.gauge, colour: ownerColour.pcp })),
  ]);
  drawGauges(ensure<SVGGElement>(root, 'g', 'gauges'), gauges, ms);

  const rows: RowItem[] = scene.nodes.flatMap((n) => [
    ...n.freeArea.map((row) => ({ row, list: 'free_area' as const })),
    ...n.pcp.flatMap((p) => p.lists.map((row) => ({ row, list: 'pcp' as const }))),
  ]);
  const rowJoin = ensure<SVGGElement>(root, 'g', 'rows')
    .selectAll<SVGGElement, RowItem>('g.row')
    .data(rows, (d) => d.row.id)
    .join((enter) => {
      const g = enter.append('g').attr('class', 'row');
      g.append('text').attr('class', 'label').attr('font-size', 11).attr('x', 4).attr('y', 14);
      g.append('text').attr('class', 'more').attr('font-size', 10).attr('fill', '#4a5360').attr('y', 14);
      return g;
    });
  changed(rowJoin, context)
    .attr('transform', (d) => `translate(0,${d.row.y})`)
    .call((g) => {
      g.select('text.label')
        .attr('font-weight', (d) => (d.row.count > 0 ? 600 : 400))
        .text((d) => text.rowLabel(d.row, d.list));
      g.select('text.more')
        .attr('x', (d) => d.row.moreX)
        .text((d) => (d.row.more > 0 ? text.more(d.row.more) : ''));
    });

  following.set(svgElement, options.onFollowPage);
  const chips = ensure<SVGGElement>(root, 'g', 'chips');
  hoverTitles<BlockChip>(chips.node()!, 'g.chip', text.chipTitle);
  const chipJoin = chips
    .selectAll<SVGGElement, BlockChip>('g.chip')
    .data(scene.chips, (d) => d.id)
    .join(
      (enter) => {
        const g = enter
          .append('g')
          .attr('class', 'chip')
          .style('cursor', 'pointer')
          .attr('transform', (d) => `translate(${d.x},${d.y + 2})`)
          .attr('opacity', 0)
          .on('click', (_e, d) => following.get(svgElement)?.(d.pfn));
        g.append('rect').attr('height', 16).attr('rx', 3);
        g.append('text').attr('font-size', 10).attr('y', 12).attr('text-anchor', 'middle');
        return g;
      },
      (update) => update,
      (exit) => leave(exit, 'chip', ms),
    );
  const chipChanged = changed(chipJoin, []).call((g) => {
    // A tooltip written for the old datum goes; the next hover writes the new one.
    g.select('title').remove();
    g.select('rect')
      .attr('width', (d) => d.width)
      .attr('fill', (d) => (d.list === 'pcp' ? ownerColour.pcp : ownerColour.buddy))
      .attr('stroke', (d) => (d.highlighted ? highlight.stroke : '#4a5360'))
      .attr('stroke-width', (d) => (d.highlighted ? highlight.width : 1))
      // pcp blocks are dashed as well as yellow: the list is told by shape too.
      .attr('stroke-dasharray', (d) => (d.list === 'pcp' ? '3 2' : null));
    g.select('text')
      .attr('x', (d) => d.width / 2)
      .text((d) => d.pfn);
  });
  move(chipChanged, 'chip', ms)
    .attr('opacity', 1)
    .attr('transform', (d) => `translate(${d.x},${d.y + 2})`);

  drawPairs(ensure<SVGGElement>(root, 'g', 'pairs'), scene.pairs, duration(options.motion, 2), options);
}

function drawGauges(parent: Selection<SVGGElement, unknown, null, undefined>, gauges: GaugeItem[], ms: number): void {
  const joined = parent
    .selectAll<SVGGElement, GaugeItem>('g.gauge')
    .data(gauges, (d) => d.id)
    .join((enter) => {
      const g = enter.append('g').attr('class', 'gauge');
      g.append('rect').attr('class', 'track').attr('height', 10).attr('fill', '#ffffff').attr('stroke', '#4a5360');
      g.append('rect').attr('class', 'fill').attr('height', 10).attr('width', 0);
      g.append('g').attr('class', 'ticks');
      return g;
    });
  changed(joined, [])
    .call((g) => {
      g.select('rect.track')
        .attr('x', (d) => d.gauge.x)
        .attr('y', (d) => d.gauge.y)
        .attr('width', (d) => d.gauge.width);
      const fill = g
        .select('rect.fill')
        .attr('x', (d) => d.gauge.x)
        .attr('y', (d) => d.gauge.y)
        .attr('fill', (d) => d.colour);
      move(fill, 'gauge', ms).attr('width', (d) => d.gauge.filled);
      g.select<SVGGElement>('g.ticks')
        .selectAll<SVGGElement, Gauge['ticks'][number] & { y: number }>('g.tick')
        .data(
          (d) => d.gauge.ticks.map((t) => ({ ...t, y: d.gauge.y })),
          (t) => t.name,
        )
        .join((enter) => {
          const t = enter.append('g').attr('class', 'tick');
          t.append('line').attr('stroke', okabeIto.black).attr('stroke-width', 1.5);
          t.append('text').attr('font-size', 9);
          return t;
        })
        .call((t) => {
          t.select('line')
            .attr('x1', (d) => d.x)
            .attr('x2', (d) => d.x)
            .attr('y1', (d) => d.y - 3)
            .attr('y2', (d) => d.y + 13);
          // Labels alternate above and below so that close watermarks stay readable.
          t.select('text')
            .attr('x', (d) => d.x)
            .attr('y', (d, i) => (i % 2 === 0 ? d.y - 5 : d.y + 22))
            // The first label reads leftwards and the last rightwards: close ticks stay apart.
            .attr('text-anchor', (_d, i, nodes) => (i === 0 && nodes.length > 1 ? 'end' : i === nodes.length - 1 && i > 0 ? 'start' : 'middle'))
            .text((d) => d.name);
        });
    });
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
