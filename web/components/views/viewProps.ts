// Props every memory view takes: one snapshot, the person's motion preference, and what to do
// when they pick a slab, an object or a page (the app moves the view or opens a lane).

import type { Snapshot } from '../../core/generated/Snapshot';

export interface MemoryViewProps {
  snapshot: Snapshot;
  reducedMotion: boolean;
  /** A slab was picked (first pfn). */
  onSelectSlab?: (pfn: number) => void;
  /** An object was picked (hex address). */
  onFollowObject?: (addr: string) => void;
  /** A page frame was picked. */
  onFollowPage?: (pfn: number) => void;
}
