// The text alternative of a drawing: the same scene as tables or lists, always in the
// accessibility tree, hidden visually until the person presses "show as table". A keyboard user
// tabbing into its buttons sees it too (.sr-only gives way under :focus-within).
//
// While playback runs (`frozen`), the tables keep their last content and say so (aria-busy):
// a screen reader cannot follow a table rebuilt every frame, and rebuilding it would cost the
// frames the drawing needs. They catch up as soon as playback stops. After any other move
// they are rebuilt at low priority (useDeferredValue): the drawings show the new step first,
// and the tables say they are busy until they have caught up.

import { useDeferredValue, useId, useState, type ReactNode } from 'react';
import { Held } from '../Held';

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
  const render = useDeferredValue(children);
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
