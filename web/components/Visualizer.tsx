// The visualizer screen: a scenario's run, stepped with the timeline, every structure drawn
// from the snapshot at the cursor. State that a link should reproduce (the scenario, step, cache,
// followed object or page, focused view, language) lives in the URL.

import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SimClient } from '../core/client';
import type { CacheBrief } from '../core/generated/CacheBrief';
import { LANGUAGES, loadLaterStrings, type Language } from '../i18n/i18n';
import { failureText } from '../scenario/failureText';
import { encodeScenario, fitsInLink, LINK_PARAM, type LinkError } from '../scenario/link';
import { openingScenario, SAVED_SOURCE } from '../scenario/opening';
import { browserStorage, loadSaved, replaceDraft, saveRun } from '../scenario/store';
import { actions, transitionMs } from '../timeline/timeline';
import { useShortcuts } from '../timeline/useShortcuts';
import { useTimeline } from '../timeline/useTimeline';
import { formatUrlState, parseUrlState, type Follow, type View } from '../url/urlState';
import { MOTION_MS, type Motion } from '../views/drawUtil';
import { cacheGroups } from './cacheGroups';
import { ExplainPanel } from './ExplainPanel';
import { Held } from './Held';
import { download } from './download';
import type { Scenario } from './ScenarioPanel';
import { TimelineControls } from './TimelineControls';
import { useFiles, useLane, useOpenRun, useRestarts, useViewAt } from './useRun';
import { BuddyAllocatorView } from './views/BuddyAllocatorView';
import { BulkFreeView } from './views/BulkFreeView';
import { CpuPanelView } from './views/CpuPanelView';
import { FrameMapView } from './views/FrameMapView';
import { NodePanelView } from './views/NodePanelView';
import { SlabPageView } from './views/SlabPageView';

// The scenario bar and its editor load just after the first view: they are not needed to
// draw it, and the page's first script stays within its budget (docs/bench.md).
const ScenarioPanel = lazy(() => Promise.all([import('./ScenarioPanel'), loadLaterStrings()]).then(([m]) => ({ default: m.ScenarioPanel })));
// Likewise what is not on screen until asked for: the kernel files, a followed object's lane
// and the shortcut help.
const FilesView = lazy(() => import('./views/FilesView').then((m) => ({ default: m.FilesView })));
const ProvenanceLane = lazy(() => import('./ProvenanceLane').then((m) => ({ default: m.ProvenanceLane })));
const ExportMenu = lazy(() => Promise.all([import('./ExportMenu'), loadLaterStrings()]).then(([m]) => ({ default: m.ExportMenu })));
const ShortcutHelp = lazy(() => import('./ShortcutHelp').then((m) => ({ default: m.ShortcutHelp })));

/** How long the state must rest before the URL is written. */
const URL_SETTLE_MS = 250;

export interface VisualizerProps {
  client: SimClient;
  /** The simulator worker has loaded its wasm build. */
  ready: boolean;
  onLanguage: (lang: Language) => void;
  /** The minimal player of an iframe: no scenario bar (presets, editor, files, share). */
  embed?: boolean;
}

