// The interleaving explorer: every schedule of a scenario's first `concurrent` block within
// bounds (forced switches per schedule, schedules at most), run by the simulator's worker and
// grouped by outcome (`slabscope explore`); any group's first schedule opens as an ordinary run
// in the player. The scenario is the person's draft (read from the browser's storage, never
// changed here) or one of the examples.

import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ExploreReport, SimClient } from '../core/client';
import { playerHref } from '../scenario/openInPlayer';
import { browserStorage, savedDraft, type ScenarioStorage } from '../scenario/store';
import { currentHref } from '../url/urlState';
import { ExploreGroups } from './ExploreGroups';
import { defaultForm, EXAMPLE_IDS, MAX_PREEMPTIONS, MAX_SCHEDULES, toBounds, type Bounds, type ExploreForm, type Source } from './exploreForm';
import { exampleText } from './interleavingExamples';
import type { FormError } from './sweepForm';
import { scenarioFailure, shownFailure, useCancelOnLeave } from './useCancelOnLeave';

type Exploration =
  | { status: 'idle' }
  | { status: 'running'; bounds: Bounds; explored: number }
  | { status: 'done'; report: ExploreReport; text: string }
  | { status: 'cancelled' }
  | { status: 'failed'; error: FormError | string };

/** One exploration at a time on `client`; one still running when the page goes is cancelled, so
 *  the player finds the simulator free. */
function useExploration(client: SimClient, storage: ScenarioStorage | null) {
  const { t, i18n } = useTranslation();
  const [state, setState] = useState<Exploration>({ status: 'idle' });
  const runningRef = useCancelOnLeave(client);

  const run = useCallback(
    async (form: ExploreForm) => {
      const parsed = toBounds(form);
      if (!parsed.ok) {
        setState({ status: 'failed', error: parsed.error });
        return;
      }
      const text = form.source === 'draft' ? savedDraft(storage) : await exampleText(form.source);
      if (text === null) {
        setState({ status: 'failed', error: { key: 'interleavings.noDraft' } });
        return;
      }
      const { bounds } = parsed;
      setState({ status: 'running', bounds, explored: 0 });
      runningRef.current = true;
      try {
        const report = await client.explore(text, bounds, (explored) => setState({ status: 'running', bounds, explored }));
        setState({ status: 'done', report, text });
      } catch (e) {
        const error = scenarioFailure(e, t, (k) => i18n.exists(k));
        setState(error === null ? { status: 'cancelled' } : { status: 'failed', error });
      } finally {
        runningRef.current = false;
      }
    },
    [client, storage, t, i18n, runningRef],
  );
  return { state, run, cancel: () => client.cancel() };
}

/** The page; `onGo` follows an address of the app (the visualizer showing a replay). */
export function InterleavingExplorer({ client, onGo }: { client: SimClient; onGo: (href: string) => void }) {
  const { t } = useTranslation();
  const storage = useMemo(() => browserStorage(), []);
  const [form, setForm] = useState<ExploreForm>(() => defaultForm(savedDraft(storage)));
  const { state, run, cancel } = useExploration(client, storage);
  const busy = state.status === 'running';

  const { text: errorText, field: wrong } = shownFailure(t, state.status === 'failed' ? state.error : null);

  return (
    <section aria-labelledby="interleavings-heading" className="interleavings">
      <h2 id="interleavings-heading">{t('interleavings.heading')}</h2>
      <p className="intro">{t('interleavings.intro')}</p>
      <form
        className="explore-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy) void run(form);
        }}
      >
        <label>
          {t('interleavings.source')}{' '}
          <select value={form.source} onChange={(e) => setForm({ ...form, source: e.target.value as Source })} data-testid="explore-source">
            <option value="draft">{t('interleavings.draft')}</option>
            {EXAMPLE_IDS.map((id) => (
              <option key={id} value={id}>
                {t(`interleavings.example.${id}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('interleavings.preemptions', { max: MAX_PREEMPTIONS })}{' '}
          <input
            inputMode="numeric"
            value={form.preemptions}
            onChange={(e) => setForm({ ...form, preemptions: e.target.value })}
            aria-invalid={wrong === 'interleavings.preemptionsField' || undefined}
            aria-describedby={wrong === 'interleavings.preemptionsField' ? 'explore-error' : undefined}
            data-testid="explore-preemptions"
          />
        </label>
        <label>
          {t('interleavings.maxSchedules', { max: MAX_SCHEDULES.toLocaleString('en') })}{' '}
          <input
            inputMode="numeric"
            value={form.maxSchedules}
            onChange={(e) => setForm({ ...form, maxSchedules: e.target.value })}
            aria-invalid={wrong === 'interleavings.maxSchedulesField' || undefined}
            aria-describedby={wrong === 'interleavings.maxSchedulesField' ? 'explore-error' : undefined}
            data-testid="explore-max"
          />
        </label>
        <button type="submit" disabled={busy} data-testid="explore-run">
          {busy ? t('interleavings.running') : t('interleavings.run')}
        </button>
      </form>

      {errorText !== null && (
        <p role="alert" className="error" id="explore-error" data-testid="explore-error">
          {errorText}
        </p>
      )}
      {state.status === 'running' && <ExploreProgress explored={state.explored} max={state.bounds.maxSchedules} onCancel={cancel} />}
      {state.status === 'cancelled' && <p role="status">{t('interleavings.cancelled')}</p>}
      {state.status === 'done' && <ExploreGroups report={state.report} text={state.text} onOpen={(replay) => void playerHref(currentHref(), replay, storage).then(onGo)} />}
    </section>
  );
}

/** How many schedules have run, and a Cancel that stops the search (SimClient.cancel). */
function ExploreProgress({ explored, max, onCancel }: { explored: number; max: number; onCancel: () => void }) {
  const { t, i18n } = useTranslation();
  return (
    <div role="status" className="running-status" data-testid="explore-running">
      <span>{t('interleavings.running')}</span>{' '}
      <progress max={max} value={explored} aria-label={t('interleavings.progressLabel')} />{' '}
      <span>{t('interleavings.progress', { schedules: explored.toLocaleString(i18n.language), max: max.toLocaleString(i18n.language) })}</span>{' '}
      <button type="button" onClick={onCancel} data-testid="explore-cancel">
        {t('interleavings.cancel')}
      </button>
    </div>
  );
}
