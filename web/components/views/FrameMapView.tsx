// The page-frame map: all simulated memory on a Canvas, a legend, and the same scene as a table
// of runs with pages per owner kind. Clicking a cell, or a run's button, follows that page.

import type { TFunction } from 'i18next';
import { memo, type MouseEvent, useLayoutEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { layoutFrameMap, MAX_TABLE_RUNS, pfnAt, type FrameMapScene, type FrameRun, type LegendItem } from '../../views/frameMap';
import { drawFrameMap, swatchBackground } from '../../views/frameMapDraw';
import { TextAlternative } from './TextAlternative';
import type { MemoryViewProps } from './viewProps';
import { drawingPoint } from './drawingPoint';
import { useStable } from './useStable';

export function ownerText(t: TFunction, run: FrameRun): string {
  const o = run.owner;
  switch (o.kind) {
    case 'hole':
      return t('frameMap.owner.hole');
    case 'pcp':
      return t('frameMap.owner.pcp', { cpu: o.cpu, order: o.order });
    case 'slab':
      return t('frameMap.owner.slab', { cache: run.cacheName ?? t('frameMap.unknownCache', { id: o.cache }), order: o.order });
    case 'slab_rcu':
      return t('frameMap.owner.slab_rcu', { cache: run.cacheName ?? t('frameMap.unknownCache', { id: o.cache }), order: o.order });
    case 'kfree_rcu':
      return t('frameMap.owner.kfree_rcu', { cpu: o.cpu, order: o.order });
    default:
      return t(`frameMap.owner.${o.kind}`, { order: o.order });
  }
}

function legendText(t: TFunction, item: LegendItem): string {
  if (item.kind === 'buddy') return t('frameMap.legendBuddy', { order: item.order });
  if (item.kind === 'slab') return t('frameMap.legendSlab', { cache: item.cacheName ?? t('frameMap.unknownCache', { id: item.cache }) });
  return t(`frameMap.kind.${item.kind}`);
}

function FrameMap({ snapshot, motion, onFollowPage }: MemoryViewProps) {
  const { t } = useTranslation();
  const scene = useStable(useMemo(() => layoutFrameMap(snapshot), [snapshot]));
  const canvas = useRef<HTMLCanvasElement>(null);
  const follow = useRef(onFollowPage);
  useLayoutEffect(() => {
    follow.current = onFollowPage;
  });

  // The map has no motion to reduce: it is redrawn as it is, and only when the scene changes.
  useLayoutEffect(() => {
    if (canvas.current) drawFrameMap(canvas.current, scene, { pixelRatio: window.devicePixelRatio || 1 });
  }, [scene]);

  // The markup depends on the scene alone: an unchanged scene (most steps, for most views)
  // re-renders nothing.
  return useMemo(() => {
    const onClick = (e: MouseEvent<HTMLCanvasElement>) => {
      const at = drawingPoint(e, scene.width, scene.height);
      const pfn = at && pfnAt(scene, at.x, at.y);
      if (pfn !== null) follow.current?.(pfn);
    };

    return (
      <figure className="memory-view frame-map-view" data-testid="frame-map-view">
        <figcaption>{t('frameMap.title')}</figcaption>
        <p data-testid="frame-map">
          {t('frameMap.summary', { pages: scene.totalPages, runs: scene.runs.length })}
          {scene.totals.map((total) => (
            <span key={total.kind} data-testid={`frame-map-total-${total.kind}`}>
              {' · '}
              {t('frameMap.totalLine', { kind: t(`frameMap.kind.${total.kind}`), pages: total.pages, runs: total.runs })}
            </span>
          ))}
        </p>
        <div className="drawing">
          <canvas
            ref={canvas}
            aria-hidden="true"
            onClick={onClick}
            style={{ width: scene.width, aspectRatio: `${Math.max(1, scene.width)} / ${Math.max(1, scene.height)}` }}
            data-testid="frame-map-canvas"
          />
        </div>
        <ul className="legend" data-testid="frame-map-legend">
          {scene.legend.map((item) => (
            <li key={item.key}>
              <span className="swatch" style={{ background: swatchBackground(item) }} aria-hidden="true" />
              {t('frameMap.legendPages', { label: legendText(t, item), pages: item.pages })}
            </li>
          ))}
        </ul>
        <ul className="legend" data-testid="frame-map-nodes">
          {scene.nodes.map((n) => (
            <li key={n.node}>{t('frameMap.nodeRange', { node: n.node, first: n.pfn, last: n.pfn + n.pages - 1 })}</li>
          ))}
        </ul>
        <p className="legend">{t('frameMap.hint')}</p>
        <TextAlternative showLabel={t('frameMap.showTable')} hideLabel={t('frameMap.hideTable')} testId="frame-map-text" frozen={motion.playing}>
          {() => <FrameMapTables scene={scene} onFollowPage={(pfn) => follow.current?.(pfn)} />}
        </TextAlternative>
      </figure>
    );
  }, [scene, t, motion.playing]);
}

/** The map as text: pages and runs per owner kind, then each run (up to MAX_TABLE_RUNS) with a
 *  button that follows its first page. */
function FrameMapTables({ scene, onFollowPage }: { scene: FrameMapScene; onFollowPage: (pfn: number) => void }) {
  const { t } = useTranslation();
  const runs = scene.runs.slice(0, MAX_TABLE_RUNS);
  return (
    <>
      <table data-testid="frame-map-totals">
        <caption>{t('frameMap.totalsCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('frameMap.column.kind')}</th>
            <th scope="col">{t('frameMap.column.pages')}</th>
            <th scope="col">{t('frameMap.column.runs')}</th>
          </tr>
        </thead>
        <tbody>
          {scene.totals.map((total) => (
            <tr key={total.kind} data-kind={total.kind}>
              <th scope="row">{t(`frameMap.kind.${total.kind}`)}</th>
              <td>{total.pages}</td>
              <td>{total.runs}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <table data-testid="frame-map-runs">
        <caption>{t('frameMap.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('frameMap.column.pfns')}</th>
            <th scope="col">{t('frameMap.column.pages')}</th>
            <th scope="col">{t('frameMap.column.blocks')}</th>
            <th scope="col">{t('frameMap.column.owner')}</th>
            <th scope="col">{t('frameMap.column.node')}</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-testid="frame-run" data-pfn={run.pfn} data-kind={run.owner.kind}>
              <th scope="row">
                <button type="button" className="link-button" onClick={() => onFollowPage(run.pfn)}>
                  {t('frameMap.range', { first: run.pfn, last: run.pfn + run.pages - 1 })}
                </button>
              </th>
              <td>{run.pages}</td>
              <td>{run.blocks}</td>
              <td className="text">{ownerText(t, run)}</td>
              <td>{run.node}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {scene.runs.length > runs.length && <p>{t('frameMap.runsHidden', { count: scene.runs.length - runs.length })}</p>}
    </>
  );
}

/** Drawn again only when its props change: not on every tick of the timeline. */
export const FrameMapView = memo(FrameMap);
