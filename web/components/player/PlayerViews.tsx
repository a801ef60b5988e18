// The views of one snapshot: the stage (the whole allocator in one diagram) and beside it a pane
// with a followed object's lane and tabs: what happened (the explanation, first), the slab page,
// the CPU panel, the sheaves and barn (6.18+), the node panel, a bulk free, the CPU lanes, the page allocator, the kernel files.
// The tab shown is the view in focus, which the address keeps (`focusView`).

import { lazy, Suspense, useLayoutEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { KernelFiles, Lane, RunOutline, ViewAt } from '../../core/client';
import type { LaneStep } from '../../core/generated/LaneStep';
import type { MicroStepCaption } from '../../core/generated/MicroStepCaption';
import { firstOpEnd, playerActions, type PlayerAction } from '../../player/playerState';
import { actions } from '../../timeline/timeline';
import type { View } from '../../url/urlState';
import type { Motion } from '../../views/drawUtil';
import { sharedWords } from '../../views/sharedWords';
import { ExplainPanel } from '../ExplainPanel';

// The stage comes with the first step that has a cache to show (a run opens on boot, where it
// has none).
const StageView = lazy(() => import('../views/StageView').then((m) => ({ default: m.StageView })));
// The panes beside the stage other than "what happened" are not on screen until their tab is
// chosen: their code comes then (the first view needs the stage and the explanation only).
const SlabPageView = lazy(() => import('../views/SlabPageView').then((m) => ({ default: m.SlabPageView })));
const CpuPanelView = lazy(() => import('../views/CpuPanelView').then((m) => ({ default: m.CpuPanelView })));
const NodePanelView = lazy(() => import('../views/NodePanelView').then((m) => ({ default: m.NodePanelView })));
const SheavesView = lazy(() => import('../views/SheavesView').then((m) => ({ default: m.SheavesView })));
const BulkFreeView = lazy(() => import('../views/BulkFreeView').then((m) => ({ default: m.BulkFreeView })));
const BuddyAllocatorView = lazy(() => import('../views/BuddyAllocatorView').then((m) => ({ default: m.BuddyAllocatorView })));
const FrameMapView = lazy(() => import('../views/FrameMapView').then((m) => ({ default: m.FrameMapView })));
// What is not on screen until asked for: the kernel files and a followed object's lane.
const FilesView = lazy(() => import('../views/FilesView').then((m) => ({ default: m.FilesView })));
// Only a scenario with a concurrent block has lanes: their code comes with the first such run.
const CpuLanesView = lazy(() => import('../views/CpuLanesView').then((m) => ({ default: m.CpuLanesView })));
const ProvenanceLane = lazy(() => import('../ProvenanceLane').then((m) => ({ default: m.ProvenanceLane })));

export interface PlayerViewsProps {
  outline: RunOutline;
  at: ViewAt;
  motion: Motion;
  /** The timeline's cursor (ahead of `at` while its view is fetched). */
  cursor: number;
  dispatch: (action: PlayerAction) => void;
  /** The kernel files at the cursor, and at the step before (what changed is marked). */
  files: { files: KernelFiles | null; before: KernelFiles | null };
  lane: Lane | null;
  /** The view in focus (the address's `view=`): its pane is shown. */
  view: View | null;
  onSelectSlab: (pfn: number) => void;
  onFollowObject: (address: string) => void;
  /** The micro-steps of a step, for the explain panel. */
  loadMicro?: (step: number) => Promise<MicroStepCaption[]>;
  /** The micro-steps of a concurrent block, for its CPU lanes. */
  loadLanes?: (block: number) => Promise<LaneStep[]>;
  /** A micro-step of the lanes was clicked (a lesson's exercise may be waiting for it). */
  onPickStep?: (cursor: number) => void;
}

/** The panes beside the stage, in the order of their tabs. */
const PANES = ['explain', 'slab', 'cpu', 'sheaves', 'node', 'bulk', 'lanes', 'buddy', 'files'] as const;
type Pane = (typeof PANES)[number];

export function PlayerViews({ outline, at, motion, cursor, dispatch, files, lane, view, onSelectSlab, onFollowObject, loadMicro, loadLanes, onPickStep }: PlayerViewsProps) {
  const { t } = useTranslation();
  const { snapshot } = at;
  // The shared words the step's micro-steps touched, marked in the views that show them.
  const words = useMemo(() => sharedWords(at.step), [at.step]);
  const focusView = (v: View) => () => dispatch(playerActions.focusView(v));
  const followPage = (pfn: number) => dispatch(playerActions.follow({ kind: 'page', pfn }));
  const jump = (c: number) => dispatch(playerActions.timeline(actions.jump(c)));
  // Panes with nothing to show at this step are left out (a newcomer should not meet empty
  // panels): the CPU, node and slab page views until a cache is in use, the bulk free's detached
  // freelists except on the steps that have one, the CPU lanes without a concurrent block.
  const hasCache = snapshot.cache !== null;
  const offered: Record<Pane, boolean> = {
    explain: true,
    slab: hasCache,
    // 7.x has no struct kmem_cache_cpu: its per-CPU layer is the sheaves tab.
    cpu: hasCache && (snapshot.allocator !== 'slub' || snapshot.cache?.cpu_slab === true),
    // 6.18+: a cache with sheaves.
    sheaves: (snapshot.cache?.sheaf_capacity ?? 0) > 0,
    node: hasCache,
    bulk: snapshot.transient.detached.length > 0,
    lanes: loadLanes !== undefined && outline.blocks.length > 0,
    buddy: true,
    files: true,
  };
  const tabs = PANES.filter((p) => offered[p]);
  // The pane the reader chose (the address keeps it), else what this step is about: a bulk
  // free's detached freelists on the steps that have them, else what happened.
  const pane: Pane = view !== null && (tabs as readonly string[]).includes(view) ? (view as Pane) : offered.bulk ? 'bulk' : 'explain';
  const choose = (p: Pane) => dispatch(playerActions.focusView(p));
  const props = { snapshot, words, motion, onSelectSlab, onFollowObject };
  const main = useFillsWindow();
  return (
    <div className="vis-main" ref={main}>
      <div className="vis-stage" id="view-stage">
        {hasCache ? (
          <Suspense fallback={<div className="stage" role="status" aria-label={t('build.loading')} data-testid="pane-loading" />}>
            <StageView {...props} />
          </Suspense>
        ) : (
          <WaitingNote outline={outline} cursor={cursor} onJump={jump} />
        )}
      </div>
      <div className="vis-pane">
        {lane && (
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <ProvenanceLane lane={lane} steps={outline.steps} cursor={cursor} caches={snapshot.caches} onJump={jump} onClose={() => dispatch(playerActions.follow(null))} />
          </Suspense>
        )}
        <PaneTabs tabs={tabs} pane={pane} onChoose={choose} />
        <div id={`view-${pane}`} className="pane-body" role="tabpanel" aria-labelledby={`tab-${pane}`} onFocusCapture={focusView(pane)}>
          <Suspense
            fallback={
              <p role="status" data-testid="pane-loading">
                {t('build.loading')}
              </p>
            }
          >
            {pane === 'explain' && <ExplainPanel outline={outline} cursor={snapshot.cursor} step={at.step} loadMicro={loadMicro} onJump={jump} />}
            {pane === 'slab' && <SlabPageView {...props} onFollowPage={followPage} />}
            {pane === 'cpu' && <CpuPanelView {...props} />}
            {pane === 'sheaves' && <SheavesView {...props} />}
            {pane === 'node' && <NodePanelView {...props} />}
            {pane === 'bulk' && <BulkFreeView snapshot={snapshot} motion={motion} onSelectSlab={onSelectSlab} onFollowObject={onFollowObject} />}
            {pane === 'lanes' && loadLanes && (
              <CpuLanesView
                outline={outline}
                cursor={snapshot.cursor}
                load={loadLanes}
                onJump={(c) => {
                  jump(c);
                  onPickStep?.(c);
                }}
              />
            )}
            {pane === 'buddy' && (
              <>
                <BuddyAllocatorView snapshot={snapshot} motion={motion} onFollowPage={followPage} />
                <FrameMapView snapshot={snapshot} motion={motion} onFollowPage={followPage} />
              </>
            )}
            {pane === 'files' && (
              <FilesView
                files={files.files}
                before={files.before}
                cacheName={snapshot.cache?.name ?? null}
                prints={outline.prints}
                cursor={cursor}
                onPrint={(p) => {
                  // A sysfs print shows its cache's directory.
                  if (p.file.kind === 'sysfs') dispatch(playerActions.selectCache(p.file.cache));
                  jump(p.cursor);
                }}
              />
            )}
          </Suspense>
        </div>
      </div>
    </div>
  );
}

/** A ref for the box that fills the window below whatever is above it: its top on the page, kept
 *  in `--vis-top` as that changes, for styles.css to size it (the stage and its panes then fit a
 *  laptop's screen with the controls, without scrolling the page). */
function useFillsWindow() {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const measure = () => el.style.setProperty('--vis-top', `${Math.round(el.getBoundingClientRect().top + window.scrollY)}px`);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    window.addEventListener('resize', measure);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, []);
  return ref;
}

