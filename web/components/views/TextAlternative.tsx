// The text alternative of a drawing: the same scene as tables or lists, always in the
// accessibility tree, hidden visually until the person presses "show as table". A keyboard user
// tabbing into its buttons sees it too (.sr-only gives way under :focus-within).

import { useId, useState, type ReactNode } from 'react';

interface Props {
  showLabel: string;
  hideLabel: string;
  testId: string;
  children: ReactNode;
}

export function TextAlternative({ showLabel, hideLabel, testId, children }: Props) {
  const [shown, setShown] = useState(false);
  const id = useId();
  return (
    <div className="text-alternative">
      <button type="button" aria-expanded={shown} aria-controls={id} onClick={() => setShown((s) => !s)} data-testid={`${testId}-toggle`}>
        {shown ? hideLabel : showLabel}
      </button>
      <div id={id} className={shown ? 'text-alternative-body' : 'text-alternative-body sr-only'} data-testid={testId}>
        {children}
      </div>
    </div>
  );
}
