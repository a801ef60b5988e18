// The lessons: an index in the order of the path through them, and a lesson's text beside the
// player (a Player sharing the page's simulator client with the exercises' grader), which each
// section's anchor moves to its step and view; a click in it can answer an exercise. Markdown is
// rendered by react-markdown with raw HTML skipped, so nothing in a lesson file is ever
// interpreted as markup.

import { useCallback, useEffect, useMemo, useState } from 'react';
import { LANGUAGES, type Language } from '../i18n/i18n';
import type { SimClient } from '../core/client';
import type { Exercise, LessonMeta, LessonText } from '../lessons/format';
import { Grader } from '../lessons/grader';
import { LESSONS, lessonById, lessonText } from '../lessons/load';
import { loadProgress, recordTry, type Progress } from '../lessons/progress';
import { applyVariant, loadSeed, parseSeed, saveSeed } from '../lessons/variant';
import { currentQuery, lessonHref, parsePageQuery } from '../url/urlState';
import { variantOf, variedCount, type Picked, type Translate } from './lessons/ExerciseBox';
import { LessonIndex } from './lessons/LessonIndex';
import { LessonSection } from './lessons/LessonSection';
import { LessonPlayer } from './lessons/LessonPlayer';
import { lessonPlayerScenario, useLessonPlayer, type PresetText } from './lessons/useLessonPlayer';
import type { Pick } from './player/Player';

function progressStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Each lesson's title in `lang`, by id (an id stands for its title until it is loaded). */
function useLessonTitles(lang: Language): Record<string, string> {
  const [titles, setTitles] = useState<Record<string, string>>({});
  useEffect(() => {
    let live = true;
    void Promise.all(LESSONS.map(async (l) => [l.id, (await lessonText(l.id, lang))?.title ?? l.id] as const)).then(
      (pairs) => live && setTitles(Object.fromEntries(pairs)),
    );
    return () => {
      live = false;
    };
  }, [lang]);
  return titles;
}

/** The text of lesson `meta` in `lang`: undefined while it loads, null when there is none. */
function useLessonText(meta: LessonMeta | null, lang: Language): LessonText | null | undefined {
  const [text, setText] = useState<{ id: string; lang: string; text: LessonText | null } | null>(null);
  useEffect(() => {
    if (!meta) return undefined;
    let live = true;
    void lessonText(meta.id, lang).then((loaded) => live && setText({ id: meta.id, lang, text: loaded }));
    return () => {
      live = false;
    };
  }, [meta, lang]);
  return meta && text && text.id === meta.id && text.lang === lang ? text.text : undefined;
}

/** Whether lesson `meta` has a recorded demo in `lang` (`npm run demos` writes
 *  demos/<lesson>.<lang>.webm). */
function useLessonDemo(meta: LessonMeta | null, lang: Language): boolean {
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
  return !!meta && !!demo?.found && demo.id === meta.id && demo.lang === lang;
}

/** The exercises of lesson `meta` for the student with `seed`: the scenario each runs (the
 *  lesson's, or the variant the seed gives) and the simulator's grading of an answer, which
 *  `onTry` records. */
function useExercises(client: SimClient, meta: LessonMeta | null, preset: PresetText, seed: number | null, onTry: (lesson: string, exercise: string, correct: boolean) => void) {
  const grader = useMemo(() => new Grader(client), [client]);
  /** The scenario an exercise runs for this student: the lesson's, or the variant their seed
   *  gives (null when there is none to run). */
  const exerciseScenario = async (exercise: Exercise): Promise<string | null> => {
    if (!meta) return null;
    const text = (await lessonPlayerScenario(meta, preset, null, exercise.file ?? null))?.text ?? null;
    const edits = variantOf(seed, meta.id, exercise).edits;
    if (text === null || edits.length === 0) return text;
    const edited = applyVariant(text, edits);
    return edited.ok ? edited.text : null;
  };

  const check = async (exercise: Exercise, given: string) => {
    if (!meta || !exercise.answer || exercise.answer_at === undefined) return null;
    const text = await exerciseScenario(exercise);
    if (text === null) return null;
    const r = await grader.check(text, exercise.answer_at, exercise.answer, given);
    if (r !== null) onTry(meta.id, exercise.id, r.correct);
    return r;
  };

  return { exerciseScenario, check };
}

export interface LessonsPageProps {
  lesson: string | null;
  onLesson: (id: string | null) => void;
  /** The app's translation and language (passed in, like `preset`: this page's chunk then
   *  shares little with the first script, which keeps the bundler from splitting that script
   *  into more files; docs/bench.md). */
  t: (key: string, args?: Record<string, unknown>) => string;
  lang: Language;
  /** The simulator, shared by the player and the grader of the exercises. */
  client: SimClient;
  /** The simulator worker has loaded its wasm build. */
  ready: boolean;
  /** A preset's text, or null when there is no such preset (passed in, like `t`: see above). */
  preset: PresetText;
  onLanguage: (lang: Language) => void;
}

