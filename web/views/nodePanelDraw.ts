// Draws a node panel scene (nodePanel.ts) into an <svg>: keyed joins over the scene's marks, so
// a slab moving between lists slides and a list_lock lights up in place.

import type { NodePanelScene } from './nodePanel';
import { drawMarks, type DrawOptions } from './marksDraw';

export function drawNodePanel(svg: SVGSVGElement, scene: NodePanelScene, options: DrawOptions): void {
  drawMarks(svg, scene.marks, options);
}
