// The split view: one scenario run two ways, any two of {kernel profiles x allocators}, side by
// side and in lockstep by operation: after operation k, each side shows its own run after its
// own k-th operation (the two runs take different numbers of steps for the same operation).
// Each side runs in a simulator worker of its own, so the visualizer's run is left alone; the
// table under them is `slabscope compare`'s for the whole run.
//
// The address keeps the scenario (as the visualizer's links do), the two ways (`a`, `b`:
// `linux-7.2/slub`) and the operation (`op`).

import { lazy, Suspense, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SimClient, ScenarioError, type RunOutline, type ViewAt } from '../core/client';
import type { OpInfo } from '../core/generated/OpInfo';
import { lessonById, lessonScenario } from '../lessons/load';
import { cursorAfterOp } from '../player/playerState';
import { failureText } from '../scenario/failureText';
import { openingScenario } from '../scenario/opening';
import { isPresetId, presetText } from '../scenario/presets';
import { browserStorage, loadSaved } from '../scenario/store';
import { counterpart, parseVariant, VARIANTS, variantId, variantOf, withVariant, type Variant } from '../scenario/variant';
import { compareAddress, currentHref, currentQuery, parseCompareQuery, parseScenarioQuery, replaceAddress, type ScenarioRef } from '../url/urlState';
import { STILL } from '../views/drawUtil';

const StageView = lazy(() => import('./views/StageView').then((m) => ({ default: m.StageView })));

/** One side: its run's outline, or why it failed; `text` is the scenario it ran. */
type Opened = { text: string } & ({ state: 'failed'; error: string } | { state: 'open'; outline: RunOutline; client: SimClient });
type Side = { state: 'loading' } | Opened;

/** Opens `runText` in a simulator worker of its own, closed when the text changes. `describe`
 *  words a failure (read when it happens). */
function useSide(ready: boolean, runText: string | null, describe: (e: unknown) => string): Side {
  const [opened, setOpened] = useState<Opened | null>(null);
  const latest = useRef(describe);
  useLayoutEffect(() => {
    latest.current = describe;
  });
  useEffect(() => {
    if (!ready || runText === null) return undefined;
    const client = new SimClient();
    let live = true;
    client.open(runText).then(
      (outline) => live && setOpened({ text: runText, state: 'open', outline, client }),
      (e: unknown) => live && setOpened({ text: runText, state: 'failed', error: latest.current(e) }),
    );
    return () => {
      live = false;
      client.dispose();
    };
  }, [ready, runText]);
  return opened && opened.text === runText ? opened : { state: 'loading' };
}

/** Both sides' views after `op` operations; the right side shows the cache the left one does. */
function useViews(a: Side, b: Side, op: number): { a: ViewAt | null; b: ViewAt | null } {
  const [views, setViews] = useState<{ a: ViewAt | null; b: ViewAt | null; of: unknown[] }>({ a: null, b: null, of: [] });
  useEffect(() => {
    let live = true;
    void (async () => {
      const va = a.state === 'open' ? await a.client.view(cursorAfterOp(a.outline, op), { cache: null, slab: null }) : null;
      const cache = va?.snapshot.cache?.name ?? null;
      const vb = b.state === 'open' ? await b.client.view(cursorAfterOp(b.outline, op), { cache, slab: null }) : null;
      if (live) setViews({ a: va, b: vb, of: [a, b, op] });
    })().catch(() => undefined);
    return () => {
      live = false;
    };
  }, [a, b, op]);
  const current = views.of[0] === a && views.of[1] === b && views.of[2] === op;
  return current ? views : { a: null, b: null };
}

