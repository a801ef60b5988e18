// The stage: the whole allocator for the shown cache in one diagram (views/stage.ts), laid out for
// the width it has, zoomed with the buttons, Ctrl/⌘ + wheel or the + and − keys, panned by
// scrolling. Close in (zoom ≥ SLOTS_AT) the shown slab is drawn slot by slot. After each step the
// camera scrolls what the step changed into view (at once under reduced motion).

import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Motion } from '../../views/drawUtil';
import { drawMarks } from '../../views/marksDraw';
import { layoutStage, type Area } from '../../views/stage';
import { useDisplay } from '../display';
import { useActivate, useTranslate, type StructViewProps } from './ViewFigure';
import { useStable } from './useStable';
import { useWidth } from './useWidth';

/** Zoom steps; from SLOTS_AT on, the shown slab is drawn slot by slot. */
const ZOOMS = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2, 2.5, 3] as const;
const SLOTS_AT = 1.5;


function Stage({ snapshot, words, motion, onSelectSlab, onFollowObject }: StructViewProps) {
  const { t: tr } = useTranslation();
  const t = useTranslate();
  const activate = useActivate({ onSelectSlab, onFollowObject });
  const { largeText } = useDisplay();
  const scroller = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const width = useWidth(scroller);
  const [zoom, setZoom] = useState(1);
  const detail = zoom >= SLOTS_AT ? 'slots' : 'bars';
  const scene = useStable(
    useMemo(() => layoutStage(snapshot, { width: width || 800, detail, words, fontScale: largeText ? 1.4 : 1 }), [snapshot, width, detail, words, largeText]),
  );

  useLayoutEffect(() => {
    if (svg.current && width > 0) drawMarks(svg.current, scene.marks, { t, motion, onActivate: activate });
  }, [scene, width, t, motion, activate]);
  useCamera(scroller, scene.focus, zoom, motion);

  const step = useCallback((dir: 1 | -1) => setZoom((z) => nextZoom(z, dir)), []);
  useWheelZoom(scroller, step);
  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === '+' || e.key === '=') step(1);
    else if (e.key === '-' || e.key === '_') step(-1);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };

  const cache = scene.cacheName ?? '';
  return (
    <section className="stage" data-testid="stage" data-zoom={zoom} data-detail={detail} aria-label={tr('stage.label', { cache })}>
      <div className="stage-bar">
        <h2 className="stage-title">{tr('stage.heading', { cache })}</h2>
        <div className="stage-zoom" role="group" aria-label={tr('stage.zoom')}>
          <button type="button" onClick={() => step(-1)} disabled={zoom <= ZOOMS[0]} aria-label={tr('stage.zoomOut')} data-testid="stage-zoom-out">
            −
          </button>
          <button type="button" onClick={() => setZoom(1)} title={tr('stage.zoomReset')} data-testid="stage-zoom-reset">
            {Math.round(zoom * 100)}%
          </button>
          <button type="button" onClick={() => step(1)} disabled={zoom >= ZOOMS[ZOOMS.length - 1]} aria-label={tr('stage.zoomIn')} data-testid="stage-zoom-in">
            +
          </button>
        </div>
      </div>
      {/* The diagram is a picture of the views beside it (their tables say the same in text);
          the box scrolls with the keyboard, and + and − zoom. */}
      <div className="stage-scroll" ref={scroller} tabIndex={0} onKeyDown={onKey} aria-label={tr('stage.scroll')} role="region">
        <svg
          ref={svg}
          className="stage-svg"
          aria-hidden="true"
          style={{ width: scene.marks.width * zoom, height: scene.marks.height * zoom }}
        />
      </div>
      <p className="stage-legend">{tr((snapshot.cache?.sheaf_capacity ?? 0) > 0 ? 'stage.legendSheaves' : detail === 'slots' ? 'stage.legendSlots' : 'stage.legend')}</p>
    </section>
  );
}

export const StageView = memo(Stage);

function nextZoom(z: number, dir: 1 | -1): number {
  if (dir > 0) return ZOOMS.find((s) => s > z + 1e-6) ?? z;
  return [...ZOOMS].reverse().find((s) => s < z - 1e-6) ?? z;
}

/** Ctrl/⌘ + wheel (and a trackpad's pinch, which the browser sends as one) zooms the stage. */
function useWheelZoom(ref: { readonly current: HTMLElement | null }, step: (dir: 1 | -1) => void): void {
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const onWheel = (e: WheelEvent) => {
      if (!e.ctrlKey && !e.metaKey) return;
      e.preventDefault();
      step(e.deltaY < 0 ? 1 : -1);
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [ref, step]);
}

/** Scrolls `focus` (stage units) into the box's view when it is not already, once per new
 * focus. */
function useCamera(ref: { readonly current: HTMLElement | null }, focus: Area | null, zoom: number, motion: Motion): void {
  const last = useRef<string>('');
  useEffect(() => {
    const el = ref.current;
    if (!el || !focus) return;
    const key = `${focus.x},${focus.y},${focus.w},${focus.h},${zoom}`;
    if (key === last.current) return;
    last.current = key;
    const margin = 24;
    const [x, y, w, h] = [focus.x * zoom, focus.y * zoom, focus.w * zoom, focus.h * zoom];
    const view = { left: el.scrollLeft, top: el.scrollTop, right: el.scrollLeft + el.clientWidth, bottom: el.scrollTop + el.clientHeight };
    const inside = x >= view.left && y >= view.top && x + w <= view.right && y + h <= view.bottom;
    if (inside) return;
    const left = x + w > view.right || x < view.left ? Math.max(0, x - margin) : view.left;
    const top = y + h > view.bottom || y < view.top ? Math.max(0, y - margin) : view.top;
    el.scrollTo({ left, top, behavior: motion.ms > 0 && !motion.playing ? 'smooth' : 'auto' });
  }, [ref, focus, zoom, motion]);
}
