// The node panel: per-node lists of the shown cache, drawn from one snapshot, with the same
// scene as a table (one row per node) for screen readers and end-to-end tests.

import { memo, useCallback, useMemo } from 'react';
import type { Capped, Target, Translate } from '../../views/marks';
import { layoutNodePanel, type LockItem, type NodeBlock, type NodeSlab } from '../../views/nodePanel';
import { drawNodePanel } from '../../views/nodePanelDraw';
import { SlabButton, useActivate, useTranslate, ViewFigure, WordMark, type StructViewProps } from './ViewFigure';
import { useStable } from './useStable';

function NodePanel({ snapshot, words, motion, onSelectSlab, onFollowObject }: StructViewProps) {
  const t = useTranslate();
  const activate = useActivate({ onSelectSlab, onFollowObject });
  const scene = useStable(useMemo(() => layoutNodePanel(snapshot, { words }), [snapshot, words]));
  const draw = useCallback(
    (svg: SVGSVGElement) => drawNodePanel(svg, scene, { t, motion, onActivate: activate }),
    [scene, t, motion, activate],
  );
  const cache = scene.cacheName ?? '';
  const slub = scene.allocator === 'slub';
  const cols = slub
    ? ['colLock', 'colPartial', 'colNrPartial', 'colFull', 'colCounts']
    : ['colLock', 'colSlabsPartial', 'colSlabsFull', 'colSlabsFree', 'colFreeObjects', 'colShared', 'colAlien'];

  return (
    <ViewFigure
      ns="nodeView"
      className="node-panel"
      testId="node-panel"
      heading={scene.cacheName === null ? t('nodeView.noCache') : t('nodeView.heading', { cache })}
      draw={draw}
      playing={motion.playing}
    >
      {() => scene.blocks.length > 0 && (
        <table className="struct-table">
          <caption>{t('nodeView.caption', { cache })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('nodeView.colNode')}</th>
              {cols.map((c) => (
                <th scope="col" key={c}>
                  {t(`nodeView.${c}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {scene.blocks.map((b) => (
              <NodeRow key={b.id} block={b} t={t} activate={activate} />
            ))}
          </tbody>
        </table>
      )}
    </ViewFigure>
  );
}

function NodeRow({ block: b, t, activate }: { block: NodeBlock; t: Translate; activate: (x: Target) => void }) {
  const id = `node-${b.node}`;
  const list = (suffix: string, l: Capped<NodeSlab>) => <SlabList id={`${id}-${suffix}`} list={l} t={t} activate={activate} />;
  return (
    <tr data-testid={id}>
      <th scope="row">{t('nodeView.nodeLabel', { node: b.node })}</th>
      <td data-testid={`${id}-list-lock`} data-taken-now={b.lock.takenNow}>
        <Lock lock={b.lock} t={t} />
      </td>
      {b.kind === 'slub' ? (
        <>
          <td>{list('partial', b.partial)}</td>
          <td>
            <span data-testid={`${id}-nr-partial`}>{t('nodeView.nrPartial', { nr: b.nrPartial, min: b.minPartial })}</span>
            <WordMark word={b.nrPartialWord} />
            <br />
            <small>{t(b.nrPartial < b.minPartial ? 'nodeView.belowMin' : 'nodeView.atLeastMin')}</small>
          </td>
          <td>{list('full', b.full)}</td>
          <td data-testid={`${id}-counts`}>{t('nodeView.counts', { slabs: b.nrSlabs, objects: b.totalObjects })}</td>
        </>
      ) : (
        <>
          <td>{list('slabs-partial', b.slabsPartial)}</td>
          <td>{list('slabs-full', b.slabsFull)}</td>
          <td>{list('slabs-free', b.slabsFree)}</td>
          <td>
            <span data-testid={`${id}-free-objects`}>{t('nodeView.freeObjects', { free: b.freeObjects, limit: b.freeLimit })}</span>
            <br />
            <small>{t('nodeView.slabTotals', { slabs: b.totalSlabs, free: b.freeSlabs })}</small>
          </td>
          <td data-testid={`${id}-shared`}>
            {b.shared
              ? t('nodeView.shared', { avail: b.shared.avail, limit: b.shared.limit, batchcount: b.shared.batchcount })
              : t('nodeView.noShared')}
          </td>
          <td>
            <ul data-testid={`${id}-alien`}>
              {b.alien.map((a) => (
                <li key={a.id} data-remote={a.remote}>
                  {t('nodeView.alien', { remote: a.remote, avail: a.avail, limit: a.limit, batchcount: a.batchcount })}
                </li>
              ))}
            </ul>
          </td>
        </>
      )}
    </tr>
  );
}

function Lock({ lock, t }: { lock: LockItem; t: Translate }) {
  // Spun on by the step: another CPU holds it.
  const held = lock.takenNow || lock.word?.how === 'waited';
  return (
    <>
      <span className={held ? 'lock lock-taken' : 'lock'}>
        {/* A mark besides the colour: a filled padlock glyph when taken. */}
        <span aria-hidden="true">{held ? '■ ' : '□ '}</span>
        list_lock: {held ? <strong>{t(lock.takenNow ? 'nodeView.lockTaken' : 'nodeView.lockHeld')}</strong> : t('nodeView.lockFree')}
      </span>
      <WordMark word={lock.word} />; {t('nodeView.takenTotal', { count: lock.takenTotal })}
    </>
  );
}


function SlabList({ id, list, t, activate }: { id: string; list: Capped<NodeSlab>; t: Translate; activate: (x: Target) => void }) {
  if (list.shown.length === 0) return <span data-testid={id}>{t('nodeView.empty')}</span>;
  return (
    <ol data-testid={id}>
      {list.shown.map((s) => (
        <li key={s.id}>
          <SlabButton pfn={s.pfn} text={t('nodeView.slabButton', { pfn: s.pfn, inuse: s.inuse, objects: s.objects })} onSelect={activate} />
          {s.highlight && <strong> ({t('nodeView.touchedStep')})</strong>}
        </li>
      ))}
      {list.more > 0 && <li>{t('nodeView.more', { count: list.more })}</li>}
    </ol>
  );
}

/** Drawn again only when its props change: not on every tick of the timeline. */
export const NodePanelView = memo(NodePanel);
