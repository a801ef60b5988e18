// The sheaves view (6.18+): each CPU's sheaves and each node's barn for the shown cache, every
// sheaf whole, slot by slot (views/sheaves.ts), with the same as lists in the text alternative.

import { memo, useCallback, useMemo, useRef } from 'react';
import type { SheafView } from '../../core/generated/SheafView';
import { drawMarks } from '../../views/marksDraw';
import type { Target, Translate } from '../../views/marks';
import { layoutSheaves } from '../../views/sheaves';
import { ObjectButton, useActivate, useTranslate, ViewFigure, type StructViewProps } from './ViewFigure';
import { useStable } from './useStable';
import { useWidth } from './useWidth';

function Sheaves({ snapshot, motion, onSelectSlab, onFollowObject }: StructViewProps) {
  const t = useTranslate();
  const activate = useActivate({ onSelectSlab, onFollowObject });
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const scene = useStable(useMemo(() => layoutSheaves(snapshot, width || 420), [snapshot, width]));
  const draw = useCallback((svg: SVGSVGElement) => drawMarks(svg, scene.marks, { t, motion, onActivate: activate }), [scene, t, motion, activate]);
  const none = scene.capacity === 0;
  return (
    <div ref={box} data-testid="sheaves-view-box">
      <ViewFigure
        ns="sheavesView"
        className="sheaves-view"
        testId="sheaves-view"
        heading={t('sheavesView.heading', { cache: scene.cacheName ?? '', capacity: scene.capacity })}
        draw={draw}
        playing={motion.playing}
        empty={none ? <p data-testid="sheaves-none">{t('sheavesView.none', { cache: scene.cacheName ?? '' })}</p> : undefined}
      >
        {() =>
          !none && (
            <div data-testid="sheaves-text">
              {scene.cpus.map((c) => (
                <section key={`cpu-${c.cpu}`}>
                  <h4>
                    {t('sheavesView.cpu', { cpu: c.cpu, node: c.node })} · {t(c.locked ? 'sheavesView.locked' : 'sheavesView.unlocked')}
                  </h4>
                  <ul>
                    {c.sheaves.map((e) => (
                      <SheafItem key={e.where} where={e.where} sheaf={e.sheaf} t={t} activate={activate} />
                    ))}
                  </ul>
                </section>
              ))}
              {scene.nodes.map((n) => (
                <section key={`node-${n.node}`}>
                  <h4>{t('sheavesView.barn', { node: n.node })}</h4>
                  <ul>
                    {n.full.map((sh, i) => (
                      <SheafItem key={`f${sh.id}`} where={`barn->sheaves_full #${i + 1}`} sheaf={sh} t={t} activate={activate} />
                    ))}
                    {n.empty.map((sh, i) => (
                      <SheafItem key={`e${sh.id}`} where={`barn->sheaves_empty #${i + 1}`} sheaf={sh} t={t} activate={activate} />
                    ))}
                  </ul>
                </section>
              ))}
              {scene.rcu.length > 0 && (
                <section>
                  <h4>{t('sheavesView.rcu')}</h4>
                  <ul>
                    {scene.rcu.map((sh, i) => (
                      <SheafItem key={`r${sh.id}`} where={`#${i + 1}`} sheaf={sh} t={t} activate={activate} />
                    ))}
                  </ul>
                </section>
              )}
              {scene.held.length > 0 && (
                <section>
                  <h4>{t('sheavesView.held')}</h4>
                  <ul>
                    {scene.held.map((sh, i) => (
                      <SheafItem key={`h${sh.id}`} where={`#${i + 1}`} sheaf={sh} t={t} activate={activate} />
                    ))}
                  </ul>
                </section>
              )}
            </div>
          )
        }
      </ViewFigure>
    </div>
  );
}

/** One sheaf in the text alternative: where it is, its size, its objects from the top. */
function SheafItem({ where, sheaf, t, activate }: { where: string; sheaf: SheafView | null; t: Translate; activate: (x: Target) => void }) {
  if (!sheaf) {
    return (
      <li>
        <code>{where}</code>: NULL
      </li>
    );
  }
  return (
    <li data-testid="sheaf-item" data-sheaf={sheaf.id}>
      <code>{where}</code>: {t('sheavesView.size', { size: sheaf.objects.length, capacity: sheaf.capacity })}
      {sheaf.objects.length > 0 && (
        <>
          {' '}
          {t('sheavesView.fromTop')}{' '}
          {[...sheaf.objects].reverse().map((a) => (
            <ObjectButton key={a} addr={a} onSelect={activate} />
          ))}
        </>
      )}
    </li>
  );
}

export const SheavesView = memo(Sheaves);
