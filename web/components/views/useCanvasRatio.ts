// The pixel ratio a canvas drawing should be painted at: the device's, times the scale the page
// shows it at when its column is narrower than the drawing (CSS max-width shrinks it). Painted
// at the device ratio alone, a shrunk canvas is resampled and its small labels blur.

import { useLayoutEffect, useState, type RefObject } from 'react';

/** Device pixels per drawing unit for a drawing `width` units wide shown inside `box`. */
export function useCanvasRatio(box: RefObject<HTMLElement | null>, width: number): number {
  const [available, setAvailable] = useState<number | null>(null);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element || typeof ResizeObserver === 'undefined') return undefined;
    // Only a change of the column's width reaches here: not a step.
    const observer = new ResizeObserver((entries) => setAvailable(entries[entries.length - 1].contentRect.width));
    observer.observe(element);
    return () => observer.disconnect();
  }, [box]);
  const device = typeof window === 'undefined' ? 1 : window.devicePixelRatio || 1;
  return available !== null && available > 0 && width > available ? (device * available) / width : device;
}
