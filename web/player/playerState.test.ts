import { describe, expect, it } from 'vitest';
import type { RunOutline } from '../core/client';
import { actions } from '../timeline/timeline';
import { addressedScenario, cursorAfterOp, FIRST_OP, opsDone, initialPlayer, isPreviousRun, playerActions as a, playerReducer, savedRun, wantedRun, type PlayerAction, type PlayerState } from './playerState';

/** A run of `steps` steps whose operations end at `ends`. */
function outline(steps: number, ends: number[] = [steps]): RunOutline {
  return { steps, ops: ends.map((end) => ({ end, text: `op ${end}` })), ops_start: 0, allocator: 'Slub', cpus: 2, nodes: 1, prints: [], blocks: [] } as unknown as RunOutline;
}

const run = (state: PlayerState, ...list: PlayerAction[]) => list.reduce(playerReducer, state);
const A = { text: 'slabscope-scenario 1\n# A\n', preset: null };
const B = { text: 'slabscope-scenario 1\n# B\n', preset: null };
const preset = { text: 'slabscope-scenario 1\n# preset\n', preset: 'bulk-free' as const };

/** The state after a page opened `A` from a link at `step` and its run of 50 steps opened. */
function openedA(start = {}): PlayerState {
  const asked = run(initialPlayer(start), a.opening(A, undefined, null));
  return run(asked, a.runOpened(asked.attempts, outline(50, [10, 50])));
}

