// The text alternative of a drawing: the same scene as tables or lists, always in the
// accessibility tree, hidden visually until the person presses "show as table". A keyboard user
// tabbing into its buttons sees it too (.sr-only gives way under :focus-within).
//
// The tables follow the drawing once the timeline has come to rest: while playback runs
// (`frozen`) they keep their last content, and after any other move they are rebuilt when no
// new step has come for SETTLE_MS, at low priority (a transition). Until then they say they are
// busy (aria-busy). A screen reader cannot follow a table rebuilt every frame; and rebuilding
// the tables of every view at each step of a drag along the scrubber cost more than drawing the
// step itself, so the new step reached the screen late.

import { startTransition, useEffect, useId, useState, type ReactNode } from 'react';
import { Held } from '../Held';

/** How long the timeline must rest before the tables are rebuilt. */
export const SETTLE_MS = 200;

interface Props {
  showLabel: string;
  hideLabel: string;
  testId: string;
  frozen: boolean;
  /** Builds the tables; not called while frozen. */
  children: () => ReactNode;
}

export function TextAlternative({ showLabel, hideLabel, testId, frozen, children }: Props) {
  const [shown, setShown] = useState(false);
  const id = useId();
  const render = useSettled(children, frozen);
  const busy = frozen || render !== children;
  return (
    <div className="text-alternative">
      <button type="button" aria-expanded={shown} aria-controls={id} onClick={() => setShown((s) => !s)} data-testid={`${testId}-toggle`}>
        {shown ? hideLabel : showLabel}
      </button>
      <div
        id={id}
        className={shown ? 'text-alternative-body' : 'text-alternative-body sr-only'}
        data-testid={testId}
        aria-busy={busy || undefined}
      >
        <Held frozen={frozen} render={render} />
      </div>
    </div>
  );
}

/** `value` once it has stayed the same for SETTLE_MS while not `held`; the first value at once. */
function useSettled<T>(value: T, held: boolean): T {
  const [settled, setSettled] = useState(() => value);
  useEffect(() => {
    if (held || settled === value) return undefined;
    const timer = setTimeout(() => startTransition(() => setSettled(() => value)), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [value, held, settled]);
  return settled;
}
