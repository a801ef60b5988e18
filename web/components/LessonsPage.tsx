// The lessons: an index in the order of the path through them, and a lesson's text beside the
// player (the embed mode of the visualizer in an iframe), which each section's anchor moves to
// its step and view. Markdown is rendered by react-markdown with raw HTML skipped, so nothing
// in a lesson file is ever interpreted as markup.

import { useEffect, useState } from 'react';
import Markdown from 'react-markdown';
import type { Language } from '../i18n/i18n';
import type { Anchor, LessonMeta, LessonText } from '../lessons/format';
import { LESSONS, lessonById, lessonScenario, lessonText } from '../lessons/load';
import { encodeScenario, LINK_PARAM } from '../scenario/link';

/** The player's address for a lesson at an anchor. */
async function playerUrl(meta: LessonMeta, anchor: Anchor | null, lang: Language): Promise<string> {
  const q = new URLSearchParams({ embed: '1' });
  if ('preset' in meta.scenario) q.set('preset', meta.scenario.preset);
  else {
    const text = await lessonScenario(meta);
    if (text !== null) q.set(LINK_PARAM, await encodeScenario(text));
  }
  q.set('step', String(anchor?.cursor ?? 0));
  if (anchor?.view) q.set('view', anchor.view);
  if (anchor?.cache) q.set('cache', anchor.cache);
  q.set('lang', lang);
  return `?${q.toString()}`;
}

/** A lesson's Markdown without its exercise placements (the exercises come with grading). */
function prose(body: string): string {
  return body.replace(/^\{\{exercise:[a-z0-9-]+\}\}\s*$/gm, '').trim();
}

export interface LessonsPageProps {
  lesson: string | null;
  onLesson: (id: string | null) => void;
  /** The app's translation and language (passed in: this page's chunk then shares nothing
   *  with the first script but React, which keeps the bundler from splitting that script). */
  t: (key: string, args?: Record<string, unknown>) => string;
  lang: Language;
}

export function LessonsPage({ lesson, onLesson, t, lang }: LessonsPageProps) {
  const meta = lessonById(lesson);
  const [titles, setTitles] = useState<Record<string, string>>({});
  const [text, setText] = useState<{ id: string; lang: string; text: LessonText | null } | null>(null);
  const [player, setPlayer] = useState<{ id: string; url: string; section: string | null } | null>(null);

  useEffect(() => {
    let live = true;
    void Promise.all(LESSONS.map(async (l) => [l.id, (await lessonText(l.id, lang))?.title ?? l.id] as const)).then(
      (pairs) => live && setTitles(Object.fromEntries(pairs)),
    );
    return () => {
      live = false;
    };
  }, [lang]);

  useEffect(() => {
    if (!meta) return undefined;
    let live = true;
    void lessonText(meta.id, lang).then((loaded) => live && setText({ id: meta.id, lang, text: loaded }));
    return () => {
      live = false;
    };
  }, [meta, lang]);

  // The player starts at the first section's anchor.
  useEffect(() => {
    if (!meta) return undefined;
    let live = true;
    const first = meta.sections.find((s) => s.anchor !== null) ?? null;
    void playerUrl(meta, first?.anchor ?? null, lang).then((url) => live && setPlayer({ id: meta.id, url, section: first?.id ?? null }));
    return () => {
      live = false;
    };
    // Not on a language change: the player keeps its place; its own language follows the link.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [meta]);

  // The recorded demo (`npm run demos` writes demos/<lesson>.<lang>.webm), when there is one.
  const [demo, setDemo] = useState<{ id: string; lang: string; found: boolean } | null>(null);
  useEffect(() => {
    if (!meta) return undefined;
    let live = true;
    fetch(`demos/${meta.id}.${lang}.webm`, { method: 'HEAD' }).then(
      (r) => live && setDemo({ id: meta.id, lang, found: r.ok && (r.headers.get('content-type') ?? '').startsWith('video/') }),
      () => live && setDemo({ id: meta.id, lang, found: false }),
    );
    return () => {
      live = false;
    };
  }, [meta, lang]);

  const show = async (section: string, anchor: Anchor) => {
    if (!meta) return;
    setPlayer({ id: meta.id, url: await playerUrl(meta, anchor, lang), section });
  };

  if (!meta) {
    return (
      <section className="lessons" data-testid="lessons">
        <h2>{t('lessons.heading')}</h2>
        {lesson !== null && <p role="alert">{t('lessons.notFound', { id: lesson })}</p>}
        <ol className="lesson-index">
          {LESSONS.map((l) => (
            <li key={l.id}>
              <a
                href={`?page=lessons&lesson=${encodeURIComponent(l.id)}`}
                onClick={(e) => {
                  e.preventDefault();
                  onLesson(l.id);
                }}
                data-testid={`lesson-link-${l.id}`}
              >
                {titles[l.id] ?? l.id}
              </a>
            </li>
          ))}
        </ol>
      </section>
    );
  }

  const shown = text && text.id === meta.id && text.lang === lang ? text.text : undefined;
  return (
    <section className="lesson" data-testid="lesson" data-lesson={meta.id}>
      <p>
        <a
          href="?page=lessons"
          onClick={(e) => {
            e.preventDefault();
            onLesson(null);
          }}
        >
          {t('lessons.back')}
        </a>
      </p>
      <div className="lesson-grid">
        <article className="lesson-text">
          {shown === undefined && <p role="status">{t('build.loading')}</p>}
          {shown === null && <p role="alert">{t('lessons.notFound', { id: meta.id })}</p>}
          {shown && (
            <>
              <h2 data-testid="lesson-title">{shown.title}</h2>
              {demo?.found && demo.id === meta.id && demo.lang === lang && (
                <details className="lesson-demo">
                  <summary>{t('lessons.demo')}</summary>
                  <video controls preload="metadata" src={`demos/${meta.id}.${lang}.webm`} poster={`demos/${meta.id}.${lang}.png`} data-testid="lesson-demo" />
                </details>
              )}
              {shown.sections.map((s) => {
                const anchor = meta.sections.find((m) => m.id === s.id)?.anchor ?? null;
                return (
                  <section key={s.id} id={`section-${s.id}`} data-testid={`section-${s.id}`} aria-current={player?.section === s.id ? 'true' : undefined}>
                    <h3>{s.title}</h3>
                    {anchor && (
                      <button type="button" onClick={() => void show(s.id, anchor)} data-testid={`show-${s.id}`}>
                        {t('lessons.show', { step: anchor.cursor })}
                      </button>
                    )}
                    <Markdown skipHtml>{prose(s.body)}</Markdown>
                  </section>
                );
              })}
            </>
          )}
        </article>
        <div className="lesson-player">
          {player && player.id === meta.id && (
            <iframe key={player.url} src={player.url} title={t('lessons.player')} data-testid="lesson-player" />
          )}
        </div>
      </div>
    </section>
  );
}