/** The tabs of the panes offered at this step; the arrow keys move between them. */
function PaneTabs({ tabs, pane, onChoose }: { tabs: readonly Pane[]; pane: Pane; onChoose: (p: Pane) => void }) {
  const { t } = useTranslation();
  const onKey = (e: React.KeyboardEvent) => {
    const i = tabs.indexOf(pane);
    const next = e.key === 'ArrowRight' ? tabs[(i + 1) % tabs.length] : e.key === 'ArrowLeft' ? tabs[(i - 1 + tabs.length) % tabs.length] : null;
    if (!next) return;
    e.preventDefault();
    e.stopPropagation();
    onChoose(next);
    requestAnimationFrame(() => document.getElementById(`tab-${next}`)?.focus());
  };
  return (
    <div className="pane-tabs" role="tablist" aria-label={t('vis.panes')} onKeyDown={onKey}>
      {tabs.map((p) => (
        <button
          key={p}
          type="button"
          role="tab"
          id={`tab-${p}`}
          aria-selected={p === pane}
          aria-controls={`view-${p}`}
          tabIndex={p === pane ? 0 : -1}
          onClick={() => onChoose(p)}
          data-testid={`tab-${p}`}
        >
          {t(`vis.pane.${p}`)}
        </button>
      ))}
    </div>
  );
}

/** In place of the CPU, node and slab page views while no cache is in use: why, and a way to the
 *  end of the first operation (when that is ahead). */
function WaitingNote({ outline, cursor, onJump }: { outline: RunOutline; cursor: number; onJump: (c: number) => void }) {
  const { t } = useTranslation();
  const first = firstOpEnd(outline);
  return (
    <div className="panel views-waiting" data-testid="views-waiting">
      <p>{t('vis.waiting')}</p>
      {first !== null && first > cursor && (
        <button type="button" onClick={() => onJump(first)}>
          {t('vis.waitingJump', { step: first })}
        </button>
      )}
    </div>
  );
}
