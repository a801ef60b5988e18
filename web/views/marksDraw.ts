// Draws a `Marks` list (marks.ts) into an <svg> with keyed joins: an element per mark id,
// created once, then moved and restyled. The structure views' draw functions call this.
//
// Rules:
// - Cheap enough for every animation frame: the same scene object drawn twice is skipped; no
//   element is re-created while its id lives; element counts are what the (capped) scene holds.
// - Motion is a d3 transition of position and size, as long as `motion.ms` (0: none).
// - A highlighted mark gets a halo outside its own outline, so a frozen slab's dashed outline
//   stays visible when the step touched it.

import { select, type BaseType, type Selection } from 'd3-selection';
import 'd3-transition';
import type { Transition } from 'd3-transition';
import type { BoxMark, LineMark, LockMark, Marks, Target, TextMark, Translate } from './marks';
import { labelText } from './marks';
import { changed, duration, leave, move, restyled, type Motion, type Mover } from './drawUtil';
import { definePatterns, highlight, levelFill, markStroke, okabeIto } from './palette';

export interface DrawOptions {
  t: Translate;
  motion: Motion;
  /** Called when a slab or object mark is clicked. */
  onActivate?: (target: Target) => void;
}

const drawn = new WeakMap<SVGSVGElement, { marks: Marks; t: Translate; ms: number }>();

type G<D> = Selection<SVGGElement, D, SVGGElement, unknown>;

export function drawMarks(svgElement: SVGSVGElement, marks: Marks, options: DrawOptions): void {
  const last = drawn.get(svgElement);
  const ms = duration(options.motion);
  if (last && last.marks === marks && last.t === options.t && last.ms === ms) return;
  drawn.set(svgElement, { marks, t: options.t, ms });

  const svg = select(svgElement)
    .attr('viewBox', `0 0 ${Math.max(1, marks.width)} ${Math.max(1, marks.height)}`)
    .attr('width', marks.width)
    .attr('height', marks.height);
  definePatterns(svg);
  // With motion, children inherit this transition's timing (d3 finds it on their ancestor, the
  // <svg>); a new call interrupts the previous one by name. The cast widens the element type so
  // that selections of any element can inherit it. Without, attributes are set at once.
  const tr = ms > 0 ? (svg.transition(NAME).duration(ms) as unknown as Tr) : undefined;
  const moving = <E extends BaseType, D, P extends BaseType, PD>(sel: Selection<E, D, P, PD>) => move(sel, NAME, ms, tr);

  const layer = (name: string) =>
    svg
      .selectAll<SVGGElement, string>(`g.layer-${name}`)
      .data([name])
      .join('g')
      .attr('class', `layer-${name}`);

  drawBoxes(layer('boxes'), marks.boxes, moving, (sel) => leave(sel, NAME, ms, tr), options);
  drawLines(layer('lines'), marks.lines, moving);
  drawTexts(layer('texts'), marks.texts, moving, options.t);
  drawLocks(layer('locks'), marks.locks);
}

const NAME = 'marks';

// The transition every element of one call shares, and how elements move under it.
type Tr = Transition<BaseType, unknown, null, undefined>;
type Moving = <E extends BaseType, D, P extends BaseType, PD>(sel: Selection<E, D, P, PD>) => Mover<E, D>;

/** What a click on a box of each drawing does now (the boxes' listeners are added once). */
const activating = new WeakMap<Element, ((target: Target) => void) | undefined>();

function drawBoxes(root: G<string>, boxes: BoxMark[], moving: Moving, exiting: (sel: Selection<SVGGElement, BoxMark, SVGGElement, string>) => void, options: DrawOptions): void {
  const svg = root.node()?.ownerSVGElement ?? null;
  if (svg) activating.set(svg, options.onActivate);
  // What does not depend on the box is set once, when it enters; a changed box (see `changed`)
  // gets only what does.
  const joined = root
    .selectAll<SVGGElement, BoxMark>('g.box')
    .data(boxes, (b) => b.id)
    .join(
      (enter) => {
        const e = enter
          .append('g')
          .attr('transform', (b) => `translate(${b.x},${b.y})`)
          .attr('opacity', 0)
          .on('click', (_event, b) => {
            const activate = svg ? activating.get(svg) : undefined;
            if (b.target && activate) activate(b.target);
          });
        e.append('rect').attr('class', 'bg');
        return e;
      },
      (update) => update,
      (exit) => exit.call(exiting),
    );
  const moved = changed(joined, []);
  moving(moved)
    .attr('transform', (b) => `translate(${b.x},${b.y})`)
    .attr('opacity', 1);
  // Only the boxes whose look changed, not those that only moved, are restyled.
  const g = restyled(moved, []).attr('class', (b) => `box box-${b.kind}${b.highlight ? ' touched' : ''}${b.target ? ' target' : ''}`);
  const bg = g
    .select<SVGRectElement>('rect.bg')
    .attr('fill', (b) => b.fill)
    .attr('stroke', (b) => b.stroke)
    .attr('stroke-width', (b) => b.strokeWidth)
    .attr('stroke-dasharray', (b) => b.dash || null);
  moving(bg)
    .attr('width', (b) => b.w)
    .attr('height', (b) => b.h);
  // The level bar, the halo and the glyph exist only on the boxes that have one: most boxes
  // (the objects of a freelist) have none, and every element costs at each step.
  const level = part(g, 'rect', 'level', (b) => b.level !== null, 'text.glyph', (e) =>
    e.attr('fill-opacity', 0.55).attr('pointer-events', 'none').attr('x', 1).attr('width', 0),
  )
    .attr('fill', levelFill)
    .attr('y', (b) => b.h - Math.max(3, Math.round(b.h / 4)) - 1)
    .attr('height', (b) => Math.max(3, Math.round(b.h / 4)));
  moving(level).attr('width', (b) => Math.max(0, (b.w - 2) * (b.level ?? 0)));
  part(g, 'rect', 'halo', (b) => b.highlight, 'rect.bg', (e) => e.attr('fill', 'none').attr('x', -3).attr('y', -3).attr('stroke', highlight.stroke).attr('stroke-width', highlight.width))
    .attr('width', (b) => b.w + 6)
    .attr('height', (b) => b.h + 6);
  part(g, 'text', 'glyph', (b) => b.glyph !== '', null, (e) => e.attr('text-anchor', 'end').attr('font-size', 11))
    .attr('x', (b) => b.w - 3)
    .attr('y', (b) => b.h / 2 + 4)
    .text((b) => b.glyph);
}

