// The whole run at a glance under the step controls: a strip with one column per range of steps,
// coloured by what those steps did (fast paths, slow paths, list_lock taken, new slabs,
// discards, diagnostics), a click on a column going to its first step; and the breakpoints:
// "run until" the next (or back to the previous) step that takes list_lock, moves a slab between
// lists, makes or discards a slab, is a diagnostic, takes a kernel path, or uses the object
// being followed.

import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Lane } from '../../core/client';
import { okabeIto } from '../../views/palette';
import { columns, findStep, STRIP_KINDS, type Breakpoint, type Column, type KindName, type StepTable, type StripKind } from '../../timeline/overview';
import { drawingPoint } from '../views/drawingPoint';
import { useWidth } from '../views/useWidth';

/** Each kind's colour (Okabe–Ito); the strip also keeps their order from the top of a column. */
const STRIP_COLOUR: Record<StripKind, string> = {
  diagnostic: okabeIto.vermillion,
  discard: okabeIto.reddishPurple,
  newSlab: okabeIto.blue,
  listLock: okabeIto.orange,
  slow: okabeIto.skyBlue,
  fast: okabeIto.bluishGreen,
};

const HEIGHT = 22;
/** The narrowest a column is drawn, in CSS pixels. */
const COLUMN_PX = 3;

/** The breakpoints offered, in the picker's order (the followed object's and the paths come
 *  after). */
const KIND_BREAKPOINTS: KindName[] = ['listLock', 'listMove', 'newSlab', 'discard', 'diagnostic', 'slow', 'fast', 'pages'];

export interface RunOverviewProps {
  table: StepTable;
  cursor: number;
  /** The lane of the object followed, if any: its allocations and frees are a breakpoint. */
  lane: Lane | null;
  onJump: (cursor: number) => void;
}

export function RunOverview({ table, cursor, lane, onJump }: RunOverviewProps) {
  const { t } = useTranslation();
  const [choice, setChoice] = useState('listLock');
  const [missed, setMissed] = useState<{ choice: string; dir: 1 | -1; cursor: number } | null>(null);
  const uses = useMemo(() => (lane?.object ? lane.marks.map((m) => m.mark.step + 1) : null), [lane]);
  // The object's uses are offered only while it is followed; after that the default stands.
  const chosen = breakpointOf(choice, uses) ? choice : 'listLock';
  const bp = breakpointOf(chosen, uses) ?? { kind: 'listLock' };
  const go = (dir: 1 | -1) => {
    const found = findStep(table, bp, cursor, dir);
    if (found === null) setMissed({ choice: chosen, dir, cursor });
    else {
      setMissed(null);
      onJump(found);
    }
  };
  const showMissed = missed !== null && missed.choice === chosen && missed.cursor === cursor;
  return (
    <div className="run-overview" data-testid="run-overview">
      <Strip table={table} cursor={cursor} onJump={onJump} />
      <div className="run-until">
        <label>
          {t('overview.runUntil')}{' '}
          <select value={chosen} onChange={(e) => setChoice(e.target.value)} data-testid="breakpoint">
            {KIND_BREAKPOINTS.map((k) => (
              <option key={k} value={k}>
                {t(`overview.bp.${k}`)}
              </option>
            ))}
            {uses && <option value="object">{t('overview.bp.object', { object: lane?.object ?? '' })}</option>}
            <optgroup label={t('overview.paths')}>
              {table.paths.map((p, i) => (
                <option key={`${p.function} ${p.path}`} value={`path:${i}`}>
                  {p.path ? `${p.function}() · ${p.path}` : `${p.function}()`}
                </option>
              ))}
            </optgroup>
          </select>
        </label>
        <button type="button" onClick={() => go(-1)} aria-label={t('overview.previous')} title={t('overview.previous')} data-testid="breakpoint-back">
          ◀
        </button>
        <button type="button" onClick={() => go(1)} aria-label={t('overview.next')} title={t('overview.next')} data-testid="breakpoint-next">
          ▶
        </button>
        <span role="status" className="run-until-missed" data-testid="breakpoint-missed">
          {showMissed ? t(missed.dir > 0 ? 'overview.noneAfter' : 'overview.noneBefore') : ''}
        </span>
      </div>
      <ul className="overview-legend" aria-label={t('overview.legend')}>
        {STRIP_KINDS.map((k) => (
          <li key={k}>
            <span className="swatch" style={{ background: STRIP_COLOUR[k] }} aria-hidden="true" />
            {t(`overview.kind.${k}`)}
          </li>
        ))}
      </ul>
    </div>
  );
}

