// The site: its header and pages (the visualizer, the lessons, the geometry explorer, the
// interleaving explorer, the split view, live mode), or with
// `?embed=1` the minimal player or one lesson for an iframe. It starts the simulator's worker and
// keeps the page, the lesson and the language in the address.

import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SimClient, type BuildInfo } from '../core/client';
import { LANGUAGES, changeLanguage, loadLaterStrings, type Language } from '../i18n/i18n';
import { isPresetId, presetText } from '../scenario/presets';
import { browserStorage } from '../scenario/store';
import { currentHref, currentQuery, fullPageUrl, languageAddress, pageAddress, parsePageQuery, pushAddress, replaceAddress, type Page } from '../url/urlState';
import { Visualizer } from './Visualizer';
import { setDisplay, useDisplay, type Theme } from './display';
import { startTour } from './tour';
import { Player } from './player/Player';
import { PlayerComponent, type RenderPlayer } from './player/PlayerComponent';

// The player the lessons page draws (see PlayerComponent.ts for why it is handed down).
const renderPlayer: RenderPlayer = (props) => <Player {...props} />;

// The geometry explorer is a second page: its code loads only when it is opened.
const GeometryExplorer = lazy(() =>
  Promise.all([import('./GeometryExplorer'), loadLaterStrings()]).then(([m]) => ({ default: m.GeometryExplorer })),
);

// So is the interleaving explorer.
const InterleavingExplorer = lazy(() =>
  Promise.all([import('./InterleavingExplorer'), loadLaterStrings()]).then(([m]) => ({ default: m.InterleavingExplorer })),
);

// And the split view.
const ComparePage = lazy(() => Promise.all([import('./ComparePage'), loadLaterStrings()]).then(([m]) => ({ default: m.ComparePage })));

// And live mode.
const LiveRunner = lazy(() => Promise.all([import('./LiveRunner'), loadLaterStrings()]).then(([m]) => ({ default: m.LiveRunner })));

type Load = { state: 'loading' } | { state: 'ready'; info: BuildInfo } | { state: 'failed'; error: string };

// The lessons are a page of their own too, with their texts and Markdown renderer.
const LessonsPage = lazy(() => Promise.all([import('./LessonsPage'), loadLaterStrings()]).then(([m]) => ({ default: m.LessonsPage })));

/** A preset's text, or null for an id that names none (a lesson file names its preset). */
async function presetOrNull(id: string): Promise<string | null> {
  return isPresetId(id) ? presetText(id) : null;
}

export function App({ client }: { client: SimClient }) {
  const { t, i18n } = useTranslation();
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  // `?embed=1`: the minimal player for an iframe (views and step controls, no editor), or with
  // `page=lessons&lesson=<id>` one lesson without the site's header.
  const [start] = useState(() => parsePageQuery(currentQuery()));
  const { embed } = start;
  const [page, setPage] = useState<Page>(start.page);
  const [lesson, setLesson] = useState<string | null>(start.lesson);
  const openLesson = (id: string | null) => {
    pushAddress(pageAddress(currentHref(), 'lessons', id));
    setLesson(id);
  };

  useEffect(() => {
    client.init().then(
      (info) => setLoad({ state: 'ready', info }),
      (e: unknown) => setLoad({ state: 'failed', error: e instanceof Error ? e.message : String(e) }),
    );
  }, [client]);

  // Switching language keeps everything else: the URL only changes its `lang`.
  const setLanguage = (lang: Language) => {
    void changeLanguage(lang);
    replaceAddress(languageAddress(currentHref(), lang));
    document.documentElement.lang = lang;
  };

  // Another page's link into the app (the visualizer showing a scenario): a history entry.
  const openAddress = (href: string) => {
    pushAddress(href);
    setPage(parsePageQuery(new URL(href).search).page);
  };

  const go = (next: Page) => (event: React.MouseEvent) => {
    event.preventDefault();
    if (next === 'lessons') setLesson(null);
    pushAddress(pageAddress(currentHref(), next));
    setPage(next);
  };

  if (embed) {
    // The link is rewritten as it is followed, so it carries the state of that moment.
    const follow = (e: React.MouseEvent<HTMLAnchorElement> | React.FocusEvent<HTMLAnchorElement>) => {
      e.currentTarget.href = fullPageUrl(currentHref());
    };
    return (
      <div className="embed" data-testid="embed">
        <header className="embed-header">
          <strong>{t('app.title')}</strong>
          <a href={fullPageUrl(currentHref())} target="_blank" rel="noopener" onClick={follow} onAuxClick={follow} onFocus={follow} data-testid="open-full">
            {t('app.openFull')}
          </a>
        </header>
        {/* Which build runs here: an embed is usually not cross-origin isolated, so the
            single-threaded one, and the line says why. */}
        <BuildInfoLine load={load} />
        {load.state === 'failed' && (
          <p role="alert" className="error">
            {t('build.failed', { error: load.error })}
          </p>
        )}
        <main>
          {page === 'lessons' && lesson !== null ? (
            // A lesson embedded whole (a course page's iframe): its text, exercises and player.
            <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
              <PlayerComponent.Provider value={renderPlayer}><LessonsPage lesson={lesson} onLesson={openLesson} t={t} lang={i18n.language as Language} client={client} ready={load.state === 'ready'} preset={presetOrNull} onLanguage={setLanguage} /></PlayerComponent.Provider>
            </Suspense>
          ) : (
            <Visualizer client={client} ready={load.state === 'ready'} onLanguage={setLanguage} embed />
          )}
        </main>
      </div>
    );
  }

  return (
    <>
      <AppHeader page={page} go={go} onLanguage={setLanguage} />
      <BuildInfoLine load={load} />
      <main>
        {page === 'visualizer' && <Visualizer client={client} ready={load.state === 'ready'} onLanguage={setLanguage} onGo={openAddress} />}
        {page === 'lessons' && (
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <PlayerComponent.Provider value={renderPlayer}><LessonsPage lesson={lesson} onLesson={openLesson} t={t} lang={i18n.language as Language} client={client} ready={load.state === 'ready'} preset={presetOrNull} onLanguage={setLanguage} /></PlayerComponent.Provider>
          </Suspense>
        )}
        {page === 'geometry' && load.state === 'ready' && (
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <GeometryExplorer client={client} info={load.info} />
          </Suspense>
        )}
        {page === 'interleavings' && (
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <InterleavingExplorer client={client} onGo={openAddress} />
          </Suspense>
        )}
        {page === 'compare' && (
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <ComparePage ready={load.state === 'ready'} />
          </Suspense>
        )}
        {page === 'live' && load.state === 'ready' && (
          <Suspense fallback={<p role="status">{t('build.loading')}</p>}>
            <LiveRunner client={client} info={load.info} onGo={openAddress} />
          </Suspense>
        )}
      </main>
    </>
  );
}

