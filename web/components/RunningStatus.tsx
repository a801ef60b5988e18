// While a scenario runs: how far the simulator has got, and a Cancel button that stops it.
// A long run (a `repeat 1000000` line, say) reports its progress a few times a second once it
// has lasted a moment (simWorker.ts); a short one ends before it says anything. Cancel stops
// the run wherever it is by replacing the simulator's worker (SimClient.cancel): the open then
// fails as cancelled, and the player's reducer decides what is shown (playerState.ts).

import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import type { SimClient } from '../core/client';

export function RunningStatus({ client }: { client: SimClient }) {
  const { t, i18n } = useTranslation();
  const progress = useSyncExternalStore(client.subscribeProgress, client.progress);
  const number = (n: number) => n.toLocaleString(i18n.language);
  return (
    <div role="status" className="running-status" data-testid="running">
      <span>{t('vis.opening')}</span>{' '}
      {progress && (
        <>
          <progress max={Math.max(progress.line_total, 1)} value={progress.line_done} aria-label={t('vis.opening')} />{' '}
          <span data-testid="run-progress" data-ops={progress.ops}>
            {t('vis.progress', {
              line: progress.line,
              done: number(progress.line_done),
              total: number(progress.line_total),
              ops: number(progress.ops),
              steps: number(progress.steps),
            })}
          </span>{' '}
        </>
      )}
      <button
        type="button"
        data-testid="cancel-run"
        onClick={() => client.cancel()}
      >
        {t('vis.cancel')}
      </button>
    </div>
  );
}
