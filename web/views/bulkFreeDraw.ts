// Draws a bulk-free scene (bulkFree.ts) into an <svg>: keyed joins over the scene's marks. Array
// cells are keyed by their object, so the swaps of build_detached_freelist() move them.

import type { BulkFreeScene } from './bulkFree';
import { drawMarks, type DrawOptions } from './marksDraw';

export function drawBulkFree(svg: SVGSVGElement, scene: BulkFreeScene, options: DrawOptions): void {
  drawMarks(svg, scene.marks, options);
}
