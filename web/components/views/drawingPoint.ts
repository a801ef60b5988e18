// Where a pointer event falls in a drawing's own coordinates: canvases are scaled by CSS
// (max-width), so the client position is mapped through the element's box. The Canvas views
// (page-frame map, slab strip, slots) hit-test with it.

/** The event's point in a `width` × `height` drawing, or null when the element has no box. */
export function drawingPoint(
  e: { clientX: number; clientY: number; currentTarget: Element },
  width: number,
  height: number,
): { x: number; y: number } | null {
  const box = e.currentTarget.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return null;
  return { x: ((e.clientX - box.left) * width) / box.width, y: ((e.clientY - box.top) * height) / box.height };
}