/** `slabscope compare`'s table of the whole run (from the left side's worker). */
function useTable(a: Side, b: Side, text: string | null, left: Variant | null, right: Variant | null): string | null {
  const key = text !== null && left && right && a.state === 'open' && b.state === 'open' ? `${variantId(left)} ${variantId(right)} ${text}` : null;
  const [table, setTable] = useState<{ key: string; text: string } | null>(null);
  useEffect(() => {
    if (key === null || a.state !== 'open' || !left || !right || text === null) return undefined;
    let live = true;
    a.client.compare(text, variantId(left), variantId(right)).then(
      (out) => live && setTable({ key, text: out }),
      (e: unknown) => live && setTable({ key, text: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [key, a, left, right, text]);
  return table && table.key === key ? table.text : null;
}

function useVariantLabel(): (v: Variant) => string {
  const { t } = useTranslation();
  return (v) => `${t(`profiles.${v.profile.replace(/\./g, '_')}`)} · ${v.allocator.toUpperCase()}`;
}

export function ComparePage({ ready }: { ready: boolean }) {
  const { t, i18n } = useTranslation();
  const [start] = useState(() => parseCompareQuery(currentQuery()));
  const [scenario, setScenario] = useState<{ text: string; ref: ScenarioRef | { lesson: string } } | null>(null);
  const [a, setA] = useState<Variant | null>(() => parseVariant(start.a));
  const [b, setB] = useState<Variant | null>(() => parseVariant(start.b));
  const [op, setOp] = useState(start.op);

  // The scenario the address names: a lesson's own (a lesson links here), else as the
  // visualizer opens it.
  useEffect(() => {
    let live = true;
    const query = parseScenarioQuery(currentQuery());
    const lesson = lessonById(new URLSearchParams(currentQuery()).get('lesson'));
    if (lesson) {
      const sc = lesson.scenario;
      void ('preset' in sc && isPresetId(sc.preset) ? presetText(sc.preset) : lessonScenario(lesson)).then((text) => {
        if (live && text !== null) setScenario({ text, ref: { lesson: lesson.id } });
      });
      return () => {
        live = false;
      };
    }
    void openingScenario(query, loadSaved(browserStorage())).then((o) => {
      if (!live) return;
      setScenario({ text: o.text, ref: o.preset !== null ? { preset: o.preset } : { preset: null, link: o.from === 'link' ? query.link : null } });
    });
    return () => {
      live = false;
    };
  }, []);

  // Without both ways in the address: the scenario as it is, beside its counterpart.
  const left = useMemo(() => a ?? (scenario ? variantOf(scenario.text) : null), [a, scenario]);
  const right = useMemo(() => b ?? (left ? counterpart(left) : null), [b, left]);
  const describe = (e: unknown) => (e instanceof ScenarioError || e instanceof Error ? failureText(t, (k) => i18n.exists(k), e) : String(e));
  const sideA = useSide(ready, useMemo(() => (scenario && left ? withVariant(scenario.text, left) : null), [scenario, left]), describe);
  const sideB = useSide(ready, useMemo(() => (scenario && right ? withVariant(scenario.text, right) : null), [scenario, right]), describe);
  const ops = sideA.state === 'open' ? sideA.outline.ops : sideB.state === 'open' ? sideB.outline.ops : [];
  const shownOp = Math.min(op, ops.length);
  const views = useViews(sideA, sideB, shownOp);
  const table = useTable(sideA, sideB, scenario?.text ?? null, left, right);

  // The address follows the place.
  useEffect(() => {
    if (!scenario || !left || !right) return;
    replaceAddress(compareAddress(currentHref(), scenario.ref, { a: variantId(left), b: variantId(right), op: shownOp }));
  }, [scenario, left, right, shownOp]);

  return (
    <section className="compare-page" data-testid="compare-page" aria-label={t('compare.heading')}>
      <h2>{t('compare.heading')}</h2>
      <p>{t('compare.intro')}</p>
      <CompareBar left={left} right={right} onLeft={setA} onRight={setB} op={shownOp} ops={ops} onOp={(n) => setOp(Math.max(0, Math.min(ops.length, n)))} />
      <div className="compare-sides">
        <SideView id="a" variant={left} side={sideA} at={views.a} />
        <SideView id="b" variant={right} side={sideB} at={views.b} />
      </div>
      {table !== null && <CompareTable table={table} />}
    </section>
  );
}

/** The comparison's figures, and both /proc/slabinfo files folded under them. */
function CompareTable({ table }: { table: string }) {
  const { t } = useTranslation();
  const at = table.search(/^\/proc\/slabinfo/m);
  const figures = at < 0 ? table : table.slice(0, at);
  const files = at < 0 ? '' : table.slice(at);
  return (
    <details className="compare-table" open>
      <summary>{t('compare.table')}</summary>
      <pre data-testid="compare-table">{figures.trimEnd()}</pre>
      {files && (
        <details>
          <summary>{t('compare.slabinfo')}</summary>
          <pre data-testid="compare-slabinfo">{files.trimEnd()}</pre>
        </details>
      )}
    </details>
  );
}

/** The two ways to run, and the operation both sides have done with its scenario line. */
function CompareBar(props: {
  left: Variant | null;
  right: Variant | null;
  onLeft: (v: Variant | null) => void;
  onRight: (v: Variant | null) => void;
  op: number;
  ops: readonly OpInfo[];
  onOp: (op: number) => void;
}) {
  const { t } = useTranslation();
  const label = useVariantLabel();
  const { op, ops, onOp } = props;
  const line = op > 0 ? ops[op - 1] : null;
  return (
    <>
      <div className="compare-bar">
        {(
          [
            ['a', props.left, props.onLeft],
            ['b', props.right, props.onRight],
          ] as const
        ).map(([id, v, set]) => (
          <label key={id}>
            {t(id === 'a' ? 'compare.left' : 'compare.right')}{' '}
            <select value={v ? variantId(v) : ''} data-testid={`compare-${id}`} onChange={(e) => set(parseVariant(e.target.value))}>
              {VARIANTS.map((x) => (
                <option key={variantId(x)} value={variantId(x)}>
                  {label(x)}
                </option>
              ))}
            </select>
          </label>
        ))}
        <span className="compare-steps" role="group" aria-label={t('compare.ops')}>
          <button type="button" onClick={() => onOp(0)} disabled={op === 0} aria-label={t('compare.first')} data-testid="compare-first">
            |◀
          </button>
          <button type="button" onClick={() => onOp(op - 1)} disabled={op === 0} aria-label={t('compare.prev')} data-testid="compare-prev">
            ◀
          </button>
          <span data-testid="compare-op">{t('compare.op', { op, ops: ops.length })}</span>
          <button type="button" onClick={() => onOp(op + 1)} disabled={op >= ops.length} aria-label={t('compare.next')} data-testid="compare-next">
            ▶
          </button>
          <button type="button" onClick={() => onOp(ops.length)} disabled={op >= ops.length} aria-label={t('compare.last')} data-testid="compare-last">
            ▶|
          </button>
        </span>
      </div>
      <p className="compare-line" data-testid="compare-line">
        {line ? t('compare.line', { line: line.line, text: line.text }) : t('compare.boot')}
      </p>
    </>
  );
}

/** One side: its kernel and allocator, and its stage after the operation. */
function SideView({ id, variant, side, at }: { id: 'a' | 'b'; variant: Variant | null; side: Side; at: ViewAt | null }) {
  const { t } = useTranslation();
  const label = useVariantLabel();
  return (
    <div className="compare-side" data-testid={`compare-side-${id}`}>
      <h3>{variant ? label(variant) : ''}</h3>
      {side.state === 'loading' && <p role="status">{t('build.loading')}</p>}
      {side.state === 'failed' && (
        <p role="alert" className="error" data-testid={`compare-error-${id}`}>
          {side.error}
        </p>
      )}
      {side.state === 'open' && at && (
        <>
          <p className="compare-cursor" data-testid={`compare-cursor-${id}`}>
            {t('compare.cursor', { cursor: at.snapshot.cursor, steps: side.outline.steps })}
          </p>
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <StageView snapshot={at.snapshot} motion={STILL} />
          </Suspense>
        </>
      )}
    </div>
  );
}
