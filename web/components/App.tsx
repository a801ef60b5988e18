import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SimClient, type BuildInfo } from '../core/client';
import { LANGUAGES, type Language } from '../i18n/i18n';
import { GeometryExplorer } from './GeometryExplorer';

type Load = { state: 'loading' } | { state: 'ready'; info: BuildInfo } | { state: 'failed'; error: string };

export function App({ client }: { client: SimClient }) {
  const { t, i18n } = useTranslation();
  const [load, setLoad] = useState<Load>({ state: 'loading' });

  useEffect(() => {
    client.init().then(
      (info) => setLoad({ state: 'ready', info }),
      (e: unknown) => setLoad({ state: 'failed', error: e instanceof Error ? e.message : String(e) }),
    );
  }, [client]);

  const setLanguage = (lang: Language) => {
    void i18n.changeLanguage(lang);
    const url = new URL(window.location.href);
    url.searchParams.set('lang', lang);
    window.history.replaceState(null, '', url);
    document.documentElement.lang = lang;
  };

  return (
    <>
      <header className="app-header">
        <div>
          <h1>{t('app.title')}</h1>
          <p className="tagline">{t('app.tagline')}</p>
        </div>
        <label className="language">
          {t('app.language')}{' '}
          <select value={i18n.language} onChange={(e) => setLanguage(e.target.value as Language)} data-testid="language">
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {l === 'en' ? 'English' : '한국어'}
              </option>
            ))}
          </select>
        </label>
      </header>
      <p
        className="build-info"
        data-testid="build-mode"
        data-threaded={load.state === 'ready' ? String(load.info.threaded) : ''}
        data-pool={load.state === 'ready' ? load.info.poolSize : ''}
        data-isolated={String(window.crossOriginIsolated)}
      >
        {load.state === 'loading' && t('build.loading')}
        {load.state === 'failed' && t('build.failed', { error: load.error })}
        {load.state === 'ready' &&
          (load.info.threaded
            ? t('build.threaded', { workers: load.info.poolSize })
            : t('build.single', {
                reason: load.info.fallback
                  ? t(`build.${load.info.fallback.reason}`, {
                      error: 'error' in load.info.fallback ? load.info.fallback.error : '',
                    })
                  : '',
              }))}
        {load.state === 'ready' && <> · {t('app.profile', { profile: load.info.profile })}</>}
      </p>
      <main>{load.state === 'ready' && <GeometryExplorer client={client} info={load.info} />}</main>
    </>
  );
}
