// The timeline: where the viewer stands in a run, and how playback moves it. A pure reducer:
// no React, no DOM, no clock (elapsed time arrives as an argument of `tick`).
//
// Vocabulary (DESIGN.md): a run is `steps` steps; the cursor is an index into them, 0 = the
// machine as booted, n = after n steps. Steps are grouped into operations: `opEnds[i]` is the
// cursor after operation i. Boot and cache-creation steps come first: the cursors
// 0..=bootEnd belong to no operation, and operation i owns the cursors
// (opEnds[i-1] or bootEnd, opEnds[i]]. An operation may own no cursor (two equal ends).
//
// Invariants, kept by every action (timeline.test.ts checks them on random action sequences):
//  - 0 <= cursor <= steps, all integers;
//  - 0 <= bootEnd <= opEnds[0] <= ... <= opEnds[last] <= steps (`load` refuses anything else);
//  - playing implies cursor < steps, except for the one tick that reaches the end and stops;
//    no state returned by the reducer has playing && cursor === steps;
//  - 0 <= carry < 1.
// Refused input (NaN, non-integers, unknown speeds, bad runs) returns the state unchanged, so a
// stray value from a text box or the URL never moves the cursor.
//
// Moves made by the person (step, operation, first, last, jump) pause playback: whoever reaches
// for a control wants the picture to hold still. Only `tick` moves a playing timeline.

/** Playback speeds, in steps (or operations, at the 'op' level) per second. */
export const SPEEDS = [1, 2, 5, 10, 30, 60, 120, 'max'] as const;
export type Speed = (typeof SPEEDS)[number];
export const DEFAULT_SPEED: Speed = 10;

/**
 * 'max' moves at least one unit per tick (a tick is one animation frame), and otherwise at this
 * rate, so it is never slower than the fastest numbered speed nor than the display.
 */
export const MAX_RATE = 240;

/** What one unit of playback is: a step, or a whole operation. */
export const LEVELS = ['step', 'op'] as const;
export type Level = (typeof LEVELS)[number];

export interface TimelineState {
  /** Index into the steps: 0 = as booted, `steps` = after the last step. */
  readonly cursor: number;
  /** Number of steps in the run. */
  readonly steps: number;
  /** The cursor after each operation; non-decreasing. */
  readonly opEnds: readonly number[];
  /** The cursor after boot and cache creation: cursors up to it precede every operation. */
  readonly bootEnd: number;
  readonly playing: boolean;
  readonly speed: Speed;
  readonly level: Level;
  /** Fraction of a unit that earlier ticks earned but did not move; in [0, 1). */
  readonly carry: number;
  /** The last move went straight to a cursor (scrubber, jump, first, last), not step by step. */
  readonly jumped: boolean;
}

export type TimelineAction =
  | { type: 'stepForward' }
  | { type: 'stepBack' }
  | { type: 'opForward' }
  | { type: 'opBack' }
  | { type: 'first' }
  | { type: 'last' }
  | { type: 'jump'; to: number }
  | { type: 'play' }
  | { type: 'pause' }
  | { type: 'toggle' }
  | { type: 'tick'; elapsedMs: number }
  | { type: 'setSpeed'; speed: Speed }
  | { type: 'faster' }
  | { type: 'slower' }
  | { type: 'setLevel'; level: Level }
  | { type: 'load'; steps: number; opEnds: readonly number[]; cursor?: number; bootEnd?: number };

/** Action creators, for call sites that read better as verbs. */
export const actions = {
  stepForward: (): TimelineAction => ({ type: 'stepForward' }),
  stepBack: (): TimelineAction => ({ type: 'stepBack' }),
  opForward: (): TimelineAction => ({ type: 'opForward' }),
  opBack: (): TimelineAction => ({ type: 'opBack' }),
  first: (): TimelineAction => ({ type: 'first' }),
  last: (): TimelineAction => ({ type: 'last' }),
  jump: (to: number): TimelineAction => ({ type: 'jump', to }),
  play: (): TimelineAction => ({ type: 'play' }),
  pause: (): TimelineAction => ({ type: 'pause' }),
  toggle: (): TimelineAction => ({ type: 'toggle' }),
  tick: (elapsedMs: number): TimelineAction => ({ type: 'tick', elapsedMs }),
  setSpeed: (speed: Speed): TimelineAction => ({ type: 'setSpeed', speed }),
  faster: (): TimelineAction => ({ type: 'faster' }),
  slower: (): TimelineAction => ({ type: 'slower' }),
  setLevel: (level: Level): TimelineAction => ({ type: 'setLevel', level }),
  load: (steps: number, opEnds: readonly number[], cursor?: number, bootEnd?: number): TimelineAction => ({
    type: 'load',
    steps,
    opEnds,
    cursor,
    bootEnd,
  }),
};

