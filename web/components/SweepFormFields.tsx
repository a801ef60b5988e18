// The form of a geometry sweep: the object sizes, alignment and CPU counts to try, the page
// sizes, the cache flags and the boot parameters. It edits a SweepForm (sweepForm.ts checks it).

import { useTranslation } from 'react-i18next';
import { PROFILE_IDS, type ProfileId } from '../scenario/profile';
import { PAGE_SIZES, type SweepForm } from './sweepForm';

const FLAG_NAMES = ['hwcache_align', 'typesafe_by_rcu', 'poison', 'red_zone', 'store_user', 'consistency_checks'] as const;

export function SweepFormFields({ form, onForm, running, onRun }: { form: SweepForm; onForm: (form: SweepForm) => void; running: boolean; onRun: () => void }) {
  const { t } = useTranslation();
  const text = (field: keyof SweepForm) => ({
    value: form[field] as string,
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => onForm({ ...form, [field]: e.target.value }),
  });
  return (
    <form
      className="sweep-form"
      onSubmit={(e) => {
        e.preventDefault();
        onRun();
      }}
    >
      <fieldset>
        <label>
          {t('scenario.profile')}{' '}
          <select value={form.profile} data-testid="sweep-profile" onChange={(e) => onForm({ ...form, profile: e.target.value as ProfileId })}>
            {PROFILE_IDS.map((id) => (
              <option key={id} value={id}>
                {t(`profiles.${id.replace(/\./g, '_')}`)}
              </option>
            ))}
          </select>
        </label>
        <label>{t('geometry.sizeFrom')} <input inputMode="numeric" {...text('sizeFrom')} data-testid="size-from" /></label>
        <label>{t('geometry.sizeTo')} <input inputMode="numeric" {...text('sizeTo')} data-testid="size-to" /></label>
        <label>{t('geometry.sizeStep')} <input inputMode="numeric" {...text('sizeStep')} data-testid="size-step" /></label>
        <label>{t('geometry.align')} <input inputMode="numeric" {...text('align')} /></label>
        <label>{t('geometry.cpus')} <input {...text('cpus')} data-testid="cpus" /></label>
      </fieldset>
      <fieldset>
        <legend>{t('geometry.pageSizes')}</legend>
        {PAGE_SIZES.map((p) => (
          <label key={p}>
            <input
              type="checkbox"
              checked={form.pageSizes.includes(p)}
              onChange={(e) =>
                onForm({
                  ...form,
                  pageSizes: e.target.checked ? [...form.pageSizes, p] : form.pageSizes.filter((x) => x !== p),
                })
              }
            />
            {p / 1024}K
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>{t('geometry.flags')}</legend>
        {FLAG_NAMES.map((f) => (
          <label key={f}>
            <input
              type="checkbox"
              checked={form.flags[f]}
              onChange={(e) => onForm({ ...form, flags: { ...form.flags, [f]: e.target.checked } })}
            />
            {t(`flag.${f}`)}
          </label>
        ))}
        <label>
          <input type="checkbox" checked={form.ctor} onChange={(e) => onForm({ ...form, ctor: e.target.checked })} />
          {t('flag.ctor')}
        </label>
      </fieldset>
      <fieldset>
        <legend>{t('geometry.boot')}</legend>
        <label>slub_min_objects <input inputMode="numeric" {...text('slubMinObjects')} /></label>
        <label>slub_max_order <input inputMode="numeric" {...text('slubMaxOrder')} /></label>
        <label>slub_min_order <input inputMode="numeric" {...text('slubMinOrder')} /></label>
      </fieldset>
      <button type="submit" disabled={running} data-testid="run-sweep">
        {running ? t('geometry.running') : t('geometry.run')}
      </button>
    </form>
  );
}
