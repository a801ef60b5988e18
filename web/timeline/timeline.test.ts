import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_RATE,
  SPEEDS,
  actions,
  initialTimeline,
  isValidRun,
  opIndexAt,
  parseSpeed,
  position,
  stepsOfOp,
  timelineReducer,
  transitionMs,
  type TimelineAction,
  type TimelineState,
} from './timeline';

/** 3 boot steps, then four operations; the third owns no step. */
const RUN = { steps: 12, opEnds: [5, 8, 8, 12], bootEnd: 3 };

function loaded(cursor = 0, extra: Partial<TimelineState> = {}): TimelineState {
  const s = timelineReducer(initialTimeline(), actions.load(RUN.steps, RUN.opEnds, cursor, RUN.bootEnd));
  return { ...s, ...extra };
}

function run(state: TimelineState, ...list: TimelineAction[]): TimelineState {
  return list.reduce(timelineReducer, state);
}

describe('moves', () => {
  it('steps forward and back within [0, steps]', () => {
    expect(run(loaded(0), actions.stepForward()).cursor).toBe(1);
    expect(run(loaded(12), actions.stepForward()).cursor).toBe(12);
    expect(run(loaded(0), actions.stepBack()).cursor).toBe(0);
    expect(run(loaded(7), actions.stepBack(), actions.stepBack()).cursor).toBe(5);
  });

  it('moves by operations to the next or previous op end', () => {
    const ends = (from: number, a: TimelineAction, n: number) => {
      const out: number[] = [];
      let s = loaded(from);
      for (let i = 0; i < n; i++) out.push((s = timelineReducer(s, a)).cursor);
      return out;
    };
    expect(ends(0, actions.opForward(), 5)).toEqual([5, 8, 12, 12, 12]);
    expect(ends(6, actions.opForward(), 1)).toEqual([8]);
    expect(ends(12, actions.opBack(), 5)).toEqual([8, 5, 0, 0, 0]);
    expect(ends(9, actions.opBack(), 1)).toEqual([8]);
  });

  it('goes past the last op end to the end of the run, and works with no operations', () => {
    const s = timelineReducer(initialTimeline(), actions.load(10, [4]));
    expect(run(s, actions.jump(6), actions.opForward()).cursor).toBe(10);
    const boot = timelineReducer(initialTimeline(), actions.load(7, [], 2));
    expect(run(boot, actions.opForward()).cursor).toBe(7);
    expect(run(boot, actions.opBack()).cursor).toBe(0);
  });

  it('jumps to first, last and any step, clamping integers and refusing the rest', () => {
    expect(run(loaded(6), actions.first()).cursor).toBe(0);
    expect(run(loaded(6), actions.last()).cursor).toBe(12);
    expect(run(loaded(6), actions.jump(9)).cursor).toBe(9);
    expect(run(loaded(6), actions.jump(-4)).cursor).toBe(0);
    expect(run(loaded(6), actions.jump(400)).cursor).toBe(12);
    const s = loaded(6);
    for (const bad of [NaN, 2.5, Infinity, -Infinity]) expect(timelineReducer(s, actions.jump(bad))).toBe(s);
  });

  it('pauses playback when the person moves', () => {
    for (const a of [actions.stepForward(), actions.stepBack(), actions.opForward(), actions.opBack(), actions.first(), actions.last(), actions.jump(2)]) {
      expect(run(loaded(6), actions.play(), a).playing, a.type).toBe(false);
    }
  });

  it('returns the same state object when nothing changes', () => {
    const s = loaded(0);
    expect(timelineReducer(s, actions.stepBack())).toBe(s);
    expect(timelineReducer(s, actions.pause())).toBe(s);
    expect(timelineReducer(s, actions.tick(1000))).toBe(s);
    expect(timelineReducer(s, actions.setSpeed(s.speed))).toBe(s);
  });
});

