// The timeline's React binding: the reducer of timeline.ts in a useReducer, plus the three
// things a pure reducer cannot do:
//  - the clock: while playing, a requestAnimationFrame loop dispatches `tick` with the time
//    really elapsed since the previous frame (capped at MAX_TICK_MS, so a tab brought back from
//    the background resumes where it was instead of leaping ahead); the loop stops when playback
//    pauses and when the component unmounts;
//  - memory: the speed is kept in localStorage under SPEED_STORAGE_KEY; a stored value that is
//    not a speed, or storage that cannot be reached (sandboxed iframes throw), is ignored;
//  - the person's motion preference: `reducedMotion` follows `prefers-reduced-motion` for the
//    views to shorten or drop their transitions. It does not change playback: stepping through
//    a run is what the person asked for.

import { useEffect, useReducer, useSyncExternalStore, type Dispatch } from 'react';
import { frames } from './frame';
import { actions, initialTimeline, parseSpeed, timelineReducer, type Speed, type TimelineAction, type TimelineState } from './timeline';

export const SPEED_STORAGE_KEY = 'slabscope.speed';
/** The most time one tick accounts for. */
export const MAX_TICK_MS = 250;
const REDUCED_MOTION_QUERY = '(prefers-reduced-motion: reduce)';

/** The part of the Storage API the speed memory uses. */
export type SpeedStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** A run to start with: the arguments of the `load` action. */
export interface InitialRun {
  steps: number;
  opEnds: readonly number[];
  cursor?: number;
  bootEnd?: number;
}

export interface UseTimeline {
  state: TimelineState;
  dispatch: Dispatch<TimelineAction>;
  /** True when the person asked the system for reduced motion. */
  reducedMotion: boolean;
}

/**
 * The timeline of one player. `initial` is read on the first render only; load another run
 * with `dispatch(actions.load(...))`. `storage` defaults to localStorage (null: remember nothing).
 */
export function useTimeline(initial?: InitialRun, storage: SpeedStorage | null = defaultStorage()): UseTimeline {
  const [state, dispatch] = useReducer(timelineReducer, undefined, () => {
    const empty = initialTimeline(readStoredSpeed(storage) ?? undefined);
    return initial ? timelineReducer(empty, actions.load(initial.steps, initial.opEnds, initial.cursor, initial.bootEnd)) : empty;
  });
  useTimelineClock(state, dispatch, storage);
  const reducedMotion = usePrefersReducedMotion();
  return { state, dispatch, reducedMotion };
}

/**
 * The clock and the speed memory of a timeline whose state is kept elsewhere (the player's
 * reducer holds its timeline among the rest of its state).
 */
export function useTimelineClock(state: TimelineState, dispatch: (action: TimelineAction) => void, storage: SpeedStorage | null = defaultStorage()): void {
  useEffect(() => {
    writeStoredSpeed(storage, state.speed);
  }, [storage, state.speed]);

  useEffect(() => {
    if (!state.playing) return undefined;
    // Rendered at once, inside the frame that moved the cursor (with the view that arrived for
    // it: see frame.ts), so the position shown and the request for the next view leave in this
    // frame rather than the next.
    return frameLoop((ms) => dispatch(actions.tick(Math.min(ms, MAX_TICK_MS))), frames.request, frames.cancel);
  }, [state.playing, dispatch]);
}

/** Whether `prefers-reduced-motion: reduce` holds now; re-renders when it changes. */
export function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(subscribeReducedMotion, reducedMotionNow, () => false);
}

function subscribeReducedMotion(onChange: () => void): () => void {
  const query = typeof window.matchMedia === 'function' ? window.matchMedia(REDUCED_MOTION_QUERY) : null;
  if (!query) return () => {};
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

function reducedMotionNow(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(REDUCED_MOTION_QUERY).matches;
}

/**
 * Calls `onElapsed(ms)` on every animation frame after the first, with the time since the
 * previous frame, until the returned stop function is called.
 */
export function frameLoop(
  onElapsed: (ms: number) => void,
  raf: (callback: FrameRequestCallback) => number = (cb) => requestAnimationFrame(cb),
  caf: (id: number) => void = (id) => cancelAnimationFrame(id),
): () => void {
  let last: number | null = null;
  let stopped = false;
  let id = 0;
  const frame = (now: number) => {
    if (stopped) return;
    if (last !== null) onElapsed(Math.max(0, now - last));
    last = now;
    if (!stopped) id = raf(frame);
  };
  id = raf(frame);
  return () => {
    stopped = true;
    caf(id);
  };
}

/** The remembered speed, or null when there is none (or it is not a speed). */
export function readStoredSpeed(storage: SpeedStorage | null): Speed | null {
  try {
    return parseSpeed(storage?.getItem(SPEED_STORAGE_KEY));
  } catch {
    return null;
  }
}

export function writeStoredSpeed(storage: SpeedStorage | null, speed: Speed): void {
  try {
    storage?.setItem(SPEED_STORAGE_KEY, String(speed));
  } catch {
    // Full or forbidden storage: the speed is simply not remembered.
  }
}

export function defaultStorage(): SpeedStorage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}
