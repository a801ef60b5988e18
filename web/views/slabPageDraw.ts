// Drawing of the slab page: a scene in, SVG out. Keyed joins (slots by address, arrows by the
// free object holding the pointer, bars by pfn) so a step moves and recolours what changed and
// re-creates nothing else; cheap enough to run on every frame while playing.
//
// Texts (tooltips) come in as functions: the layout knows no language.

import { select, type BaseType, type Selection } from 'd3-selection';
import 'd3-transition';
import { changed, defineArrowhead, duration, ensure, move, drawingContext, present, type Context2D, type Motion } from './drawUtil';
import { frozenStroke, highlight, okabeIto } from './palette';
import type { SharedWord } from './sharedWords';
import type { FreeArrow, FreelistHead, SlabPageScene, SlotCell } from './slabPage';

export interface SlabPageText {
  slotTitle: (cell: SlotCell) => string;
  /** What a micro-step did to a word, said short ("read by cpu1"): beside its head. */
  wordMark: (word: SharedWord) => string;
}

export interface SlabPageDrawOptions {
  motion: Motion;
  text: SlabPageText;
}

const ARROW_SLAB = 'slabscope-fp-slab';
const ARROW_CPU = 'slabscope-fp-cpu';
const CPU_ARROW_COLOUR = okabeIto.blue;

/** The size of the slab page drawing: the slot canvas and the pointer overlay share it. */
export function pageSize(scene: SlabPageScene): { width: number; height: number } {
  return { width: Math.max(1, scene.width), height: Math.max(1, scene.height + 12) };
}

/**
 * Draws the free pointers and list heads of the shown slab: an SVG laid over the slot canvas
 * (see drawSlots), so that pointers keep their keyed joins and slide from one target to the
 * next when stepping.
 */
export function drawSlabPage(svgElement: SVGSVGElement, scene: SlabPageScene, options: SlabPageDrawOptions): void {
  const svg = select(svgElement);
  const { width, height } = pageSize(scene);
  svg.attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height);
  defineArrowhead(svg, ARROW_SLAB, okabeIto.black);
  defineArrowhead(svg, ARROW_CPU, CPU_ARROW_COLOUR);
  const ms = duration(options.motion);
  const root = svg as unknown as Selection<BaseType, unknown, null, undefined>;

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
      const p = changed(all, [])
        .attr('stroke', (d) => (d.cpu ? CPU_ARROW_COLOUR : okabeIto.black))
        .attr('stroke-width', 1.3)
        .attr('stroke-dasharray', (d) => (d.cpu ? '4 2' : null))
        .attr('marker-end', (d) => (d.to === null ? null : `url(#${d.cpu ? ARROW_CPU : ARROW_SLAB})`));
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
    // A word the step touched: in the highlight colour, bold, and saying who did what.
    .attr('fill', (d) => (d.word ? highlight.stroke : d.id === 'head-slab' ? okabeIto.black : CPU_ARROW_COLOUR))
    .attr('font-weight', (d) => (d.word ? 700 : null))
    .text((d) => {
      const text = d.word ? `${d.label} · ${options.text.wordMark(d.word)}` : d.label;
      return d.anchor === 'start' ? `▼ ${text}` : `${text} ▼`;
    })
    .call((h) => {
      move(h, 'head', ms)
        .attr('x', (d) => d.x)
        .attr('y', (d) => d.y);
    });
}

/**
 * Draws the strip of every slab of the cache on a Canvas (up to MAX_BARS bars: one element
 * each would cost a frame while playing): bars of inuse/objects; frozen ones outlined dashed,
 * the step's (changed, or its words touched by the micro-step) outlined in the highlight colour; a caret under the shown one (selection is told by
 * shape, not colour alone). Drawing the same strip again does nothing.
 */
