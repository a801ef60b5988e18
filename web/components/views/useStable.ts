// Scenes are rebuilt from every snapshot, but most steps change only a few structures: while
// playing, a step on one cache leaves the buddy allocator, the other nodes and most of the slab
// strip exactly as they were. A view hands its fresh scene to useStable and gets the previous
// object back when nothing in it differs, so the drawing effects keyed on it do not run at all.

import { dequal } from 'dequal';
import { useState } from 'react';

/**
 * `value`, or the value last returned when the two are deeply equal (same identity then). A
 * changed value is kept by a state update during render, which React applies at once, before
 * the component's children render (the documented way to keep information from previous
 * renders).
 */
export function useStable<T extends object>(value: T): T {
  const [kept, setKept] = useState(value);
  if (kept === value || dequal(kept, value)) return kept;
  setKept(value);
  return value;
}
