// The player's state as data: which scenario is asked for and how its run went, the run on
// screen, the timeline's cursor, the focused view, the cache, the followed object or page and
// the selected slab. One pure reducer: an action takes the state and returns the next one; no
// React, no worker, no URL, no storage (usePlayer.ts does those, from this state).
//
// Rules:
//  - The run on screen (`shown`) is the last one that opened. The timeline always holds its
//    steps, so the views and the timeline never disagree. A scenario that fails to run leaves
//    the previous run on screen, marked as previous (`isPreviousRun`), beside its error; with no
//    previous run there is nothing on screen but the error (and the scenario bar around it).
//  - Each run asked for is an `attempt`; an answer for any other attempt is stale and changes
//    nothing (a person who picks two presets quickly sees the second).
//  - A scenario chosen by the person (a preset, the editor, a file) starts at step 0 and drops
//    the cache, slab and followed object of the old run, once the new run has opened. The
//    opening scenario of a link, a lesson's anchor and a restart after a crash keep theirs and
//    land on their step.
//  - Only a run that opened is ever saved as the one to come back to (`savedRun`).
//  - A run the person cancels brings back the run on screen as the scenario asked for, at its
//    step (the simulator's new worker opens it again when a view is asked of it); with none on
//    screen, the cancelled scenario stays asked for, unrun, until the person asks again.

import type { RunOutline } from '../core/client';
import type { LinkError } from '../scenario/link';
import type { PresetId } from '../scenario/presets';
import { actions as timelineActions, initialTimeline, timelineReducer, type TimelineAction, type TimelineState } from '../timeline/timeline';
import type { Follow, View } from '../url/urlState';

/** Where the bare address lands: `firstOpEnd`. */
export const FIRST_OP = 'first-op';

/** Where operations end, in step order: the timeline's operation boundaries. In a `concurrent`
 *  block operations interleave, so the one that ends first need not be the one that started
 *  first (`outline.ops` is in the order they started). */
function opEnds(ops: readonly { end: number }[]): number[] {
  return ops.map((o) => o.end).sort((a, b) => a - b);
}

/** The step after which the first operation to end has ended (null: the run has none). */
export function firstOpEnd(outline: RunOutline): number | null {
  return opEnds(outline.ops)[0] ?? null;
}

/** A scenario: its text, and the preset it is (null: the person's own or a link's). */
export interface Scenario {
  text: string;
  preset: PresetId | null;
}

/** How the run of the scenario asked for stands. */
export type RunStatus =
  /** No scenario yet (a link is being unpacked). */
  | { status: 'waiting' }
  | { status: 'opening'; attempt: number }
  | { status: 'open'; attempt: number }
  | { status: 'failed'; attempt: number; error: Error }
  /** The person cancelled the run and no earlier run was on screen to come back to. */
  | { status: 'cancelled'; attempt: number };

/** The run whose steps the timeline holds and the views draw. */
/** The end of a run's `op`-th operation (0: where the operations start): where the same
 *  scenario under another kernel lands, whose steps differ but whose operations do not. */
export interface AfterOp {
  afterOp: number;
}

/** The cursor after `op` operations of `outline` have ended (in a concurrent block they need
 *  not end in the order they start). */
export function cursorAfterOp(outline: RunOutline, op: number): number {
  const ends = opEnds(outline.ops);
  if (op <= 0 || ends.length === 0) return outline.ops_start;
  return ends[Math.min(op, ends.length) - 1];
}

/** How many operations of `outline` are done at `cursor`. */
export function opsDone(outline: RunOutline, cursor: number): number {
  return outline.ops.filter((o) => o.end <= cursor).length;
}

export interface ShownRun {
  scenario: Scenario;
  outline: RunOutline;
}

export interface PlayerState {
  /** The scenario asked for; null until the opening one is known. */
  scenario: Scenario | null;
  run: RunStatus;
  /** The last run that opened (see the rules above). */
  shown: ShownRun | null;
  /** Attempts made so far; the next run asked for is `attempts + 1`. */
  attempts: number;
  /** The step the next run to open lands on (a link's, a lesson anchor's, before a restart), or
   *  `FIRST_OP`: the end of its first operation (the bare address, so that a newcomer's first
   *  screen already shows a cache at work). */
  pendingStep: number | typeof FIRST_OP | AfterOp | null;
  /** The next run to open keeps the cache, slab and followed object. */
  keepSelection: boolean;
  /** The next run to open is the run on screen opened again (after a restart of the worker): it
   *  lands where the person is when it opens, which may be past where they were at the restart
   *  (the old view stays usable meanwhile). */
  resume: boolean;
  /** The last run asked for was cancelled (a notice says so until the next is asked). */
  cancelled: boolean;
  /** Why the link's scenario could not be read (the page opened something else). */
  linkError: LinkError | null;
  /** The `s` value of a scenario's text for links (null: too long for one). */
  encoded: { text: string; value: string | null } | null;
  timeline: TimelineState;
  /** The panel in focus: the pane shown beside the stage (the kernel files are read only while
   *  theirs is). */
  view: View | null;
  /** The cache shown (null: the cache of the step). */
  cache: string | null;
  /** The slab selected, by its page frame number. */
  slab: number | null;
  follow: Follow | null;
}

