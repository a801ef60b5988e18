// The visualizer's address and saved run, derived from the player's state: the address is
// written once the state has rested (not every frame while playing), and the run saved is only
// ever one that opened (playerState.ts `savedRun`), so a link that fails is never what the bare
// address reopens.

import { useEffect, useRef } from 'react';
import type { Language } from '../i18n/i18n';
import { saveRun, type ScenarioStorage } from '../scenario/store';
import { currentHref, playerAddress, replaceAddress, type ScenarioRef } from '../url/urlState';
import { addressedScenario, savedRun, type PlayerState } from './playerState';

/** How long the state must rest before the address is written. */
const URL_SETTLE_MS = 250;

/** The address of the page at `href` showing `state` in `lang`. */
export function addressOf(href: string, state: PlayerState, lang: Language): string {
  return playerAddress(href, placeOf(state, lang), scenarioRef(state));
}

/** The share link of `state` with the scenario asked for as its `s` value `encoded`. */
export function shareAddress(href: string, state: PlayerState, lang: Language, encoded: string | null): string {
  return playerAddress(href, placeOf(state, lang), state.scenario ? { preset: null, link: encoded } : null);
}

function placeOf(state: PlayerState, lang: Language) {
  return {
    step: state.timeline.cursor,
    lang,
    view: state.view ?? undefined,
    cache: state.cache ?? undefined,
    follow: state.follow ?? undefined,
  };
}

/** How the address names the scenario shown (null: none known yet). */
function scenarioRef(state: PlayerState): ScenarioRef | null {
  const scenario = addressedScenario(state);
  if (!scenario) return null;
  if (scenario.preset) return { preset: scenario.preset };
  return { preset: null, link: state.encoded?.text === scenario.text ? state.encoded.value : undefined };
}

/**
 * Writes the address of `state` once it has rested URL_SETTLE_MS (a drag along the scrubber
 * writes it once, at the end), and saves the run shown unless `embed`. Writing the address is a
 * same-document navigation, which on a loaded machine took the browser up to a frame or two;
 * before the page goes away, a pending address is written at once.
 */
export function usePlayerAddress(state: PlayerState, lang: Language, embed: boolean, storage: ScenarioStorage | null): void {
  const pending = useRef<string | null>(null);
  useEffect(() => {
    const flush = () => {
      if (pending.current) replaceAddress(pending.current);
      pending.current = null;
    };
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, []);

  const playing = state.timeline.playing;
  const href = state.scenario && !playing ? addressOf(currentHref(), state, lang) : null;
  const run = playing ? null : savedRun(state);
  const runText = run?.text ?? null;
  const runStep = run?.step ?? null;
  const runPreset = run?.preset ?? null;
  useEffect(() => {
    if (!embed && runText !== null && runStep !== null) saveRun(storage, runText, runStep, runPreset);
  }, [embed, storage, runText, runStep, runPreset]);
  useEffect(() => {
    if (href === null) return undefined;
    pending.current = href;
    const timer = setTimeout(() => {
      pending.current = null;
      replaceAddress(href);
    }, URL_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [href]);
}
