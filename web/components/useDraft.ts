// The person's draft of a scenario and their earlier ones, kept in the browser's storage
// (scenario/store.ts): typing is saved once it pauses and before the page goes away; replacing
// the draft keeps the old one among the earlier drafts.

import { useCallback, useEffect, useRef, useState } from 'react';
import { browserStorage, loadSaved, replaceDraft, saveDraft, type Earlier } from '../scenario/store';

/** How long typing must pause before the draft is saved. */
const SAVE_DRAFT_MS = 300;

/** The earlier drafts: those the person typed, and those that came from a link or file. */
export interface EarlierDrafts {
  typed: Earlier[];
  opened: Earlier[];
}

/** The draft saved in this browser, else `shown` (the text of the scenario shown); `onNotSaved`
 *  hears that the browser refused to keep a draft. */
export function useDraft(shown: string, onNotSaved: () => void) {
  const [storage] = useState(browserStorage);
  const [saved] = useState(() => loadSaved(storage));
  const [draft, setDraft] = useState<string>(saved.draft ?? shown);
  const [earlier, setEarlier] = useState<EarlierDrafts>({ typed: saved.earlier, opened: saved.opened });

  // Replacing the draft (not typing) keeps the old one among the earlier drafts. `typed`: the
  // new text is one the person typed (an earlier draft brought back).
  const replace = useCallback(
    (text: string, typed = false) => {
      const { saved, stored } = replaceDraft(storage, text, { typed });
      setDraft(text);
      setEarlier({ typed: saved.earlier, opened: saved.opened });
      if (!stored && storage) onNotSaved();
    },
    [storage, onNotSaved],
  );

  // Typing is saved once it pauses, and before the page goes away.
  const pending = useRef<string | null>(null);
  useEffect(() => {
    const flush = () => {
      if (pending.current !== null) saveDraft(storage, pending.current);
      pending.current = null;
    };
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, [storage]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onChange = useCallback(
    (text: string) => {
      setDraft(text);
      pending.current = text;
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        if (pending.current !== null && !saveDraft(storage, pending.current) && storage) onNotSaved();
        pending.current = null;
      }, SAVE_DRAFT_MS);
    },
    [storage, onNotSaved],
  );

  return { draft, earlier, replace, onChange };
}
