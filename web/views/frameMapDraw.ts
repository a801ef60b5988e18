// Drawing of the page-frame map on a Canvas: up to 2^18 pages, so no element per page. Each run
// is at most three filled rectangles, then its pattern, then node boundaries and the step's
// highlights on top. Drawing the same scene again does nothing, so the map may be redrawn on
// every animation frame while playing.

import { drawingContext, present, type Context2D } from './drawUtil';
import { frozenStroke, highlight, okabeIto } from './palette';
import type { FrameMapScene, LegendItem, RunPattern } from './frameMap';
import { runRects } from './frameMap';

export interface FrameMapDrawOptions {
  /** Device pixels per CSS pixel (window.devicePixelRatio). */
  pixelRatio?: number;
}

const drawn = new WeakMap<HTMLCanvasElement, FrameMapScene>();
const patterns = new Map<RunPattern, CanvasPattern | null>();

function tile(pattern: RunPattern, ctx: Context2D): CanvasPattern | null {
  if (pattern === 'none') return null;
  if (patterns.has(pattern)) return patterns.get(pattern) ?? null;
  const c = document.createElement('canvas');
  c.width = 6;
  c.height = 6;
  const g = c.getContext('2d');
  if (!g) return null;
  g.strokeStyle = 'rgba(0,0,0,0.55)';
  g.fillStyle = 'rgba(0,0,0,0.55)';
  g.lineWidth = 1;
  if (pattern === 'hatch') {
    g.beginPath();
    g.moveTo(0, 6);
    g.lineTo(6, 0);
    g.stroke();
  } else if (pattern === 'cross') {
    g.strokeStyle = 'rgba(0,0,0,0.25)';
    g.beginPath();
    g.moveTo(0, 0);
    g.lineTo(6, 6);
    g.moveTo(6, 0);
    g.lineTo(0, 6);
    g.stroke();
  } else if (pattern === 'stripes') {
    g.fillRect(0, 0, 6, 2);
  } else {
    g.fillRect(2, 2, 2, 2);
  }
  const p = ctx.createPattern(c, 'repeat');
  patterns.set(pattern, p);
  return p;
}

export function drawFrameMap(canvas: HTMLCanvasElement, scene: FrameMapScene, options: FrameMapDrawOptions = {}): void {
  if (drawn.get(canvas) === scene) return;
  const ratio = options.pixelRatio ?? 1;
  const w = Math.max(1, scene.width);
  const h = Math.max(1, scene.height);
  const ctx = drawingContext(canvas, w, h, ratio);
  if (!ctx) return;

  for (const run of scene.runs) {
    const rects = runRects(scene, run.pfn, run.pages);
    ctx.fillStyle = run.colour;
    for (const r of rects) ctx.fillRect(r.x, r.y, r.w, r.h);
    // Patterns only where a cell is big enough to show one.
    const p = scene.cell >= 3 ? tile(run.pattern, ctx) : null;
    if (p) {
      ctx.fillStyle = p;
      for (const r of rects) ctx.fillRect(r.x, r.y, r.w, r.h);
    }
  }

  // Run boundaries, when cells are large enough to see them.
  if (scene.cell >= 6) {
    ctx.strokeStyle = 'rgba(255,255,255,0.9)';
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const run of scene.runs) {
      const i = run.pfn - scene.firstPfn;
      const x = (i % scene.columns) * scene.cell;
      const y = Math.floor(i / scene.columns) * scene.cell;
      ctx.moveTo(x + 0.5, y);
      ctx.lineTo(x + 0.5, y + scene.cell);
    }
    ctx.stroke();
  }

  // Node boundaries: a staircase line before each node's first page.
  ctx.strokeStyle = okabeIto.black;
  ctx.lineWidth = 2;
  for (const n of scene.nodes) {
    if (n.pfn === scene.firstPfn) continue;
    const { cell, columns } = scene;
    ctx.beginPath();
    ctx.moveTo(0, (n.row + 1) * cell);
    ctx.lineTo(n.col * cell, (n.row + 1) * cell);
    ctx.lineTo(n.col * cell, n.row * cell);
    ctx.lineTo(columns * cell, n.row * cell);
    ctx.stroke();
  }

  ctx.strokeStyle = highlight.stroke;
  ctx.lineWidth = Math.min(highlight.width, Math.max(1, scene.cell / 2));
  ctx.setLineDash([frozenStroke.width * 2, frozenStroke.width]);
  for (const run of scene.runs) {
    if (!run.highlighted) continue;
    for (const r of runRects(scene, run.pfn, run.pages)) ctx.strokeRect(r.x + 0.5, r.y + 0.5, Math.max(1, r.w - 1), Math.max(1, r.h - 1));
  }
  ctx.setLineDash([]);
  present(canvas, ctx);
  drawn.set(canvas, scene);
}

/** CSS background of a legend swatch: the run's colour and the same pattern as the map. */
export function swatchBackground(item: Pick<LegendItem, 'colour' | 'pattern'>): string {
  switch (item.pattern) {
    case 'hatch':
      return `repeating-linear-gradient(-45deg, rgba(0,0,0,0.55) 0 1px, transparent 1px 4px), ${item.colour}`;
    case 'cross':
      return `repeating-linear-gradient(45deg, rgba(0,0,0,0.25) 0 1px, transparent 1px 4px), repeating-linear-gradient(-45deg, rgba(0,0,0,0.25) 0 1px, transparent 1px 4px), ${item.colour}`;
    case 'dots':
      return `radial-gradient(rgba(0,0,0,0.55) 1px, transparent 1.2px) 0 0 / 4px 4px, ${item.colour}`;
    case 'stripes':
      return `repeating-linear-gradient(0deg, rgba(0,0,0,0.55) 0 1px, transparent 1px 4px), ${item.colour}`;
    default:
      return item.colour;
  }
}
