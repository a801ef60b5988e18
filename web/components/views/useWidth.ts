// The content width of an element, kept up to date as it is resized (the stage and the
// overview strip lay themselves out for it).

import { useLayoutEffect, useState } from 'react';

/** The element's content width, kept up to date. */
export function useWidth(ref: { readonly current: HTMLElement | null }): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const measure = () => setWidth(Math.floor(el.clientWidth));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}
