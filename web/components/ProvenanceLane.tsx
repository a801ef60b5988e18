// The provenance lane: the life of one object or one page frame across the whole run —
// page → slab of cache A → buddy → slab of cache B — with the cursor on it. Every mark is a
// button that moves the cursor there.

import { useTranslation } from 'react-i18next';
import type { Lane } from '../core/client';
import type { BlockOwner } from '../core/generated/BlockOwner';
import type { CacheBrief } from '../core/generated/CacheBrief';
import { cacheColour, ownerColour } from '../views/palette';

export interface ProvenanceLaneProps {
  lane: Lane;
  steps: number;
  cursor: number;
  caches: readonly CacheBrief[];
  onJump: (cursor: number) => void;
  onClose: () => void;
}

function ownerText(t: (k: string, o?: Record<string, unknown>) => string, owner: BlockOwner, caches: readonly CacheBrief[]): string {
  switch (owner.kind) {
    case 'slab':
      return t('lane.owner.slab', { cache: caches.find((c) => c.id === owner.cache)?.name ?? `#${owner.cache}`, order: owner.order });
    case 'pcp':
      return t('lane.owner.pcp', { cpu: owner.cpu, order: owner.order });
    case 'slab_rcu':
      return t('lane.owner.slab_rcu', { cache: caches.find((c) => c.id === owner.cache)?.name ?? `#${owner.cache}`, order: owner.order });
    case 'kfree_rcu':
      return t('lane.owner.kfree_rcu', { cpu: owner.cpu, order: owner.order });
    case 'hole':
      return t('lane.owner.hole');
    default:
      return t(`lane.owner.${owner.kind}`, { order: owner.order });
  }
}

function ownerFill(owner: BlockOwner): string {
  return owner.kind === 'slab' ? cacheColour(owner.cache) : ownerColour[owner.kind];
}

export function ProvenanceLane({ lane, steps, cursor, caches, onJump, onClose }: ProvenanceLaneProps) {
  const { t } = useTranslation();
  const x = (cursorAt: number) => `${(100 * cursorAt) / Math.max(1, steps)}%`;
  // A span starting at step s is in force from cursor s + 1.
  const starts = lane.page.map((s) => (s.step === null ? 0 : s.step + 1));
  return (
    <section className="panel lane" aria-labelledby="lane-heading" data-testid="lane">
      <h2 id="lane-heading">
        {lane.object ? t('lane.objectHeading', { addr: lane.object, pfn: lane.pfn }) : t('lane.pageHeading', { pfn: lane.pfn })}
        <button type="button" className="close" onClick={onClose} aria-label={t('lane.close')}>
          ×
        </button>
      </h2>
      <div className="lane-track" aria-hidden="true">
        {lane.page.map((span, i) => (
          <div
            key={i}
            className="lane-span"
            style={{ left: x(starts[i]), width: `calc(${x((starts[i + 1] ?? steps) - starts[i])})`, background: ownerFill(span.owner) }}
            title={ownerText(t, span.owner, caches)}
          />
        ))}
        {lane.marks.map((m, i) => (
          <div key={`m${i}`} className={`lane-mark ${m.allocated ? 'alloc' : 'free'}`} style={{ left: x(m.mark.step + 1) }} />
        ))}
        <div className="lane-cursor" style={{ left: x(cursor) }} />
      </div>
      <ol className="lane-list" data-testid="lane-list">
        {lane.page.map((span, i) => (
          <li key={`p${i}`}>
            <button type="button" onClick={() => onJump(starts[i])}>
              {span.step === null ? t('lane.sinceBoot') : t('lane.fromStep', { step: starts[i], op: span.op === null ? '—' : span.op + 1 })}
            </button>{' '}
            {t('lane.block', { pfn: span.block })} {ownerText(t, span.owner, caches)}
          </li>
        ))}
        {lane.marks.map((m, i) => (
          <li key={`o${i}`}>
            <button type="button" onClick={() => onJump(m.mark.step + 1)}>
              {t('lane.fromStep', { step: m.mark.step + 1, op: m.mark.op === null ? '—' : m.mark.op + 1 })}
            </button>{' '}
            {t(m.allocated ? 'lane.allocated' : 'lane.freed', {
              cpu: m.mark.cpu,
              cache: caches.find((c) => c.id === m.cache)?.name ?? `#${m.cache}`,
            })}
          </li>
        ))}
      </ol>
    </section>
  );
}
