// Live mode (docs/live.md): the standard workload, or the concurrent blocks of a scenario (the
// editor's draft or an example), with every simulated CPU on its own Web Worker over the
// module's shared memory, the machine's own threads racing with real atomics. A recorded run is
// replayed on the interleaving engine and the states compared; a scenario's run, or a short
// workload's, opens in the player as an ordinary run ("what your machine's threads did"). Needs
// the threaded build: without cross-origin isolation the page says so and why.

import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isCancelled, type BuildInfo, type LiveFileReport, type LiveRequest, type LiveResult, type SimClient } from '../core/client';
import type { LiveReport } from '../core/generated/LiveReport';
import { playerHref } from '../scenario/openInPlayer';
import { browserStorage, savedDraft, type ScenarioStorage } from '../scenario/store';
import { currentHref } from '../url/urlState';
import { defaultLiveForm, MAX_REPLAY_OPS, toLiveRequest, type LiveForm, type LiveSource } from './liveForm';
import type { FormError } from './sweepForm';
import { scenarioFailure, shownFailure, simFailure, useCancelOnLeave } from './useCancelOnLeave';

/** The text of an example scenario, fetched when it runs (each is its own small chunk). */
const examples: Record<Exclude<LiveSource, 'workload' | 'draft'>, () => Promise<{ default: string }>> = {
  'lesson-14': () => import('../../lessons/14-remote-free-race/scenario.slab?raw'),
};

type Live =
  | { status: 'idle' }
  | { status: 'running'; request: LiveRequest }
  | { status: 'runningScenario' }
  | { status: 'done'; result: LiveResult; one: LiveResult | null }
  | { status: 'doneScenario'; report: LiveFileReport }
  | { status: 'cancelled' }
  | { status: 'failed'; error: FormError | string };

/** One live run at a time on `client` (and, with `compare`, the same on one worker first). */
function useLive(client: SimClient, poolSize: number, storage: ScenarioStorage | null) {
  const { t, i18n } = useTranslation();
  const [state, setState] = useState<Live>({ status: 'idle' });
  const runningRef = useCancelOnLeave(client);
  const run = useCallback(
    async (form: LiveForm) => {
      if (form.source !== 'workload') {
        const text = form.source === 'draft' ? savedDraft(storage) : (await examples[form.source]()).default;
        if (text === null) {
          setState({ status: 'failed', error: { key: 'interleavings.noDraft' } });
          return;
        }
        setState({ status: 'runningScenario' });
        runningRef.current = true;
        try {
          setState({ status: 'doneScenario', report: await client.liveScenario(text) });
        } catch (e) {
          const error = scenarioFailure(e, t, (k) => i18n.exists(k));
          setState(error === null ? { status: 'cancelled' } : { status: 'failed', error });
        } finally {
          runningRef.current = false;
        }
        return;
      }
      const parsed = toLiveRequest(form, poolSize);
      if (!parsed.ok) {
        setState({ status: 'failed', error: parsed.error });
        return;
      }
      const { request } = parsed;
      setState({ status: 'running', request });
      runningRef.current = true;
      try {
        // The same request on one worker, recorded the same way: the speedup compares like with
        // like. A short run first touches the memory both will use (the module's memory grows
        // on a first run), so neither pays for that.
        const compare = form.compare && request.threads > 1;
        if (compare) await client.live({ ...request, threads: 1, ops: Math.min(request.ops, 20_000), record: false });
        const one = compare ? await client.live({ ...request, threads: 1 }) : null;
        const result = await client.live(request);
        setState({ status: 'done', result, one });
      } catch (e) {
        if (isCancelled(e)) setState({ status: 'cancelled' });
        else setState({ status: 'failed', error: simFailure(e) });
      } finally {
        runningRef.current = false;
      }
    },
    [client, poolSize, runningRef, storage, t, i18n],
  );
  return { state, run, cancel: () => client.cancel() };
}