/** An empty timeline (no run loaded yet), with the given speed and level. */
export function initialTimeline(speed: Speed = DEFAULT_SPEED, level: Level = 'step'): TimelineState {
  return { cursor: 0, steps: 0, opEnds: [], bootEnd: 0, playing: false, speed, level, carry: 0, jumped: false };
}

export function isSpeed(value: unknown): value is Speed {
  return (SPEEDS as readonly unknown[]).includes(value);
}

/** Reads a speed written by `String(speed)` (as stored in localStorage); null if it is not one. */
export function parseSpeed(text: string | null | undefined): Speed | null {
  if (text === 'max') return 'max';
  if (text == null || !/^[0-9]{1,4}$/.test(text)) return null;
  const n = Number(text);
  return isSpeed(n) ? n : null;
}

/** Checks a run's shape: see the invariants at the top of the file. */
export function isValidRun(steps: number, opEnds: readonly number[], bootEnd = 0): boolean {
  if (!isCount(steps) || !isCount(bootEnd) || bootEnd > steps || !Array.isArray(opEnds)) return false;
  let previous = bootEnd;
  for (const end of opEnds) {
    if (!isCount(end) || end < previous || end > steps) return false;
    previous = end;
  }
  return true;
}

/**
 * The operation that `cursor` belongs to: i when opEnds[i-1] (or bootEnd) < cursor <= opEnds[i],
 * taking the first of equal ends; -1 before the first operation (boot). A cursor past the last
 * operation's end (no recorded run has one) counts as the last operation.
 */
export function opIndexAt(cursor: number, opEnds: readonly number[], bootEnd = 0): number {
  if (opEnds.length === 0 || cursor <= bootEnd) return -1;
  // First index whose end is >= cursor.
  let lo = 0;
  let hi = opEnds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (opEnds[mid] < cursor) lo = mid + 1;
    else hi = mid;
  }
  return Math.min(lo, opEnds.length - 1);
}

/**
 * The cursors of operation i: `start` is the cursor before it runs, `end` the cursor after it;
 * its own steps are start+1 ..= end (`end - start` of them). Null for an index out of range.
 */
export function stepsOfOp(i: number, opEnds: readonly number[], bootEnd = 0): { start: number; end: number } | null {
  if (!Number.isInteger(i) || i < 0 || i >= opEnds.length) return null;
  return { start: i === 0 ? bootEnd : opEnds[i - 1], end: opEnds[i] };
}

/** Where the timeline stands, as the position text shows it (operations counted from 1). */
export function position(state: TimelineState): { step: number; steps: number; op: number | null; ops: number } {
  const i = opIndexAt(state.cursor, state.opEnds, state.bootEnd);
  return { step: state.cursor, steps: state.steps, op: i < 0 ? null : i + 1, ops: state.opEnds.length };
}