describe('playback', () => {
  it('plays, pauses and toggles', () => {
    const s = loaded(2);
    expect(run(s, actions.play()).playing).toBe(true);
    expect(run(s, actions.play(), actions.pause()).playing).toBe(false);
    expect(run(s, actions.toggle()).playing).toBe(true);
    expect(run(s, actions.toggle(), actions.toggle()).playing).toBe(false);
  });

  it('starts again from the beginning when played at the end, and never plays an empty run', () => {
    expect(run(loaded(12), actions.play())).toMatchObject({ cursor: 0, playing: true });
    expect(run(initialTimeline(), actions.play()).playing).toBe(false);
  });

  it('advances speed × elapsed steps per tick, carrying the fraction', () => {
    let s = run(loaded(0), actions.setSpeed(5), actions.play());
    s = run(s, actions.tick(100)); // 0.5 step
    expect(s).toMatchObject({ cursor: 0, carry: 0.5 });
    s = run(s, actions.tick(100)); // 1.0
    expect(s).toMatchObject({ cursor: 1, carry: 0 });
    s = run(s, actions.tick(1000)); // 5 more
    expect(s.cursor).toBe(6);
  });

  it('advances whole operations at the op level', () => {
    let s = run(loaded(0), actions.setLevel('op'), actions.setSpeed(2), actions.play());
    s = run(s, actions.tick(500));
    expect(s.cursor).toBe(5);
    s = run(s, actions.tick(1000)); // two operations: 8, then past the empty one to 12
    expect(s).toMatchObject({ cursor: 12, playing: false });
  });

  it('stops at the end without passing it', () => {
    const s = run(loaded(10), actions.setSpeed(120), actions.play(), actions.tick(60_000));
    expect(s).toMatchObject({ cursor: 12, playing: false, carry: 0 });
  });

  it("moves at least one step per tick at 'max', and MAX_RATE per second otherwise", () => {
    const s = run(loaded(0), actions.setSpeed('max'), actions.play());
    expect(run(s, actions.tick(0)).cursor).toBe(1);
    const long = timelineReducer(initialTimeline('max'), actions.load(10_000, []));
    expect(run(long, actions.play(), actions.tick(1000)).cursor).toBe(MAX_RATE);
  });

  it('ignores ticks with a bad elapsed time or while paused', () => {
    const s = run(loaded(0), actions.play());
    for (const bad of [NaN, -5, Infinity]) expect(timelineReducer(s, actions.tick(bad))).toBe(s);
    const paused = loaded(0);
    expect(timelineReducer(paused, actions.tick(5000))).toBe(paused);
  });

  it('steps the speed up and down the list, stopping at either end', () => {
    expect(run(initialTimeline(1), actions.slower()).speed).toBe(1);
    expect(run(initialTimeline(1), actions.faster()).speed).toBe(2);
    expect(run(initialTimeline(120), actions.faster()).speed).toBe('max');
    expect(run(initialTimeline('max'), actions.faster()).speed).toBe('max');
    expect(run(initialTimeline('max'), actions.slower()).speed).toBe(120);
  });

  it('refuses unknown speeds and levels', () => {
    const s = loaded(0);
    expect(timelineReducer(s, { type: 'setSpeed', speed: 7 as never })).toBe(s);
    expect(timelineReducer(s, { type: 'setLevel', level: 'page' as never })).toBe(s);
  });
});

describe('load', () => {
  it('loads a run at a cursor, clamped, and stops playback', () => {
    const playing = run(loaded(3), actions.play());
    expect(run(playing, actions.load(50, [10, 50], 70))).toMatchObject({ steps: 50, cursor: 50, playing: false, bootEnd: 0 });
    expect(run(playing, actions.load(50, [10, 50], 2.5)).cursor).toBe(0);
  });

  it('refuses a run whose shape is wrong', () => {
    const s = loaded(4);
    for (const [steps, ends, boot] of [
      [-1, [], 0],
      [1.5, [], 0],
      [10, [4, 3], 0],
      [10, [11], 0],
      [10, [NaN], 0],
      [10, [2], 3],
      [10, [], 11],
    ] as const) {
      expect(timelineReducer(s, actions.load(steps, ends, 0, boot)), `${steps} ${ends} ${boot}`).toBe(s);
    }
  });

  it('keeps its own copy of the op ends', () => {
    const ends = [2, 4];
    const s = timelineReducer(initialTimeline(), actions.load(4, ends));
    ends.push(9);
    expect(s.opEnds).toEqual([2, 4]);
  });
});