/** The page; `onGo` follows an address of the app (the player showing the replay). */
export function LiveRunner({ client, info, onGo }: { client: SimClient; info: BuildInfo; onGo: (href: string) => void }) {
  const { t } = useTranslation();
  const poolSize = info.threaded ? info.poolSize : 0;
  const [form, setForm] = useState<LiveForm>(() => defaultLiveForm(Math.max(1, poolSize)));
  const storage = useMemo(() => browserStorage(), []);
  const { state, run, cancel } = useLive(client, poolSize, storage);
  const busy = state.status === 'running' || state.status === 'runningScenario';
  const open = (text: string) => void playerHref(currentHref(), text, storage).then(onGo);

  if (!info.threaded) {
    const reason = info.fallback ? t(`build.${info.fallback.reason}`, { error: 'error' in info.fallback ? info.fallback.error : '' }) : '';
    return (
      <section aria-labelledby="live-heading" className="live">
        <h2 id="live-heading">{t('live.heading')}</h2>
        <p role="alert" className="error" data-testid="live-unavailable">
          {t('live.unavailable', { reason })}
        </p>
        <p>{t('live.unavailableHow')}</p>
      </section>
    );
  }

  const { text: errorText, field: wrong } = shownFailure(t, state.status === 'failed' ? state.error : null);

  return (
    <section aria-labelledby="live-heading" className="live">
      <h2 id="live-heading">{t('live.heading')}</h2>
      <p className="intro">{t('live.intro', { workers: poolSize })}</p>
      <LiveFormView form={form} setForm={setForm} poolSize={poolSize} busy={busy} wrong={wrong} onRun={() => void run(form)} />
      {errorText !== null && (
        <p role="alert" className="error" id="live-error" data-testid="live-error">
          {errorText}
        </p>
      )}
      {state.status === 'running' && (
        <div role="status" className="running-status" data-testid="live-running">
          <span>{t('live.runningOn', { threads: state.request.threads, ops: state.request.ops.toLocaleString() })}</span>{' '}
          <button type="button" onClick={cancel} data-testid="live-cancel">
            {t('interleavings.cancel')}
          </button>
        </div>
      )}
      {state.status === 'runningScenario' && (
        <div role="status" className="running-status" data-testid="live-running">
          <span>{t('live.runningScenario')}</span>{' '}
          <button type="button" onClick={cancel} data-testid="live-cancel">
            {t('interleavings.cancel')}
          </button>
        </div>
      )}
      {state.status === 'cancelled' && <p role="status">{t('live.cancelled')}</p>}
      {state.status === 'done' && <LiveFigures result={state.result} one={state.one} onOpen={open} />}
      {state.status === 'doneScenario' && <ScenarioFigures report={state.report} onOpen={open} />}
    </section>
  );
}

/** The form: what runs and, for the workload, how. */
function LiveFormView({
  form,
  setForm,
  poolSize,
  busy,
  wrong,
  onRun,
}: {
  form: LiveForm;
  setForm: (form: LiveForm) => void;
  poolSize: number;
  busy: boolean;
  wrong: unknown;
  onRun: () => void;
}) {
  const { t } = useTranslation();
  const workload = form.source === 'workload';
  const field = (name: keyof LiveForm, key: string, testid: string) => (
    <input
      inputMode="numeric"
      value={String(form[name])}
      onChange={(e) => setForm({ ...form, [name]: e.target.value })}
      aria-invalid={wrong === key || undefined}
      aria-describedby={wrong === key ? 'live-error' : undefined}
      data-testid={testid}
    />
  );

  return (
    <form
      className="explore-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) onRun();
      }}
    >
      <label>
        {t('live.source')}{' '}
        <select value={form.source} onChange={(e) => setForm({ ...form, source: e.target.value as LiveSource })} data-testid="live-source">
          <option value="workload">{t('live.sourceWorkload')}</option>
          <option value="draft">{t('interleavings.draft')}</option>
          <option value="lesson-14">{t('live.sourceLesson14')}</option>
        </select>
      </label>
      {!workload && <p className="hint">{t('live.scenarioHow', { workers: poolSize })}</p>}
      {workload && (
        <>
          <label>
            {t('live.threads', { max: poolSize })} {field('threads', 'live.threadsField', 'live-threads')}
          </label>
          <label>
            {t('live.ops')} {field('ops', 'live.opsField', 'live-ops')}
          </label>
          <label>
            {t('live.seed')} {field('seed', 'live.seedField', 'live-seed')}
          </label>
          <label>
            {t('live.frees')}{' '}
            <select value={form.frees} onChange={(e) => setForm({ ...form, frees: e.target.value as LiveForm['frees'] })} data-testid="live-frees">
              <option value="remote">{t('live.freesRemote')}</option>
              <option value="local">{t('live.freesLocal')}</option>
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={form.record} onChange={(e) => setForm({ ...form, record: e.target.checked })} data-testid="live-record" /> {t('live.record')}
          </label>
          <label className="check">
            <input type="checkbox" checked={form.compare} onChange={(e) => setForm({ ...form, compare: e.target.checked })} data-testid="live-compare" /> {t('live.compare')}
          </label>
        </>
      )}
      <button type="submit" disabled={busy} data-testid="live-run">
        {busy ? t('live.running') : t('live.run')}
      </button>
    </form>
  );
}

