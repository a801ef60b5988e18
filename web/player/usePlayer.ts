// The player's React binding: the reducer of playerState.ts in a useReducer, and the side
// effects its state asks for: running the scenario asked for in the simulator worker (through
// the page's RunSession, which the lessons page shares with its grader), reopening it after the
// worker was restarted, the timeline's clock, and the `s` value of the scenario for links.
// Writing the address and saving the run are the visualizer's (usePlayerAddress.ts): a player
// on the lessons page has neither.

import { useCallback, useEffect, useMemo, useReducer, type Dispatch } from 'react';
import type { TimelineAction } from '../timeline/timeline';
import { isCancelled, type SimClient } from '../core/client';
import { encodeScenario, fitsInLink } from '../scenario/link';
import { initialTimeline } from '../timeline/timeline';
import { defaultStorage, readStoredSpeed, usePrefersReducedMotion, useTimelineClock } from '../timeline/useTimeline';
import { addressedScenario, initialPlayer, playerActions, playerReducer, wantedRun, type PlayerAction, type PlayerStart, type PlayerState } from './playerState';
import { runSession, type RunSession } from './runSession';

export interface Player {
  state: PlayerState;
  dispatch: Dispatch<PlayerAction>;
  session: RunSession;
  reducedMotion: boolean;
}

/** A player of `client`'s simulator, from `start` (read on the first render only); `ready`:
 *  the worker has loaded its wasm build. */
export function usePlayer(client: SimClient, ready: boolean, start: PlayerStart = {}): Player {
  const session = useMemo(() => runSession(client), [client]);
  const [state, dispatch] = useReducer(playerReducer, start, (s) =>
    initialPlayer({ ...s, timeline: s.timeline ?? initialTimeline(readStoredSpeed(defaultStorage()) ?? undefined) }),
  );
  const timelineDispatch = useCallback((action: TimelineAction) => dispatch(playerActions.timeline(action)), []);
  useTimelineClock(state.timeline, timelineDispatch);
  const reducedMotion = usePrefersReducedMotion();

  // The run asked for, opened in the worker; its answer is for that attempt only.
  const wanted = wantedRun(state);
  const attempt = wanted?.attempt ?? null;
  const text = wanted?.text ?? null;
  useEffect(() => {
    if (!ready || attempt === null || text === null) return;
    session.open(text).then(
      (outline) => dispatch(playerActions.runOpened(attempt, outline)),
      (error: unknown) =>
        dispatch(
          isCancelled(error)
            ? playerActions.runCancelled(attempt)
            : playerActions.runFailed(attempt, error instanceof Error ? error : new Error(String(error))),
        ),
    );
  }, [session, ready, attempt, text]);

  // After a crash the worker is replaced: the run is opened again where it stood.
  useEffect(() => client.subscribe(() => dispatch(playerActions.restarted())), [client]);

  // The `s` value of the scenario the address names, when it is not a preset.
  const addressed = addressedScenario(state);
  const encodeText = addressed && !addressed.preset ? addressed.text : null;
  const encodedText = state.encoded?.text ?? null;
  useEffect(() => {
    if (encodeText === null || encodeText === encodedText) return undefined;
    let live = true;
    void encodeScenario(encodeText).then((value) => live && dispatch(playerActions.encoded(encodeText, fitsInLink(value) ? value : null)));
    return () => {
      live = false;
    };
  }, [encodeText, encodedText]);

  return { state, dispatch, session, reducedMotion };
}