/** Where a scenario is to be shown: the step, and optionally the view and cache in focus. */
export interface Place {
  cursor?: number;
  view?: View | null;
  cache?: string | null;
}

export type PlayerAction =
  /** The page's first scenario is known (from a link, a preset, the saved run or the default). */
  | { type: 'opening'; scenario: Scenario; step?: number | typeof FIRST_OP; linkError: LinkError | null }
  /** The person picked another scenario: it runs from step 0. */
  | { type: 'choose'; scenario: Scenario }
  /** The scenario on screen under another kernel: it lands after as many operations as are
   *  done now, with the same cache, slab and followed object. */
  | { type: 'chooseAtOp'; scenario: Scenario; op: number }
  /** A scenario at a place (a lesson's anchor): moves there when it is already on screen. */
  | { type: 'show'; scenario: Scenario; place: Place }
  | { type: 'runOpened'; attempt: number; outline: RunOutline }
  | { type: 'runFailed'; attempt: number; error: Error }
  /** The person stopped the run being opened (the simulator's worker was replaced). */
  | { type: 'runCancelled'; attempt: number }
  | { type: 'dismissCancelled' }
  /** The simulator worker was replaced after a crash: the run is opened again where it stood. */
  | { type: 'restarted' }
  | { type: 'encoded'; text: string; value: string | null }
  | { type: 'dismissLinkError' }
  | { type: 'timeline'; action: TimelineAction }
  | { type: 'focusView'; view: View }
  | { type: 'selectCache'; cache: string | null }
  | { type: 'selectSlab'; pfn: number }
  | { type: 'follow'; follow: Follow | null };

/** Action creators. */
export const playerActions = {
  opening: (scenario: Scenario, step: number | typeof FIRST_OP | undefined, linkError: LinkError | null): PlayerAction => ({ type: 'opening', scenario, step, linkError }),
  choose: (scenario: Scenario): PlayerAction => ({ type: 'choose', scenario }),
  chooseAtOp: (scenario: Scenario, op: number): PlayerAction => ({ type: 'chooseAtOp', scenario, op }),
  show: (scenario: Scenario, place: Place): PlayerAction => ({ type: 'show', scenario, place }),
  runOpened: (attempt: number, outline: RunOutline): PlayerAction => ({ type: 'runOpened', attempt, outline }),
  runFailed: (attempt: number, error: Error): PlayerAction => ({ type: 'runFailed', attempt, error }),
  runCancelled: (attempt: number): PlayerAction => ({ type: 'runCancelled', attempt }),
  dismissCancelled: (): PlayerAction => ({ type: 'dismissCancelled' }),
  restarted: (): PlayerAction => ({ type: 'restarted' }),
  encoded: (text: string, value: string | null): PlayerAction => ({ type: 'encoded', text, value }),
  dismissLinkError: (): PlayerAction => ({ type: 'dismissLinkError' }),
  timeline: (action: TimelineAction): PlayerAction => ({ type: 'timeline', action }),
  focusView: (view: View): PlayerAction => ({ type: 'focusView', view }),
  selectCache: (cache: string | null): PlayerAction => ({ type: 'selectCache', cache }),
  selectSlab: (pfn: number): PlayerAction => ({ type: 'selectSlab', pfn }),
  follow: (follow: Follow | null): PlayerAction => ({ type: 'follow', follow }),
};

/** What a page starts from before its scenario is known: a link's step, view, cache and
 *  followed object, and the timeline's speed. */
export interface PlayerStart {
  step?: number;
  view?: View;
  cache?: string;
  follow?: Follow;
  timeline?: TimelineState;
}

export function initialPlayer(start: PlayerStart = {}): PlayerState {
  return {
    scenario: null,
    run: { status: 'waiting' },
    shown: null,
    attempts: 0,
    pendingStep: start.step ?? null,
    keepSelection: true,
    resume: false,
    cancelled: false,
    linkError: null,
    encoded: null,
    timeline: start.timeline ?? initialTimeline(),
    view: start.view ?? null,
    cache: start.cache ?? null,
    slab: null,
    follow: start.follow ?? null,
  };
}

/** Asks for a run of `scenario`. */
function ask(state: PlayerState, scenario: Scenario, pendingStep: PlayerState['pendingStep'], keepSelection: boolean): PlayerState {
  const attempt = state.attempts + 1;
  return { ...state, scenario, run: { status: 'opening', attempt }, attempts: attempt, pendingStep, keepSelection, resume: false, cancelled: false };
}