/** A live workload run's figures, its replay's verdict, and the way into the player. */
function LiveFigures({ result, one, onOpen }: { result: LiveResult; one: LiveResult | null; onOpen: (text: string) => void }) {
  const { t, i18n } = useTranslation();
  const { report } = result;
  const n = (x: number, digits = 0) => x.toLocaleString(i18n.language, { maximumFractionDigits: digits });
  const speedup = one && one.report.opsPerSec > 0 ? report.opsPerSec / one.report.opsPerSec : null;
  return (
    <div className="live-figures" data-testid="live-figures">
      <p data-testid="live-total">
        {t('live.total', { ops: n(report.ops), threads: report.threads, rate: n(report.opsPerSec / 1e6, 2) })}
        {speedup !== null && <> {t('live.speedup', { speedup: n(speedup, 2), one: n(one!.report.opsPerSec / 1e6, 2) })}</>}
      </p>
      <ReportFigures report={report} />
      {result.scenario !== null ? (
        <button type="button" onClick={() => onOpen(result.scenario!)} data-testid="live-open">
          {t('live.open')}
        </button>
      ) : (
        result.scenarioError !== null && (
          <p data-testid="live-cannot-open">
            {report.ops > MAX_REPLAY_OPS ? t('live.tooLongToOpen', { max: n(MAX_REPLAY_OPS) }) : t('live.cannotOpen', { why: result.scenarioError })}
          </p>
        )
      )}
    </div>
  );
}

/** A scenario's live run: each block's figures and verdict, and the way into the player. */
function ScenarioFigures({ report, onOpen }: { report: LiveFileReport; onOpen: (text: string) => void }) {
  const { t, i18n } = useTranslation();
  const n = (x: number, digits = 0) => x.toLocaleString(i18n.language, { maximumFractionDigits: digits });
  return (
    <div className="live-figures" data-testid="live-scenario-figures">
      {report.blocks.map((b) => (
        <section key={b.line} aria-label={t('live.block', { line: b.line, threads: b.report.threads, ops: n(b.report.ops) })}>
          <h3>{t('live.block', { line: b.line, threads: b.report.threads, ops: n(b.report.ops) })}</h3>
          <ReportFigures report={b.report} block />
        </section>
      ))}
      <button type="button" onClick={() => onOpen(report.replay)} data-testid="live-open">
        {t('live.open')}
      </button>
    </div>
  );
}

/** The figures of one live run or of a scenario's block: per thread, retries by site, locks,
 *  the replay. A block's threads run a few operations each, in less time than the workers take
 *  to start, so its rows give no times. */
function ReportFigures({ report, block = false }: { report: LiveReport; block?: boolean }) {
  const { t, i18n } = useTranslation();
  const n = (x: number, digits = 0) => x.toLocaleString(i18n.language, { maximumFractionDigits: digits });
  // Seconds with three significant digits: a short block's threads take microseconds.
  const secs = (x: number) => x.toLocaleString(i18n.language, { maximumSignificantDigits: 3 });
  const sites = Object.entries(report.retriesPerMillion);
  return (
    <>
      <table className="data-table">
        <caption>{t('live.perThread')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('live.column.cpu')}</th>
            <th scope="col">{t('live.column.ops')}</th>
            {!block && <th scope="col">{t('live.column.seconds')}</th>}
            {!block && <th scope="col">{t('live.column.rate')}</th>}
          </tr>
        </thead>
        <tbody>
          {report.perThread.map((th) => (
            <tr key={th.cpu}>
              <td>cpu{th.cpu}</td>
              <td>{n(th.ops)}</td>
              {!block && <td>{secs(th.seconds)}</td>}
              {!block && <td>{n(th.opsPerSec / 1e6, 2)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      <table className="data-table" data-testid="live-retries">
        <caption>{t('live.retries', { total: n(report.retries) })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('live.column.site')}</th>
            <th scope="col">{t('live.column.perMillion')}</th>
          </tr>
        </thead>
        <tbody>
          {sites.length === 0 ? (
            <tr>
              <td colSpan={2}>{t('live.noRetries')}</td>
            </tr>
          ) : (
            sites.map(([site, rate]) => (
              <tr key={site}>
                <td>
                  <code>{site}</code>
                </td>
                <td>{n(rate ?? 0, 1)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <p>{t('live.locks', { taken: n(report.listLockTaken), waits: n(report.listLockWaits), tid: n(report.tidMismatches), steps: n(report.microSteps) })}</p>
      {report.replay !== null && report.replay.epochs > 1 && <p data-testid="live-epochs">{t('live.epochs', { epochs: n(report.replay.epochs) })}</p>}
      {report.replay !== null && report.replay.violations.length > 0 && (
        <p role="alert" className="error" data-testid="live-violations">
          {t('live.violations', { what: report.replay.violations.join('; ') })}
        </p>
      )}
      {report.replay === null ? (
        <p>{t('live.notRecorded')}</p>
      ) : report.replay.mismatch === null ? (
        <p className="ok" data-testid="live-replay-ok">
          {t(block ? 'live.replayOkBlock' : 'live.replayOk', { steps: n(report.replay.microSteps) })}
        </p>
      ) : (
        <p role="alert" className="error" data-testid="live-replay-mismatch">
          {t('live.replayMismatch', { what: report.replay.mismatch })}
        </p>
      )}
    </>
  );
}
