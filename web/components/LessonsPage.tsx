// The lessons: an index in the order of the path through them, and a lesson's text beside the
// player (a Player sharing the page's simulator client with the exercises' grader), which each
// section's anchor moves to its step and view; a click in it can answer an exercise. Markdown is rendered by react-markdown with raw HTML skipped, so nothing
// in a lesson file is ever interpreted as markup.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import Markdown from 'react-markdown';
import { LANGUAGES, type Language } from '../i18n/i18n';
import type { SimClient } from '../core/client';
import type { Anchor, AnswerPick, Exercise, LessonMeta, LessonText, Prompt } from '../lessons/format';
import { Grader } from '../lessons/grader';
import { LESSONS, lessonById, lessonScenario, lessonText } from '../lessons/load';
import { exportProgress, importProgress, loadProgress, recordTry, score, type Attempt, type Progress } from '../lessons/progress';
import { applyVariant, editLines, loadSeed, MAX_SEED, parseSeed, saveSeed, variantIndex, type Edit } from '../lessons/variant';
import { playerActions, type Scenario } from '../player/playerState';
import { usePlayer } from '../player/usePlayer';
import { isPresetId } from '../scenario/presets';
import { currentHref, currentQuery, lessonHref, parsePageQuery, seedLink } from '../url/urlState';
import { download } from './download';
import { Player, type Pick } from './player/Player';

/** The scenario the player shows for a lesson: `text` when given (an exercise's variant), else
 *  the lesson's own (a preset by its id); null when there is none. */
async function lessonPlayerScenario(meta: LessonMeta, preset: (id: string) => Promise<string | null>, text: string | null): Promise<Scenario | null> {
  if (text !== null) return { text, preset: null };
  if ('preset' in meta.scenario) {
    const id = meta.scenario.preset;
    const presetText = await preset(id);
    return presetText === null ? null : { text: presetText, preset: isPresetId(id) ? id : null };
  }
  const own = await lessonScenario(meta);
  return own === null ? null : { text: own, preset: null };
}

/** The scenario text a lesson runs. */
async function scenarioText(meta: LessonMeta, preset: (id: string) => Promise<string | null>): Promise<string | null> {
  return 'preset' in meta.scenario ? preset(meta.scenario.preset) : lessonScenario(meta);
}

/** The variant of an exercise a seed gives: 0 is the lesson's own scenario. */
interface Variant {
  index: number;
  count: number;
  edits: readonly Edit[];
}

/** How many of `exercises` have variants. */
const variedCount = (exercises: readonly Exercise[]) => exercises.filter((e) => e.variants?.length).length;

function variantOf(seed: number | null, lesson: string, exercise: Exercise): Variant {
  const count = exercise.variants?.length ?? 0;
  const index = variantIndex(seed, lesson, exercise.id, count);
  return { index, count, edits: index > 0 ? (exercise.variants?.[index - 1] ?? []) : [] };
}

/** What a click in the player gave (a new object per click, so two clicks on the same thing
 *  are two picks). */
interface Picked {
  pick: AnswerPick;
  value: string;
}

/** The place kinds a slab can be in, which have words of their own as choices. */
const PLACES = ['cpu_slab', 'cpu_partial', 'node_partial', 'unlisted', 'slabs_partial', 'slabs_full', 'slabs_free'];

