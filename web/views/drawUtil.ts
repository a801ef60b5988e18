// Small helpers the draw modules share: one child element per role, and motion that honours
// prefers-reduced-motion. No React, no simulator.

import { dequal } from 'dequal';
import type { BaseType, Selection, ValueFn } from 'd3-selection';
import 'd3-transition';
import type { Transition } from 'd3-transition';

/** The one `<tag class=cls>` child of `parent`, created on first use. */
export function ensure<E extends Element>(
  parent: Selection<BaseType, unknown, null, undefined>,
  tag: string,
  cls: string,
): Selection<E, unknown, null, undefined> {
  const child = parent.select<E>(`:scope > ${tag}.${cls}`);
  return child.empty() ? parent.append<E>(tag).attr('class', cls) : child;
}

/**
 * How the drawings move at this moment. `ms` is the transitions' duration: 0 when the person
 * asked for reduced motion, and while playing short enough to end before the next step (0 at
 * speeds where a step lasts about a frame). While `playing`, the slot grid's tooltip is not
 * rewritten as the pointer moves (nobody can hover a moving target); the views' tables wait
 * for playback to stop.
 */
export interface Motion {
  ms: number;
  playing: boolean;
}

/** The duration of a normal transition when nothing limits it. */
export const MOTION_MS = 300;

/** No motion, not playing (tests, reduced motion at rest). */
export const STILL: Motion = { ms: 0, playing: false };

/** A transition `factor` times the normal length; never longer than one step while playing. */
export function duration(motion: Motion, factor = 1): number {
  return motion.playing ? motion.ms : Math.round(motion.ms * factor);
}

/** What a selection and a transition both do: take new attributes. */
export interface Mover<E extends BaseType, D> {
  attr(name: string, value: null | string | number | boolean | ValueFn<E, D, string | number | boolean | null>): Mover<E, D>;
}

/**
 * `sel` moving to the attributes set next: over `ms` in the transition called `name` (or
 * inheriting `from`'s timing, which carries its name), or at once when `ms` is 0. Setting at once
 * first stops that transition on these elements, so a move still under way cannot overwrite the
 * new values; and it schedules no timer, which matters when this runs every frame.
 */
export function move<E extends BaseType, D, P extends BaseType, PD>(
  sel: Selection<E, D, P, PD>,
  name: string,
  ms: number,
  from?: Transition<BaseType, unknown, null, undefined>,
): Mover<E, D> {
  if (ms > 0) return from ? sel.transition(from) : sel.transition(name).duration(ms);
  sel.interrupt(name);
  return sel;
}

/** Removes `sel`: faded out first when `ms` > 0. */
export function leave<E extends BaseType, D, P extends BaseType, PD>(
  sel: Selection<E, D, P, PD>,
  name: string,
  ms: number,
  from?: Transition<BaseType, unknown, null, undefined>,
): void {
  // Forgotten by `changed`: an element that comes back while still fading out is drawn anew,
  // which also interrupts its fade and its removal.
  sel.each(function (this: E) {
    if (this instanceof Element) {
      drawnWith.delete(this);
      lookedWith.delete(this);
    }
  });
  if (ms > 0) (from ? sel.transition(from) : sel.transition(name).duration(ms)).attr('opacity', 0).remove();
  else sel.interrupt(name).remove();
}

const drawnWith = new WeakMap<Element, { datum: unknown; context: readonly unknown[] }>();

/**
 * The elements of `sel` whose datum, or the `context` they were drawn in (such as the
 * translate function), differs from the last call for the same element;
 * every element the first time. Remembers what it was given. A step changes a few objects of
 * a slab or a few boxes of a panel: setting the attributes of only those keeps the browser
 * from restyling every element each frame while playing.
 */
