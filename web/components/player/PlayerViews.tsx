// The views of one snapshot, in three columns: the explanation, the CPU and node panels and a
// bulk free; the slab page and a followed object's lane; the page allocator and the kernel
// files. Each view's focus puts it in the address (`focusView`).

import { lazy, Suspense, useMemo } from 'react';
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
import { BuddyAllocatorView } from '../views/BuddyAllocatorView';
import { BulkFreeView } from '../views/BulkFreeView';
import { CpuPanelView } from '../views/CpuPanelView';
import { FrameMapView } from '../views/FrameMapView';
import { NodePanelView } from '../views/NodePanelView';
import { SlabPageView } from '../views/SlabPageView';

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
  filesOpen: boolean;
  /** The kernel files at the cursor, and at the step before (what changed is marked). */
  files: { files: KernelFiles | null; before: KernelFiles | null };
  lane: Lane | null;
  onSelectSlab: (pfn: number) => void;
  onFollowObject: (address: string) => void;
  /** The micro-steps of a step, for the explain panel. */
  loadMicro?: (step: number) => Promise<MicroStepCaption[]>;
  /** The micro-steps of a concurrent block, for its CPU lanes. */
  loadLanes?: (block: number) => Promise<LaneStep[]>;
  /** A micro-step of the lanes was clicked (a lesson's exercise may be waiting for it). */
  onPickStep?: (cursor: number) => void;
}

export function PlayerViews({ outline, at, motion, cursor, dispatch, filesOpen, files, lane, onSelectSlab, onFollowObject, loadMicro, loadLanes, onPickStep }: PlayerViewsProps) {
  const { t } = useTranslation();
  const { snapshot } = at;
  // The shared words the step's micro-steps touched, marked in the views that show them.
  const words = useMemo(() => sharedWords(at.step), [at.step]);
  const focusView = (v: View) => () => dispatch(playerActions.focusView(v));
  const followPage = (pfn: number) => dispatch(playerActions.follow({ kind: 'page', pfn }));
  const jump = (c: number) => dispatch(playerActions.timeline(actions.jump(c)));
  // Views with nothing to show at this step are left out (a newcomer should not meet a page of
  // empty panels): the CPU, node and slab page views until a cache is in use, the bulk free's
  // detached freelists except on the steps that have one.
  const hasCache = snapshot.cache !== null;
  return (
    <div className="vis-grid">
      <div className="vis-col">
        <div id="view-explain" onFocusCapture={focusView('explain')}>
          <ExplainPanel outline={outline} cursor={snapshot.cursor} step={at.step} loadMicro={loadMicro} onJump={jump} />
        </div>
        {loadLanes && outline.blocks.length > 0 && (
          <div id="view-lanes" onFocusCapture={focusView('lanes')}>
            <Suspense fallback={null}>
              <CpuLanesView
                outline={outline}
                cursor={snapshot.cursor}
                load={loadLanes}
                onJump={(c) => {
                  jump(c);
                  onPickStep?.(c);
                }}
              />
            </Suspense>
          </div>
        )}
        {hasCache && (
          <>
            <div id="view-cpu" onFocusCapture={focusView('cpu')}>
              <CpuPanelView snapshot={snapshot} words={words} motion={motion} onSelectSlab={onSelectSlab} onFollowObject={onFollowObject} />
            </div>
            <div id="view-node" onFocusCapture={focusView('node')}>
              <NodePanelView snapshot={snapshot} words={words} motion={motion} onSelectSlab={onSelectSlab} onFollowObject={onFollowObject} />
            </div>
          </>
        )}
        {snapshot.transient.detached.length > 0 && (
          <div id="view-bulk" onFocusCapture={focusView('bulk')}>
            <BulkFreeView snapshot={snapshot} motion={motion} onSelectSlab={onSelectSlab} onFollowObject={onFollowObject} />
          </div>
        )}
      </div>
      <div className="vis-col">
        {hasCache ? (
          <div id="view-slab" onFocusCapture={focusView('slab')}>
            <SlabPageView snapshot={snapshot} words={words} motion={motion} onSelectSlab={onSelectSlab} onFollowObject={onFollowObject} onFollowPage={followPage} />
          </div>
        ) : (
          <WaitingNote outline={outline} cursor={cursor} onJump={jump} />
        )}
        {lane && (
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <ProvenanceLane lane={lane} steps={outline.steps} cursor={cursor} caches={snapshot.caches} onJump={jump} onClose={() => dispatch(playerActions.follow(null))} />
          </Suspense>
        )}
      </div>
      <div className="vis-col">
        <div id="view-buddy" onFocusCapture={focusView('buddy')}>
          <BuddyAllocatorView snapshot={snapshot} motion={motion} onFollowPage={followPage} />
          <FrameMapView snapshot={snapshot} motion={motion} onFollowPage={followPage} />
        </div>
        <details id="view-files" className="panel" open={filesOpen} onToggle={(e) => dispatch(playerActions.filesToggled((e.target as HTMLDetailsElement).open))}>
          <summary data-testid="files-toggle">{t('vis.files')}</summary>
          {filesOpen && (
            <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
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
            </Suspense>
          )}
        </details>
      </div>
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
