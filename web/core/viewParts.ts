// How a view crosses from the simulator worker to the page (see ViewWire in protocol.ts): the
// worker splits the snapshot into JSON parts and leaves out the parts it sent last time
// unchanged; the page joins them back, reusing the objects it already holds for those parts.
// Both sides keep the parts of the last view; replies arrive in order, so they agree.
//
// The cache list is split too: the kmalloc caches boot made and nothing has used yet (most of
// kmalloc-cg/-rcl/dma-/-rnd-*, up to 240 of them) change only when one gets its first slab, so
// they travel apart from the caches in use, whose counts change at almost every step.

import type { CacheBrief } from './generated/CacheBrief';
import type { SlabBrief } from './generated/SlabBrief';
import type { Snapshot } from './generated/Snapshot';
import type { Step } from './generated/Step';
import type { ViewWire } from './protocol';

/** What the worker sent last, as text. */
export interface SentParts {
  buddy: string;
  slabs: string;
  idle: string;
}

/** What the page received last, as objects. */
export interface ReceivedParts {
  buddy: Snapshot['buddy'];
  slabs: SlabBrief[] | null;
  idle: CacheBrief[];
}

/** A kmalloc cache with no slab and no object (a scenario's own caches are never idle). */
function idle(c: CacheBrief): boolean {
  return c.kmalloc !== null && c.slabs === 0 && c.live_objects === 0;
}

/** The wire form of `snapshot` after `last` was sent, and what is sent now. */
export function splitView(snapshot: Snapshot, step: Step | null, last: SentParts | null, workerMs = 0): { wire: ViewWire; sent: SentParts } {
  const buddy = JSON.stringify(snapshot.buddy);
  const slabs = JSON.stringify(snapshot.cache?.slabs ?? null);
  const idleCaches = JSON.stringify(snapshot.caches.filter(idle));
  const rest = JSON.stringify({
    ...snapshot,
    caches: snapshot.caches.filter((c) => !idle(c)),
    buddy: null,
    cache: snapshot.cache && { ...snapshot.cache, slabs: null },
  });
  return {
    wire: {
      rest,
      buddy: last?.buddy === buddy ? null : buddy,
      slabs: last?.slabs === slabs ? null : slabs,
      idle: last?.idle === idleCaches ? null : idleCaches,
      step,
      workerMs,
    },
    sent: { buddy, slabs, idle: idleCaches },
  };
}

/** The snapshot a wire form stands for, given what the page received last. */
export function joinView(wire: ViewWire, last: ReceivedParts | null): { snapshot: Snapshot; received: ReceivedParts } {
  const buddy = wire.buddy === null ? last?.buddy : (JSON.parse(wire.buddy) as Snapshot['buddy']);
  const slabs = wire.slabs === null ? last?.slabs : (JSON.parse(wire.slabs) as SlabBrief[] | null);
  const idleCaches = wire.idle === null ? last?.idle : (JSON.parse(wire.idle) as CacheBrief[]);
  if (buddy === undefined || slabs === undefined || idleCaches === undefined) {
    throw new Error('the simulator sent a view in parts the page does not have');
  }
  const rest = JSON.parse(wire.rest) as Snapshot;
  // Both lists are in id order (creation order); merge them back into one.
  const caches = [...rest.caches, ...idleCaches].sort((a, b) => a.id - b.id);
  const snapshot: Snapshot = { ...rest, caches, buddy, cache: rest.cache && { ...rest.cache, slabs: slabs ?? [] } };
  return { snapshot, received: { buddy, slabs, idle: idleCaches } };
}
