// A 2D canvas context that records what is painted as SVG elements, so that the views drawn on
// a Canvas (slab slots and strip, page-frame map, buddy lists) get golden files like the SVG
// ones. `installSvgCanvas()` makes every <canvas> of the test's DOM (jsdom, which has no 2D
// context of its own) hand out one.
//
// Rules:
// - Only the calls the views make are implemented; any other throws, so a view that starts
//   using a new call fails its golden test until the call is recorded here, instead of
//   silently drawing less.
// - Everything is deterministic: patterns get ids in the order a drawing first uses them, text
//   is measured by a fixed rule (see `measureText`), no clock, no randomness.
// - A call whose effect SVG cannot record faithfully (clearing or clipping part of a drawing)
//   throws: golden drawings are made in one pass on a fresh canvas.
//
// Libraries that do this (canvas2svg and its fork svgcanvas) were not used: they draw a canvas
// image as a PNG data URL (the slot labels are canvases), name patterns with Math.random(),
// and measure text with a real 2D context, which jsdom lacks.

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A pattern made by `createPattern`: the tile's recorded elements and its size. */
class RecordedPattern {
  constructor(
    readonly tile: SvgCanvasContext,
    readonly width: number,
    readonly height: number,
  ) {}
}

type Paint = string | RecordedPattern;

interface State {
  fillStyle: Paint;
  strokeStyle: Paint;
  lineWidth: number;
  lineDash: number[];
  lineJoin: CanvasLineJoin;
  font: string;
  textAlign: CanvasTextAlign;
  textBaseline: CanvasTextBaseline;
  /** The current transform, [a, b, c, d, e, f] as in `setTransform`. */
  matrix: [number, number, number, number, number, number];
}

const IDENTITY: State['matrix'] = [1, 0, 0, 1, 0, 0];

function unsupported(name: string): never {
  throw new Error(`the golden canvas recorder does not support ${name}()`);
}

/** What one canvas has painted, as SVG elements in painting order. */
export class SvgCanvasContext {
  /** The elements painted so far (children of a <g> owned by this context). */
  readonly group: SVGGElement;
  private state: State = {
    fillStyle: '#000000',
    strokeStyle: '#000000',
    lineWidth: 1,
    lineDash: [],
    lineJoin: 'miter',
    font: '10px sans-serif',
    textAlign: 'start',
    textBaseline: 'alphabetic',
    matrix: [...IDENTITY],
  };
  private saved: State[] = [];
  /** The current path as SVG path data. */
  private path = '';
  /** Patterns this drawing uses, by the id they got here. */
  private patterns = new Map<RecordedPattern, string>();

  constructor(readonly canvas: HTMLCanvasElement) {
    this.group = canvas.ownerDocument.createElementNS(SVG_NS, 'g');
  }

  get fillStyle(): Paint {
    return this.state.fillStyle;
  }
  set fillStyle(v: Paint) {
    this.state.fillStyle = v;
  }
  get strokeStyle(): Paint {
    return this.state.strokeStyle;
  }
  set strokeStyle(v: Paint) {
    this.state.strokeStyle = v;
  }
  get lineWidth(): number {
    return this.state.lineWidth;
  }
  set lineWidth(v: number) {
    this.state.lineWidth = v;
  }
  get lineJoin(): CanvasLineJoin {
    return this.state.lineJoin;
  }
  set lineJoin(v: CanvasLineJoin) {
    this.state.lineJoin = v;
  }
  get font(): string {
    return this.state.font;
  }
  set font(v: string) {
    this.state.font = v;
  }
  get textAlign(): CanvasTextAlign {
    return this.state.textAlign;
  }
  set textAlign(v: CanvasTextAlign) {
    this.state.textAlign = v;
  }
  get textBaseline(): CanvasTextBaseline {
    return this.state.textBaseline;
  }
  set textBaseline(v: CanvasTextBaseline) {
    this.state.textBaseline = v;
  }