describe('the player reducer', () => {
  it('opens the page at the step, view, cache and followed object of its address', () => {
    const start = { step: 40, view: 'slab' as const, cache: 'kmalloc-128', follow: { kind: 'obj' as const, address: '0xffff888000001000' } };
    const s = openedA(start);
    expect(s.timeline.cursor).toBe(40);
    expect(s.timeline.steps).toBe(50);
    expect(s).toMatchObject({ view: 'slab', cache: 'kmalloc-128', follow: start.follow, run: { status: 'open' }, shown: { scenario: A } });
    expect(initialPlayer({ view: 'files' }).view).toBe('files');
  });

  it("takes the saved run's step only when the address names none", () => {
    const saved = run(initialPlayer(), a.opening(A, 17, null));
    expect(run(saved, a.runOpened(saved.attempts, outline(50))).timeline.cursor).toBe(17);
    const linked = run(initialPlayer({ step: 3 }), a.opening(A, 17, null));
    expect(run(linked, a.runOpened(linked.attempts, outline(50))).timeline.cursor).toBe(3);
    // A step past the end lands on the end.
    const far = run(initialPlayer({ step: 900 }), a.opening(A, undefined, null));
    expect(run(far, a.runOpened(far.attempts, outline(50))).timeline.cursor).toBe(50);
  });

  it('runs a chosen scenario from step 0 and drops the old selection once it opens', () => {
    let s = run(openedA({ step: 30, cache: 'kmalloc-64' }), a.selectSlab(8), a.follow({ kind: 'page', pfn: 3 }), a.choose(preset));
    expect(wantedRun(s)).toEqual({ attempt: s.attempts, text: preset.text });
    // While it opens, the old run stays whole: its selection and its steps.
    expect(s).toMatchObject({ cache: 'kmalloc-64', slab: 8, shown: { scenario: A } });
    expect(s.timeline.cursor).toBe(30);
    s = run(s, a.runOpened(s.attempts, outline(7)));
    expect(s).toMatchObject({ cache: null, slab: null, follow: null, shown: { scenario: preset } });
    expect(s.timeline).toMatchObject({ cursor: 0, steps: 7 });
  });

  it('keeps the previous run on screen, steps and all, when the next one fails', () => {
    let s = run(openedA({ step: 30 }), a.timeline(actions.play()), a.choose(B));
    const attempt = s.attempts;
    s = run(s, a.runFailed(attempt, new Error('cpu7: no such CPU')));
    expect(s.run).toMatchObject({ status: 'failed', error: { message: 'cpu7: no such CPU' } });
    expect(isPreviousRun(s)).toBe(true);
    expect(s.shown?.scenario).toEqual(A);
    expect(s.timeline).toMatchObject({ cursor: 30, steps: 50, playing: false });
    // The address and the saved run are the run shown, never the one that failed.
    expect(addressedScenario(s)).toEqual(A);
    expect(savedRun(s)).toEqual({ text: A.text, step: 30, preset: null });
    // It still steps.
    expect(run(s, a.timeline(actions.stepForward())).timeline.cursor).toBe(31);
    // Fixed, the next run replaces it.
    s = run(s, a.choose(B));
    s = run(s, a.runOpened(s.attempts, outline(4)));
    expect(isPreviousRun(s)).toBe(false);
    expect(s).toMatchObject({ run: { status: 'open' }, shown: { scenario: B } });
  });

  it('saves nothing, and addresses the scenario asked for, when the first run fails', () => {
    const asked = run(initialPlayer({ step: 5 }), a.opening(B, undefined, null));
    const s = run(asked, a.runFailed(asked.attempts, new Error('no')));
    expect(s.shown).toBeNull();
    expect(isPreviousRun(s)).toBe(false);
    expect(savedRun(s)).toBeNull();
    expect(addressedScenario(s)).toEqual(B);
    // A preset picked then opens as usual.
    const p = run(s, a.choose(preset));
    expect(run(p, a.runOpened(p.attempts, outline(9))).shown?.scenario).toEqual(preset);
  });

  it('ignores the answer of a run no longer asked for', () => {
    let s = run(openedA(), a.choose(B));
    const first = s.attempts;
    s = run(s, a.choose(preset));
    expect(run(s, a.runOpened(first, outline(3)))).toBe(s);
    expect(run(s, a.runFailed(first, new Error('late')))).toBe(s);
    expect(run(openedA(), a.runOpened(1, outline(3))).shown?.outline.steps).toBe(50);
  });

  it('opens the run again after a restart, at the step it was at, keeping the selection', () => {
    let s = run(openedA({ step: 12, cache: 'kmalloc-32' }), a.timeline(actions.stepForward()));
    s = run(s, a.restarted());
    expect(s.run.status).toBe('opening');
    expect(s.shown?.scenario).toEqual(A);
    s = run(s, a.runOpened(s.attempts, outline(50, [10, 50])));
    expect(s.timeline.cursor).toBe(13);
    expect(s.cache).toBe('kmalloc-32');
    expect(run(initialPlayer(), a.restarted())).toEqual(initialPlayer());
  });

  it('lands after the first operation when the page names no step (the bare address)', () => {
    const asked = run(initialPlayer(), a.opening(A, FIRST_OP, null));
    expect(run(asked, a.runOpened(asked.attempts, outline(50, [10, 50]))).timeline.cursor).toBe(10);
    // In a concurrent block the operation that ends first need not be the first to start.
    const racing = run(initialPlayer(), a.opening(A, FIRST_OP, null));
    expect(run(racing, a.runOpened(racing.attempts, outline(50, [30, 10, 50]))).timeline.cursor).toBe(10);
    // A step in the address wins.
    const stepped = run(initialPlayer({ step: 3 }), a.opening(A, FIRST_OP, null));
    expect(run(stepped, a.runOpened(stepped.attempts, outline(50, [10, 50]))).timeline.cursor).toBe(3);
  });

  it('lands another kernel\'s run after as many operations as are done, keeping the cache', () => {
    let s = run(openedA({ step: 12, cache: 'big' }));
    expect(opsDone(s.shown!.outline, s.timeline.cursor)).toBe(1);
    s = run(s, a.chooseAtOp(B, opsDone(s.shown!.outline, s.timeline.cursor)));
    // B takes more steps for the same operations: it lands at the end of its first one.
    s = run(s, a.runOpened(s.attempts, outline(90, [25, 90])));
    expect(s.timeline.cursor).toBe(25);
    expect(s.cache).toBe('big');
    expect(s.shown?.scenario).toEqual(B);
    // Ends out of order (a concurrent block): after one operation is the first to end.
    expect(cursorAfterOp(outline(50, [30, 10, 50]), 1)).toBe(10);
    expect(cursorAfterOp(outline(50, [30, 10, 50]), 0)).toBe(0);
    expect(cursorAfterOp(outline(50, [30, 10, 50]), 9)).toBe(50);
  });

  it('keeps a step taken while the run opens again after a restart', () => {
    let s = run(openedA({ step: 12 }), a.restarted());
    // The old view stays on screen and steps while the new worker runs the scenario again.
    s = run(s, a.timeline(actions.stepForward()), a.timeline(actions.stepForward()));
    s = run(s, a.runOpened(s.attempts, outline(50, [10, 50])));
    expect(s.timeline.cursor).toBe(14);
    // A run asked for afterwards lands where it is asked to, as before.
    s = run(s, a.choose(B));
    s = run(s, a.runOpened(s.attempts, outline(5)));
    expect(s.timeline.cursor).toBe(0);
  });

  it("moves to a lesson anchor in the run on screen, or runs the anchor's scenario there", () => {
    let s = run(openedA(), a.selectCache('kmalloc-64'), a.follow({ kind: 'page', pfn: 2 }));
    s = run(s, a.show(A, { cursor: 19, view: 'cpu', cache: null }));
    expect(s).toMatchObject({ run: { status: 'open' }, view: 'cpu', cache: null, follow: null });
    expect(s.timeline.cursor).toBe(19);
    // Another scenario (an exercise's variant): run, landing on the anchor, its cache kept.
    s = run(s, a.show(B, { cursor: 11, view: 'slab', cache: 'kmalloc-128' }));
    expect(wantedRun(s)?.text).toBe(B.text);
    s = run(s, a.runOpened(s.attempts, outline(20)));
    expect(s).toMatchObject({ view: 'slab', cache: 'kmalloc-128', shown: { scenario: B } });
    expect(s.timeline.cursor).toBe(11);
  });

  it('keeps the focused view and the cache as the person sets them', () => {
    let s = run(openedA(), a.focusView('files'));
    expect(s).toMatchObject({ view: 'files' });
    s = run(s, a.focusView('buddy'));
    expect(s).toMatchObject({ view: 'buddy' });
    s = run(s, a.selectSlab(4), a.selectCache('kmalloc-8'));
    expect(s).toMatchObject({ cache: 'kmalloc-8', slab: null });
    expect(run(s, a.focusView('buddy'))).toBe(s);
  });

  it('keeps a link error until dismissed or another scenario is chosen', () => {
    const error = { key: 'link.corrupt' as const, args: {} };
    const s = run(initialPlayer(), a.opening(preset, undefined, error));
    expect(s.linkError).toEqual(error);
    expect(run(s, a.dismissLinkError()).linkError).toBeNull();
    expect(run(s, a.choose(A)).linkError).toBeNull();
  });

  it('brings back the run on screen when the person cancels the next, at its step', () => {
    let s = run(openedA(), a.timeline(actions.jump(30)), a.choose(B));
    const asked = s.attempts;
    s = run(s, a.runCancelled(asked));
    expect(s).toMatchObject({ scenario: A, run: { status: 'open' }, cancelled: true, shown: { scenario: A } });
    expect(s.timeline.cursor).toBe(30);
    expect(wantedRun(s)).toBeNull();
    expect(savedRun(s)).toEqual({ text: A.text, step: 30, preset: null });
    // A stale answer for the cancelled attempt changes nothing.
    expect(run(s, a.runOpened(asked, outline(99)))).toBe(s);
    expect(run(s, a.dismissCancelled()).cancelled).toBe(false);
    expect(run(s, a.choose(B)).cancelled).toBe(false);
  });

  it('keeps a cancelled scenario asked for, unrun, when no run was on screen, and runs it when asked again', () => {
    let s = run(initialPlayer(), a.opening(B, 40, null));
    s = run(s, a.runCancelled(s.attempts));
    expect(s).toMatchObject({ scenario: B, run: { status: 'cancelled' }, cancelled: true, shown: null });
    expect(wantedRun(s)).toBeNull();
    expect(savedRun(s)).toBeNull();
    s = run(s, a.choose(B));
    expect(wantedRun(s)).toEqual({ attempt: s.attempts, text: B.text });
  });
});
