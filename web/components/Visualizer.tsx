// The visualizer screen: a scenario's run, stepped with the timeline, every structure drawn
// from the snapshot at the cursor. State that a link should reproduce (preset, step, cache,
// followed object or page, focused view, language) lives in the URL.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SimClient } from '../core/client';
import { LANGUAGES, type Language } from '../i18n/i18n';
import { PRESET_IDS, isPresetId, presetText, type PresetId } from '../scenario/presets';
import { actions, transitionMs } from '../timeline/timeline';
import { useShortcuts } from '../timeline/useShortcuts';
import { useTimeline } from '../timeline/useTimeline';
import { formatUrlState, parseUrlState, type Follow, type View } from '../url/urlState';
import { MOTION_MS, type Motion } from '../views/drawUtil';
import { ExplainPanel } from './ExplainPanel';
import { Held } from './Held';
import { ProvenanceLane } from './ProvenanceLane';
import { ShortcutHelp } from './ShortcutHelp';
import { TimelineControls } from './TimelineControls';
import { useFiles, useLane, useOpenRun, useViewAt } from './useRun';
import { BuddyAllocatorView } from './views/BuddyAllocatorView';
import { BulkFreeView } from './views/BulkFreeView';
import { CpuPanelView } from './views/CpuPanelView';
import { FilesView } from './views/FilesView';
import { FrameMapView } from './views/FrameMapView';
import { NodePanelView } from './views/NodePanelView';
import { SlabPageView } from './views/SlabPageView';

/** How long the state must rest before the URL is written. */
const URL_SETTLE_MS = 250;

export interface VisualizerProps {
  client: SimClient;
  /** The simulator worker has loaded its wasm build. */
  ready: boolean;
  onLanguage: (lang: Language) => void;
}

function initialPreset(): PresetId {
  const p = new URLSearchParams(window.location.search).get('preset');
  return isPresetId(p) ? p : PRESET_IDS[0];
}

export function Visualizer({ client, ready, onLanguage }: VisualizerProps) {
  const { t, i18n } = useTranslation();
  const fromUrl = useMemo(() => parseUrlState(window.location.search), []);
  const [preset, setPreset] = useState<PresetId>(initialPreset);
  const text = useMemo(() => presetText(preset), [preset]);
  const run = useOpenRun(client, text, ready);
  const { state: timeline, dispatch, reducedMotion } = useTimeline();
  const [cache, setCache] = useState<string | null>(fromUrl.cache ?? null);
  const [slab, setSlab] = useState<number | null>(null);
  const [follow, setFollow] = useState<Follow | null>(fromUrl.follow ?? null);
  const [view, setView] = useState<View | undefined>(fromUrl.view);
  const [help, setHelp] = useState(false);
  const [filesOpen, setFilesOpen] = useState(fromUrl.view === 'files');
  const pendingStep = useRef<number | undefined>(fromUrl.step);
  const jumpRef = useRef<HTMLInputElement | null>(null);

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
    url.searchParams.set('preset', preset);
    pendingUrl.current = url;
    const timer = setTimeout(() => {
      pendingUrl.current = null;
      window.history.replaceState(null, '', url);
    }, URL_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [timeline.cursor, timeline.playing, i18n.language, view, cache, follow, preset]);

  // The focused view of a link scrolls into sight once the views exist.
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || !snapshot || !fromUrl.view) return;
    scrolled.current = true;
    document.getElementById(`view-${fromUrl.view}`)?.scrollIntoView({ block: 'start' });
  }, [snapshot, fromUrl.view]);

  const followObject = useCallback((address: string) => setFollow({ kind: 'obj', address }), []);
  const followPage = useCallback((pfn: number) => setFollow({ kind: 'page', pfn }), []);
  const selectSlab = useCallback((pfn: number) => setSlab(pfn), []);
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
    <div className="visualizer" data-testid="visualizer" data-cursor={at?.snapshot.cursor ?? ''} data-worker-ms={at ? at.workerMs.toFixed(1) : ''}>
      <div className="vis-toolbar">
        <label>
          {t('vis.preset')}{' '}
          <select
            value={preset}
            data-testid="preset"
            onChange={(e) => {
              setPreset(e.target.value as PresetId);
              setSlab(null);
              setFollow(null);
              setCache(null);
            }}
          >
            {PRESET_IDS.map((id) => (
              <option key={id} value={id}>
                {t(`presets.${id}.title`)}
              </option>
            ))}
          </select>
        </label>
        <span className="preset-summary">{t(`presets.${preset}.summary`)}</span>
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
                render={() =>
                  snapshot.caches
                    .filter((c) => !c.destroyed)
                    .map((c) => (
                      <option key={c.id} value={c.name}>
                        {t('vis.cacheOption', { name: c.name, live: c.live_objects, slabs: c.slabs })}
                      </option>
                    ))
                }
              />
            </select>
          </label>
        )}
        <span className="allocator" data-testid="allocator">
          {outline ? t(`vis.allocator.${outline.allocator}`, { cpus: outline.cpus, nodes: outline.nodes }) : ''}
        </span>
      </div>
      <TimelineControls state={timeline} dispatch={dispatch} opLabel={opLabel} jumpInputRef={jumpRef} onHelp={() => setHelp(true)} />
      {run.state === 'opening' && <p role="status">{t('vis.opening')}</p>}
      {run.state === 'failed' && (
        <p role="alert" className="error" data-testid="run-error">
          {t('vis.failed', { error: run.error.message })}
        </p>
      )}
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
              <ProvenanceLane
                lane={lane}
                steps={outline.steps}
                cursor={timeline.cursor}
                caches={snapshot.caches}
                onJump={(c) => dispatch(actions.jump(c))}
                onClose={() => setFollow(null)}
              />
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
              <FilesView files={files} cacheName={shownCache} />
            </details>
          </div>
        </div>
      )}
      <ShortcutHelp open={help} onClose={closeHelp} />
    </div>
  );
}