describe('helpers', () => {
  it('finds the operation a cursor belongs to', () => {
    const at = (c: number) => opIndexAt(c, RUN.opEnds, RUN.bootEnd);
    expect([0, 1, 2, 3].map(at)).toEqual([-1, -1, -1, -1]);
    expect([4, 5, 6, 7, 8, 9, 12].map(at)).toEqual([0, 0, 1, 1, 1, 3, 3]);
    expect(opIndexAt(99, RUN.opEnds, RUN.bootEnd)).toBe(3);
    expect(opIndexAt(5, [], 0)).toBe(-1);
    expect(opIndexAt(0, [0, 3], 0)).toBe(-1);
    expect(opIndexAt(1, [0, 3], 0)).toBe(1);
  });

  it('gives the cursors of an operation', () => {
    expect(stepsOfOp(0, RUN.opEnds, RUN.bootEnd)).toEqual({ start: 3, end: 5 });
    expect(stepsOfOp(2, RUN.opEnds, RUN.bootEnd)).toEqual({ start: 8, end: 8 });
    expect(stepsOfOp(4, RUN.opEnds)).toBeNull();
    expect(stepsOfOp(-1, RUN.opEnds)).toBeNull();
    expect(stepsOfOp(0.5, RUN.opEnds)).toBeNull();
  });

  it('reports the position with operations counted from one', () => {
    expect(position(loaded(2))).toEqual({ step: 2, steps: 12, op: null, ops: 4 });
    expect(position(loaded(12))).toEqual({ step: 12, steps: 12, op: 4, ops: 4 });
  });

  it('reads stored speeds and nothing else', () => {
    for (const s of SPEEDS) expect(parseSpeed(String(s))).toBe(s);
    for (const bad of [null, undefined, '', '3', '10.0', ' 10', '1e1', 'MAX', '0x0a', 'max ']) expect(parseSpeed(bad)).toBeNull();
  });

  it('validates runs', () => {
    expect(isValidRun(12, RUN.opEnds, RUN.bootEnd)).toBe(true);
    expect(isValidRun(0, [])).toBe(true);
    expect(isValidRun(3, [0, 0, 3])).toBe(true);
    expect(isValidRun(3, [4])).toBe(false);
  });
});

// --- properties over random runs and action sequences -----------------------------------

const runArb = fc
  .record({ steps: fc.integer({ min: 0, max: 200 }), cuts: fc.array(fc.nat(), { maxLength: 20 }), boot: fc.nat() })
  .map(({ steps, cuts, boot }) => {
    const ends = cuts.map((c) => c % (steps + 1)).sort((a, b) => a - b);
    const bootEnd = Math.min(boot % (steps + 1), ends[0] ?? steps);
    return { steps, opEnds: ends, bootEnd };
  });

const actionArb: fc.Arbitrary<TimelineAction> = fc.oneof(
  fc.constantFrom<TimelineAction>(
    actions.stepForward(),
    actions.stepBack(),
    actions.opForward(),
    actions.opBack(),
    actions.first(),
    actions.last(),
    actions.play(),
    actions.pause(),
    actions.toggle(),
    actions.faster(),
    actions.slower(),
    actions.setLevel('step'),
    actions.setLevel('op'),
  ),
  fc.oneof(fc.integer({ min: -50, max: 300 }), fc.double()).map(actions.jump),
  fc.oneof(fc.double({ min: 0, max: 5000, noNaN: true }), fc.double()).map(actions.tick),
  fc.constantFrom(...SPEEDS).map(actions.setSpeed),
  runArb.chain((r) =>
    fc.option(fc.integer({ min: -10, max: 300 })).map((c) => actions.load(r.steps, r.opEnds, c ?? undefined, r.bootEnd)),
  ),
);

const startArb = fc.tuple(runArb, fc.nat(), fc.constantFrom(...SPEEDS), fc.constantFrom('step' as const, 'op' as const)).map(
  ([r, c, speed, level]) => timelineReducer(initialTimeline(speed, level), actions.load(r.steps, r.opEnds, c % (r.steps + 1), r.bootEnd)),
);

const scenarioArb = fc.tuple(startArb, fc.array(actionArb, { maxLength: 40 }));

function checkInvariants(s: TimelineState) {
  expect(Number.isInteger(s.cursor)).toBe(true);
  expect(s.cursor).toBeGreaterThanOrEqual(0);
  expect(s.cursor).toBeLessThanOrEqual(s.steps);
  expect(isValidRun(s.steps, s.opEnds, s.bootEnd)).toBe(true);
  expect(s.playing && s.cursor === s.steps).toBe(false);
  expect(s.carry).toBeGreaterThanOrEqual(0);
  expect(s.carry).toBeLessThan(1);
  expect(SPEEDS).toContain(s.speed);
}

