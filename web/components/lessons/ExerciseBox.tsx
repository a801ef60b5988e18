// One exercise of a lesson: its question, the variant of the scenario the student's seed gives,
// an answer typed, chosen or picked in the player, graded by the simulator, and hints after wrong
// answers. Markdown is rendered with raw HTML skipped.

import { useState } from 'react';
import Markdown from 'react-markdown';
import type { AnswerPick, Exercise, Prompt } from '../../lessons/format';
import type { Attempt } from '../../lessons/progress';
import { editLines, variantIndex, type Edit } from '../../lessons/variant';
import type { View } from '../../url/urlState';

/** The page's translation, passed in (the lessons chunk shares it with the app). */
export type Translate = (key: string, args?: Record<string, unknown>) => string;

const PICK_LABEL: Record<AnswerPick, string> = { object: 'lessons.pickObject', slab: 'lessons.pickSlab', step: 'lessons.pickStep' };
const PICKING: Record<AnswerPick, string> = { object: 'lessons.pickingObject', slab: 'lessons.pickingSlab', step: 'lessons.pickingStep' };
/** The pane a pick opens beside the stage: every slot of the slab is in the slab page, every
 *  micro-step in the CPU lanes; slabs are all on the stage (the section's own pane stays). */
const PICK_VIEW: Record<AnswerPick, View | undefined> = { object: 'slab', slab: undefined, step: 'lanes' };

/** The variant of an exercise a seed gives: 0 is the lesson's own scenario. */
export interface Variant {
  index: number;
  count: number;
  edits: readonly Edit[];
}

/** The variant of `exercise` of lesson `lesson` that `seed` gives. */
export function variantOf(seed: number | null, lesson: string, exercise: Exercise): Variant {
  const count = exercise.variants?.length ?? 0;
  const index = variantIndex(seed, lesson, exercise.id, count);
  return { index, count, edits: index > 0 ? (exercise.variants?.[index - 1] ?? []) : [] };
}

/** How many of `exercises` have variants. */
export const variedCount = (exercises: readonly Exercise[]) => exercises.filter((e) => e.variants?.length).length;

/** What a click in the player gave (a new object per click, so two clicks on the same thing
 *  are two picks). */
export interface Picked {
  pick: AnswerPick;
  value: string;
}

/** What the simulator said of an answer. */
type Graded = { correct: boolean; value: unknown };

/** The place kinds a slab can be in, which have words of their own as choices. */
const PLACES = ['cpu_slab', 'cpu_partial', 'node_partial', 'unlisted', 'slabs_partial', 'slabs_full', 'slabs_free'];

/** One exercise: the question, an answer graded by the simulator, hints after wrong answers. */
export function ExerciseBox({
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
  check: (exercise: Exercise, given: string) => Promise<Graded | null>;
  /** Moves the player to `cursor`, with `view` in focus (else the section's). */
  look: (cursor: number, view?: View) => void;
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
  const [result, setResult] = useState<Graded | null>(null);
  const [wrong, setWrong] = useState(0);
  // Why the simulator could not grade the answer (the answer typed stays in its field).
  const [failed, setFailed] = useState<string | null>(null);
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
      {variant.index > 0 && <VariantDiff exercise={exercise} variant={variant} seed={seed} t={t} />}
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
            if (!armed && exercise.cursor !== undefined) look(exercise.cursor, PICK_VIEW[exercise.pick as AnswerPick]);
          }}
          data-testid={`pick-${exercise.id}`}
        >
          {t(PICK_LABEL[exercise.pick])}
        </button>
      )}
      {armed && exercise.pick && <p className="exercise-picking">{t(PICKING[exercise.pick])}</p>}
      <AnswerForm exercise={exercise} given={given} onGiven={setGiven} busy={busy} onSubmit={() => void submit()} t={t} />
      <Verdict exercise={exercise} hints={prompt?.hints ?? []} busy={busy} failed={failed} result={result} wrong={wrong} t={t} />
    </aside>
  );
}

/** How the variant's scenario differs from the lesson's own, line by line. */
function VariantDiff({ exercise, variant, seed, t }: { exercise: Exercise; variant: Variant; seed: number | null; t: Translate }) {
  return (
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
  );
}

/** The answer: one of the exercise's choices, or typed; and the button that has it checked. */
function AnswerForm({
  exercise,
  given,
  onGiven,
  busy,
  onSubmit,
  t,
}: {
  exercise: Exercise;
  given: string;
  onGiven: (given: string) => void;
  busy: boolean;
  onSubmit: () => void;
  t: Translate;
}) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      {exercise.choices ? (
        <fieldset className="exercise-choices" data-testid={`choices-${exercise.id}`}>
          <legend>{t('lessons.choose')}</legend>
          {exercise.choices.map((c) => (
            <label key={String(c)}>
              <input type="radio" name={`choice-${exercise.id}`} value={String(c)} checked={given === String(c)} onChange={() => onGiven(String(c))} />{' '}
              <code>{String(c)}</code>
              {typeof c === 'string' && PLACES.includes(c) && <> — {t(`lessons.place.${c}`)}</>}
            </label>
          ))}
        </fieldset>
      ) : (
        <label>
          {t('lessons.answer')}{' '}
          <input value={given} onChange={(e) => onGiven(e.target.value)} data-testid={`answer-${exercise.id}`} autoComplete="off" spellCheck={false} />
        </label>
      )}{' '}
      <button type="submit" disabled={busy || given.trim() === ''} data-testid={`check-${exercise.id}`}>
        {t('lessons.check')}
      </button>
    </form>
  );
}

/** What the check said: right, wrong (with one more hint per wrong answer), or why it could not
 *  grade; announced as it changes. */
function Verdict({
  exercise,
  hints,
  busy,
  failed,
  result,
  wrong,
  t,
}: {
  exercise: Exercise;
  hints: readonly string[];
  busy: boolean;
  failed: string | null;
  result: Graded | null;
  wrong: number;
  t: Translate;
}) {
  return (
    <div role="status" aria-live="polite" data-testid={`result-${exercise.id}`}>
      {busy && t('lessons.checking')}
      {!busy && failed && (
        <p role="alert" className="error">
          {failed}
        </p>
      )}
      {!busy && result?.correct && <p className="exercise-right">{t('lessons.right', { value: String(result.value) })}</p>}
      {!busy && result && !result.correct && <p className="exercise-wrong">{t('lessons.wrong')}</p>}
      {/* A hint is Markdown, as the question is (`code` in it shows as code, not backticks). */}
      {hints.slice(0, result?.correct ? 0 : wrong).map((h, i) => (
        <div key={i} className="exercise-hint" data-testid={`hint-${exercise.id}`}>
          <Markdown skipHtml>{t('lessons.hint', { hint: h, interpolation: { escapeValue: false } })}</Markdown>
        </div>
      ))}
    </div>
  );
}