export function changed<E extends Element, D, P extends BaseType, PD>(sel: Selection<E, D, P, PD>, context: readonly unknown[]): Selection<E, D, P, PD> {
  return sel.filter(function (this: E, datum: D) {
    const last = drawnWith.get(this);
    drawnWith.set(this, { datum, context });
    return !last || last.context.length !== context.length || last.context.some((c, i) => c !== context[i]) || !dequal(last.datum, datum);
  });
}

const lookedWith = new WeakMap<Element, { datum: unknown; context: readonly unknown[] }>();

/**
 * Of `sel` (elements `changed` gave), those whose datum differs from the last call in more
 * than its place (`x`, `y`), or whose `context` differs: the ones whose look must be written
 * again; every element the first time. While playing, most changed marks have only moved (a
 * freelist shifts by one object at each step): they need a new transform, not new colours.
 */
export function restyled<E extends Element, D extends object, P extends BaseType, PD>(sel: Selection<E, D, P, PD>, context: readonly unknown[]): Selection<E, D, P, PD> {
  return sel.filter(function (this: E, datum: D) {
    const last = lookedWith.get(this);
    lookedWith.set(this, { datum, context });
    return !last || last.context.length !== context.length || last.context.some((c, i) => c !== context[i]) || !samePlaceAside(last.datum as D, datum);
  });
}

function samePlaceAside<D extends object>(a: D, b: D): boolean {
  const ka = Object.keys(a) as (keyof D)[];
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => k === 'x' || k === 'y' || dequal(a[k], b[k]));
}

/** A 2D context of a canvas of the page or of an OffscreenCanvas. */
export type Context2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

const offscreens = new WeakMap<HTMLCanvasElement, OffscreenCanvas>();

/**
 * The context to draw `canvas`'s picture on, for a drawing of `width` × `height` CSS pixels at
 * `ratio` device pixels each: scaled and cleared. The backing store is reallocated only when
 * the size changes (a canvas redrawn every frame keeps its buffer).
 *
 * A drawing that changes now and then is made on an OffscreenCanvas and shown on `canvas` by
 * `present`, as a bitmap. A canvas with a 2D context of its own is handed to the compositor
 * again at every frame of the page, drawn to or not: with several canvases on screen that cost
 * about a millisecond a frame while playing, where a bitmap costs nothing until it changes. A
 * `live` drawing, redrawn at nearly every step (the slots of the shown slab), keeps its own
 * context: handing over a new bitmap every frame costs more than the compositor's copy. Where
 * OffscreenCanvas is missing, every drawing is live. A canvas is always drawn the same way.
 */
export function drawingContext(canvas: HTMLCanvasElement, width: number, height: number, ratio: number, live = false): Context2D | null {
  let target: HTMLCanvasElement | OffscreenCanvas = canvas;
  if (!live && typeof OffscreenCanvas !== 'undefined') {
    let off = offscreens.get(canvas);
    if (!off) {
      off = new OffscreenCanvas(1, 1);
      offscreens.set(canvas, off);
    }
    target = off;
  }
  const w = Math.max(1, Math.round(width * ratio));
  const h = Math.max(1, Math.round(height * ratio));
  if (target.width !== w) target.width = w;
  if (target.height !== h) target.height = h;
  const ctx = target.getContext('2d') as Context2D | null;
  if (!ctx) return null;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}

/** Shows on `canvas` what was drawn for it since `drawingContext` (nothing to do when live). */
export function present(canvas: HTMLCanvasElement, ctx: Context2D): void {
  if (typeof OffscreenCanvasRenderingContext2D === 'undefined' || !(ctx instanceof OffscreenCanvasRenderingContext2D)) return;
  const bitmap = ctx.canvas.transferToImageBitmap();
  // Sized like the bitmap before it is shown (a new size clears what a canvas shows).
  if (canvas.width !== bitmap.width) canvas.width = bitmap.width;
  if (canvas.height !== bitmap.height) canvas.height = bitmap.height;
  const shown = canvas.getContext('bitmaprenderer');
  if (shown) shown.transferFromImageBitmap(bitmap);
  else bitmap.close();
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
