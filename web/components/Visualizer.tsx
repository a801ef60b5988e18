// The visualizer page: a player whose state the page's address describes. The address gives
// the player its start (the scenario, step, cache, followed object or page, focused view,
// language) and is written back from the player's state (player/usePlayerAddress.ts); the
// scenario bar above it changes and passes on the scenario.

import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SimClient } from '../core/client';
import { LANGUAGES, loadLaterStrings, type Language } from '../i18n/i18n';
import { FIRST_OP, opsDone, playerActions, type Scenario } from '../player/playerState';
import { usePlayer } from '../player/usePlayer';
import { shareAddress, usePlayerAddress } from '../player/usePlayerAddress';
import { openingScenario } from '../scenario/opening';
import { browserStorage, loadSaved, replaceDraft, type ScenarioStorage } from '../scenario/store';
import { currentHref, currentQuery, parseScenarioQuery, parseUrlState } from '../url/urlState';
import { Player } from './player/Player';
import { startTour, tourSeen } from './tour';

// The scenario bar and its editor load just after the first view: they are not needed to
// draw it, and the page's first script stays within its budget (docs/bench.md).
const ScenarioPanel = lazy(() => Promise.all([import('./ScenarioPanel'), loadLaterStrings()]).then(([m]) => ({ default: m.ScenarioPanel })));

export interface VisualizerProps {
  client: SimClient;
  /** The simulator worker has loaded its wasm build. */
  ready: boolean;
  onLanguage: (lang: Language) => void;
  /** The minimal player of an iframe: no scenario bar (presets, editor, files, share). */
  embed?: boolean;
  /** Opens another page of the app at an address (the split view). */
  onGo?: (href: string) => void;
}

export function Visualizer({ client, ready, onLanguage, embed = false, onGo }: VisualizerProps) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language as Language;
  const [start] = useState(() => parseUrlState(currentQuery()));
  const storage = useMemo(() => browserStorage(), []);
  // A first visit to the bare address (nothing but the language in it, no tour seen) opens the
  // guided tour once the first view is drawn; a link to a scenario or a step is not interrupted.
  const [firstVisit, setFirstVisit] = useState(() => !embed && [...new URLSearchParams(currentQuery()).keys()].every((k) => k === 'lang') && !tourSeen(storage));
  const tourOpened = useCallback(() => setFirstVisit(false), []);
  const player = usePlayer(client, ready, start);
  const { state, dispatch, session } = player;

  // The scenario the address names (a link may need unpacking), else the saved run.
  useEffect(() => {
    let live = true;
    void openingScenario(parseScenarioQuery(currentQuery()), loadSaved(storage)).then((o) => {
      if (!live) return;
      // A link's scenario goes into the editor; the person's draft is kept among the earlier.
      if (o.from === 'link') replaceDraft(storage, o.text);
      // The bare address (nothing saved) lands after the first operation: a cache at work, not
      // the empty machine of step 0.
      dispatch(playerActions.opening({ text: o.text, preset: o.preset }, o.from === 'default' ? FIRST_OP : o.step, o.linkError));
    });
    return () => {
      live = false;
    };
  }, [storage, dispatch]);

  usePlayerAddress(state, lang, embed, storage);

  const choose = useCallback((next: Scenario) => dispatch(playerActions.choose(next)), [dispatch]);
  // Another kernel for the run on screen: the same operations, so the place is kept by operation.
  const shownRun = state.run.status === 'open' ? state.shown : null;
  const cursorNow = state.timeline.cursor;
  const chooseKernel = useCallback(
    (next: Scenario) => dispatch(shownRun ? playerActions.chooseAtOp(next, opsDone(shownRun.outline, cursorNow)) : playerActions.choose(next)),
    [dispatch, shownRun, cursorNow],
  );
  const check = useCallback((text: string) => client.check(text), [client]);
  const runText = state.run.status === 'open' ? (state.shown?.scenario.text ?? null) : null;
  const trace = useMemo(() => (runText === null ? null : () => session.trace(runText)), [session, runText]);
  const shareUrl = (value: string | null) => shareAddress(currentHref(), state, lang, value);
  const nextLanguage = () => onLanguage(LANGUAGES[(LANGUAGES.indexOf(lang) + 1) % LANGUAGES.length]);
  const { scenario } = state;

  return (
    <Player
      player={player}
      exports={!embed}
      onLanguage={nextLanguage}
      reveal={start.view ? { view: start.view, key: 1 } : null}
      bar={({ viewShown, activeLine }) => {
        if (embed) {
          return (
            scenario && (
              <p className="preset-summary" data-testid="embed-summary">
                {scenario.preset ? `${t(`presets.${scenario.preset}.title`)}: ${t(`presets.${scenario.preset}.summary`)}` : t('vis.ownSummary')}
              </p>
            )
          );
        }
        // A run that failed or was cancelled has no view to wait for: the bar is how the person
        // gets out of it.
        if (!scenario || !(viewShown || state.run.status === 'failed' || state.run.status === 'cancelled')) return <div className="scenario-panel" />;
        return (
          <Suspense fallback={<div className="scenario-panel" />}>
            {firstVisit && viewShown && <TourOnFirstVisit storage={storage} onOpened={tourOpened} />}
            <ScenarioPanel scenario={scenario} onScenario={choose} check={check} trace={trace} shareUrl={shareUrl} activeLine={runText === scenario.text ? activeLine : null} onGo={onGo} onProfileScenario={chooseKernel} />
          </Suspense>
        );
      }}
    />
  );
}

/** Opens the guided tour when mounted, once (React's development mode runs an effect twice), and
 *  says so: the page then never mounts it again. */
function TourOnFirstVisit({ storage, onOpened }: { storage: ScenarioStorage | null; onOpened: () => void }) {
  const { t } = useTranslation();
  const opened = useRef(false);
  useEffect(() => {
    if (opened.current) return;
    opened.current = true;
    void startTour(t, storage);
    onOpened();
  }, [t, storage, onOpened]);
  return null;
}
