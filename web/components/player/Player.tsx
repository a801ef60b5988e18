// The player: a run stepped with the timeline, every structure drawn from the snapshot at the
// cursor. It draws a player's state (player/usePlayer.ts) and sends the person's moves to its
// reducer; where the state comes from and goes to (the address, a lesson) is its page's
// business. The scenario bar above it is the page's too (`bar`).

import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { RunOutline, ViewAt } from '../../core/client';
import { loadLaterStrings } from '../../i18n/i18n';
import { playerActions } from '../../player/playerState';
import type { Player as PlayerHandle } from '../../player/usePlayer';
import { actions, transitionMs, type TimelineAction } from '../../timeline/timeline';
import { useShortcuts } from '../../timeline/useShortcuts';
import type { View } from '../../url/urlState';
import { MOTION_MS, type Motion } from '../../views/drawUtil';
import { download } from '../download';
import { TimelineControls } from '../TimelineControls';
import { useFiles, useLane, useOverview, useRestarts, useViewAt } from '../useRun';
import { CachePicker } from './CachePicker';
import { PlayerNotices } from './PlayerNotices';
import { PlayerViews } from './PlayerViews';
import { RunOverview } from './RunOverview';

// Not on screen until asked for: the export menu (after the first view) and the shortcut help.
const ExportMenu = lazy(() => Promise.all([import('../ExportMenu'), loadLaterStrings()]).then(([m]) => ({ default: m.ExportMenu })));
const ShortcutHelp = lazy(() => import('../ShortcutHelp').then((m) => ({ default: m.ShortcutHelp })));

/** What a click in the player picked (a lesson's exercise may wait for one). */
export type Pick = { pick: 'object'; value: string } | { pick: 'slab'; value: number } | { pick: 'step'; value: number };

export interface PlayerProps {
  player: PlayerHandle;
  /** The scenario bar, given whether a view has been drawn yet and the scenario line of the
   *  step shown (null: boot, or nothing shown). */
  bar: (at: { viewShown: boolean; activeLine: number | null }) => ReactNode;
  /** The export menu is offered (not in an embedded player). */
  exports: boolean;
  onLanguage: () => void;
  onPick?: (pick: Pick) => void;
  /** A view to scroll into sight once the views exist, again whenever `key` changes. */
  reveal?: { view: View; key: number } | null;
  /** The scrolling box the player sits in (null: the page), for `reveal`. */
  scroller?: HTMLElement | null;
  /** Keyboard shortcuts act only while the focus is inside the player (it shares its page). */
  scopedShortcuts?: boolean;
}

