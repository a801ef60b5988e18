// Live mode (docs/live.md): the standard workload with every simulated CPU on its own Web Worker
// over the module's shared memory, the machine's own threads racing with real atomics. A
// recorded run is replayed on the interleaving engine and the two final states compared; a
// short one opens in the player as an ordinary run ("what your machine's threads did"). Needs
// the threaded build: without cross-origin isolation the page says so and why.

import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isCancelled, type BuildInfo, type LiveRequest, type LiveResult, type SimClient } from '../core/client';
import { playerHref } from '../scenario/openInPlayer';
import { browserStorage } from '../scenario/store';
import { currentHref } from '../url/urlState';
import { defaultLiveForm, MAX_REPLAY_OPS, toLiveRequest, type LiveForm } from './liveForm';
import type { FormError } from './sweepForm';
import { simFailure, useCancelOnLeave } from './useCancelOnLeave';

type Live =
  | { status: 'idle' }
  | { status: 'running'; request: LiveRequest }
  | { status: 'done'; result: LiveResult; one: LiveResult | null }
  | { status: 'cancelled' }
  | { status: 'failed'; error: FormError | string };

/** One live run at a time on `client` (and, with `compare`, the same on one worker first). */
function useLive(client: SimClient, poolSize: number) {
  const [state, setState] = useState<Live>({ status: 'idle' });
  const runningRef = useCancelOnLeave(client);
  const run = useCallback(
    async (form: LiveForm) => {
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
    [client, poolSize, runningRef],
  );
  return { state, run, cancel: () => client.cancel() };
}

/** The page; `onGo` follows an address of the app (the player showing the replay). */
export function LiveRunner({ client, info, onGo }: { client: SimClient; info: BuildInfo; onGo: (href: string) => void }) {
  const { t } = useTranslation();
  const poolSize = info.threaded ? info.poolSize : 0;
  const [form, setForm] = useState<LiveForm>(() => defaultLiveForm(Math.max(1, poolSize)));
  const { state, run, cancel } = useLive(client, poolSize);
  const storage = useMemo(() => browserStorage(), []);
  const busy = state.status === 'running';

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

  const error = state.status === 'failed' ? state.error : null;
  const errorText =
    error === null ? null : typeof error === 'string' ? error : t(error.key, { ...error.args, field: error.args?.field ? t(String(error.args.field)) : undefined });
  const wrong = error !== null && typeof error !== 'string' ? error.args?.field : undefined;
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
    <section aria-labelledby="live-heading" className="live">
      <h2 id="live-heading">{t('live.heading')}</h2>
      <p className="intro">{t('live.intro', { workers: poolSize })}</p>
      <form
        className="explore-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy) void run(form);
        }}
      >
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
        <button type="submit" disabled={busy} data-testid="live-run">
          {busy ? t('live.running') : t('live.run')}
        </button>
      </form>
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
      {state.status === 'cancelled' && <p role="status">{t('live.cancelled')}</p>}
      {state.status === 'done' && (
        <LiveFigures result={state.result} one={state.one} onOpen={(text) => void playerHref(currentHref(), text, storage).then(onGo)} />
      )}
    </section>
  );
}

/** A live run's figures, its replay's verdict, and the way into the player. */
function LiveFigures({ result, one, onOpen }: { result: LiveResult; one: LiveResult | null; onOpen: (text: string) => void }) {
  const { t, i18n } = useTranslation();
  const { report } = result;
  const n = (x: number, digits = 0) => x.toLocaleString(i18n.language, { maximumFractionDigits: digits });
  const speedup = one && one.report.opsPerSec > 0 ? report.opsPerSec / one.report.opsPerSec : null;
  const sites = Object.entries(report.retriesPerMillion);
  return (
    <div className="live-figures" data-testid="live-figures">
      <p data-testid="live-total">
        {t('live.total', { ops: n(report.ops), threads: report.threads, rate: n(report.opsPerSec / 1e6, 2) })}
        {speedup !== null && <> {t('live.speedup', { speedup: n(speedup, 2), one: n(one!.report.opsPerSec / 1e6, 2) })}</>}
      </p>
      <table className="data-table">
        <caption>{t('live.perThread')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('live.column.cpu')}</th>
            <th scope="col">{t('live.column.ops')}</th>
            <th scope="col">{t('live.column.seconds')}</th>
            <th scope="col">{t('live.column.rate')}</th>
          </tr>
        </thead>
        <tbody>
          {report.perThread.map((th) => (
            <tr key={th.cpu}>
              <td>cpu{th.cpu}</td>
              <td>{n(th.ops)}</td>
              <td>{n(th.seconds, 3)}</td>
              <td>{n(th.opsPerSec / 1e6, 2)}</td>
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
      {report.replay === null ? (
        <p>{t('live.notRecorded')}</p>
      ) : report.replay.mismatch === null ? (
        <p className="ok" data-testid="live-replay-ok">
          {t('live.replayOk', { steps: n(report.replay.microSteps) })}
        </p>
      ) : (
        <p role="alert" className="error" data-testid="live-replay-mismatch">
          {t('live.replayMismatch', { what: report.replay.mismatch })}
        </p>
      )}
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
