// The cache in focus: the step's own, or one picked from the run's caches, grouped.

import { useTranslation } from 'react-i18next';
import type { CacheBrief } from '../../core/generated/CacheBrief';
import { cacheGroups } from '../cacheGroups';
import { Held } from '../Held';

export interface CachePickerProps {
  caches: CacheBrief[];
  /** The cache picked (null: the step's). */
  cache: string | null;
  /** The cache the step shows. */
  shownCache: string | null;
  /** Playing: the list is not rebuilt every frame. */
  playing: boolean;
  onCache: (cache: string | null) => void;
}

export function CachePicker({ caches, cache, shownCache, playing, onCache }: CachePickerProps) {
  const { t } = useTranslation();
  return (
    <label>
      {t('vis.cache')}{' '}
      <select value={cache ?? ''} data-testid="cache" onChange={(e) => onCache(e.target.value === '' ? null : e.target.value)}>
        <option value="">{t('vis.followStep', { cache: shownCache ?? '—' })}</option>
        <Held
          frozen={playing}
          render={() => {
            const groups = cacheGroups(caches);
            const options = (list: CacheBrief[]) =>
              list.map((c) => (
                <option key={c.id} value={c.name}>
                  {t('vis.cacheOption', { name: c.name, live: c.live_objects, slabs: c.slabs })}
                </option>
              ));
            return (['scenario', 'kmalloc', 'empty'] as const)
              .filter((g) => groups[g].length > 0)
              .map((g) => (
                <optgroup key={g} label={t(`vis.cacheGroup.${g}`, { n: groups[g].length })}>
                  {options(groups[g])}
                </optgroup>
              ));
          }}
        />
      </select>
    </label>
  );
}