export function LessonsPage({ lesson, onLesson, t, lang, client, ready, preset, onLanguage }: LessonsPageProps) {
  const [storage] = useState(progressStorage);
  const [progress, setProgress] = useState<Progress>(() => loadProgress(storage));
  const [notice, setNotice] = useState<string | null>(null);
  // The student's seed: from a link a teacher handed out (kept), else what this browser kept.
  const [seed, setSeedState] = useState<number | null>(() => {
    const fromLink = parseSeed(parsePageQuery(currentQuery()).seed);
    if (fromLink !== null) saveSeed(storage, fromLink);
    return fromLink ?? loadSeed(storage);
  });
  const setSeed = (next: number | null) => {
    setSeedState(next);
    setNotice(saveSeed(storage, next) ? null : t('lessons.seedNotSaved'));
  };
  // The exercise waiting for a click in the player, and the last click.
  const [armed, setArmed] = useState<string | null>(null);
  const [picked, setPicked] = useState<Picked | null>(null);
  const onPick = useCallback((p: Pick) => setPicked({ pick: p.pick, value: String(p.value) }), []);
  const meta = lessonById(lesson);
  const titles = useLessonTitles(lang);
  const shown = useLessonText(meta, lang);
  const { player, moved, show } = useLessonPlayer(client, ready, meta, preset);
  const demo = useLessonDemo(meta, lang);
  const { exerciseScenario, check } = useExercises(client, meta, preset, seed, (id, exercise, correct) => setProgress(recordTry(storage, id, exercise, correct)));

  if (!meta) {
    return (
      <LessonIndex
        lesson={lesson}
        onLesson={onLesson}
        titles={titles}
        progress={progress}
        onProgress={setProgress}
        seed={seed}
        onSeed={setSeed}
        notice={notice}
        onNotice={setNotice}
        storage={storage}
        t={t}
      />
    );
  }

  return (
    <section className="lesson" data-testid="lesson" data-lesson={meta.id}>
      <p>
        <a
          href={lessonHref(null)}
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
              <LessonHeading meta={meta} title={shown.title} seed={seed} demo={demo} lang={lang} t={t} />
              {shown.sections.map((s) => {
                const anchor = meta.sections.find((m) => m.id === s.id)?.anchor ?? null;
                return (
                  <LessonSection
                    key={s.id}
                    lesson={meta.id}
                    section={s}
                    anchor={anchor}
                    current={moved?.id === meta.id && moved.section === s.id}
                    exercises={meta.exercises}
                    prompts={shown.prompts}
                    attempts={progress[meta.id]}
                    seed={seed}
                    armed={armed}
                    onArm={setArmed}
                    picked={picked}
                    check={check}
                    onShow={(at, text) => show(s.id, at, text)}
                    exerciseScenario={exerciseScenario}
                    t={t}
                  />
                );
              })}
              <LessonNav at={meta.id} titles={titles} onLesson={onLesson} t={t} />
            </>
          )}
        </article>
        <LessonPlayer
          player={player}
          moved={moved}
          onPick={onPick}
          onNextLanguage={() => onLanguage(LANGUAGES[(LANGUAGES.indexOf(lang) + 1) % LANGUAGES.length])}
          t={t}
        />
      </div>
    </section>
  );
}

/** A lesson's title, the student's seed when it varies the exercises, and the recorded demo. */
function LessonHeading({ meta, title, seed, demo, lang, t }: { meta: LessonMeta; title: string; seed: number | null; demo: boolean; lang: Language; t: Translate }) {
  return (
    <>
      <h2 data-testid="lesson-title">{title}</h2>
      {seed !== null && variedCount(meta.exercises) > 0 && (
        <p className="lesson-seed" data-testid="lesson-seed">
          {t('lessons.seedIs', { seed, count: variedCount(meta.exercises) })}
        </p>
      )}
      {demo && (
        <details className="lesson-demo">
          <summary>{t('lessons.demo')}</summary>
          <video controls preload="metadata" src={`demos/${meta.id}.${lang}.webm`} poster={`demos/${meta.id}.${lang}.png`} data-testid="lesson-demo" />
        </details>
      )}
    </>
  );
}

/** The links to the lessons before and after lesson `at` on the path. */
function LessonNav({ at, titles, onLesson, t }: { at: string; titles: Record<string, string>; onLesson: (id: string | null) => void; t: Translate }) {
  const index = LESSONS.findIndex((l) => l.id === at);
  const neighbours = [
    ['prev', LESSONS[index - 1]],
    ['next', LESSONS[index + 1]],
  ] as const;
  return (
    <nav className="lesson-nav" aria-label={t('lessons.path')}>
      {neighbours.map(
        ([side, l]) =>
          l && (
            <a
              key={side}
              href={lessonHref(l.id)}
              onClick={(e) => {
                e.preventDefault();
                onLesson(l.id);
                window.scrollTo(0, 0);
              }}
              data-testid={`lesson-${side}`}
            >
              {t(side === 'prev' ? 'lessons.prev' : 'lessons.next', { title: titles[l.id] ?? l.id })}
            </a>
          ),
      )}
    </nav>
  );
}
