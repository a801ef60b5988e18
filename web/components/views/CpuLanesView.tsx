// The CPU lanes of a concurrent block, while the cursor is in one: one lane per task, one
// column per micro-step around the cursor, coloured and lettered by what the micro-step did
// (views/cpuLanes.ts). A cell moves the cursor to its step. Each lane's micro-steps are also
// listed as text, for a screen reader and for reading closely.

import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RunOutline } from '../../core/client';
import type { LaneStep } from '../../core/generated/LaneStep';
import { captionText } from '../../i18n/captions';
import { CELL_COLOUR, CELL_LETTER, laneCells } from '../../views/cpuLanes';

const WIDTH = 40;
const CELL = 14;
const LABEL = 92;

export interface CpuLanesViewProps {
  outline: RunOutline;
  cursor: number;
  load: (block: number) => Promise<LaneStep[]>;
  onJump: (cursor: number) => void;
}

export function CpuLanesView({ outline, cursor, load, onJump }: CpuLanesViewProps) {
  const { t } = useTranslation();
  const index = outline.blocks.findIndex((b) => cursor > b.start && cursor <= b.end);
  const [lanes, setLanes] = useState<{ block: number; steps: LaneStep[] } | null>(null);
  useEffect(() => {
    if (index < 0 || lanes?.block === index) return;
    let live = true;
    load(index).then(
      (steps) => live && setLanes({ block: index, steps }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [index, lanes, load]);
  if (index < 0 || lanes?.block !== index) return null;
  const block = outline.blocks[index]!;
  const { cells } = laneCells(lanes.steps, cursor, WIDTH);
  const height = block.tasks.length * (CELL + 4) + 4;
  return (
    <section className="panel cpu-lanes" aria-labelledby="cpu-lanes-heading" data-testid="cpu-lanes">
      <h2 id="cpu-lanes-heading">{t('lanes.heading', { line: block.line })}</h2>
      <svg width={LABEL + WIDTH * CELL} height={height} role="img" aria-label={t('lanes.picture', { tasks: block.tasks.join(', ') })}>
        {block.tasks.map((task, lane) => (
          <text key={task} x={0} y={4 + lane * (CELL + 4) + CELL - 3} fontSize={11}>
            {task}
          </text>
        ))}
        {cells.map((c) => (
          <g key={c.step} transform={`translate(${LABEL + c.column * CELL},${4 + c.lane * (CELL + 4)})`} onClick={() => onJump(c.step + 1)} style={{ cursor: 'pointer' }}>
            <rect width={CELL - 2} height={CELL} fill={CELL_COLOUR[c.kind]} stroke={c.current ? '#000' : '#888'} strokeWidth={c.current ? 2 : 0.5} />
            <text x={(CELL - 2) / 2} y={CELL - 3} fontSize={9} textAnchor="middle" fill={c.kind === 'irq' || c.kind === 'work' ? '#fff' : '#000'}>
              {CELL_LETTER[c.kind]}
            </text>
          </g>
        ))}
      </svg>
      <p className="lanes-legend">{t('lanes.legend')}</p>
      {block.tasks.map((task, lane) => (
        <details key={task} data-testid={`lane-${lane}`}>
          <summary>{t('lanes.text', { task, n: lanes.steps.filter((s) => s.task === lane).length })}</summary>
          <ol>
            {lanes.steps
              .filter((s) => s.task === lane)
              .map((s) => (
                <li key={s.step}>
                  <button type="button" className="link" onClick={() => onJump(s.step + 1)}>
                    {t('lanes.step', { n: s.step + 1 })}
                  </button>{' '}
                  <code>{s.function}</code> {captionText(t, s.caption)}
                </li>
              ))}
          </ol>
        </details>
      ))}
    </section>
  );
}
