// How a view crosses from the simulator worker to the page (see ViewWire in protocol.ts): the
// worker splits the snapshot into JSON parts and leaves out the parts it sent last time
// unchanged; the page joins them back, reusing the objects it already holds for those parts.
// Both sides keep the parts of the last view; replies arrive in order, so they agree.

import type { SlabBrief } from './generated/SlabBrief';
import type { Snapshot } from './generated/Snapshot';
import type { Step } from './generated/Step';
import type { ViewWire } from './protocol';

/** What the worker sent last, as text. */
export interface SentParts {
  buddy: string;
  slabs: string;
}

/** What the page received last, as objects. */
export interface ReceivedParts {
  buddy: Snapshot['buddy'];
  slabs: SlabBrief[] | null;
}

/** The wire form of `snapshot` after `last` was sent, and what is sent now. */
export function splitView(snapshot: Snapshot, step: Step | null, last: SentParts | null, workerMs = 0): { wire: ViewWire; sent: SentParts } {
  const buddy = JSON.stringify(snapshot.buddy);
  const slabs = JSON.stringify(snapshot.cache?.slabs ?? null);
  const rest = JSON.stringify({ ...snapshot, buddy: null, cache: snapshot.cache && { ...snapshot.cache, slabs: null } });
  return {
    wire: { rest, buddy: last?.buddy === buddy ? null : buddy, slabs: last?.slabs === slabs ? null : slabs, step, workerMs },
    sent: { buddy, slabs },
  };
}

/** The snapshot a wire form stands for, given what the page received last. */
export function joinView(wire: ViewWire, last: ReceivedParts | null): { snapshot: Snapshot; received: ReceivedParts } {
  const buddy = wire.buddy === null ? last?.buddy : (JSON.parse(wire.buddy) as Snapshot['buddy']);
  const slabs = wire.slabs === null ? last?.slabs : (JSON.parse(wire.slabs) as SlabBrief[] | null);
  if (buddy === undefined || slabs === undefined) throw new Error('the simulator sent a view in parts the page does not have');
  const rest = JSON.parse(wire.rest) as Snapshot;
  const snapshot: Snapshot = { ...rest, buddy, cache: rest.cache && { ...rest.cache, slabs: slabs ?? [] } };
  return { snapshot, received: { buddy, slabs } };
}
