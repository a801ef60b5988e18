// The CPU panel: per-CPU state of the shown cache, drawn from one snapshot, with the same scene
// as a table (one row per CPU) for screen readers and end-to-end tests.

import { memo, useCallback, useMemo } from 'react';
import { layoutCpuPanel, type CpuColumn, type PartialItem, type RcuColumn, type SlabItem } from '../../views/cpuPanel';
import { drawCpuPanel } from '../../views/cpuPanelDraw';
import type { Capped, Target, Translate } from '../../views/marks';
import { label } from '../../views/marks';
import { ObjectButton, SlabButton, useActivate, useTranslate, ViewFigure, WordMark, type StructViewProps } from './ViewFigure';
import { useStable } from './useStable';

function CpuPanel({ snapshot, words, motion, onSelectSlab, onFollowObject }: StructViewProps) {
  const t = useTranslate();
  const activate = useActivate({ onSelectSlab, onFollowObject });
  const scene = useStable(useMemo(() => layoutCpuPanel(snapshot, { words }), [snapshot, words]));
  const draw = useCallback(
    (svg: SVGSVGElement) => drawCpuPanel(svg, scene, { t, motion, onActivate: activate }),
    [scene, t, motion, activate],
  );
  const cache = scene.cacheName ?? '';
  const slub = scene.allocator === 'slub';
  const rcu = scene.columns.some((c) => c.rcu);

  return (
    <ViewFigure
      ns="cpuView"
      className="cpu-panel"
      testId="cpu-panel"
      heading={scene.cacheName === null ? t('cpuView.noCache') : t('cpuView.heading', { cache })}
      draw={draw}
      playing={motion.playing}
    >
      {() => scene.columns.length > 0 && (
        <table className="struct-table">
          <caption>{t('cpuView.caption', { cache })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('cpuView.colCpu')}</th>
              {slub ? (
                <>
                  <th scope="col">{t('cpuView.colTid')}</th>
                  <th scope="col">{t('cpuView.colFreelist')}</th>
                  <th scope="col">{t('cpuView.colSlab')}</th>
                  <th scope="col">{t('cpuView.colPartial')}</th>
                </>
              ) : (
                <>
                  <th scope="col">{t('cpuView.colArray')}</th>
                  <th scope="col">{t('cpuView.colEntries')}</th>
                </>
              )}
              {rcu && <th scope="col">{t('cpuView.colRcu')}</th>}
            </tr>
          </thead>
          <tbody>
            {scene.columns.map((c) => (
              <CpuRow key={c.id} column={c} t={t} activate={activate} />
            ))}
          </tbody>
        </table>
      )}
    </ViewFigure>
  );
}

function CpuRow({ column: c, t, activate }: { column: CpuColumn; t: Translate; activate: (x: Target) => void }) {
  const head = <th scope="row">{t('cpuView.cpuLabel', { cpu: c.cpu, node: c.node })}</th>;
  const rcu = c.rcu && <RcuCell cpu={c.cpu} rcu={c.rcu} t={t} activate={activate} />;
  if (c.kind === 'slub') {
    const w = c.words;
    return (
      <tr data-testid={`cpu-${c.cpu}`}>
        {w.lock ? (
          <th scope="row">
            {t('cpuView.cpuLabel', { cpu: c.cpu, node: c.node })} <WordMark word={w.lock} label={label(`sharedWord.lock.${w.lock.how}`)} />
          </th>
        ) : (
          head
        )}
        <td data-testid={`cpu-${c.cpu}-tid`}>
          {c.tid}
          <WordMark word={w.tid} reason />
        </td>
        <td>
          <ObjectList id={`cpu-${c.cpu}-freelist`} list={c.freelist} t={t} activate={activate} more="cpuView.more" />
          <WordMark word={w.freelist} />
        </td>
        <td data-testid={`cpu-${c.cpu}-slab`}>
          {c.slab ? <SlabEntry slab={c.slab} t={t} activate={activate} /> : t('cpuView.null')}
          <WordMark word={w.slab} />
        </td>
        <td>
          {c.partial.shown.length === 0 ? (
            <span data-testid={`cpu-${c.cpu}-partial`}>{t('cpuView.null')}</span>
          ) : (
            <ol data-testid={`cpu-${c.cpu}-partial`}>
              {c.partial.shown.map((s) => (
                <li key={s.id}>
                  <SlabEntry slab={s} t={t} activate={activate} />
                </li>
              ))}
              {c.partial.more > 0 && <li>{t('cpuView.more', { count: c.partial.more })}</li>}
            </ol>
          )}
        </td>
        {rcu}
      </tr>
    );
  }
  return (
    <tr data-testid={`cpu-${c.cpu}`}>
      {head}
      <td data-testid={`cpu-${c.cpu}-array`}>
        {t('cpuView.availLimit', { avail: c.avail, limit: c.limit })}; {t('cpuView.batchcount', { batchcount: c.batchcount })};{' '}
        {t(c.touched ? 'cpuView.touchedYes' : 'cpuView.touchedNo')}
      </td>
      <td>
        {c.entries.shown.length === 0 ? (
          <span data-testid={`cpu-${c.cpu}-entries`}>{t('cpuView.empty')}</span>
        ) : (
          <ol data-testid={`cpu-${c.cpu}-entries`} className="entry-list">
            {c.entries.shown.map((e, i) => (
              <li key={e.id} data-index={e.index}>
                <code>entry[{e.index}]</code> <ObjectButton addr={e.addr} onSelect={activate} />
                {i === c.entries.shown.length - 1 && <> ({t('cpuView.nextOutEntry')})</>}
                {e.highlight && <strong> ({t('cpuView.touchedStep')})</strong>}
              </li>
            ))}
          </ol>
        )}
        {c.entries.more > 0 && <p>{t('cpuView.moreBelow', { count: c.entries.more })}</p>}
      </td>
      {rcu}
    </tr>
  );
}