/**
 * The one `<tag class=cls>` child of each box that `wanted` says has it, created (inserted
 * before `before`, or last) and set up by `init` when it appears, removed when it goes.
 */
function part<E extends SVGElement>(
  boxes: Selection<SVGGElement, BoxMark, SVGGElement, string>,
  tag: string,
  cls: string,
  wanted: (b: BoxMark) => boolean,
  before: string | null,
  init: (enter: Selection<E, BoxMark, SVGGElement, BoxMark>) => Selection<E, BoxMark, SVGGElement, BoxMark>,
): Selection<E, BoxMark, SVGGElement, BoxMark> {
  return boxes
    .selectAll<E, BoxMark>(`:scope > ${tag}.${cls}`)
    .data((b) => (wanted(b) ? [b] : []))
    .join((enter) => init((before ? enter.insert<E>(tag, before) : enter.append<E>(tag)).attr('class', cls)));
}

function drawLines(root: G<string>, lines: LineMark[], moving: Moving): void {
  const joined = root
    .selectAll<SVGLineElement, LineMark>('line')
    .data(lines, (d) => d.id)
    .join(
      (enter) =>
        enter
          .append('line')
          .attr('x1', (d) => d.x1)
          .attr('y1', (d) => d.y1)
          .attr('x2', (d) => d.x2)
          .attr('y2', (d) => d.y2),
      (update) => update,
      (exit) => exit.remove(),
    );
  const l = changed(joined, [])
    .attr('class', (d) => `line-${d.kind}`)
    .attr('stroke', (d) => (d.kind === 'marker' ? okabeIto.black : markStroke))
    .attr('stroke-width', (d) => (d.kind === 'marker' ? 3 : 1.2))
    .attr('stroke-dasharray', (d) => (d.kind === 'bracket' ? '3 2' : null))
    .attr('marker-end', (d) => (d.kind === 'arrow' ? 'url(#arrow-head)' : null));
  moving(l)
    .attr('x1', (d) => d.x1)
    .attr('y1', (d) => d.y1)
    .attr('x2', (d) => d.x2)
    .attr('y2', (d) => d.y2);
}

function drawTexts(root: G<string>, texts: TextMark[], moving: Moving, t: Translate): void {
  const joined = root
    .selectAll<SVGTextElement, TextMark>('text')
    .data(texts, (d) => d.id)
    .join(
      (enter) =>
        enter
          .append('text')
          .attr('x', (d) => d.x)
          .attr('y', (d) => d.y),
      (update) => update,
      (exit) => exit.remove(),
    );
  const moved = changed(joined, [t]);
  // Only the texts whose words or style changed, not those that only moved, are rewritten.
  restyled(moved, [t])
    .attr('class', (d) => `text-${d.role}${d.emphasis ? ' emphasis' : ''}`)
    .attr('text-anchor', (d) => d.anchor)
    .attr('pointer-events', 'none')
    .attr('font-family', (d) => (d.role === 'mono' ? 'ui-monospace, monospace' : null))
    .attr('font-weight', (d) => (d.role === 'title' || d.emphasis ? 700 : null))
    .attr('fill', (d) => (d.emphasis ? highlight.stroke : '#1b1f24'))
    .text((d) => labelText(d.label, t));
  moving(moved)
    .attr('x', (d) => d.x)
    .attr('y', (d) => d.y);
}

/** A padlock 14×16: shackle and body; lit = filled in the highlight colour. */
function drawLocks(root: G<string>, locks: LockMark[]): void {
  const g = root
    .selectAll<SVGGElement, LockMark>('g.lock')
    .data(locks, (d) => d.id)
    .join((enter) => {
      const e = enter.append('g').attr('class', 'lock');
      e.append('path').attr('class', 'shackle').attr('d', 'M3,8 V5 a4,4 0 0 1 8,0 V8').attr('fill', 'none').attr('stroke-width', 2);
      e.append('rect').attr('class', 'body').attr('y', 7).attr('width', 14).attr('height', 9).attr('rx', 1.5).attr('stroke-width', 1.5);
      return e;
    })
    .attr('transform', (d) => `translate(${d.x},${d.y})`)
    .classed('lit', (d) => d.lit);
  g.select('path.shackle').attr('stroke', (d) => (d.lit ? highlight.stroke : markStroke));
  g.select('rect.body')
    .attr('stroke', (d) => (d.lit ? highlight.stroke : markStroke))
    .attr('fill', (d) => (d.lit ? highlight.stroke : '#ffffff'));
}