export function drawSlabStrip(canvas: HTMLCanvasElement, strip: SlabPageScene['strip'], options: { pixelRatio?: number } = {}): void {
  const ratio = options.pixelRatio ?? 1;
  const last = drawnStrips.get(canvas);
  if (last && last.strip === strip && last.ratio === ratio) return;
  const w = Math.max(1, strip.width);
  const h = Math.max(1, strip.height);
  canvas.style.width = `${w}px`;
  canvas.style.aspectRatio = `${w} / ${h}`;
  const ctx = drawingContext(canvas, w, h, ratio);
  if (!ctx) return;
  for (const bar of strip.bars) {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(bar.x, bar.y, bar.width, bar.height);
    ctx.fillStyle = okabeIto.blue;
    ctx.fillRect(bar.x + 1, bar.y + bar.height - bar.inuseHeight, bar.width - 2, bar.inuseHeight);
    const lit = bar.highlighted || bar.word !== null;
    ctx.strokeStyle = lit ? highlight.stroke : bar.frozen ? frozenStroke.stroke : '#4a5360';
    ctx.lineWidth = bar.selected || lit || bar.frozen ? 2 : 1;
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
  present(canvas, ctx);
  drawnStrips.set(canvas, { strip, ratio });
}

const drawnStrips = new WeakMap<HTMLCanvasElement, { strip: SlabPageScene['strip']; ratio: number }>();

const drawnSlots = new WeakMap<HTMLCanvasElement, { slots: readonly SlotCell[]; ratio: number; width: number; height: number }>();
const tiles = new Map<string, CanvasPattern | null>();

/** The canvas twin of palette.ts's SVG patterns for slots (same colours and period). */
function slotTile(id: string, ctx: Context2D): CanvasPattern | null {
  if (tiles.has(id)) return tiles.get(id) ?? null;
  const c = document.createElement('canvas');
  const g = c.getContext('2d');
  if (!g) return null;
  if (id === 'pat-cpu-freelist') {
    // Sky-blue stripes 3 wide every 6, at 45 degrees, on white.
    c.width = 6;
    c.height = 6;
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, 6, 6);
    g.strokeStyle = okabeIto.skyBlue;
    g.lineWidth = 2.1;
    g.beginPath();
    for (const k of [-6, 0, 6]) {
      g.moveTo(k, 6);
      g.lineTo(k + 6, 0);
    }
    g.stroke();
  } else if (id === 'pat-sheaf') {
    // Bluish-green bars 2.5 high every 6, on white (the rows of a sheaf).
    c.width = 6;
    c.height = 6;
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, 6, 6);
    g.fillStyle = okabeIto.bluishGreen;
    g.fillRect(0, 1, 6, 2.5);
  } else if (id === 'pat-cached') {
    // A black dot every 5 on yellow.
    c.width = 5;
    c.height = 5;
    g.fillStyle = okabeIto.yellow;
    g.fillRect(0, 0, 5, 5);
    g.fillStyle = okabeIto.black;
    g.beginPath();
    g.arc(2.5, 2.5, 1.2, 0, 2 * Math.PI);
    g.fill();
  } else {
    tiles.set(id, null);
    return null;
  }
  const pattern = ctx.createPattern(c, 'repeat');
  tiles.set(id, pattern);
  return pattern;
}

/**
 * Draws the slots of the shown slab on a Canvas (up to MAX_SLOTS, and a new slab at nearly
 * every step while playing: one element each would cost frames): each a square filled as
 * palette.ts's slotStyle says, with its index and its state's mark so state is never told by
 * colour alone, outlined in the highlight colour when the step touched it. Drawing the same
 * slots again does nothing; when only a few slots look different from the last drawing (a step
 * allocates or frees one or two objects), only those are drawn again (`slotsToRedraw`).
 */
export function drawSlots(canvas: HTMLCanvasElement, scene: SlabPageScene, options: { pixelRatio?: number } = {}): void {
  const ratio = options.pixelRatio ?? 1;
  const last = drawnSlots.get(canvas);
  if (last && last.slots === scene.slots && last.ratio === ratio) return;
  const { width, height } = pageSize(scene);
  const few = last && last.ratio === ratio && last.width === width && last.height === height ? slotsToRedraw(last.slots, scene.slots) : null;
  if (few) {
    // Live canvases keep their picture: clear and draw again the room of each changed slot
    // only, clipped to it (SLOT_ROOM reaches halfway into the gap, past the widest outline).
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.save();
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.beginPath();
    for (const c of few) {
      ctx.rect(c.x - SLOT_ROOM, c.y - SLOT_ROOM, c.size + 2 * SLOT_ROOM, c.size + 2 * SLOT_ROOM);
      ctx.clearRect(c.x - SLOT_ROOM, c.y - SLOT_ROOM, c.size + 2 * SLOT_ROOM, c.size + 2 * SLOT_ROOM);
    }
    ctx.clip();
    paintSlots(ctx, few);
    ctx.restore();
  } else {
    canvas.style.width = `${width}px`;
    canvas.style.aspectRatio = `${width} / ${height}`;
    // Live: the shown slab's slots change at nearly every step while playing.
    const ctx = drawingContext(canvas, width, height, ratio, true);
    if (!ctx) return;
    paintSlots(ctx, scene.slots);
    present(canvas, ctx);
  }
  drawnSlots.set(canvas, { slots: scene.slots, ratio, width, height });
}

/** How far a slot's drawing may reach beyond its square: half the gap between slots. */
const SLOT_ROOM = 3;

/** What a slot's picture depends on (its tooltip reads more). */
const SLOT_LOOK = ['x', 'y', 'size', 'fill', 'kind', 'index', 'mark', 'freeRank', 'highlighted', 'word'] as const satisfies readonly (keyof SlotCell)[];

/**
 * The slots of `next` to draw again over a drawing of `prev`: those whose look differs from the
 * slot drawn in the same place. Null when the whole drawing must be redone: another number of
 * slots, or more than a quarter of them changed (one pass over all is then cheaper).
 */
export function slotsToRedraw(prev: readonly SlotCell[], next: readonly SlotCell[]): SlotCell[] | null {
  if (prev.length !== next.length) return null;
  const out: SlotCell[] = [];
  for (let i = 0; i < next.length; i++) {
    const a = prev[i];
    const b = next[i];
    if (a.x !== b.x || a.y !== b.y || a.size !== b.size) return null;
    if (SLOT_LOOK.some((k) => a[k] !== b[k])) {
      out.push(b);
      if (out.length * 4 > next.length) return null;
    }
  }
  return out;
}

