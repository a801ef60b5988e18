// The lessons: an index in the order of the path through them, and a lesson's text beside the
// player (the embed mode of the visualizer in an iframe), which each section's anchor moves to
// its step and view. Markdown is rendered by react-markdown with raw HTML skipped, so nothing
// in a lesson file is ever interpreted as markup.

import { useEffect, useMemo, useRef, useState } from 'react';
import Markdown from 'react-markdown';
import type { Language } from '../i18n/i18n';
import type { SimClient } from '../core/client';
import type { Anchor, Exercise, LessonMeta, LessonText, Prompt } from '../lessons/format';
import { Grader } from '../lessons/grader';
import { LESSONS, lessonById, lessonScenario, lessonText } from '../lessons/load';
import { exportProgress, importProgress, loadProgress, recordTry, score, type Attempt, type Progress, type ProgressStorage } from '../lessons/progress';
import { encodeScenario, LINK_PARAM } from '../scenario/link';
import { download } from './download';

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

/** The scenario text a lesson runs. */
async function scenarioText(meta: LessonMeta, preset: (id: string) => Promise<string | null>): Promise<string | null> {
  return 'preset' in meta.scenario ? preset(meta.scenario.preset) : lessonScenario(meta);
}

function progressStorage(): ProgressStorage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

type Translate = (key: string, args?: Record<string, unknown>) => string;

/** One exercise: the question, an answer graded by the simulator, hints after wrong answers. */
function ExerciseBox({
  exercise,
  prompt,
  attempt,
  t,
  check,
  look,
}: {
  exercise: Exercise;
  prompt: Prompt | undefined;
  attempt: Attempt | undefined;
  t: Translate;
  check: (exercise: Exercise, given: string) => Promise<{ correct: boolean; value: unknown } | null>;
  look: (cursor: number) => void;
}) {
  const [given, setGiven] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ correct: boolean; value: unknown } | null>(null);
  const [wrong, setWrong] = useState(0);
  // Why the simulator could not grade the answer (the answer typed stays in its field).
  const [failed, setFailed] = useState<string | null>(null);
  const hints = prompt?.hints ?? [];
  const submit = async () => {
    if (given.trim() === '' || busy) return;
    setBusy(true);
    setFailed(null);
    try {
      const r = await check(exercise, given);
      setResult(r);
      if (r === null) setFailed(t('lessons.noAnswer'));
      else if (!r.correct) setWrong((w) => w + 1);
    } catch (e) {
      setResult(null);
      setFailed(t('lessons.checkFailed', { error: e instanceof Error ? e.message : String(e) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <aside className="exercise" data-testid={`exercise-${exercise.id}`} data-correct={attempt?.correct ? 'true' : 'false'}>
      <p className="exercise-label">
        {t('lessons.exercise')}
        {attempt?.correct && <span className="exercise-done"> ✓ {t('lessons.solved')}</span>}
      </p>
      {prompt?.question && <Markdown skipHtml>{prompt.question}</Markdown>}
      {exercise.cursor !== undefined && (
        <button type="button" onClick={() => look(exercise.cursor as number)} data-testid={`look-${exercise.id}`}>
          {t('lessons.look', { step: exercise.cursor })}
        </button>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <label>
          {t('lessons.answer')}{' '}
          <input value={given} onChange={(e) => setGiven(e.target.value)} data-testid={`answer-${exercise.id}`} autoComplete="off" spellCheck={false} />
        </label>{' '}
        <button type="submit" disabled={busy || given.trim() === ''} data-testid={`check-${exercise.id}`}>
          {t('lessons.check')}
        </button>
      </form>
      <div role="status" aria-live="polite" data-testid={`result-${exercise.id}`}>
        {busy && t('lessons.checking')}
        {!busy && failed && (
          <p role="alert" className="error">
            {failed}
          </p>
        )}
        {!busy && result?.correct && <p className="exercise-right">{t('lessons.right', { value: String(result.value) })}</p>}
        {!busy && result && !result.correct && <p className="exercise-wrong">{t('lessons.wrong')}</p>}
        {hints.slice(0, result?.correct ? 0 : wrong).map((h, i) => (
          <p key={i} className="exercise-hint" data-testid={`hint-${exercise.id}`}>
            {t('lessons.hint', { hint: h })}
          </p>
        ))}
      </div>
    </aside>
  );
}

export interface LessonsPageProps {
  lesson: string | null;
  onLesson: (id: string | null) => void;
  /** The app's translation and language (passed in, like `preset`: this page's chunk then
   *  shares little with the first script, which keeps the bundler from splitting that script
   *  into more files; docs/bench.md). */
  t: (key: string, args?: Record<string, unknown>) => string;
  lang: Language;
  /** The simulator, to grade exercises (the visualizer is not on screen on this page). */
  client: SimClient;
  /** A preset's text, or null when there is no such preset (passed in, like `t`: see above). */
  preset: (id: string) => Promise<string | null>;
}

export function LessonsPage({ lesson, onLesson, t, lang, client, preset }: LessonsPageProps) {
  const [storage] = useState(progressStorage);
  const [progress, setProgress] = useState<Progress>(() => loadProgress(storage));
  const [notice, setNotice] = useState<string | null>(null);
  const grader = useMemo(() => new Grader(client), [client]);
  // The page leaves the worker with the lesson's scenario open; the visualizer opens its own
  // again when it comes back.
  useEffect(() => () => grader.reset(), [grader]);
  const fileInput = useRef<HTMLInputElement | null>(null);
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

  const check = async (exercise: Exercise, given: string) => {
    if (!meta || !exercise.answer || exercise.answer_at === undefined) return null;
    const text = await scenarioText(meta, preset);
    if (text === null) return null;
    const r = await grader.check(text, exercise.answer_at, exercise.answer, given);
    setProgress(recordTry(storage, meta.id, exercise.id, r.correct));
    return r;
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
              </a>{' '}
              <span className="lesson-score" data-testid={`score-${l.id}`}>
                {t('lessons.progress', score(progress, l.id, l.exercises))}
              </span>
            </li>
          ))}
        </ol>
        <p className="lesson-progress-files">
          <button type="button" onClick={() => download('slabscope-progress.json', exportProgress(progress), 'application/json')} data-testid="progress-export">
            {t('lessons.export')}
          </button>{' '}
          <button type="button" onClick={() => fileInput.current?.click()} data-testid="progress-import">
            {t('lessons.import')}
          </button>
          <input
            ref={fileInput}
            type="file"
            accept=".json,application/json"
            hidden
            data-testid="progress-file"
            onChange={async (e) => {
              const file = e.target.files?.[0];
              e.target.value = '';
              if (!file) return;
              const r = importProgress(storage, file.size > 1 << 20 ? '' : await file.text());
              if (r.ok) {
                setProgress(r.progress);
                setNotice(t('lessons.imported'));
              } else setNotice(t(r.key));
            }}
          />
        </p>
        {notice && <p role="status">{notice}</p>}
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
                    {s.parts.map((part, i) => {
                      if (part.kind === 'text') return <Markdown key={i} skipHtml>{part.markdown}</Markdown>;
                      const exercise = meta.exercises.find((e) => e.id === part.id);
                      if (!exercise) return null;
                      return (
                        <ExerciseBox
                          key={part.id}
                          exercise={exercise}
                          prompt={shown.prompts[part.id]}
                          attempt={progress[meta.id]?.[part.id]}
                          t={t}
                          check={check}
                          look={(cursor) => void show(s.id, { cursor, view: anchor?.view, cache: anchor?.cache })}
                        />
                      );
                    })}
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