  save(): void {
    this.saved.push({ ...this.state, lineDash: [...this.state.lineDash], matrix: [...this.state.matrix] });
  }
  restore(): void {
    const s = this.saved.pop();
    if (s) this.state = s;
  }

  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void {
    this.state.matrix = [a, b, c, d, e, f];
  }
  getTransform(): { a: number; b: number; c: number; d: number; e: number; f: number } {
    const [a, b, c, d, e, f] = this.state.matrix;
    return { a, b, c, d, e, f };
  }
  scale(x: number, y: number): void {
    const [a, b, c, d, e, f] = this.state.matrix;
    this.state.matrix = [a * x, b * x, c * y, d * y, e, f];
  }

  setLineDash(dash: number[]): void {
    this.state.lineDash = [...dash];
  }

  /**
   * Clearing the whole canvas forgets what it showed; clearing a part cannot be recorded. (The
   * backing store is the drawing's size times the pixel ratio, rounded: a pixel of slack.)
   */
  clearRect(x: number, y: number, w: number, h: number): void {
    const [a, , , d, e, f] = this.state.matrix;
    const covers = a * x + e <= 0 && d * y + f <= 0 && a * (x + w) + e >= this.canvas.width - 1 && d * (y + h) + f >= this.canvas.height - 1;
    if (!covers) unsupported('clearRect (of part of the canvas)');
    this.group.replaceChildren();
    this.patterns.clear();
  }

  beginPath(): void {
    this.path = '';
  }
  moveTo(x: number, y: number): void {
    this.path += `M${x},${y}`;
  }
  lineTo(x: number, y: number): void {
    this.path += `L${x},${y}`;
  }
  closePath(): void {
    this.path += 'Z';
  }
  rect(x: number, y: number, w: number, h: number): void {
    this.path += `M${x},${y}h${w}v${h}h${-w}Z`;
  }
  /** A rounded rectangle with one radius for every corner (the views pass a number). */
  roundRect(x: number, y: number, w: number, h: number, radius: number): void {
    const r = Math.max(0, Math.min(radius, w / 2, h / 2));
    this.path +=
      `M${x + r},${y}H${x + w - r}A${r},${r} 0 0 1 ${x + w},${y + r}V${y + h - r}` +
      `A${r},${r} 0 0 1 ${x + w - r},${y + h}H${x + r}A${r},${r} 0 0 1 ${x},${y + h - r}V${y + r}A${r},${r} 0 0 1 ${x + r},${y}Z`;
  }
  /** Whole circles only (what the views draw). */
  arc(x: number, y: number, r: number, start: number, end: number): void {
    if (Math.abs(end - start) < 2 * Math.PI - 1e-9) unsupported('arc (other than a whole circle)');
    this.path += `M${x + r},${y}A${r},${r} 0 1 1 ${x - r},${y}A${r},${r} 0 1 1 ${x + r},${y}Z`;
  }
  clip(): void {
    unsupported('clip');
  }

  fill(): void {
    this.paint('path', { d: this.path }, 'fill');
  }
  stroke(): void {
    this.paint('path', { d: this.path }, 'stroke');
  }
  fillRect(x: number, y: number, w: number, h: number): void {
    this.paint('rect', { x, y, width: w, height: h }, 'fill');
  }
  strokeRect(x: number, y: number, w: number, h: number): void {
    this.paint('rect', { x, y, width: w, height: h }, 'stroke');
  }
  fillText(text: string, x: number, y: number): void {
    this.text(text, x, y, 'fill');
  }
  strokeText(text: string, x: number, y: number): void {
    this.text(text, x, y, 'stroke');
  }

  /**
   * A fixed rule instead of a font: each character 0.6 em wide, ascent 0.8 em, descent 0.2 em.
   * Only the slot labels measure text, to size the small canvases they are painted on.
   */
  measureText(text: string): TextMetrics {
    const size = Number(/(\d+(?:\.\d+)?)px/.exec(this.state.font)?.[1] ?? 10);
    const width = [...text].length * size * 0.6;
    return { width, actualBoundingBoxAscent: size * 0.8, actualBoundingBoxDescent: size * 0.2 } as TextMetrics;
  }