function breakpointOf(choice: string, uses: readonly number[] | null): Breakpoint | null {
  if (choice.startsWith('path:')) return { kind: 'path', path: Number(choice.slice(5)) };
  if (choice === 'object') return uses ? { kind: 'cursors', cursors: uses } : null;
  return (KIND_BREAKPOINTS as string[]).includes(choice) ? { kind: choice as KindName } : null;
}

/** The strip: a canvas as wide as its box, one column per range of steps. */
function Strip({ table, cursor, onJump }: { table: StepTable; cursor: number; onJump: (cursor: number) => void }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const width = useWidth(box);
  const cols = useMemo(() => columns(table, Math.max(1, Math.floor(width / COLUMN_PX))), [table, width]);
  useLayoutEffect(() => {
    const c = canvas.current;
    if (c && width > 0) drawStrip(c, cols, width, table.kinds.length, cursor);
  }, [cols, width, cursor, table]);
  const columnAt = (x: number) => cols[Math.min(cols.length - 1, Math.max(0, Math.floor((x / Math.max(1, width)) * cols.length)))] ?? null;
  const under = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const p = drawingPoint(e, Math.max(1, width), HEIGHT);
    return p ? columnAt(p.x) : null;
  };
  return (
    <div className="overview-strip" ref={box}>
      <canvas
        ref={canvas}
        aria-hidden="true"
        data-testid="overview-strip"
        onClick={(e) => {
          const col = under(e);
          if (col) onJump(col.first + 1);
        }}
        onMouseMove={(e) => {
          const col = under(e);
          e.currentTarget.title = col ? columnTitle(col, t) : '';
        }}
      />
    </div>
  );
}

function columnTitle(col: Column, t: (key: string, args?: Record<string, unknown>) => string): string {
  const parts = STRIP_KINDS.filter((k) => col.counts[k] > 0).map((k) => `${t(`overview.kind.${k}`)} ${col.counts[k]}`);
  return `${t('overview.columnSteps', { first: col.first + 1, last: col.last + 1 })}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

/** Stacked bars, each column's kinds in proportion to their counts; the cursor a black line. */
function drawStrip(canvas: HTMLCanvasElement, cols: readonly Column[], width: number, steps: number, cursor: number): void {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(HEIGHT * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${HEIGHT}px`;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, HEIGHT);
  const cw = width / Math.max(1, cols.length);
  cols.forEach((col, i) => {
    const total = STRIP_KINDS.reduce((s, k) => s + col.counts[k], 0);
    const x = i * cw;
    if (total === 0) {
      ctx.fillStyle = '#c9ced4';
      ctx.fillRect(x, HEIGHT - 3, Math.max(1, cw - 0.5), 3);
      return;
    }
    let y = 0;
    for (const k of STRIP_KINDS) {
      if (col.counts[k] === 0) continue;
      const h = (col.counts[k] / total) * HEIGHT;
      ctx.fillStyle = STRIP_COLOUR[k];
      ctx.fillRect(x, y, Math.max(1, cw - 0.5), h);
      y += h;
    }
  });
  if (steps > 0) {
    const x = Math.min(width - 1, (cursor / steps) * width);
    ctx.fillStyle = '#000000';
    ctx.fillRect(x - 1, 0, 2, HEIGHT);
  }
}
