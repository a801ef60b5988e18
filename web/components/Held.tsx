// A part of the screen that waits while playback runs: what `render` returned the last time it
// was not `frozen`, kept as it was. For what nobody can read at full speed and costs a frame to
// rebuild (the views' tables, the cache list's live counts); it catches up when playback stops.
// At rest it renders again only for a new `render`.

import { memo, type ReactNode } from 'react';

export const Held = memo(
  function Held({ render }: { frozen: boolean; render: () => ReactNode }) {
    return <>{render()}</>;
  },
  (previous, next) => next.frozen || previous.render === next.render,
);