/** The site's header: its title, the links to its pages (the one shown marked) and the language. */
function AppHeader({ page, go, onLanguage }: { page: Page; go: (next: Page) => (event: React.MouseEvent) => void; onLanguage: (lang: Language) => void }) {
  const { t, i18n } = useTranslation();
  // The guided tour points at the visualizer's parts: it is offered on that page.
  const tour = page === 'visualizer' && (
    <button type="button" className="tour-button" title={t('tour.openTitle')} onClick={() => void startTour(t, browserStorage())} data-testid="tour-open">
      {t('tour.open')}
    </button>
  );
  return (
    <header className="app-header">
      <div>
        <h1>{t('app.title')}</h1>
        <p className="tagline">{t('app.tagline')}</p>
      </div>
      <nav aria-label={t('nav.label')}>
        <a href="?" aria-current={page === 'visualizer' ? 'page' : undefined} onClick={go('visualizer')} data-testid="nav-visualizer">
          {t('nav.visualizer')}
        </a>
        <a href="?page=lessons" aria-current={page === 'lessons' ? 'page' : undefined} onClick={go('lessons')} data-testid="nav-lessons">
          {t('nav.lessons')}
        </a>
        <a href="?page=geometry" aria-current={page === 'geometry' ? 'page' : undefined} onClick={go('geometry')} data-testid="nav-geometry">
          {t('nav.geometry')}
        </a>
        <a href="?page=interleavings" aria-current={page === 'interleavings' ? 'page' : undefined} onClick={go('interleavings')} data-testid="nav-interleavings">
          {t('nav.interleavings')}
        </a>
        <a href="?page=compare" aria-current={page === 'compare' ? 'page' : undefined} onClick={go('compare')} data-testid="nav-compare">
          {t('nav.compare')}
        </a>
        <a href="?page=live" aria-current={page === 'live' ? 'page' : undefined} onClick={go('live')} data-testid="nav-live">
          {t('nav.live')}
        </a>
      </nav>
      {tour}
      <DisplayControls />
      {/* The languages are named in themselves, so the word "Language" is for screen readers
          and the select's tooltip: the header keeps to one line at 1280 px. */}
      <label className="language" title={t('app.language')}>
        <span className="sr-only">{t('app.language')}</span>
        <select value={i18n.language} onChange={(e) => onLanguage(e.target.value as Language)} data-testid="language">
          {LANGUAGES.map((l) => (
            <option key={l} value={l}>
              {l === 'en' ? 'English' : '한국어'}
            </option>
          ))}
        </select>
      </label>
    </header>
  );
}

/** The theme (the system's, light or dark) and large text for projectors, kept in this browser. */
function DisplayControls() {
  const { t } = useTranslation();
  const { theme, largeText } = useDisplay();
  return (
    <details className="display-controls">
      <summary data-testid="display-toggle">{t('display.menu')}</summary>
      <div className="display-menu">
        <label>
          {t('display.theme')}{' '}
          <select value={theme} onChange={(e) => setDisplay({ theme: e.target.value as Theme })} data-testid="theme">
            <option value="system">{t('display.system')}</option>
            <option value="light">{t('display.light')}</option>
            <option value="dark">{t('display.dark')}</option>
          </select>
        </label>
        <label title={t('display.largeTextTitle')}>
          <input type="checkbox" checked={largeText} onChange={(e) => setDisplay({ largeText: e.target.checked })} data-testid="large-text" /> {t('display.largeText')}
        </label>
      </div>
    </details>
  );
}

/** Which wasm build runs (threaded with its pool, or single-threaded and why) and the kernel
 *  profiles it has; or that it is loading, or why it failed. */
function BuildInfoLine({ load }: { load: Load }) {
  const { t } = useTranslation();
  return (
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
      {load.state === 'ready' && <> · {t('app.profiles', { profiles: load.info.profiles.join(', ') })}</>}
    </p>
  );
}