function progressStorage(): Storage | null {
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
  variant,
  seed,
  armed,
  onArm,
  picked,
}: {
  exercise: Exercise;
  prompt: Prompt | undefined;
  attempt: Attempt | undefined;
  t: Translate;
  check: (exercise: Exercise, given: string) => Promise<{ correct: boolean; value: unknown } | null>;
  look: (cursor: number) => void;
  variant: Variant;
  seed: number | null;
  /** This exercise waits for a click in the player. */
  armed: boolean;
  onArm: (on: boolean) => void;
  picked: Picked | null;
}) {
  const [given, setGiven] = useState('');
  // A click in the player fills the answer of the exercise waiting for one (state adjusted
  // while rendering, when the click is new).
  const [seenPick, setSeenPick] = useState<Picked | null>(picked);
  if (picked !== seenPick) {
    setSeenPick(picked);
    if (armed && picked && picked.pick === exercise.pick) setGiven(picked.value);
  }
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
      {variant.index > 0 && (
        <div className="exercise-variant" data-testid={`variant-${exercise.id}`} data-variant={variant.index}>
          <p>{t('lessons.variant', { index: variant.index, count: variant.count, seed })}</p>
          {variant.edits.map((edit, i) => (
            <pre key={i} className="variant-diff">
              {editLines(edit).map((l, j) => (
                <span key={j} className={`variant-${l.kind}`}>
                  {l.kind === 'out' ? '− ' : l.kind === 'in' ? '+ ' : '  '}
                  {l.text}
                  {'\n'}
                </span>
              ))}
            </pre>
          ))}
        </div>
      )}
      {exercise.cursor !== undefined && (
        <button type="button" onClick={() => look(exercise.cursor as number)} data-testid={`look-${exercise.id}`}>
          {t('lessons.look', { step: exercise.cursor })}
        </button>
      )}{' '}
      {exercise.pick && (
        <button
          type="button"
          aria-pressed={armed}
          onClick={() => {
            onArm(!armed);
            if (!armed && exercise.cursor !== undefined) look(exercise.cursor);
          }}
          data-testid={`pick-${exercise.id}`}
        >
          {t(exercise.pick === 'object' ? 'lessons.pickObject' : 'lessons.pickSlab')}
        </button>
      )}
      {armed && <p className="exercise-picking">{t(exercise.pick === 'object' ? 'lessons.pickingObject' : 'lessons.pickingSlab')}</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {exercise.choices ? (
          <fieldset className="exercise-choices" data-testid={`choices-${exercise.id}`}>
            <legend>{t('lessons.choose')}</legend>
            {exercise.choices.map((c) => (
              <label key={String(c)}>
                <input type="radio" name={`choice-${exercise.id}`} value={String(c)} checked={given === String(c)} onChange={() => setGiven(String(c))} />{' '}
                <code>{String(c)}</code>
                {typeof c === 'string' && PLACES.includes(c) && <> — {t(`lessons.place.${c}`)}</>}
              </label>
            ))}
          </fieldset>
        ) : (
          <label>
            {t('lessons.answer')}{' '}
            <input value={given} onChange={(e) => setGiven(e.target.value)} data-testid={`answer-${exercise.id}`} autoComplete="off" spellCheck={false} />
          </label>
        )}{' '}
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

/** The student's seed: set, picked at random, or dropped; and a link that hands it out. */
function SeedPanel({ seed, onSeed, t, varied }: { seed: number | null; onSeed: (seed: number | null) => void; t: Translate; varied: number }) {
  const [typed, setTyped] = useState('');
  const [bad, setBad] = useState(false);
  // A whole address, to paste into a message to a student.
  const link = seed === null ? null : seedLink(currentHref(), seed);
  return (
    <section className="lesson-seed-panel" data-testid="seed-panel">
      <h3>{t('lessons.seedHeading')}</h3>
      <p data-testid="seed-state">{seed === null ? t('lessons.seedNone', { count: varied }) : t('lessons.seedIs', { seed, count: varied })}</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const next = parseSeed(typed);
          setBad(next === null);
          if (next !== null) {
            onSeed(next);
            setTyped('');
          }
        }}
      >
        <label>
          {t('lessons.seedLabel', { max: MAX_SEED })}{' '}
          <input value={typed} onChange={(e) => setTyped(e.target.value)} inputMode="numeric" autoComplete="off" data-testid="seed-input" />
        </label>{' '}
        <button type="submit" data-testid="seed-set">
          {t('lessons.seedSet')}
        </button>{' '}
        <button type="button" onClick={() => onSeed(1 + Math.floor(Math.random() * MAX_SEED))} data-testid="seed-random">
          {t('lessons.seedRandom')}
        </button>{' '}
        {seed !== null && (
          <button type="button" onClick={() => onSeed(null)} data-testid="seed-clear">
            {t('lessons.seedClear')}
          </button>
        )}
      </form>
      {bad && (
        <p role="alert" className="error" data-testid="seed-bad">
          {t('lessons.seedBad', { max: MAX_SEED })}
        </p>
      )}
      {link && (
        <p>
          {t('lessons.seedLink')} <a href={link}>{link}</a>
        </p>
      )}
    </section>
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
  /** The simulator, shared by the player and the grader of the exercises. */
  client: SimClient;
  /** The simulator worker has loaded its wasm build. */
  ready: boolean;
  /** A preset's text, or null when there is no such preset (passed in, like `t`: see above). */
  preset: (id: string) => Promise<string | null>;
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
  const grader = useMemo(() => new Grader(client), [client]);
  const player = usePlayer(client, ready);
  const { dispatch } = player;
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null);
  const fileInput = useRef<HTMLInputElement | null>(null);
  const meta = lessonById(lesson);
  const [titles, setTitles] = useState<Record<string, string>>({});
  const [text, setText] = useState<{ id: string; lang: string; text: LessonText | null } | null>(null);
  // The section whose anchor the player was last moved to, and how many moves there were (each
  // brings its view into sight).
  const [moved, setMoved] = useState<{ id: string; section: string | null; view: Anchor['view'] | null; moves: number } | null>(null);

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

  /** Moves the player to `anchor` of `section` of lesson `id`, running `scenario`. */
  const move = useCallback(
    (id: string, section: string | null, anchor: Anchor | null, scenario: Scenario) => {
      dispatch(playerActions.show(scenario, { cursor: anchor?.cursor ?? 0, view: anchor?.view ?? null, cache: anchor?.cache ?? null }));
      setMoved((old) => ({ id, section, view: anchor?.view ?? null, moves: (old?.moves ?? 0) + 1 }));
    },
    [dispatch],
  );
  /** The same, with the lesson's own scenario, or `text` when given (an exercise's variant). */
  const show = async (section: string | null, anchor: Anchor | null, text: string | null = null) => {
    if (!meta) return;
    const scenario = await lessonPlayerScenario(meta, preset, text);
    if (scenario) move(meta.id, section, anchor, scenario);
  };

  // The player starts at the first section's anchor (of each lesson opened).
  useEffect(() => {
    if (!meta) return undefined;
    let live = true;
    const first = meta.sections.find((s) => s.anchor !== null) ?? null;
    void lessonPlayerScenario(meta, preset, null).then((scenario) => live && scenario && move(meta.id, first?.id ?? null, first?.anchor ?? null, scenario));
    return () => {
      live = false;
    };
  }, [meta, preset, move]);

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

  /** The scenario an exercise runs for this student: the lesson's, or the variant their seed
   *  gives (null when there is none to run). */
  const exerciseScenario = async (exercise: Exercise): Promise<string | null> => {
    if (!meta) return null;
    const text = await scenarioText(meta, preset);
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
    if (r !== null) setProgress(recordTry(storage, meta.id, exercise.id, r.correct));
    return r;
  };

  // The path through the lessons is their order; the first one with an exercise left is next.
  const nextUp = LESSONS.find((l) => {
    const { done, total } = score(progress, l.id, l.exercises);
    return done < total;
  })?.id;
  const at = meta ? LESSONS.findIndex((l) => l.id === meta.id) : -1;
  const neighbours = [
    ['prev', LESSONS[at - 1]],
    ['next', LESSONS[at + 1]],
  ] as const;

  if (!meta) {
    return (
      <section className="lessons" data-testid="lessons">
        <h2>{t('lessons.heading')}</h2>
        {lesson !== null && <p role="alert">{t('lessons.notFound', { id: lesson })}</p>}
        <ol className="lesson-index">
          {LESSONS.map((l) => (
            <li key={l.id} className={l.id === nextUp ? 'lesson-next-up' : undefined}>
              <a
                href={lessonHref(l.id)}
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
              {l.id === nextUp && (
                <span className="lesson-next-tag" data-testid="lesson-next-up">
                  {' '}
                  ← {t('lessons.nextUp')}
                </span>
              )}
            </li>
          ))}
        </ol>
        <p className="lesson-progress-files">
          <button type="button" onClick={() => download('slabscope-progress.json', exportProgress(progress, seed), 'application/json')} data-testid="progress-export">
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
                if (r.seed !== null) setSeed(r.seed);
                setNotice(t('lessons.imported'));
              } else setNotice(t(r.key));
            }}
          />
        </p>
        {notice && <p role="status">{notice}</p>}
        <SeedPanel seed={seed} onSeed={setSeed} t={t} varied={variedCount(LESSONS.flatMap((l) => l.exercises))} />
      </section>
    );
  }

  const shown = text && text.id === meta.id && text.lang === lang ? text.text : undefined;
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
              <h2 data-testid="lesson-title">{shown.title}</h2>
              {seed !== null && variedCount(meta.exercises) > 0 && (
                <p className="lesson-seed" data-testid="lesson-seed">
                  {t('lessons.seedIs', { seed, count: variedCount(meta.exercises) })}
                </p>
              )}
              {demo?.found && demo.id === meta.id && demo.lang === lang && (
                <details className="lesson-demo">
                  <summary>{t('lessons.demo')}</summary>
                  <video controls preload="metadata" src={`demos/${meta.id}.${lang}.webm`} poster={`demos/${meta.id}.${lang}.png`} data-testid="lesson-demo" />
                </details>
              )}
              {shown.sections.map((s) => {
                const anchor = meta.sections.find((m) => m.id === s.id)?.anchor ?? null;
                return (
                  <section key={s.id} id={`section-${s.id}`} data-testid={`section-${s.id}`} aria-current={moved?.id === meta.id && moved.section === s.id ? 'true' : undefined}>
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
                          look={(cursor) =>
                            void (async () => {
                              const variant = variantOf(seed, meta.id, exercise).index > 0 ? await exerciseScenario(exercise) : null;
                              await show(s.id, { cursor, view: anchor?.view, cache: anchor?.cache }, variant);
                            })()
                          }
                          variant={variantOf(seed, meta.id, exercise)}
                          seed={seed}
                          armed={armed === exercise.id}
                          onArm={(on) => setArmed(on ? exercise.id : null)}
                          picked={picked}
                        />
                      );
                    })}
                  </section>
                );
              })}
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
            </>
          )}
        </article>
        <div className="lesson-player" ref={setScroller} role="region" aria-label={t('lessons.player')} data-testid="lesson-player">
          <Player
            player={player}
            exports={false}
            onLanguage={() => onLanguage(LANGUAGES[(LANGUAGES.indexOf(lang) + 1) % LANGUAGES.length])}
            onPick={onPick}
            reveal={moved?.view ? { view: moved.view, key: moved.moves } : null}
            scroller={scroller}
            scopedShortcuts
            bar={() => {
              const scenario = player.state.scenario;
              if (!scenario) return null;
              return (
                <p className="preset-summary" data-testid="embed-summary">
                  {scenario.preset ? `${t(`presets.${scenario.preset}.title`)}: ${t(`presets.${scenario.preset}.summary`)}` : t('vis.ownSummary')}
                </p>
              );
            }}
          />
        </div>
      </div>
    </section>
  );
}