/** A CPU's `kfree_rcu()` pointers and `call_rcu()` callbacks. */
function RcuCell({ cpu, rcu: r, t, activate }: { cpu: number; rcu: RcuColumn; t: Translate; activate: (x: Target) => void }) {
  return (
    <td data-testid={`cpu-${cpu}-rcu`}>
      <p>{t('cpuView.krcQueued', { objects: r.objects, inPages: r.inPages, pages: r.pages, chained: r.chained })}</p>
      {r.queued.shown.length > 0 && (
        <ol data-testid={`cpu-${cpu}-krc`}>
          {r.queued.shown.map((o) => (
            <li key={o.id}>
              <ObjectButton addr={o.addr} onSelect={activate} />
              {o.chained && <> ({t('cpuView.krcChained')})</>}
              {o.highlight && <strong> ({t('cpuView.touchedStep')})</strong>}
            </li>
          ))}
          {r.queued.more > 0 && <li>{t('cpuView.more', { count: r.queued.more })}</li>}
        </ol>
      )}
      {r.batches.map((objects, batch) => objects > 0 && <p key={batch}>{t('cpuView.krcBatch', { batch, objects })}</p>)}
      <p>{t('cpuView.krcCache', { pages: r.cachedPages })}</p>
      {r.monitorPending && <p>{t('cpuView.krcMonitor')}</p>}
      <p>{t('cpuView.rcuCallbacks', { count: r.callbacks, ready: r.readyCallbacks })}</p>
    </td>
  );
}

function SlabEntry({ slab, t, activate }: { slab: SlabItem | PartialItem; t: Translate; activate: (x: Target) => void }) {
  const args = { pfn: slab.pfn, inuse: slab.inuse, objects: slab.objects };
  const text = 'slabs' in slab ? t('cpuView.partialButton', { ...args, slabs: slab.slabs }) : t('cpuView.slabButton', args);
  return (
    <>
      <SlabButton pfn={slab.pfn} text={text} onSelect={activate} />
      {slab.frozen && <> ({t('cpuView.frozen')})</>}
      {slab.highlight && <strong> ({t('cpuView.touchedStep')})</strong>}
    </>
  );
}

function ObjectList({
  id,
  list,
  t,
  activate,
  more,
}: {
  id: string;
  list: Capped<{ id: string; addr: string; highlight: boolean }>;
  t: Translate;
  activate: (x: Target) => void;
  more: string;
}) {
  if (list.shown.length === 0) return <span data-testid={id}>{t('cpuView.null')}</span>;
  return (
    <ol data-testid={id}>
      {list.shown.map((o) => (
        <li key={o.id}>
          <ObjectButton addr={o.addr} onSelect={activate} />
          {o.highlight && <strong> ({t('cpuView.touchedStep')})</strong>}
        </li>
      ))}
      {list.more > 0 && <li>{t(more, { count: list.more })}</li>}
    </ol>
  );
}

/** Drawn again only when its props change: not on every tick of the timeline. */
export const CpuPanelView = memo(CpuPanel);