export function Visualizer({ client, ready, onLanguage, embed = false }: VisualizerProps) {
  const { t, i18n } = useTranslation();
  const fromUrl = useMemo(() => parseUrlState(window.location.search), []);
  const storage = useMemo(() => browserStorage(), []);
  // The scenario shown: null until the query's (a link may need unpacking) is known.
  const [scenario, setScenarioState] = useState<Scenario | null>(null);
  const [linkError, setLinkError] = useState<LinkError | null>(null);
  const pendingStep = useRef<number | undefined>(fromUrl.step);
  useEffect(() => {
    let live = true;
    void openingScenario(new URLSearchParams(window.location.search), loadSaved(storage)).then((o) => {
      if (!live) return;
      if (o.step !== undefined && pendingStep.current === undefined) pendingStep.current = o.step;
      // A link's scenario goes into the editor; the person's draft is kept among the earlier.
      if (o.from === 'link') replaceDraft(storage, o.text);
      setScenarioState({ text: o.text, preset: o.preset });
      setLinkError(o.linkError);
    });
    return () => {
      live = false;
    };
  }, [storage]);
  // The `s` value of the shown scenario when it is not a preset (null: too long for a link).
  const [encoded, setEncoded] = useState<{ text: string; value: string | null } | null>(null);
  useEffect(() => {
    if (!scenario || scenario.preset) return undefined;
    let live = true;
    void encodeScenario(scenario.text).then((value) => live && setEncoded({ text: scenario.text, value: fitsInLink(value) ? value : null }));
    return () => {
      live = false;
    };
  }, [scenario]);
  // After a crash the worker is replaced and the run opened again; the position is kept.
  const restarts = useRestarts(client);
  const run = useOpenRun(client, scenario?.text ?? '', ready && scenario !== null, restarts.generation);
  const { state: timeline, dispatch, reducedMotion } = useTimeline();
  const cursorNow = useRef(timeline.cursor);
  useEffect(() => {
    cursorNow.current = timeline.cursor;
  }, [timeline.cursor]);
  const [cache, setCache] = useState<string | null>(fromUrl.cache ?? null);
  const [slab, setSlab] = useState<number | null>(null);
  const [follow, setFollow] = useState<Follow | null>(fromUrl.follow ?? null);
  const [view, setView] = useState<View | undefined>(fromUrl.view);
  const [help, setHelp] = useState(false);
  const [filesOpen, setFilesOpen] = useState(fromUrl.view === 'files');
  const jumpRef = useRef<HTMLInputElement | null>(null);

  // After a restart the same run is opened again: it comes back at the step it was at.
  const seenGeneration = useRef(restarts.generation);
  useEffect(() => {
    if (seenGeneration.current === restarts.generation) return;
    seenGeneration.current = restarts.generation;
    pendingStep.current ??= cursorNow.current;
  }, [restarts.generation]);

  // A newly opened run loads into the timeline, at the step of the link the first time.
  const outline = run.state === 'open' ? run.outline : null;
  useEffect(() => {
    if (!outline) return;
    dispatch(actions.load(outline.steps, outline.ops.map((o) => o.end), pendingStep.current ?? 0, outline.ops_start));
    pendingStep.current = undefined;
  }, [outline, dispatch]);

  const motionMs = transitionMs(timeline, reducedMotion, MOTION_MS);
  const motion = useMemo<Motion>(() => ({ ms: motionMs, playing: timeline.playing }), [motionMs, timeline.playing]);

  const query = useMemo(() => ({ cache, slab }), [cache, slab]);
  const { view: at, error: viewError } = useViewAt(client, run, timeline.cursor, query, timeline.playing);
  const snapshot = at?.snapshot ?? null;
  // Whether a view has been drawn yet: the scenario bar waits until the first one has been
  // painted (see ScenarioPanel above), then stays.
  const [viewShown, setViewShown] = useState(false);
  useEffect(() => {
    if (!snapshot || viewShown) return undefined;
    const timer = setTimeout(() => setViewShown(true), 0);
    return () => clearTimeout(timer);
  }, [snapshot, viewShown]);
  const shownCache = snapshot?.cache?.name ?? null;
  const files = useFiles(client, outline !== null, timeline.cursor, shownCache, filesOpen);
  const laneTarget = follow ? (follow.kind === 'obj' ? { object: follow.address } : { page: follow.pfn }) : null;
  const lane = useLane(client, outline !== null, laneTarget);

  // The URL follows the state: not every frame while playing, and once the state has rested
  // URL_SETTLE_MS (a drag along the scrubber writes it once, at the end). Writing the URL is a
  // same-document navigation, which on a loaded machine took the browser up to a frame or
  // two; before the page goes away, a pending URL is written at once.
  const pendingUrl = useRef<URL | null>(null);
  useEffect(() => {
    const flush = () => {
      if (pendingUrl.current) window.history.replaceState(null, '', pendingUrl.current);
      pendingUrl.current = null;
    };
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, []);
  useEffect(() => {
    if (timeline.playing) return undefined;
    const url = new URL(window.location.href);
    url.search = formatUrlState(
      {
        step: timeline.cursor,
        lang: i18n.language as Language,
        view,
        cache: cache ?? undefined,
        follow: follow ?? undefined,
      },
      url.search,
    );
    if (!scenario) return undefined;
    writeScenario(url.searchParams, scenario, encoded?.text === scenario.text ? encoded.value : undefined);
    if (!embed) saveRun(storage, scenario.text, timeline.cursor, scenario.preset);
    pendingUrl.current = url;
    const timer = setTimeout(() => {
      pendingUrl.current = null;
      window.history.replaceState(null, '', url);
    }, URL_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [timeline.cursor, timeline.playing, i18n.language, view, cache, follow, scenario, encoded, storage, embed]);

  const setScenario = useCallback(
    (next: Scenario) => {
      setScenarioState(next);
      setLinkError(null);
      setSlab(null);
      setFollow(null);
      setCache(null);
    },
    [],
  );
  const check = useCallback((text: string) => client.check(text), [client]);
  // For a video of a range of steps: the views at `step`, drawn.
  const visualizer = useRef<HTMLDivElement | null>(null);
  const showStep = useCallback(
    (step: number) =>
      new Promise<void>((resolve) => {
        const el = visualizer.current;
        const drawn = () => requestAnimationFrame(() => resolve());
        if (!el || el.getAttribute('data-cursor') === String(step)) {
          drawn();
          return;
        }
        const observer = new MutationObserver(() => {
          if (el.getAttribute('data-cursor') !== String(step)) return;
          observer.disconnect();
          drawn();
        });
        observer.observe(el, { attributes: true, attributeFilter: ['data-cursor'] });
        dispatch(actions.jump(step));
      }),
    [dispatch],
  );
  const runOpen = run.state === 'open';
  const trace = useMemo(() => (runOpen ? () => client.trace() : null), [client, runOpen]);
  const shareUrl = useCallback(
    (value: string | null) => {
      const url = new URL(window.location.href);
      url.search = formatUrlState(
        { step: timeline.cursor, lang: i18n.language as Language, view, cache: cache ?? undefined, follow: follow ?? undefined },
        url.search,
      );
      if (scenario) writeScenario(url.searchParams, { text: scenario.text, preset: null }, value);
      return url.toString();
    },
    [timeline.cursor, i18n.language, view, cache, follow, scenario],
  );

  // The focused view of a link scrolls into sight once the views exist.
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || !snapshot || !fromUrl.view) return;
    scrolled.current = true;
    document.getElementById(`view-${fromUrl.view}`)?.scrollIntoView({ block: 'start' });
  }, [snapshot, fromUrl.view]);

  // In a lesson the player is an iframe of the same origin: a click on an object or a slab
  // also answers the exercise that waits for one (LessonsPage, `pick`).
  const picked = useCallback(
    (pick: 'object' | 'slab', value: string | number) => embed && window.parent !== window && window.parent.postMessage({ pick, value }, window.location.origin),
    [embed],
  );
  const followObject = useCallback(
    (address: string) => {
      setFollow({ kind: 'obj', address });
      picked('object', address);
    },
    [picked],
  );
  const followPage = useCallback((pfn: number) => setFollow({ kind: 'page', pfn }), []);
  const selectSlab = useCallback(
    (pfn: number) => {
      setSlab(pfn);
      picked('slab', pfn);
    },
    [picked],
  );
  const closeHelp = useCallback(() => setHelp(false), []);

  useShortcuts(dispatch, {
    help: () => setHelp(true),
    jump: () => jumpRef.current?.focus(),
    language: () => {
      const next = LANGUAGES[(LANGUAGES.indexOf(i18n.language as Language) + 1) % LANGUAGES.length];
      onLanguage(next);
    },
    follow: () => {
      const first = snapshot?.transient.objects[0];
      const page = snapshot?.cache?.slab?.brief.pfn;
      if (first) followObject(first);
      else if (page !== undefined) followPage(page);
    },
    close: () => {
      setHelp(false);
      setFollow(null);
    },
  });

  const opLabel = (i: number) => outline?.ops[i]?.text ?? '';
  const focusView = (v: View) => () => setView(v);

  return (
    <div ref={visualizer} className="visualizer" data-testid="visualizer" data-cursor={at?.snapshot.cursor ?? ''} data-worker-ms={at ? at.workerMs.toFixed(1) : ''}>
      {restarts.reason && (
        <p role="alert" className="error" data-testid="sim-restarted">
          {t('vis.restarted', { error: restarts.reason })}
        </p>
      )}
      {linkError && (
        <p role="alert" className="error" data-testid="link-error" data-key={linkError.key}>
          {t(linkError.key, linkError.args)} {t('link.kept')}{' '}
          <button type="button" className="linkish" onClick={() => setLinkError(null)}>
            {t('vis.dismiss')}
          </button>
        </p>
      )}
      {embed ? (
        scenario && (
          <p className="preset-summary" data-testid="embed-summary">
            {scenario.preset ? `${t(`presets.${scenario.preset}.title`)}: ${t(`presets.${scenario.preset}.summary`)}` : t('vis.ownSummary')}
          </p>
        )
      ) : scenario && viewShown ? (
        <Suspense fallback={<div className="scenario-panel" />}>
          <ScenarioPanel scenario={scenario} onScenario={setScenario} check={check} trace={trace} shareUrl={shareUrl} activeLine={at?.step?.line ?? null} />
        </Suspense>
      ) : (
        <div className="scenario-panel" />
      )}
      <div className="vis-toolbar">
        {snapshot && (
          <label>
            {t('vis.cache')}{' '}
            <select
              value={cache ?? ''}
              data-testid="cache"
              onChange={(e) => {
                setCache(e.target.value === '' ? null : e.target.value);
                setSlab(null);
              }}
            >
              <option value="">{t('vis.followStep', { cache: shownCache ?? '—' })}</option>
              <Held
                frozen={timeline.playing}
                render={() => {
                  const groups = cacheGroups(snapshot.caches);
                  const options = (list: CacheBrief[]) =>
                    list.map((c) => (
                      <option key={c.id} value={c.name}>
                        {t('vis.cacheOption', { name: c.name, live: c.live_objects, slabs: c.slabs })}
                      </option>
                    ));
                  return (['scenario', 'kmalloc', 'empty'] as const)
                    .filter((g) => groups[g].length > 0)
                    .map((g) => (
                      <optgroup key={g} label={t(`vis.cacheGroup.${g}`, { n: groups[g].length })}>
                        {options(groups[g])}
                      </optgroup>
                    ));
                }}
              />
            </select>
          </label>
        )}
        <span className="allocator" data-testid="allocator">
          {outline ? t(`vis.allocator.${outline.allocator}`, { cpus: outline.cpus, nodes: outline.nodes }) : ''}
        </span>
      </div>
      {!embed && (
        // The menu's room is kept from the start (like the scenario bar's): it arrives after the
        // first view, and would otherwise push every view down under the reader's pointer.
        <div className="export-menu-slot">
          {viewShown && outline && (
            <Suspense fallback={null}>
              <ExportMenu cursor={timeline.cursor} steps={outline.steps} showStep={showStep} save={download} />
            </Suspense>
          )}
        </div>
      )}
      <TimelineControls state={timeline} dispatch={dispatch} opLabel={opLabel} jumpInputRef={jumpRef} onHelp={() => setHelp(true)} />
      {run.state === 'opening' && <p role="status">{t('vis.opening')}</p>}
      {run.state === 'failed' && <RunFailed error={run.error} />}
      {viewError && (
        <p role="alert" className="error">
          {t('vis.failed', { error: viewError })}
        </p>
      )}
      {outline && snapshot && (
        <div className="vis-grid">
          <div className="vis-col">
            <div id="view-explain" onFocusCapture={focusView('explain')}>
              <ExplainPanel outline={outline} cursor={snapshot.cursor} step={at?.step ?? null} />
            </div>
            <div id="view-cpu" onFocusCapture={focusView('cpu')}>
              <CpuPanelView snapshot={snapshot} motion={motion} onSelectSlab={selectSlab} onFollowObject={followObject} />
            </div>
            <div id="view-node" onFocusCapture={focusView('node')}>
              <NodePanelView snapshot={snapshot} motion={motion} onSelectSlab={selectSlab} onFollowObject={followObject} />
            </div>
            <div id="view-bulk" onFocusCapture={focusView('bulk')}>
              <BulkFreeView snapshot={snapshot} motion={motion} onSelectSlab={selectSlab} onFollowObject={followObject} />
            </div>
          </div>
          <div className="vis-col">
            <div id="view-slab" onFocusCapture={focusView('slab')}>
              <SlabPageView
                snapshot={snapshot}
                motion={motion}
                onSelectSlab={selectSlab}
                onFollowObject={followObject}
                onFollowPage={followPage}
              />
            </div>
            {lane && (
              <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
                <ProvenanceLane
                  lane={lane}
                  steps={outline.steps}
                  cursor={timeline.cursor}
                  caches={snapshot.caches}
                  onJump={(c) => dispatch(actions.jump(c))}
                  onClose={() => setFollow(null)}
                />
              </Suspense>
            )}
          </div>
          <div className="vis-col">
            <div id="view-buddy" onFocusCapture={focusView('buddy')}>
              <BuddyAllocatorView snapshot={snapshot} motion={motion} onFollowPage={followPage} />
              <FrameMapView snapshot={snapshot} motion={motion} onFollowPage={followPage} />
            </div>
            <details
              id="view-files"
              className="panel"
              open={filesOpen}
              onToggle={(e) => {
                const open = (e.target as HTMLDetailsElement).open;
                setFilesOpen(open);
                if (open) setView('files');
              }}
            >
              <summary data-testid="files-toggle">{t('vis.files')}</summary>
              {filesOpen && (
                <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
                  <FilesView
                    files={files}
                    cacheName={shownCache}
                    prints={outline.prints}
                    cursor={timeline.cursor}
                    onPrint={(p) => {
                      // A sysfs print shows its cache's directory.
                      if (p.file.kind === 'sysfs') setCache(p.file.cache);
                      dispatch(actions.jump(p.cursor));
                    }}
                  />
                </Suspense>
              )}
            </details>
          </div>
        </div>
      )}
      {help && (
        <Suspense fallback={null}>
          <ShortcutHelp open onClose={closeHelp} />
        </Suspense>
      )}
    </div>
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

/**
 * Puts the scenario in a query: a preset by name; another scenario as its `s` value when it
 * fits in a link (`value`), else as `src=saved` (the run saved in this browser). `value`
 * undefined: not known yet, the query's scenario is left as it is.
 */
function writeScenario(params: URLSearchParams, scenario: Scenario, value: string | null | undefined): void {
  if (scenario.preset) {
    params.set('preset', scenario.preset);
    params.delete(LINK_PARAM);
    params.delete('src');
    return;
  }
  if (value === undefined) return;
  params.delete('preset');
  if (value === null) {
    params.delete(LINK_PARAM);
    params.set('src', SAVED_SOURCE);
  } else {
    params.set(LINK_PARAM, value);
    params.delete('src');
  }
}