export function Player({ player, bar, exports, onLanguage, onPick, reveal = null, scroller = null, scopedShortcuts = false }: PlayerProps) {
  const { state, dispatch, session, reducedMotion } = player;
  const { timeline, shown } = state;
  const restarts = useRestarts(session.client);
  const outline = shown?.outline ?? null;
  const text = shown?.scenario.text ?? null;

  const motionMs = transitionMs(timeline, reducedMotion, MOTION_MS);
  const motion = useMemo<Motion>(() => ({ ms: motionMs, playing: timeline.playing }), [motionMs, timeline.playing]);
  const query = useMemo(() => ({ cache: state.cache, slab: state.slab }), [state.cache, state.slab]);
  const { view: at, error: viewError } = useViewAt(session, shown, timeline.cursor, query, timeline.playing);
  const snapshot = at?.snapshot ?? null;
  const viewShown = useFirstPaint(snapshot !== null);
  const shownCache = snapshot?.cache?.name ?? null;
  // Read only while their pane is the one shown.
  const files = useFiles(session, text, timeline.cursor, shownCache, state.view === 'files');
  const { follow } = state;
  const laneTarget = follow ? (follow.kind === 'obj' ? { object: follow.address } : { page: follow.pfn }) : null;
  const lane = useLane(session, text, laneTarget);
  const overview = useOverview(session, text);

  const root = useRef<HTMLDivElement | null>(null);
  const jumpRef = useRef<HTMLInputElement | null>(null);
  const [help, setHelp] = useState(false);
  const timelineDispatch = useCallback((a: TimelineAction) => dispatch(playerActions.timeline(a)), [dispatch]);
  const showStep = useShowStep(root, timelineDispatch);
  useReveal(reveal, snapshot !== null, scroller);

  const followObject = useCallback(
    (address: string) => {
      dispatch(playerActions.follow({ kind: 'obj', address }));
      onPick?.({ pick: 'object', value: address });
    },
    [dispatch, onPick],
  );
  const selectSlab = useCallback(
    (pfn: number) => {
      dispatch(playerActions.selectSlab(pfn));
      onPick?.({ pick: 'slab', value: pfn });
    },
    [dispatch, onPick],
  );
  const closeHelp = useCallback(() => setHelp(false), []);

  useShortcuts(
    timelineDispatch,
    {
      help: () => setHelp(true),
      jump: () => jumpRef.current?.focus(),
      language: onLanguage,
      follow: () => {
        const first = snapshot?.transient.objects[0];
        const page = snapshot?.cache?.slab?.brief.pfn;
        if (first) followObject(first);
        else if (page !== undefined) dispatch(playerActions.follow({ kind: 'page', pfn: page }));
      },
      close: () => {
        setHelp(false);
        dispatch(playerActions.follow(null));
      },
    },
    scopedShortcuts ? root : undefined,
  );

  const opLabel = (i: number) => outline?.ops[i]?.text ?? '';
  const loadMicro = useCallback((step: number) => session.client.microSteps(step), [session.client]);
  const loadLanes = useCallback((block: number) => session.client.lanes(block), [session.client]);

  return (
    <div ref={root} className="visualizer" data-testid="visualizer" data-cursor={at?.snapshot.cursor ?? ''} data-worker-ms={at ? at.workerMs.toFixed(1) : ''}>
      {bar({ viewShown, activeLine: at?.step?.line ?? null })}
      <PlayerNotices state={state} dispatch={dispatch} restarted={restarts.reason} viewError={viewError} client={session.client} />
      <div className="vis-toolbar-row">
        <PlayerToolbar snapshot={snapshot} outline={outline} cache={state.cache} playing={timeline.playing} onCache={(c) => dispatch(playerActions.selectCache(c))} />
        {exports && <ExportSlot steps={viewShown ? (outline?.steps ?? null) : null} cursor={timeline.cursor} showStep={showStep} onShowView={(v) => dispatch(playerActions.focusView(v))} />}
      </div>
      <TimelineControls state={timeline} dispatch={timelineDispatch} opLabel={opLabel} opAt={blockOp(outline, at)} jumpInputRef={jumpRef} onHelp={() => setHelp(true)} />
      {/* Its room is kept until the overview comes, so nothing below moves. */}
      <div className="run-overview-slot">{overview && <RunOverview table={overview} cursor={timeline.cursor} lane={lane} onJump={(c) => timelineDispatch(actions.jump(c))} />}</div>
      {outline && at && (
        <PlayerViews
          outline={outline}
          at={at}
          motion={motion}
          cursor={timeline.cursor}
          dispatch={dispatch}
          view={state.view}
          files={files}
          lane={lane}
          onSelectSlab={selectSlab}
          onFollowObject={followObject}
          loadMicro={loadMicro}
          loadLanes={loadLanes}
          onPickStep={onPick && ((c) => onPick({ pick: 'step', value: c }))}
        />
      )}
      {help && (
        <Suspense fallback={null}>
          <ShortcutHelp open onClose={closeHelp} />
        </Suspense>
      )}
    </div>
  );
}

/** Above the views: the cache picker (once there is a snapshot) and the allocator with the
 *  machine's CPUs and nodes. */
