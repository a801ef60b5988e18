// Wires the keyboard shortcuts of shortcuts.ts to the page: one `keydown` listener on window for
// as long as the calling component is mounted. Timeline shortcuts are dispatched to the
// timeline reducer; the others call the app's handlers. A key whose action has no handler is
// left alone (not even its default prevented), so the page behaves as if it were not a shortcut.
// A player that shares its page with other things (a lesson's text) passes `scope`: only keys
// pressed while the focus is inside it are its shortcuts.

import { useEffect, useEffectEvent, type Dispatch, type RefObject } from 'react';
import { actionForKey, isTimelineShortcut, type AppShortcut } from './shortcuts';
import type { TimelineAction } from './timeline';

/** What the app does for the shortcuts that are not timeline moves. */
export type ShortcutHandlers = Partial<Record<AppShortcut, () => void>>;

export function useShortcuts(dispatch: Dispatch<TimelineAction>, handlers: ShortcutHandlers = {}, scope?: RefObject<HTMLElement | null>): void {
  const onKeyDown = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented) return;
    if (scope && !(event.target instanceof Node && scope.current?.contains(event.target))) return;
    const action = actionForKey(event);
    if (action === null) return;
    if (isTimelineShortcut(action)) {
      dispatch({ type: action });
    } else {
      const handler = handlers[action];
      if (!handler) return;
      handler();
    }
    // Space and the arrows would otherwise also scroll the page.
    event.preventDefault();
  });

  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKeyDown(event);
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);
}
