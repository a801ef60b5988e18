// React bindings to the simulator worker for the player: the view at the timeline's cursor, the
// kernel files and a followed object's lane, each asked of the run on screen through the page's
// RunSession (which opens that run again if something else was opened meanwhile).
//
// Fetching keeps at most one request in flight: while playing, the cursor moves faster than a
// snapshot can be built on a slow machine, so requests for cursors that were passed in the
// meantime are never sent. Whatever is on screen is always one consistent snapshot.

import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { flushSync } from 'react-dom';
import type { Lane, RunOutline, SimClient, SnapshotQuery, ViewAt } from '../core/client';
import type { KernelFiles } from '../core/generated/KernelFiles';
import type { ShownRun } from '../player/playerState';
import type { RunSession } from '../player/runSession';
import { frames } from '../timeline/frame';
import { decodeOverview, type StepTable } from '../timeline/overview';

/** The latest view fetched, for the newest cursor and query asked while it was built. */
export function useViewAt(
  session: RunSession,
  run: ShownRun | null,
  cursor: number,
  query: SnapshotQuery,
  playing: boolean,
): { view: ViewAt | null; error: string | null } {
  // Each answer is kept with the run it belongs to, so a new run never shows the old one's view.
  const [view, setView] = useState<{ outline: RunOutline; view: ViewAt } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const outline = run?.outline ?? null;
  const text = run?.scenario.text ?? '';
  const queryKey = JSON.stringify(query);
  // What the screen wants now, the run it belongs to, and whether a request is out. The
  // answer to a request is used even if the cursor moved meanwhile (then the newest cursor is
  // asked next); only a change of run or unmounting discards it.
  const wanted = useRef({ cursor, queryKey, outline, text });
  const busy = useRef(false);
  const mounted = useRef(true);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  // While playing, an answer is put on screen at the start of the next animation frame,
  // rendered at once so that the frame paints it: rendered whenever the worker's
  // message happened to arrive, the work would straddle frames and make two of them late. When
  // several answers arrive within one frame, the newest is shown. At rest (a step, a jump, the
  // scrubber) there is one answer to show and no frame to share: it is rendered on arrival, so
  // the next frame paints it instead of the one after.
  const next = useRef<{ outline: RunOutline; view: ViewAt } | null>(null);
  const playingNow = useRef(playing);
  useEffect(() => {
    playingNow.current = playing;
  }, [playing]);
  const show = useCallback((answer: { outline: RunOutline; view: ViewAt }) => {
    const put = (shown: { outline: RunOutline; view: ViewAt }) =>
      flushSync(() => {
        setView(shown);
        setError(null);
      });
    if (!playingNow.current && next.current === null) {
      put(answer);
      return;
    }
    const scheduled = next.current !== null;
    next.current = answer;
    if (scheduled) return;
    // Rendered together with the timeline's tick of that frame (frame.ts).
    frames.request(() => {
      const shown = next.current;
      next.current = null;
      if (!shown || !mounted.current) return;
      setView(shown);
      setError(null);
    });
  }, []);

  useEffect(() => {
    wanted.current = { cursor, queryKey, outline, text };
    if (!outline || busy.current) return;
    const pump = () => {
      const asked = wanted.current;
      const askedOutline = asked.outline;
      if (!askedOutline) return;
      busy.current = true;
      session.view(asked.text, asked.cursor, JSON.parse(asked.queryKey) as SnapshotQuery).then(
        (v) => {
          busy.current = false;
          if (!mounted.current) return;
          const now = wanted.current;
          // An answer for a run no longer shown is dropped, and the run shown now is asked for:
          // its own request was held back while this one was out.
          if (now.outline === asked.outline) show({ outline: askedOutline, view: v });
          if (now.outline !== asked.outline || now.cursor !== asked.cursor || now.queryKey !== asked.queryKey) pump();
        },
        (e: unknown) => {
          busy.current = false;
          if (!mounted.current) return;
          if (wanted.current.outline !== asked.outline) pump();
          else setError(e instanceof Error ? e.message : String(e));
        },
      );
    };
    pump();
  }, [session, outline, text, cursor, queryKey, show]);

  return { view: outline && view?.outline === outline ? view.view : null, error };
}

/** Kernel files of the run of `text` (null: none on screen) at the cursor and at the step before
 *  it (null at step 0: what changed at this step is marked against them), fetched only while
 *  `enabled`. */
export function useFiles(
  session: RunSession,
  text: string | null,
  cursor: number,
  cache: string | null,
  enabled: boolean,
): { files: KernelFiles | null; before: KernelFiles | null } {
  const [shown, setShown] = useState<{ files: KernelFiles | null; before: KernelFiles | null }>({ files: null, before: null });
  useEffect(() => {
    if (text === null || !enabled) return undefined;
    let live = true;
    Promise.all([session.files(text, cursor, cache), cursor > 0 ? session.files(text, cursor - 1, cache).catch(() => null) : null]).then(
      ([files, before]) => live && setShown({ files, before }),
      () => live && setShown({ files: null, before: null }),
    );
    return () => {
      live = false;
    };
  }, [session, text, cursor, cache, enabled]);
  return shown;
}

/** The lane of the followed object or page in the run of `text` (null: none on screen). */
export function useLane(session: RunSession, text: string | null, target: { object: string } | { page: number } | null): Lane | null {
  const [lane, setLane] = useState<{ key: string; lane: Lane | null } | null>(null);
  const key = JSON.stringify([text, target]);
  useEffect(() => {
    const [t, on] = JSON.parse(key) as [string | null, { object: string } | { page: number } | null];
    if (t === null || !on) return undefined;
    let live = true;
    session.lane(t, on).then(
      (l) => live && setLane({ key, lane: l }),
      () => live && setLane({ key, lane: null }),
    );
    return () => {
      live = false;
    };
  }, [session, key]);
  return text !== null && target && lane?.key === key ? lane.lane : null;
}

/** How many times the simulator worker was restarted after a crash, and why the last time. */
export function useRestarts(client: SimClient): { generation: number; reason: string | null } {
  const generation = useSyncExternalStore(client.subscribe, client.generation);
  const reason = useSyncExternalStore(client.subscribe, client.lastCrash);
  return { generation, reason };
}

/** Each step of the shown run at a glance (timeline/overview.ts), once the run is open; null
 *  until then, or when it could not be had. */
export function useOverview(session: RunSession, text: string | null): StepTable | null {
  const [overview, setOverview] = useState<{ text: string; table: StepTable | null } | null>(null);
  useEffect(() => {
    if (text === null) return undefined;
    let live = true;
    session.overview(text).then(
      (o) => live && setOverview({ text, table: decodeOverview(o) }),
      () => live && setOverview({ text, table: null }),
    );
    return () => {
      live = false;
    };
  }, [session, text]);
  return overview !== null && overview.text === text ? overview.table : null;
}
