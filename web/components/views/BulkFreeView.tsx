// The bulk-free view: the detached freelist build_detached_freelist() gathered on this step
// (or, on the next, the same list reversed by slab_free_freelist_hook()), drawn from one snapshot, with the same scene as a summary, a table of the array and a list of
// the gathered objects. Without a detached freelist it says when one appears.

import { memo, useCallback, useMemo } from 'react';
import { layoutBulkFree, LOOKAHEAD, type DetachedScene } from '../../views/bulkFree';
import { drawBulkFree } from '../../views/bulkFreeDraw';
import type { Target, Translate } from '../../views/marks';
import { bulkCellStyle, type BulkCellKind } from '../../views/palette';
import { ObjectButton, SlabButton, useActivate, useTranslate, ViewFigure, type StructViewProps } from './ViewFigure';
import { useStable } from './useStable';

const STATE_KEY: Record<BulkCellKind, string> = {
  pending: 'bulkView.legendPending',
  skipped: 'bulkView.legendSkipped',
  parked: 'bulkView.legendParked',
  tail: 'bulkView.legendTail',
  finished: 'bulkView.legendFinished',
};

function BulkFree({ snapshot, motion, onSelectSlab, onFollowObject }: StructViewProps) {
  const t = useTranslate();
  const activate = useActivate({ onSelectSlab, onFollowObject });
  const scene = useStable(useMemo(() => layoutBulkFree(snapshot), [snapshot]));
  const draw = useCallback(
    (svg: SVGSVGElement) => drawBulkFree(svg, scene, { t, motion, onActivate: activate }),
    [scene, t, motion, activate],
  );
  const none = scene.detached.length === 0;

  return (
    <ViewFigure
      ns="bulkView"
      className="bulk-free"
      testId="bulk-free"
      heading={t('bulkView.heading')}
      draw={draw}
      playing={motion.playing}
      empty={none ? <p data-testid="bulk-none">{t('bulkView.none')}</p> : undefined}
    >
      {() => !none && (
        <div data-testid="bulk-detached">
          {scene.detached.map((d, k) => (
            <Detached key={d.id} d={d} k={k} t={t} activate={activate} />
          ))}
        </div>
      )}
    </ViewFigure>
  );
}

function Detached({ d, k, t, activate }: { d: DetachedScene; k: number; t: Translate; activate: (x: Target) => void }) {
  const count = d.objects.shown.length + d.objects.more;
  return (
    <section>
      <p data-testid={`bulk-${k}-summary`}>
        {t('bulkView.summary', {
          count,
          slab: d.slab,
          scanned: d.scanned,
          left: d.lookaheadLeft,
          max: LOOKAHEAD,
          doneFrom: d.doneFrom,
        })}
      </p>
      <table className="struct-table" data-testid={`bulk-${k}-array`}>
        <caption>
          {t(d.reversed ? 'bulkView.captionReversed' : 'bulkView.caption', { slab: d.slab })} — {t('bulkView.array', { count: d.length })}
        </caption>
        <thead>
          <tr>
            <th scope="col">{t('bulkView.colIndex')}</th>
            <th scope="col">{t('bulkView.colEntry')}</th>
            <th scope="col">{t('bulkView.colState')}</th>
          </tr>
        </thead>
        <tbody>
          {d.cells.before > 0 && (
            <tr>
              <td colSpan={3}>{t('bulkView.moreBefore', { count: d.cells.before })}</td>
            </tr>
          )}
          {d.cells.shown.map((c) => (
            <tr key={c.id} data-state={c.state} data-index={c.index}>
              <th scope="row">{c.index}</th>
              <td>
                <ObjectButton addr={c.addr} onSelect={activate} />
              </td>
              <td>
                <span aria-hidden="true">{bulkCellStyle[c.state].mark} </span>
                {t(STATE_KEY[c.state])}
              </td>
            </tr>
          ))}
          {d.cells.after > 0 && (
            <tr>
              <td colSpan={3}>{t('bulkView.more', { count: d.cells.after })}</td>
            </tr>
          )}
        </tbody>
      </table>
      <p>{t(d.reversed ? 'bulkView.objectsCaptionReversed' : 'bulkView.objectsCaption')}</p>
      <ol data-testid={`bulk-${k}-objects`}>
        {d.objects.shown.map((o) => (
          <li key={o.id}>
            <ObjectButton addr={o.addr} onSelect={activate} />
          </li>
        ))}
        {d.objects.more > 0 && <li>{t('bulkView.more', { count: d.objects.more })}</li>}
      </ol>
      <p data-testid={`bulk-${k}-result`}>
        <SlabButton pfn={d.slab} text={t(`bulkView.splice.${d.splice}`, { slab: d.slab, cpu: d.cpu })} onSelect={activate} />
      </p>
    </section>
  );
}

/** Drawn again only when its props change: not on every tick of the timeline. */
export const BulkFreeView = memo(BulkFree);
