// The buddy allocator view: free_area and pcp lists per node, the zone against its watermarks,
// and the step's merged or split buddy pairs (SVG), with the same scene as tables. Named
// BuddyAllocatorView so it is not taken for the generated `BuddyView` type it draws.

import type { TFunction } from 'i18next';
import { memo, useLayoutEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { chipAt, layoutBuddy, type BuddyScene, type NodeScene, type PairScene, type PcpScene } from '../../views/buddy';
import { buddySize, drawBuddyLists, drawBuddyPairs, type BuddyText } from '../../views/buddyDraw';
import { TextAlternative } from './TextAlternative';
import type { MemoryViewProps } from './viewProps';
import { HitCanvas } from './HitCanvas';
import { useCanvasRatio } from './useCanvasRatio';
import { useStable } from './useStable';

export function nodeText(t: TFunction, n: NodeScene): string {
  return t('buddyView.node', {
    node: n.node,
    first: n.startPfn,
    last: n.startPfn + n.pages - 1,
    free: n.freePages,
    level: t(`buddyView.level.${n.level}`),
  });
}

export function pairText(t: TFunction, p: PairScene): string {
  return t(`buddyView.${p.kind}`, { seq: p.seq, lower: p.lower, upper: p.upper, order: p.order, whole: p.order + 1 });
}

function pcpText(t: TFunction, p: PcpScene): string {
  return t('buddyView.pcpTitle', { cpu: p.cpu, count: p.count, high: p.high, batch: p.batch });
}

function drawingText(t: TFunction): BuddyText {
  return {
    nodeTitle: (n) => nodeText(t, n),
    pcpTitle: (p) => pcpText(t, p),
    rowLabel: (row) => t('buddyView.row', { order: row.order, count: row.count }),
    more: (count) => t('buddyView.more', { count }),
    pairLabel: (p) => t(p.kind === 'merge' ? 'buddyView.pairShortMerge' : 'buddyView.pairShortSplit', { seq: p.seq, whole: p.order + 1 }),
    chipTitle: (c) => t('buddyView.chip', { pfn: c.pfn, order: c.order, list: c.list }),
  };
}

function BuddyAllocator({ snapshot, motion, onFollowPage }: MemoryViewProps) {
  const { t } = useTranslation();
  const scene = useStable(useMemo(() => layoutBuddy(snapshot), [snapshot]));
  const svg = useRef<SVGSVGElement>(null);
  const follow = useRef(onFollowPage);
  useLayoutEffect(() => {
    follow.current = onFollowPage;
  });

  const canvas = useRef<HTMLCanvasElement>(null);
  // One set of texts per language: the lists are painted again when this changes.
  const text = useMemo(() => drawingText(t), [t]);
  const box = useRef<HTMLDivElement>(null);
  const pixelRatio = useCanvasRatio(box, buddySize(scene).width);
  useLayoutEffect(() => {
    if (canvas.current) drawBuddyLists(canvas.current, scene, text, { pixelRatio });
    if (svg.current) drawBuddyPairs(svg.current, scene, { motion, text, onFollowPage: (pfn) => follow.current?.(pfn) });
  }, [scene, motion, text, pixelRatio]);

  // The markup depends on the scene alone: an unchanged scene (most steps, for most views)
  // re-renders nothing.
  return useMemo(() => {
    const followPage = (pfn: number) => follow.current?.(pfn);
    const { width, height } = buddySize(scene);
    return (
      <figure className="memory-view buddy-view" data-testid="buddy-view">
        <figcaption>{t('buddyView.title')}</figcaption>
        <div className="drawing" ref={box}>
          <div className="layered-drawing">
            <HitCanvas
              canvasRef={canvas}
              testId="buddy-canvas"
              width={width}
              height={height}
              at={(x, y) => chipAt(scene, x, y)}
              pick={(chip) => followPage(chip.pfn)}
              title={text.chipTitle}
            />
            <svg ref={svg} aria-hidden="true" data-testid="buddy-drawing" />
          </div>
        </div>
        <TextAlternative showLabel={t('buddyView.showTable')} hideLabel={t('buddyView.hideTable')} testId="buddy-text" frozen={motion.playing}>
          {() => <BuddyTables scene={scene} onFollowPage={followPage} />}
        </TextAlternative>
      </figure>
    );
  }, [scene, t, text, motion.playing]);
}

function PfnButtons({ pfns, more, onFollowPage }: { pfns: number[]; more: number; onFollowPage: (pfn: number) => void }) {
  const { t } = useTranslation();
  if (pfns.length === 0) return <>{t('buddyView.none')}</>;
  return (
    <>
      {pfns.map((pfn) => (
        <button
          key={pfn}
          type="button"
          className="link-button"
          aria-label={t('buddyView.followPage', { pfn })}
          onClick={() => onFollowPage(pfn)}
        >
          {pfn}
        </button>
      ))}
      {more > 0 && ` ${t('buddyView.more', { count: more })}`}
    </>
  );
}

function BuddyTables({ scene, onFollowPage }: { scene: BuddyScene; onFollowPage: (pfn: number) => void }) {
  const { t } = useTranslation();
  return (
    <>
      {scene.pairs.length > 0 && (
        <>
          <p>{t('buddyView.pairs')}</p>
          <ol data-testid="buddy-pairs">
            {scene.pairs.map((p) => (
              <li key={p.id} data-testid="buddy-pair" data-kind={p.kind}>
                {pairText(t, p)}
              </li>
            ))}
          </ol>
          {scene.pairsHidden > 0 && <p>{t('buddyView.pairsHidden', { count: scene.pairsHidden })}</p>}
        </>
      )}
      {scene.nodes.map((n) => (
        <section key={n.id} aria-label={nodeText(t, n)}>
          <table data-testid={`zone-node-${n.node}`}>
            <caption>{t('buddyView.zoneCaption', { node: n.node })}</caption>
            <tbody>
              <tr>
                <th scope="row">{t('buddyView.freePages')}</th>
                <td data-testid="zone-free">{n.freePages}</td>
                <td className="text" data-testid="zone-level">
                  {t(`buddyView.level.${n.level}`)}
                </td>
              </tr>
              <tr>
                <th scope="row">{t('buddyView.watermarks')}</th>
                <td data-testid="zone-watermarks" colSpan={2}>
                  {n.watermark.min} / {n.watermark.low} / {n.watermark.high}
                </td>
              </tr>
            </tbody>
          </table>
          <table data-testid={`free-area-node-${n.node}`}>
            <caption>{t('buddyView.freeAreaCaption', { node: n.node })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('buddyView.column.order')}</th>
                <th scope="col">{t('buddyView.column.nrFree')}</th>
                <th scope="col">{t('buddyView.column.blocks')}</th>
              </tr>
            </thead>
            <tbody>
              {n.freeArea.map((row) => (
                <tr key={row.id} data-testid="free-area-order" data-order={row.order}>
                  <th scope="row">{row.order}</th>
                  <td data-testid="nr-free">{row.count}</td>
                  <td className="text">
                    <PfnButtons pfns={row.pfns} more={row.more} onFollowPage={onFollowPage} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {n.pcp.map((p) => (
            <PcpTable key={p.id} p={p} onFollowPage={onFollowPage} />
          ))}
        </section>
      ))}
    </>
  );
}

/** Drawn again only when its props change: not on every tick of the timeline. */
export const BuddyAllocatorView = memo(BuddyAllocator);

/** One CPU's page list for the zone: its counters (6.7+: its tuning) and its lists. */
function PcpTable({ p, onFollowPage }: { p: PcpScene; onFollowPage: (pfn: number) => void }) {
  const { t } = useTranslation();
  return (
    <table data-testid={`pcp-cpu-${p.cpu}-node-${p.node}`}>
      <caption>{t('buddyView.pcpCaption', { cpu: p.cpu, node: p.node })}</caption>
      <thead>
        <tr>
          <th scope="col">{t('buddyView.column.count')}</th>
          <th scope="col">{t('buddyView.column.high')}</th>
          <th scope="col">{t('buddyView.column.batch')}</th>
          {p.tuning ? (
            <>
              <th scope="col">{t('buddyView.column.highRange')}</th>
              <th scope="col">{t('buddyView.column.allocFactor')}</th>
              <th scope="col">{t('buddyView.column.freeCount')}</th>
            </>
          ) : (
            <th scope="col">{t('buddyView.column.freeFactor')}</th>
          )}
        </tr>
      </thead>
      <tbody>
        <tr>
          <td data-testid="pcp-count">{p.count}</td>
          <td data-testid="pcp-high">{p.high}</td>
          <td data-testid="pcp-batch">{p.batch}</td>
          {p.tuning ? (
            <>
              <td data-testid="pcp-high-range">
                {p.tuning.highMin}–{p.tuning.highMax}
              </td>
              <td data-testid="pcp-alloc-factor">{p.tuning.allocFactor}</td>
              <td data-testid="pcp-free-count">{p.tuning.freeCount}</td>
            </>
          ) : (
            <td data-testid="pcp-free-factor">{p.freeFactor}</td>
          )}
        </tr>
      </tbody>
      <tbody>
        <tr>
          <th scope="col">{t('buddyView.column.order')}</th>
          <th scope="col" colSpan={p.tuning ? 5 : 3}>
            {t('buddyView.column.list')}
          </th>
        </tr>
        {p.lists.map((row) => (
          <tr key={row.id} data-testid="pcp-list" data-order={row.order}>
            <th scope="row">{row.order}</th>
            <td className="text" colSpan={p.tuning ? 5 : 3}>
              <PfnButtons pfns={row.pfns} more={row.more} onFollowPage={onFollowPage} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
