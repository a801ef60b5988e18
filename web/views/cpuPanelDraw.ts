// Draws a CPU panel scene (cpuPanel.ts) into an <svg>: keyed joins over the scene's marks, so a
// slab moving from `c->partial` to `c->slab` slides, and freelist objects keep their boxes.

import type { CpuPanelScene } from './cpuPanel';
import { drawMarks, type DrawOptions } from './marksDraw';

export function drawCpuPanel(svg: SVGSVGElement, scene: CpuPanelScene, options: DrawOptions): void {
  drawMarks(svg, scene.marks, options);
}
