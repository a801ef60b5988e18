// Export of one view as it is on screen: an SVG or PNG picture, or a WebM video of a range of
// steps for slides. The drawing code (views/exportView.ts) loads on first use.

import { useState } from 'react';
import { useTranslation } from 'react-i18next';

const VIEWS = ['stage', 'cpu', 'node', 'slab', 'bulk', 'buddy', 'explain'] as const;
type ExportView = (typeof VIEWS)[number];
/** The longest range a video may film. */
const MAX_VIDEO_STEPS = 200;

export interface ExportMenuProps {
  cursor: number;
  steps: number;
  /** Puts `step` on screen; resolves once every view shows it. */
  showStep: (step: number) => Promise<void>;
  /** Saves a file. */
  save: (name: string, data: Blob) => void;
  /** Opens a view's pane beside the stage (only the pane chosen is on screen). */
  onShowView: (view: Exclude<ExportView, 'stage'>) => void;
}

/** The view `find` returns, once it is on screen and no longer loading (at most 10 s). */
async function shownView(find: () => HTMLElement | null): Promise<HTMLElement | null> {
  for (let i = 0; i < 200; i++) {
    const el = find();
    if (el && !el.querySelector('[data-testid="pane-loading"]')) return el;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

export function ExportMenu({ cursor, steps, showStep, save, onShowView }: ExportMenuProps) {
  const { t } = useTranslation();
  const [view, setView] = useState<ExportView>('stage');
  const [from, setFrom] = useState<number | null>(null);
  const [to, setTo] = useState<number | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Until a step is typed, the range is the ten steps after the cursor, or, at the end of the
  // run, the ten before it (a range must hold two steps at least).
  const start = from ?? (cursor < steps ? cursor : Math.max(0, steps - 10));
  const end = to ?? Math.min(steps, start + 10);

  const element = () => document.getElementById(`view-${view}`);
  const run = async (what: string, work: (el: HTMLElement, lib: typeof import('../views/exportView')) => Promise<void>) => {
    setBusy(what);
    setError(null);
    try {
      // A pane just opened may still be fetching its code: the picture waits for the view.
      const el = await shownView(element);
      if (!el) throw new Error(t('exportView.notShown'));
      await work(el, await import('../views/exportView'));
    } catch (e) {
      setError(t('exportView.failed', { error: e instanceof Error ? e.message : String(e) }));
    } finally {
      setBusy(null);
    }
  };
  const rangeOk = Number.isInteger(start) && Number.isInteger(end) && start >= 0 && end <= steps && start < end && end - start <= MAX_VIDEO_STEPS;

  return (
    // Folded by default: the controls a newcomer meets first are the player's.
    <details className="export-menu" data-testid="export-menu">
      <summary data-testid="export-toggle">{t('exportView.legend')}</summary>
      <select
        value={view}
        onChange={(e) => {
          const v = e.target.value as ExportView;
          setView(v);
          if (v !== 'stage') onShowView(v);
        }} data-testid="export-view" aria-label={t('exportView.view')}>
        {VIEWS.map((v) => (
          <option key={v} value={v}>
            {t(`exportView.views.${v}`)}
          </option>
        ))}
      </select>
      <button type="button" disabled={busy !== null} data-testid="export-svg" onClick={() => void run('svg', async (el, lib) => save(`slabscope-${view}-${cursor}.svg`, new Blob([lib.viewToSvg(el).svg], { type: 'image/svg+xml' })))}>
        SVG
      </button>
      <button type="button" disabled={busy !== null} data-testid="export-png" onClick={() => void run('png', async (el, lib) => save(`slabscope-${view}-${cursor}.png`, await lib.viewToPng(el)))}>
        PNG
      </button>
      <label>
        {t('exportView.from')}{' '}
        <input type="number" min={0} max={steps} value={start} onChange={(e) => setFrom(Number(e.target.value))} data-testid="export-from" />
      </label>
      <label>
        {t('exportView.to')}{' '}
        <input type="number" min={0} max={steps} value={end} onChange={(e) => setTo(Number(e.target.value))} data-testid="export-to" />
      </label>
      <button
        type="button"
        disabled={busy !== null || !rangeOk}
        data-testid="export-video"
        onClick={() =>
          void run('video', async (el, lib) => {
            const range = Array.from({ length: end - start + 1 }, (_, i) => start + i);
            const video = await lib.recordSteps(el, range, showStep);
            save(`slabscope-${view}-${start}-${end}.webm`, video);
          })
        }
      >
        {t('exportView.video')}
      </button>
      {!rangeOk && <span className="error">{t('exportView.badRange', { max: MAX_VIDEO_STEPS, steps })}</span>}
      {busy && <span role="status">{t('exportView.working')}</span>}
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </details>
  );
}
