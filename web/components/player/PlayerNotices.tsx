// What the player says about its run above the views: a restart of the simulator, a link that
// could not be read, the run being opened (with its progress and Cancel), a cancelled run, a
// run that failed (and, when the views show the
// run before it, that they do), and a view that could not be fetched.

import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SimClient } from '../../core/client';
import { loadLaterStrings } from '../../i18n/i18n';
import { isPreviousRun, playerActions, type PlayerAction, type PlayerState } from '../../player/playerState';
import { failureText } from '../../scenario/failureText';
import { RunningStatus } from '../RunningStatus';

export interface PlayerNoticesProps {
  state: PlayerState;
  dispatch: (action: PlayerAction) => void;
  /** Why the simulator worker was last restarted, or null. */
  restarted: string | null;
  /** Why the view at the cursor could not be fetched, or null. */
  viewError: string | null;
  /** The simulator, whose run being opened RunningStatus follows and may stop. */
  client: SimClient;
}

export function PlayerNotices({ state, dispatch, restarted, viewError, client }: PlayerNoticesProps) {
  const { t } = useTranslation();
  const { linkError, run } = state;
  return (
    <>
      {restarted && (
        <p role="alert" className="error" data-testid="sim-restarted">
          {t('vis.restarted', { error: restarted })}
        </p>
      )}
      {linkError && (
        <p role="alert" className="error" data-testid="link-error" data-key={linkError.key}>
          {t(linkError.key, linkError.args)} {t('link.kept')}{' '}
          <button type="button" className="linkish" onClick={() => dispatch(playerActions.dismissLinkError())}>
            {t('vis.dismiss')}
          </button>
        </p>
      )}
      {run.status === 'opening' && <RunningStatus client={client} />}
      {state.cancelled && (
        <p role="status" data-testid="run-cancelled">
          {t(run.status === 'cancelled' ? 'vis.cancelled' : 'vis.cancelledBack')}{' '}
          <button type="button" className="linkish" onClick={() => dispatch(playerActions.dismissCancelled())}>
            {t('vis.dismiss')}
          </button>
        </p>
      )}
      {run.status === 'failed' && <RunFailed error={run.error} />}
      {isPreviousRun(state) && (
        <p className="notice previous-run" data-testid="previous-run">
          {t('vis.previousRun')}
        </p>
      )}
      {viewError && (
        <p role="alert" className="error">
          {t('vis.failed', { error: viewError })}
        </p>
      )}
    </>
  );
}

/** Why the scenario could not be shown, worded in the reader's language once the words for
 *  scenario errors (loaded after the first view) are here; the simulator's English until then. */
function RunFailed({ error }: { error: Error }) {
  const { t, i18n } = useTranslation();
  const [, setLoaded] = useState(false);
  useEffect(() => {
    let live = true;
    void loadLaterStrings().then(() => live && setLoaded(true));
    return () => {
      live = false;
    };
  }, [i18n.language]);
  return (
    <p role="alert" className="error" data-testid="run-error">
      {t('vis.failed', { error: failureText(t, (k) => i18n.exists(k), error) })}
    </p>
  );
}
