// The slab page view: the shown slab's header, its slots and free pointers (SVG), the strip of
// every slab of the cache, and the same scene as tables. Named SlabPageView so it is not taken
// for the generated `SlabView` type it draws.

import type { TFunction } from 'i18next';
import { memo, useId, useLayoutEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { SlabPlace } from '../../core/generated/SlabPlace';
import { label, labelText } from '../../views/marks';
import { wordLabel, type SharedWord } from '../../views/sharedWords';
import { barAt, layoutSlabPage, slotAt, placeKey, type MarkShown, type SlabBar, type SlabPageScene, type SlotCell } from '../../views/slabPage';
import { drawSlabPage, drawSlabStrip, drawSlots, pageSize, type SlabPageText } from '../../views/slabPageDraw';
import { TextAlternative } from './TextAlternative';
import type { MemoryViewProps } from './viewProps';
import { HitCanvas } from './HitCanvas';
import { useCanvasRatio } from './useCanvasRatio';
import { useStable } from './useStable';
import { WordMark } from './ViewFigure';

export function placeText(t: TFunction, place: SlabPlace): string {
  const { kind, cpu } = placeKey(place);
  return t(`slabView.place.${kind}`, { cpu });
}

export function markText(t: TFunction, mark: MarkShown | null): string {
  if (!mark) return '—';
  const args = { op: mark.op, step: mark.step, cpu: mark.cpu };
  return mark.op === null ? t('slabView.markBoot', args) : t('slabView.mark', args);
}

export function stateText(t: TFunction, cell: SlotCell): string {
  if (cell.kind === 'sheaf' && cell.cpu === null) return t('slabView.state.sheafOffCpu');
  return t(`slabView.state.${cell.kind}`, { cpu: cell.cpu });
}

/** The decoded free pointer as text: '—' where there is none (allocated, cached, SLAB). */
export function nextText(t: TFunction, scene: SlabPageScene, cell: SlotCell): string {
  if (scene.allocator !== 'slub' || (cell.kind !== 'free' && cell.kind !== 'cpu_freelist')) return '—';
  if (cell.next === null) return t('slabView.null');
  return t('slabView.nextIndex', { addr: cell.nextAddr ?? '?', index: cell.next });
}

/** What a micro-step did to a word, said short ("read by cpu1"). */
export function wordText(t: TFunction, word: SharedWord): string {
  return labelText(wordLabel(word), (key, args) => t(key, args ?? {}));
}

function barText(t: TFunction, bar: SlabBar): string {
  const args = { pfn: bar.pfn, node: bar.node, inuse: bar.inuse, objects: bar.objects, place: placeText(t, bar.place) };
  const text = bar.frozen ? t('slabView.barFrozen', args) : t('slabView.bar', args);
  return bar.word ? `${text} (${t('slabView.slabWords', { mark: wordText(t, bar.word) })})` : text;
}

function drawingText(t: TFunction, scene: SlabPageScene): SlabPageText {
  return {
    slotTitle: (cell) =>
      [
        t('slabView.slotTitle', { index: cell.index, addr: cell.addr, state: stateText(t, cell) }),
        cell.kind === 'free' || cell.kind === 'cpu_freelist' ? t('slabView.slotNext', { next: nextText(t, scene, cell) }) : null,
        cell.stored ? t('slabView.slotStored', { stored: cell.stored }) : null,
        cell.allocatedBy ? t('slabView.slotAllocated', { mark: markText(t, cell.allocatedBy) }) : null,
        cell.freedBy ? t('slabView.slotFreed', { mark: markText(t, cell.freedBy) }) : null,
        cell.word ? t('slabView.freePointerWord', { mark: wordText(t, cell.word) }) : null,
      ]
        .filter(Boolean)
        .join('\n'),
    wordMark: (word) => wordText(t, word),
  };
}

function SlabPage({ snapshot, words, motion, onSelectSlab, onFollowObject }: MemoryViewProps) {
  const { t } = useTranslation();
  const scene = useStable(useMemo(() => layoutSlabPage(snapshot, { words }), [snapshot, words]));
  const stripHeading = useId();
  const sheaves = (snapshot.cache?.sheaf_capacity ?? 0) > 0;
  const page = useRef<SVGSVGElement>(null);
  const slots = useRef<HTMLCanvasElement>(null);
  const strip = useRef<HTMLCanvasElement>(null);
  // The latest callbacks, read by the drawing's click handlers (set after render, not during).
  const handlers = useRef({ onSelectSlab, onFollowObject });
  useLayoutEffect(() => {
    handlers.current = { onSelectSlab, onFollowObject };
  });

  // The canvases are painted at the scale their column shows them.
  const slotsBox = useRef<HTMLDivElement>(null);
  const stripBox = useRef<HTMLDivElement>(null);
  const slotsRatio = useCanvasRatio(slotsBox, pageSize(scene).width);
  const stripRatio = useCanvasRatio(stripBox, scene.strip.width);
  useLayoutEffect(() => {
    if (page.current) drawSlabPage(page.current, scene, { motion, text: drawingText(t, scene) });
    if (slots.current) drawSlots(slots.current, scene, { pixelRatio: slotsRatio });
  }, [scene, motion, t, slotsRatio]);

  const stripScene = useStable(scene.strip);
  useLayoutEffect(() => {
    if (strip.current) drawSlabStrip(strip.current, stripScene, { pixelRatio: stripRatio });
  }, [stripScene, stripRatio]);

  // The markup depends on the scene alone: an unchanged scene (most steps, for most views)
  // re-renders nothing.
  return useMemo(() => {
    const size = pageSize(scene);
    const text = drawingText(t, scene);

    const header = scene.header;
    const cache = scene.cacheName;
    return (
      <figure className="memory-view slab-page-view" data-testid="slab-view">
        <figcaption>{cache ? t('slabView.titleCache', { cache }) : t('slabView.title')}</figcaption>
        {!header && (
          <p data-testid="slab-empty">{cache ? t('slabView.noSlab', { cache }) : t('slabView.noCache')}</p>
        )}
        {header && <SlabHeaderFacts scene={scene} header={header} />}
        {header && (
          <div className="drawing" ref={slotsBox}>
            <div className="slab-page-drawing">
              {/* The slots are one canvas: a click follows the object under the pointer. */}
              <HitCanvas
                canvasRef={slots}
                testId="slab-slots-canvas"
                width={size.width}
                height={size.height}
                at={(x, y) => slotAt(scene, x, y)}
                pick={(cell) => handlers.current.onFollowObject?.(cell.addr)}
                title={motion.playing ? null : text.slotTitle}
              />
              <svg ref={page} aria-hidden="true" data-testid="slab-drawing" />
            </div>
          </div>
        )}
        {header && (
          <p className="legend" data-testid="slab-legend">
            {t(scene.allocator === 'slab' ? 'slabView.legendSlab' : sheaves ? 'slabView.legendSheaves' : 'slabView.legendSlub')}
          </p>
        )}
        {scene.strip.bars.length > 0 && cache && (
          <div className="drawing" ref={stripBox}>
            <p className="legend">{t('slabView.strip', { cache })}</p>
            {/* The strip is one canvas too: a click picks the bar under the pointer. */}
            <HitCanvas
              canvasRef={strip}
              testId="slab-strip"
              width={scene.strip.width}
              height={scene.strip.height}
              at={(x, y) => barAt(scene.strip, x, y)}
              pick={(bar) => handlers.current.onSelectSlab?.(bar.pfn)}
              title={(bar) => barText(t, bar)}
            />
          </div>
        )}
        <TextAlternative showLabel={t('slabView.showTable')} hideLabel={t('slabView.hideTable')} testId="slab-text" frozen={motion.playing}>
          {() => (
            <>
          {header && cache && <SlotTable scene={scene} cache={cache} onFollowObject={(a) => handlers.current.onFollowObject?.(a)} />}
          {scene.slotsHidden > 0 && <p>{t('slabView.slotsHidden', { count: scene.slotsHidden })}</p>}
          {scene.strip.bars.length > 0 && cache && (
            <SlabStripList scene={scene} cache={cache} headingId={stripHeading} onSelectSlab={(pfn) => handlers.current.onSelectSlab?.(pfn)} />
          )}
            </>
          )}
        </TextAlternative>
      </figure>
    );
  }, [scene, t, motion.playing, stripHeading, sheaves]);
}

/** The shown slab's facts: where it is, how full, where it sits, its freelist (SLAB: its index
 *  array) and per-CPU freelist heads, and the order its free objects will be handed out in. */
function SlabHeaderFacts({ scene, header }: { scene: SlabPageScene; header: NonNullable<SlabPageScene['header']> }) {
  const { t } = useTranslation();
  return (
    <dl className="view-facts" data-testid="slab-header">
      <Fact label={t('slabView.header.pfn')} testId="slab-pfn" value={header.pfn} />
      <Fact label={t('slabView.header.node')} testId="slab-node" value={header.node} />
      <Fact label={t('slabView.header.order')} testId="slab-order" value={header.order} />
      <Fact label={t('slabView.header.inuse')} testId="slab-inuse" value={`${header.inuse}/${header.objects}`} word={header.words.counters} />
      <Fact label={t('slabView.header.frozen')} testId="slab-frozen" value={header.frozen ? t('slabView.header.yes') : t('slabView.header.no')} />
      <Fact label={t('slabView.header.place')} testId="slab-place" value={placeText(t, header.place)} />
      <Fact
        label={scene.allocator === 'slab' ? t('slabView.header.indexArray') : t('slabView.header.freelist')}
        testId="slab-freelist"
        value={header.freelist ?? t('slabView.null')}
        word={header.words.freelist}
      />
      {header.cpuFreelists.map((h) => (
        <Fact key={h.cpu} label={t('slabView.header.cpuFreelist', { cpu: h.cpu })} testId={`slab-cpu-freelist-${h.cpu}`} value={h.head} />
      ))}
      {header.colourOff !== null && <Fact label={t('slabView.header.colourOff')} testId="slab-colour-off" value={header.colourOff} />}
      <Fact
        label={t('slabView.header.freeOrder')}
        testId="slab-free-order"
        value={header.freeOrder.length > 0 ? header.freeOrder.join(' → ') : t('slabView.header.none')}
      />
      {scene.hardened && scene.random && <Fact label={t('slabView.header.random')} testId="slab-random" value={scene.random} />}
    </dl>
  );
}

/** Every slab of the cache as a list of buttons that show it, the one shown marked; `headingId`
 *  is the id of the line that names the list. */
function SlabStripList({ scene, cache, headingId, onSelectSlab }: { scene: SlabPageScene; cache: string; headingId: string; onSelectSlab: (pfn: number) => void }) {
  const { t } = useTranslation();
  return (
    <>
      <p id={headingId}>{t('slabView.strip', { cache })}</p>
      <ul aria-labelledby={headingId} data-testid="slab-strip-list">
        {scene.strip.bars.map((bar) => (
          <li key={bar.id}>
            <button
              type="button"
              className="link-button"
              aria-current={bar.selected ? 'true' : undefined}
              onClick={() => onSelectSlab(bar.pfn)}
              data-testid="slab-strip-item"
              data-pfn={bar.pfn}
            >
              {barText(t, bar)}
            </button>
            {bar.selected && ` (${t('slabView.shown')})`}
          </li>
        ))}
      </ul>
      {scene.strip.hidden > 0 && <p>{t('slabView.stripHidden', { count: scene.strip.hidden })}</p>}
    </>
  );
}

function Fact({ label, value, testId, word = null }: { label: string; value: string | number; testId: string; word?: SharedWord | null }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>
        {value}
        <WordMark word={word} />
      </dd>
    </div>
  );
}