  createPattern(image: CanvasImageSource, repetition: string | null): RecordedPattern {
    if (repetition !== 'repeat' || !(image instanceof HTMLCanvasElement)) unsupported('createPattern (other than a repeated canvas)');
    return new RecordedPattern(contextOf(image), image.width, image.height);
  }

  /** Another canvas painted into this one: its recorded elements, placed and scaled. */
  drawImage(image: CanvasImageSource, dx: number, dy: number, dw?: number, dh?: number): void {
    if (!(image instanceof HTMLCanvasElement)) unsupported('drawImage (of anything but a canvas)');
    const sx = (dw ?? image.width) / image.width;
    const sy = (dh ?? image.height) / image.height;
    const g = this.element('g', {});
    g.setAttribute('transform', `${this.transformText()} translate(${dx},${dy}) scale(${sx},${sy})`.trim());
    for (const child of contextOf(image).group.childNodes) g.appendChild(child.cloneNode(true));
    this.group.appendChild(g);
  }

  private element(tag: string, attrs: Record<string, string | number>): SVGElement {
    const el = this.canvas.ownerDocument.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    return el;
  }

  private transformText(): string {
    const m = this.state.matrix;
    return m.every((v, i) => v === IDENTITY[i]) ? '' : `matrix(${m.join(',')})`;
  }

  /** The SVG paint for a fill or stroke style: a colour, or the url of a pattern defined here. */
  private paintOf(p: Paint): string {
    if (typeof p === 'string') return p;
    let id = this.patterns.get(p);
    if (!id) {
      id = `canvas-pattern-${this.patterns.size}`;
      this.patterns.set(p, id);
      const pattern = this.element('pattern', { id, patternUnits: 'userSpaceOnUse', width: p.width, height: p.height });
      for (const child of p.tile.group.childNodes) pattern.appendChild(child.cloneNode(true));
      const defs = this.element('defs', {});
      defs.appendChild(pattern);
      this.group.appendChild(defs);
    }
    return `url(#${id})`;
  }

  private paint(tag: string, attrs: Record<string, string | number>, how: 'fill' | 'stroke'): void {
    const el = this.element(tag, attrs);
    this.style(el, how);
    this.group.appendChild(el);
  }

  private style(el: SVGElement, how: 'fill' | 'stroke'): void {
    const t = this.transformText();
    if (t) el.setAttribute('transform', t);
    if (how === 'fill') {
      el.setAttribute('fill', this.paintOf(this.state.fillStyle));
      return;
    }
    el.setAttribute('fill', 'none');
    el.setAttribute('stroke', this.paintOf(this.state.strokeStyle));
    el.setAttribute('stroke-width', String(this.state.lineWidth));
    if (this.state.lineJoin !== 'miter') el.setAttribute('stroke-linejoin', this.state.lineJoin);
    if (this.state.lineDash.length > 0) el.setAttribute('stroke-dasharray', this.state.lineDash.join(' '));
  }

  private text(text: string, x: number, y: number, how: 'fill' | 'stroke'): void {
    const anchor = { start: 'start', left: 'start', center: 'middle', right: 'end', end: 'end' }[this.state.textAlign];
    const el = this.element('text', { x, y, style: `font: ${this.state.font}`, 'text-anchor': anchor });
    if (this.state.textBaseline !== 'alphabetic') el.setAttribute('dominant-baseline', this.state.textBaseline);
    this.style(el, how);
    el.textContent = text;
    this.group.appendChild(el);
  }
}

const contexts = new WeakMap<HTMLCanvasElement, SvgCanvasContext>();

/** The recording context of `canvas` (one per canvas, as a real canvas has). */
export function contextOf(canvas: HTMLCanvasElement): SvgCanvasContext {
  let ctx = contexts.get(canvas);
  if (!ctx) {
    ctx = new SvgCanvasContext(canvas);
    contexts.set(canvas, ctx);
  }
  return ctx;
}

/** Makes `getContext('2d')` of every canvas of this DOM return its recording context. */
export function installSvgCanvas(): void {
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string) {
    return kind === '2d' ? contextOf(this) : null;
  } as typeof HTMLCanvasElement.prototype.getContext;
}
