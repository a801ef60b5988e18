// Props every memory view takes: one snapshot, how its drawing moves now, and what to do
// when they pick a slab, an object or a page (the app moves the view or opens a lane).

import type { Snapshot } from '../../core/generated/Snapshot';
import type { Motion } from '../../views/drawUtil';
import type { SharedWord } from '../../views/sharedWords';

export interface MemoryViewProps {
  snapshot: Snapshot;
  /** The shared words the step's micro-steps touched (`sharedWords(step)`), for the views that
   *  mark them. */
  words?: readonly SharedWord[];
  motion: Motion;
  /** A slab was picked (first pfn). */
  onSelectSlab?: (pfn: number) => void;
  /** An object was picked (hex address). */
  onFollowObject?: (addr: string) => void;
  /** A page frame was picked. */
  onFollowPage?: (pfn: number) => void;
}