export function timelineReducer(state: TimelineState, action: TimelineAction): TimelineState {
  switch (action.type) {
    case 'stepForward':
      return moveTo(state, Math.min(state.cursor + 1, state.steps));
    case 'stepBack':
      return moveTo(state, Math.max(state.cursor - 1, 0));
    case 'opForward':
      return moveTo(state, nextOpEnd(state, state.cursor));
    case 'opBack':
      return moveTo(state, previousOpEnd(state, state.cursor));
    case 'first':
      return moveTo(state, 0, true);
    case 'last':
      return moveTo(state, state.steps, true);
    case 'jump':
      if (!Number.isInteger(action.to)) return state;
      return moveTo(state, clamp(action.to, 0, state.steps), true);
    case 'play':
      return play(state);
    case 'pause':
      return state.playing ? { ...state, playing: false, carry: 0 } : state;
    case 'toggle':
      return state.playing ? { ...state, playing: false, carry: 0 } : play(state);
    case 'tick':
      return tick(state, action.elapsedMs);
    case 'setSpeed':
      return isSpeed(action.speed) && action.speed !== state.speed ? { ...state, speed: action.speed } : state;
    case 'faster':
    case 'slower': {
      const i = SPEEDS.indexOf(state.speed) + (action.type === 'faster' ? 1 : -1);
      return i >= 0 && i < SPEEDS.length ? { ...state, speed: SPEEDS[i] } : state;
    }
    case 'setLevel':
      // A carried fraction of a step is not a fraction of an operation.
      return (LEVELS as readonly string[]).includes(action.level) && action.level !== state.level
        ? { ...state, level: action.level, carry: 0 }
        : state;
    case 'load': {
      const bootEnd = action.bootEnd ?? 0;
      if (!isValidRun(action.steps, action.opEnds, bootEnd)) return state;
      const cursor = Number.isInteger(action.cursor) ? clamp(action.cursor as number, 0, action.steps) : 0;
      return { ...state, steps: action.steps, opEnds: [...action.opEnds], bootEnd, cursor, playing: false, carry: 0 };
    }
    default:
      return state;
  }
}

/**
 * How long the views' transitions last in this state: `restMs` after a step or an operation;
 * 0 after a jump (scrubbing, jumping: a slide between distant states shows nothing); while playing,
 * four fifths of one unit's time (so a move ends before the next begins), or 0 when a unit
 * lasts under 50 ms (3 frames: a slide nobody can follow only costs frames); always 0 under
 * reduced motion.
 */
export function transitionMs(state: TimelineState, reducedMotion: boolean, restMs: number): number {
  if (reducedMotion || (!state.playing && state.jumped)) return 0;
  if (!state.playing) return restMs;
  const unitMs = 1000 / (state.speed === 'max' ? MAX_RATE : state.speed);
  return unitMs < 50 ? 0 : Math.min(restMs, Math.round(unitMs * 0.8));
}

function moveTo(state: TimelineState, cursor: number, jumped = false): TimelineState {
  if (cursor === state.cursor && !state.playing && jumped === state.jumped) return state;
  return { ...state, cursor, playing: false, carry: 0, jumped };
}

/** Playing from the end starts again from the beginning; an empty run cannot play. */
function play(state: TimelineState): TimelineState {
  if (state.playing || state.steps === 0) return state;
  return { ...state, playing: true, carry: 0, jumped: false, cursor: state.cursor >= state.steps ? 0 : state.cursor };
}

function tick(state: TimelineState, elapsedMs: number): TimelineState {
  if (!state.playing || !Number.isFinite(elapsedMs) || elapsedMs < 0) return state;
  const rate = state.speed === 'max' ? MAX_RATE : state.speed;
  const earned = state.carry + (rate * elapsedMs) / 1000;
  let units = Math.floor(earned);
  let carry = earned - units;
  if (state.speed === 'max' && units === 0) {
    units = 1;
    carry = 0;
  }
  let cursor = state.cursor;
  if (state.level === 'step') {
    cursor = Math.min(state.steps, cursor + units);
  } else {
    // Each move reaches a strictly later op end or the end, so this stops within
    // opEnds.length + 1 moves however large `units` is.
    for (let k = 0; k < units && cursor < state.steps; k++) cursor = nextOpEnd(state, cursor);
  }
  if (cursor >= state.steps) return { ...state, cursor: state.steps, playing: false, carry: 0 };
  if (cursor === state.cursor && carry === state.carry) return state;
  return { ...state, cursor, carry };
}

/** The first op end strictly after `cursor`, or `steps` when there is none. */
function nextOpEnd(state: TimelineState, cursor: number): number {
  const { opEnds } = state;
  let lo = 0;
  let hi = opEnds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (opEnds[mid] <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo < opEnds.length ? opEnds[lo] : state.steps;
}

/** The last op end strictly before `cursor`, or 0 when there is none. */
function previousOpEnd(state: TimelineState, cursor: number): number {
  const { opEnds } = state;
  let lo = 0;
  let hi = opEnds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (opEnds[mid] < cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? opEnds[lo - 1] : 0;
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, n));
}