function PlayerToolbar({
  snapshot,
  outline,
  cache,
  playing,
  onCache,
}: {
  snapshot: ViewAt['snapshot'] | null;
  outline: RunOutline | null;
  /** The cache asked for (null: the one the step shows). */
  cache: string | null;
  playing: boolean;
  onCache: (cache: string | null) => void;
}) {
  const { t } = useTranslation();
  const shownCache = snapshot?.cache?.name ?? null;
  return (
    <div className="vis-toolbar">
      {snapshot && (
        <CachePicker caches={snapshot.caches} cache={cache} shownCache={shownCache} playing={playing} onCache={onCache} />
      )}
      <span className="allocator" data-testid="allocator">
        {outline ? t(`vis.allocator.${outline.allocator}`, { cpus: outline.cpus, nodes: outline.nodes }) : ''}
      </span>
    </div>
  );
}

/** The export menu's place: its room is kept from the start (like the scenario bar's); the menu
 *  arrives once a view is drawn (`steps` given), and would otherwise move the controls under the
 *  reader's pointer. */
function ExportSlot({ steps, cursor, showStep, onShowView }: { steps: number | null; cursor: number; showStep: (step: number) => Promise<void>; onShowView: (view: View) => void }) {
  return (
    <div className="export-menu-slot">
      {steps !== null && (
        <Suspense fallback={null}>
          <ExportMenu cursor={cursor} steps={steps} showStep={showStep} save={download} onShowView={onShowView} />
        </Suspense>
      )}
    </div>
  );
}

/** Whether a view has been drawn yet: true from the task after the first one is painted, then
 *  for good (the scenario bar waits for it). */
function useFirstPaint(drawn: boolean): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (!drawn || shown) return undefined;
    const timer = setTimeout(() => setShown(true), 0);
    return () => clearTimeout(timer);
  }, [drawn, shown]);
  return shown;
}

/** For a video of a range of steps: moves to `step` and resolves once its views are drawn. */
function useShowStep(root: { readonly current: HTMLElement | null }, dispatch: (action: TimelineAction) => void) {
  return useCallback(
    (step: number) =>
      new Promise<void>((resolve) => {
        const el = root.current;
        const drawn = () => requestAnimationFrame(() => resolve());
        if (!el || el.getAttribute('data-cursor') === String(step)) {
          drawn();
          return;
        }
        const observer = new MutationObserver(() => {
          if (el.getAttribute('data-cursor') !== String(step)) return;
          observer.disconnect();
          drawn();
        });
        observer.observe(el, { attributes: true, attributeFilter: ['data-cursor'] });
        dispatch(actions.jump(step));
      }),
    [root, dispatch],
  );
}

/** Inside a concurrent block, the operation of the step at the cursor (its steps interleave with
 *  other operations', so the operations' ends do not tell it); elsewhere, or for a step of no
 *  operation, undefined (the controls then go by the operations' ends). */
function blockOp(outline: RunOutline | null, at: ViewAt | null): number | undefined {
  const cursor = at?.snapshot.cursor;
  if (!outline || cursor === undefined || !outline.blocks.some((b) => b.start < cursor && cursor <= b.end)) return undefined;
  return at?.step?.op ?? undefined;
}

/** Scrolls `reveal.view` into sight once the views exist, once per `reveal.key`: inside
 *  `scroller` when given (the page around it stays where the reader is), else the page. */
function useReveal(reveal: { view: View; key: number } | null, drawn: boolean, scroller: HTMLElement | null) {
  const done = useRef<number | null>(null);
  const view = reveal?.view ?? null;
  const key = reveal?.key ?? null;
  useEffect(() => {
    if (view === null || key === null || !drawn || done.current === key) return;
    done.current = key;
    const el = document.getElementById(`view-${view}`);
    if (!el) return;
    if (scroller) {
      // In a box of its own (a lesson's player) the stage comes into sight with the view's pane
      // (open in its tab) below it.
      const target = scroller.querySelector('.vis-main') ?? el;
      // Below the step controls, which stay at the top of the box (styles.css): the step
      // counter and the buttons stay in sight beside the view.
      const controls = scroller.querySelector('.timeline-controls')?.getBoundingClientRect().height ?? 0;
      scroller.scrollBy({ top: target.getBoundingClientRect().top - scroller.getBoundingClientRect().top - controls });
    } else el.scrollIntoView({ block: 'start' });
  }, [view, key, drawn, scroller]);
}
