// The geometry explorer: a sweep of cache geometries (object size × page size × flags × CPU
// count) computed by the simulator's worker pool, timed against one worker when the threaded
// build runs, and shown as a chart of one metric and a table of one CPU count.

import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BuildInfo, SimClient, SweepGrid, SweepResult } from '../core/client';
import { sameTable, selectRows } from '../core/sweepRows';
import type { Metric } from '../views/geometryScene';
import { GeometryChart } from './GeometryChart';
import { SweepFormFields } from './SweepFormFields';
import { SweepTable } from './SweepTable';
import { DEFAULT_FORM, toGrid, type FormError, type SweepForm } from './sweepForm';
import { simFailure } from './useCancelOnLeave';

const METRICS: Metric[] = ['objs_per_slab', 'waste', 'waste_pct', 'order', 'cpu_partial_slabs', 'sheaf_capacity'];

interface Timing {
  points: number;
  workers: number;
  pointsPerWorker: number[];
  ms: number;
  /** One-worker time of the same grid, when the threaded build could compare. */
  ms1: number | null;
  identical: boolean | null;
}

/** Timed rounds of one worker against the whole pool. */
const TIMED_ROUNDS = 3;

function medianRun(runs: SweepResult[]): SweepResult {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
}

/** A sweep of the grid a form gives, on `client`'s pool: what it found, the grid, its timing, the
 *  page size charted and the CPU count tabled (kept when the new grid has them), and the form's
 *  error. The first sweep, of the default form, starts once the page is up. */
function useSweep(client: SimClient, info: BuildInfo) {
  const [error, setError] = useState<FormError | null>(null);
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<SweepResult | null>(null);
  const [grid, setGrid] = useState<SweepGrid | null>(null);
  const [timing, setTiming] = useState<Timing | null>(null);
  const [chartPage, setChartPage] = useState(4096);
  const [tableCpus, setTableCpus] = useState(1);

  const run = useCallback(
    async (current: SweepForm) => {
      const parsed = toGrid(current);
      if (!parsed.ok) {
        setError(parsed.error);
        return;
      }
      setError(null);
      setRunning(true);
      try {
        let ms1: number | null = null;
        let identical: boolean | null = null;
        let all: SweepResult;
        if (info.poolSize > 1) {
          // The first run of a grid pays for wasm tier-up and memory growth; then one worker and
          // the whole pool alternate, and the medians are compared.
          await client.sweep(parsed.grid, info.poolSize);
          const one: SweepResult[] = [];
          const pool: SweepResult[] = [];
          for (let round = 0; round < TIMED_ROUNDS; round++) {
            one.push(await client.sweep(parsed.grid, 1));
            pool.push(await client.sweep(parsed.grid, info.poolSize));
          }
          all = medianRun(pool);
          ms1 = medianRun(one).ms;
          identical = one.every((r) => sameTable(r, all)) && pool.every((r) => sameTable(r, all));
        } else {
          all = await client.sweep(parsed.grid, 1);
        }
        setResult(all);
        setGrid(parsed.grid);
        setTiming({ points: all.points, workers: all.workers, pointsPerWorker: all.pointsPerWorker, ms: all.ms, ms1, identical });
        const pages = parsed.grid.page_sizes;
        setChartPage((p) => (pages.includes(p) ? p : pages[0]));
        setTableCpus((c) => (parsed.grid.cpus.includes(c) ? c : parsed.grid.cpus[0]));
      } catch (e) {
        setError(simFailure(e));
      } finally {
        setRunning(false);
      }
    },
    [client, info.poolSize],
  );

  // The first sweep starts once the page is up; StrictMode's mount-unmount-mount cancels the
  // first scheduling so it runs once.
  useEffect(() => {
    let cancelled = false;
    queueMicrotask(() => {
      if (!cancelled) void run(DEFAULT_FORM);
    });
    return () => {
      cancelled = true;
    };
  }, [run]);

  return { error, running, result, grid, timing, chartPage, setChartPage, tableCpus, setTableCpus, run };
}

export function GeometryExplorer({ client, info }: { client: SimClient; info: BuildInfo }) {
  const { t } = useTranslation();
  const [form, setForm] = useState<SweepForm>(DEFAULT_FORM);
  const [metric, setMetric] = useState<Metric>('objs_per_slab');
  const { error, running, result, grid, timing, chartPage, setChartPage, tableCpus, setTableCpus, run } = useSweep(client, info);

  const tableRows = useMemo(
    () => (result ? selectRows(result, chartPage, tableCpus) : []),
    [result, chartPage, tableCpus],
  );

  const errorText = error
    ? t(error.key, {
        ...error.args,
        field: error.args?.field ? t(String(error.args.field), { defaultValue: String(error.args.field) }) : undefined,
      })
    : null;

  return (
    <section aria-labelledby="geometry-heading">
      <h2 id="geometry-heading">{t('geometry.heading')}</h2>
      <p className="intro">{t('geometry.intro')}</p>
      <SweepFormFields form={form} onForm={setForm} running={running} onRun={() => void run(form)} />

      {errorText && (
        <p role="alert" className="error" data-testid="form-error">
          {errorText}
        </p>
      )}

      {timing && <SweepTiming timing={timing} />}

      {result && (
        <>
          <div className="view-controls">
            <label>
              {t('geometry.chartFor')}{' '}
              <select value={chartPage} onChange={(e) => setChartPage(Number(e.target.value))} data-testid="chart-page">
                {(grid?.page_sizes ?? []).map((p) => <option key={p} value={p}>{p / 1024}K</option>)}
              </select>
            </label>
            <label>
              {t('geometry.metric')}{' '}
              <select value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
                {METRICS.map((m) => <option key={m} value={m}>{t(`metric.${m}`)}</option>)}
              </select>
            </label>
            <label>
              {t('geometry.tableFor')}{' '}
              <select value={tableCpus} onChange={(e) => setTableCpus(Number(e.target.value))} data-testid="table-cpus">
                {(grid?.cpus ?? []).map((c) => <option key={c} value={c}>{t('geometry.cpusSuffix')} {c}</option>)}
              </select>
            </label>
          </div>
          <GeometryChart table={result} pageSize={chartPage} metric={metric} />
          <SweepTable key={`${chartPage}-${tableCpus}-${timing?.points}`} rows={tableRows} />
        </>
      )}
    </section>
  );
}

/** How long the sweep took on how many workers, and against one worker when it could compare. */
function SweepTiming({ timing }: { timing: Timing }) {
  const { t } = useTranslation();
  return (
    <div className="timing" data-testid="sweep-status" data-workers={timing.workers} data-points={timing.points}
      data-points-per-worker={timing.pointsPerWorker.join(',')}
      data-speedup={timing.ms1 ? (timing.ms1 / timing.ms).toFixed(3) : ''} data-identical={String(timing.identical)}>
      <p>{t('geometry.timing', { points: timing.points, workers: timing.workers, ms: timing.ms.toFixed(1) })}</p>
      {timing.ms1 !== null ? (
        <p data-testid="speedup">
          {t('geometry.speedup', {
            ms1: timing.ms1.toFixed(1),
            msN: timing.ms.toFixed(1),
            workers: timing.workers,
            speedup: (timing.ms1 / timing.ms).toFixed(2),
          })}{' '}
          {timing.identical ? t('geometry.identical') : t('geometry.different')}
        </p>
      ) : (
        <p>{t('geometry.noSpeedup')}</p>
      )}
    </div>
  );
}
