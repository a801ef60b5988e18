// A canvas drawing that answers the pointer: `at` finds the item drawn under it (in the
// drawing's own units, `width` × `height`, however CSS scales the canvas); a click on an item
// calls `pick`, and hovering one shows a pointer cursor and, when `title` is given, its tooltip
// (without `title` the tooltip is left as it is). The slab strip, the slots and the buddy lists
// use it.

import type { Ref } from 'react';
import { drawingPoint } from './drawingPoint';

interface Props<T> {
  canvasRef: Ref<HTMLCanvasElement>;
  testId: string;
  width: number;
  height: number;
  at: (x: number, y: number) => T | null;
  pick: (item: T) => void;
  title: ((item: T) => string) | null;
}

export function HitCanvas<T>({ canvasRef, testId, width, height, at, pick, title }: Props<T>) {
  const under = (e: { clientX: number; clientY: number; currentTarget: Element }) => {
    const point = drawingPoint(e, width, height);
    return point && at(point.x, point.y);
  };
  return (
    <canvas
      ref={canvasRef}
      aria-hidden="true"
      data-testid={testId}
      onClick={(e) => {
        const item = under(e);
        if (item !== null) pick(item);
      }}
      onMouseMove={(e) => {
        const item = under(e);
        if (title) e.currentTarget.title = item !== null ? title(item) : '';
        e.currentTarget.style.cursor = item !== null ? 'pointer' : 'default';
      }}
    />
  );
}