function SlotTable({ scene, cache, onFollowObject }: { scene: SlabPageScene; cache: string; onFollowObject: (addr: string) => void }) {
  const { t } = useTranslation();
  const header = scene.header!;
  return (
    <table data-testid="slab-slots">
      <caption>{t('slabView.caption', { pfn: header.pfn, cache })}</caption>
      <thead>
        <tr>
          <th scope="col">{t('slabView.column.index')}</th>
          <th scope="col">{t('slabView.column.addr')}</th>
          <th scope="col">{t('slabView.column.state')}</th>
          <th scope="col">{t('slabView.column.next')}</th>
          {scene.hardened && <th scope="col">{t('slabView.column.stored')}</th>}
          <th scope="col">{t('slabView.column.allocatedBy')}</th>
          <th scope="col">{t('slabView.column.freedBy')}</th>
        </tr>
      </thead>
      <tbody>
        {scene.slots.map((cell) => (
          <tr key={cell.id} data-testid="slab-slot" data-index={cell.index} data-state={cell.kind}>
            <th scope="row" data-testid="slot-index">
              {cell.index}
            </th>
            <td className="text" data-testid="slot-addr">
              <button type="button" className="link-button" onClick={() => onFollowObject(cell.addr)}>
                {cell.addr}
              </button>
            </td>
            <td className="text" data-testid="slot-state">
              {cell.mark} {stateText(t, cell)}
              {cell.freeRank !== null && ` (${t('slabView.freeRank', { rank: cell.freeRank + 1 })})`}
              {cell.highlighted && ` (${t('slabView.touched')})`}
              {cell.word && <WordMark word={cell.word} label={label('slabView.freePointerWord', { mark: wordText(t, cell.word) })} />}
            </td>
            <td className="text" data-testid="slot-next">
              {nextText(t, scene, cell)}
            </td>
            {scene.hardened && (
              <td className="text" data-testid="slot-stored">
                {cell.stored ?? '—'}
              </td>
            )}
            <td className="text" data-testid="slot-allocated-by">
              {markText(t, cell.allocatedBy)}
            </td>
            <td className="text" data-testid="slot-freed-by">
              {markText(t, cell.freedBy)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Drawn again only when its props change: not on every tick of the timeline. */
export const SlabPageView = memo(SlabPage);