/** Paints `slots` (fills, outlines, texts) on a context already cleared where they go. */
function paintSlots(ctx: Context2D, slots: readonly SlotCell[]): void {
  ctx.lineJoin = 'round';
  // One path per fill, then the outlines: few state changes however many slots.
  const byFill = new Map<string, SlotCell[]>();
  for (const c of slots) {
    const list = byFill.get(c.fill);
    if (list) list.push(c);
    else byFill.set(c.fill, [c]);
  }
  const cells = (list: readonly SlotCell[]) => {
    ctx.beginPath();
    for (const c of list) ctx.roundRect(c.x, c.y, c.size, c.size, 2);
  };
  for (const [fill, list] of byFill) {
    const url = /^url\(#(.+)\)$/.exec(fill);
    ctx.fillStyle = (url ? slotTile(url[1], ctx) : null) ?? (url ? '#ffffff' : fill);
    cells(list);
    ctx.fill();
  }
  // Outlined in the highlight colour: allocated or freed by the step, or its free pointer read
  // or written by the step's micro-step.
  for (const lit of [false, true]) {
    ctx.strokeStyle = lit ? highlight.stroke : '#4a5360';
    ctx.lineWidth = lit ? highlight.width : 1;
    cells(slots.filter((c) => (c.highlighted || c.word !== null) === lit));
    ctx.stroke();
  }
  // The texts, copied from pictures made once (labelImage): the index at the top left, the
  // state's mark (with the order out, for free objects) at the bottom right. Text on a
  // patterned fill gets a white halo so it stays readable; on the blue of an allocated slot it
  // is white.
  const texts: { size: number; align: CanvasTextAlign; at: (c: SlotCell) => [number, number]; text: (c: SlotCell) => string }[] = [
    { size: 9, align: 'left', at: (c) => [c.x + 2, c.y + 9], text: (c) => String(c.index) },
    {
      size: 11,
      align: 'right',
      at: (c) => [c.x + c.size - 2, c.y + c.size - 3],
      text: (c) => (c.freeRank === null ? c.mark : `${c.mark}${c.freeRank + 1}`),
    },
  ];
  const ratio = ctx.getTransform().a;
  for (const { size, align, at, text } of texts) {
    for (const c of slots) {
      const style: LabelStyle = c.kind === 'allocated' ? 'onDark' : c.fill.startsWith('url(') ? 'halo' : 'plain';
      const label = labelImage(text(c), size, style, ratio);
      if (!label) continue;
      const [x, y] = at(c);
      ctx.drawImage(label.image, align === 'left' ? x - LABEL_PAD : x - label.width + LABEL_PAD, y - label.ascent, label.width, label.height);
    }
  }
}

/** How a slot's text is painted: dark, dark on a white halo (over a pattern), white (on blue). */
type LabelStyle = 'plain' | 'halo' | 'onDark';

/** Room around a label's glyphs in its image, for the halo. */
const LABEL_PAD = 2;

interface Label {
  image: CanvasImageSource;
  /** CSS pixels. */
  width: number;
  height: number;
  /** From the image's top to the text's baseline. */
  ascent: number;
}

const labels = new Map<string, Label | null>();
/** Labels kept at most (a few thousand tiny canvases; forgotten all at once beyond). */
const MAX_LABELS = 4096;

/**
 * A slot's text painted once into a small canvas and then copied wherever it is needed: a
 * step redraws hundreds of these short texts (indices, marks, the order out), and copying a
 * picture costs a fraction of shaping and painting the glyphs again each time.
 */
function labelImage(text: string, size: number, style: LabelStyle, ratio: number): Label | null {
  const key = `${size}|${style}|${ratio}|${text}`;
  const known = labels.get(key);
  if (known !== undefined) return known;
  if (labels.size >= MAX_LABELS) labels.clear();
  const font = `${size}px system-ui, sans-serif`;
  const canvas = document.createElement('canvas');
  let g = canvas.getContext('2d');
  if (!g) {
    labels.set(key, null);
    return null;
  }
  g.font = font;
  const m = g.measureText(text);
  const ascent = Math.ceil(m.actualBoundingBoxAscent) + LABEL_PAD;
  const width = Math.ceil(m.width) + 2 * LABEL_PAD;
  const height = ascent + Math.ceil(m.actualBoundingBoxDescent) + LABEL_PAD;
  canvas.width = Math.max(1, Math.ceil(width * ratio));
  canvas.height = Math.max(1, Math.ceil(height * ratio));
  g = canvas.getContext('2d');
  if (!g) return null;
  g.scale(ratio, ratio);
  g.font = font;
  g.textAlign = 'left';
  if (style === 'halo') {
    g.strokeStyle = '#ffffff';
    g.lineWidth = 2.5;
    g.lineJoin = 'round';
    g.strokeText(text, LABEL_PAD, ascent);
  }
  g.fillStyle = style === 'onDark' ? '#ffffff' : '#1b1f24';
  g.fillText(text, LABEL_PAD, ascent);
  const label = { image: canvas, width, height, ascent };
  labels.set(key, label);
  return label;
}