export function playerReducer(state: PlayerState, action: PlayerAction): PlayerState {
  switch (action.type) {
    case 'opening':
      // A step in the page's own address wins over the saved run's.
      return { ...ask(state, action.scenario, state.pendingStep ?? action.step ?? null, true), linkError: action.linkError };
    case 'choose':
      return { ...ask(state, action.scenario, null, false), linkError: null };
    case 'chooseAtOp':
      return { ...ask(state, action.scenario, { afterOp: action.op }, true), linkError: null };
    case 'show':
      return show(state, action.scenario, action.place);
    case 'runOpened': {
      if (!isCurrent(state, action.attempt)) return state;
      const scenario = state.scenario as Scenario;
      const { outline } = action;
      const pending = state.pendingStep;
      const wanted = state.resume ? state.timeline.cursor : pending === FIRST_OP ? firstOpEnd(outline) : typeof pending === 'object' && pending !== null ? cursorAfterOp(outline, pending.afterOp) : pending;
      const cursor = Math.min(wanted ?? 0, outline.steps);
      const timeline = timelineReducer(state.timeline, timelineActions.load(outline.steps, opEnds(outline.ops), cursor, outline.ops_start));
      const selection = state.keepSelection ? {} : { cache: null, slab: null, follow: null };
      return { ...state, ...selection, run: { status: 'open', attempt: action.attempt }, shown: { scenario, outline }, timeline, pendingStep: null, keepSelection: false, resume: false };
    }
    case 'runFailed':
      if (!isCurrent(state, action.attempt)) return state;
      // Playback of the previous run stops: the person is looking at an error.
      return {
        ...state,
        run: { status: 'failed', attempt: action.attempt, error: action.error },
        timeline: timelineReducer(state.timeline, timelineActions.pause()),
        pendingStep: null,
        keepSelection: false,
      };
    case 'runCancelled': {
      if (!isCurrent(state, action.attempt)) return state;
      const back = state.shown
        ? { scenario: state.shown.scenario, run: { status: 'open' as const, attempt: action.attempt } }
        : { run: { status: 'cancelled' as const, attempt: action.attempt } };
      return { ...state, ...back, cancelled: true, pendingStep: null, keepSelection: false };
    }
    case 'dismissCancelled':
      return { ...state, cancelled: false };
    case 'restarted': {
      if (!state.scenario) return state;
      const sameRun = state.shown !== null && state.shown.scenario.text === state.scenario.text;
      // The run on screen resumes where the person is when it opens; another lands where it was
      // going to.
      return { ...ask(state, state.scenario, sameRun ? null : state.pendingStep, true), resume: sameRun };
    }
    case 'encoded':
      return { ...state, encoded: { text: action.text, value: action.value } };
    case 'dismissLinkError':
      return { ...state, linkError: null };
    case 'timeline': {
      const timeline = timelineReducer(state.timeline, action.action);
      return timeline === state.timeline ? state : { ...state, timeline };
    }
    case 'focusView':
      return state.view === action.view ? state : { ...state, view: action.view };
    case 'selectCache':
      return { ...state, cache: action.cache, slab: null };
    case 'selectSlab':
      return { ...state, slab: action.pfn };
    case 'follow':
      return { ...state, follow: action.follow };
  }
}

function isCurrent(state: PlayerState, attempt: number): boolean {
  return state.scenario !== null && state.run.status === 'opening' && state.run.attempt === attempt;
}

/** A lesson's anchor: the same scenario moves to the place; another one runs and lands there. */
function show(state: PlayerState, scenario: Scenario, place: Place): PlayerState {
  const focus = {
    view: place.view === undefined ? state.view : place.view,
    cache: place.cache === undefined ? state.cache : place.cache,
    slab: null,
    follow: null,
  };
  const cursor = place.cursor ?? 0;
  const same = state.scenario?.text === scenario.text && state.run.status !== 'failed';
  if (same && state.run.status === 'open') {
    return { ...state, ...focus, scenario, timeline: timelineReducer(state.timeline, timelineActions.jump(cursor)) };
  }
  if (same) return { ...state, ...focus, scenario, pendingStep: cursor, keepSelection: true };
  return { ...ask(state, scenario, cursor, true), ...focus, linkError: null };
}

/** The run whose answers the page waits for: its attempt and text (null when none is wanted). */
export function wantedRun(state: PlayerState): { attempt: number; text: string } | null {
  return state.run.status === 'opening' && state.scenario ? { attempt: state.run.attempt, text: state.scenario.text } : null;
}

/** The run on screen is not the scenario asked for, which failed. */
export function isPreviousRun(state: PlayerState): boolean {
  return state.run.status === 'failed' && state.shown !== null;
}

/** The scenario the address and the saved run describe: the run on screen when there is one
 *  (the step belongs to it), else the scenario asked for. */
export function addressedScenario(state: PlayerState): Scenario | null {
  return state.shown?.scenario ?? state.scenario;
}

/** What to save as the run to come back to: only a run that opened, at its step. */
export function savedRun(state: PlayerState): { text: string; step: number; preset: PresetId | null } | null {
  if (!state.shown) return null;
  const { scenario } = state.shown;
  return { text: scenario.text, step: state.timeline.cursor, preset: scenario.preset };
}
