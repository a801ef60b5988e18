// The explain panel: what the current step did and why, in the person's language, with the
// kernel function it mirrors and a link to that function in the Linux 6.6 source. The step
// says which scenario line and operation it belongs to (boot and cache creation belong to no
// operation); a `print` line of the scenario that reads its file at this cursor is named too.

import { memo, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RunOutline } from '../core/client';
import type { MicroStepCaption } from '../core/generated/MicroStepCaption';
import type { Step } from '../core/generated/Step';
import { captionText, kernelSourceUrl } from '../i18n/captions';
import { printPath } from '../scenario/print';

export interface ExplainPanelProps {
  outline: RunOutline;
  cursor: number;
  step: Step | null;
  /** The micro-steps of step `step` (0-based), when a person opens them. */
  loadMicro?: (step: number) => Promise<MicroStepCaption[]>;
  /** Moves the cursor (to the step that made a cmpxchg fail). */
  onJump?: (cursor: number) => void;
}

/** The step (numbered from 1, as the trace shows it) after which a failed cmpxchg of this
 *  micro-step was bound to fail: the first change of the word since the task read it. */
export function failedBecauseOf(step: Step): number | null {
  if (step.micro.length !== 1) return null;
  const m = step.micro[0].micro;
  if ((m.micro === 'cmpxchg_cpu' || m.micro === 'cmpxchg_slab') && !m.ok && m.changed_at !== null) return m.changed_at;
  return null;
}

function Explain({ outline, cursor, step, loadMicro, onJump }: ExplainPanelProps) {
  const { t } = useTranslation();
  const op = step?.op ?? null;
  const opInfo = op !== null ? (outline.ops[op] ?? null) : null;
  const line = step?.line ?? null;
  const url = step ? kernelSourceUrl(step.function) : null;
  const prints = outline.prints.filter((p) => p.cursor === cursor);
  const because = step ? failedBecauseOf(step) : null;
  return (
    <section className="panel explain" aria-labelledby="explain-heading" data-testid="explain">
      <h2 id="explain-heading">{t('explain.heading')}</h2>
      <p className="explain-op" data-testid="explain-op" data-line={line ?? ''} data-op={op ?? ''}>
        {op !== null && opInfo
          ? t('explain.operation', { n: op + 1, total: outline.ops.length, line: opInfo.line })
          : line !== null
            ? t('explain.cacheLine', { line })
            : cursor === 0
              ? t('explain.booted')
              : t('explain.boot')}
        {opInfo && <code className="op-text">{opInfo.text}</code>}
      </p>
      {step ? (
        <>
          <p className="explain-function" data-testid="explain-function">
            {url ? (
              <a href={url} target="_blank" rel="noreferrer noopener" title={t('explain.sourceLink', { fn: step.function })}>
                <code>{step.function}()</code>
              </a>
            ) : (
              <code>{step.function}</code>
            )}
            {step.path && <span className="path"> · {step.path}</span>}
          </p>
          <p className="caption" data-testid="explain-caption" aria-live="polite">
            {captionText(t, step.caption)}
          </p>
          {because !== null && onJump && (
            <p className="explain-retry" data-testid="explain-retry">
              <button type="button" className="link" onClick={() => onJump(because)}>
                {t('explain.retryBecause', { n: because })}
              </button>
            </p>
          )}
          {loadMicro && step.micro.length !== 1 && <MicroSteps key={cursor} step={cursor - 1} load={loadMicro} />}
        </>
      ) : (
        <p className="caption" data-testid="explain-caption">
          {t('explain.start')}
        </p>
      )}
      {prints.map((p) => (
        <p key={p.line} className="explain-print" data-testid="explain-print">
          {t('explain.print', { line: p.line, path: printPath(p.file) })}
        </p>
      ))}
    </section>
  );
}

/** A step's micro-steps, the kernel's own points (a load of a shared word, a cmpxchg, a lock),
 *  loaded when the person opens them (a concurrent block's steps are each one already). */
function MicroSteps({ step, load }: { step: number; load: (step: number) => Promise<MicroStepCaption[]> }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const [micro, setMicro] = useState<MicroStepCaption[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!open || micro !== null) return;
    let live = true;
    load(step).then(
      (m) => live && setMicro(m),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [open, micro, load, step]);
  return (
    <details className="explain-micro" data-testid="explain-micro" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{t('explain.microSteps')}</summary>
      {failed ? (
        <p>{t('explain.microFailed')}</p>
      ) : micro === null ? (
        <p>{t('explain.microLoading')}</p>
      ) : micro.length === 0 ? (
        <p>{t('explain.microNone')}</p>
      ) : (
        <ol>
          {micro.map((m, i) => (
            <li key={i}>{captionText(t, m.caption)}</li>
          ))}
        </ol>
      )}
    </details>
  );
}

/** Drawn again only when its props change: not on every tick of the timeline. */
export const ExplainPanel = memo(Explain);