describe('properties', () => {
  it('every reachable state keeps the invariants', () => {
    fc.assert(
      fc.property(scenarioArb, ([start, list]) => {
        let s = start;
        checkInvariants(s);
        for (const a of list) checkInvariants((s = timelineReducer(s, a)));
      }),
    );
  });

  it('stepForward then stepBack restores the cursor when not at the end', () => {
    fc.assert(
      fc.property(scenarioArb, ([start, list]) => {
        const s = list.reduce(timelineReducer, start);
        fc.pre(s.cursor < s.steps);
        expect(run(s, actions.stepForward(), actions.stepBack()).cursor).toBe(s.cursor);
      }),
    );
  });

  it('opForward lands on an op end or the end of the run, strictly later unless already there', () => {
    fc.assert(
      fc.property(scenarioArb, ([start, list]) => {
        const s = list.reduce(timelineReducer, start);
        const next = timelineReducer(s, actions.opForward()).cursor;
        expect(s.opEnds.includes(next) || next === s.steps).toBe(true);
        expect(next > s.cursor || s.cursor === s.steps).toBe(true);
        // Nothing is skipped: no op end lies strictly between.
        expect(s.opEnds.some((e) => e > s.cursor && e < next)).toBe(false);
      }),
    );
  });

  it('opBack lands on an op end or 0, strictly earlier unless at 0', () => {
    fc.assert(
      fc.property(scenarioArb, ([start, list]) => {
        const s = list.reduce(timelineReducer, start);
        const prev = timelineReducer(s, actions.opBack()).cursor;
        expect(s.opEnds.includes(prev) || prev === 0).toBe(true);
        expect(prev < s.cursor || s.cursor === 0).toBe(true);
        expect(s.opEnds.some((e) => e > prev && e < s.cursor)).toBe(false);
      }),
    );
  });

  it('tick never passes the end, and stops playing there', () => {
    fc.assert(
      fc.property(scenarioArb, fc.array(fc.double({ min: 0, max: 10_000, noNaN: true }), { maxLength: 50 }), ([start, list], ticks) => {
        let s = run(list.reduce(timelineReducer, start), actions.play());
        for (const ms of ticks) {
          const before = s.cursor;
          s = timelineReducer(s, actions.tick(ms));
          expect(s.cursor).toBeLessThanOrEqual(s.steps);
          expect(s.cursor).toBeGreaterThanOrEqual(before);
          if (s.cursor === s.steps) expect(s.playing).toBe(false);
        }
      }),
    );
  });

  it('a long enough tick always reaches the end', () => {
    fc.assert(
      fc.property(startArb, (start) => {
        const s = run(start, actions.play(), actions.tick(10_000_000));
        expect(s.steps === 0 || (s.cursor === s.steps && !s.playing)).toBe(true);
      }),
    );
  });

  it('jump is idempotent', () => {
    fc.assert(
      fc.property(scenarioArb, fc.oneof(fc.integer({ min: -100, max: 400 }), fc.double()), ([start, list], n) => {
        const s = list.reduce(timelineReducer, start);
        const once = timelineReducer(s, actions.jump(n));
        expect(timelineReducer(once, actions.jump(n))).toEqual(once);
      }),
    );
  });

  it('the operation of an op end is the operation that ends there (or an earlier one with the same end)', () => {
    fc.assert(
      fc.property(runArb, (r) => {
        r.opEnds.forEach((end, i) => {
          if (end <= r.bootEnd) return;
          const k = opIndexAt(end, r.opEnds, r.bootEnd);
          expect(r.opEnds[k]).toBe(end);
          expect(k).toBeLessThanOrEqual(i);
          const span = stepsOfOp(k, r.opEnds, r.bootEnd)!;
          expect(span.start < end && end <= span.end).toBe(true);
        });
      }),
    );
  });
});

describe('transitionMs', () => {
  it('is the rest length when paused, and 0 under reduced motion whatever the state', () => {
    expect(transitionMs(loaded(4), false, 300)).toBe(300);
    for (const speed of SPEEDS) {
      expect(transitionMs(loaded(4, { speed }), true, 300)).toBe(0);
      expect(transitionMs(loaded(4, { speed, playing: true }), true, 300)).toBe(0);
    }
  });

  it('is 0 after a jump (scrubber, jump, first, last), the rest length again after a step or an operation', () => {
    for (const move of [actions.jump(9), actions.first(), actions.last()]) {
      const jumped = run(loaded(4), move);
      expect(transitionMs(jumped, false, 300)).toBe(0);
      expect(transitionMs(run(jumped, actions.stepBack()), false, 300)).toBe(300);
      expect(transitionMs(run(jumped, actions.opBack()), false, 300)).toBe(300);
    }
  });

  it('ends within one unit of playback, and is 0 when a unit is shorter than three frames', () => {
    for (const speed of SPEEDS) {
      const ms = transitionMs(loaded(4, { speed, playing: true }), false, 300);
      const unit = 1000 / (speed === 'max' ? MAX_RATE : speed);
      expect(ms).toBeLessThan(unit);
      expect(ms).toBeLessThanOrEqual(300);
      if (unit < 50) expect(ms).toBe(0);
      else expect(ms).toBeGreaterThan(0);
    }
    expect(transitionMs(loaded(4, { speed: 'max', playing: true }), false, 300)).toBe(0);
    expect(transitionMs(loaded(4, { speed: 1, playing: true }), false, 300)).toBe(300);
  });
});
