// One section of a lesson's text: its heading, the button that moves the player to its anchor,
// and its Markdown with the exercises placed between the runs of text.

import Markdown from 'react-markdown';
import type { Anchor, Exercise, Prompt, Section } from '../../lessons/format';
import type { Attempt } from '../../lessons/progress';
import { ExerciseBox, variantOf, type Picked, type Translate } from './ExerciseBox';

export interface LessonSectionProps {
  /** The lesson's id. */
  lesson: string;
  section: Section;
  /** Where the section's button moves the player, or null for a section without one. */
  anchor: Anchor | null;
  /** The player was last moved to this section. */
  current: boolean;
  /** The lesson's exercises, and their questions and hints in the page's language. */
  exercises: readonly Exercise[];
  prompts: Record<string, Prompt>;
  /** The student's tries at this lesson's exercises, by exercise id. */
  attempts: Record<string, Attempt> | undefined;
  seed: number | null;
  /** The exercise waiting for a click in the player, and the last click. */
  armed: string | null;
  onArm: (exercise: string | null) => void;
  picked: Picked | null;
  check: (exercise: Exercise, given: string) => Promise<{ correct: boolean; value: unknown } | null>;
  /** Moves the player to `anchor`, running `text` when given (an exercise's variant), else the
   *  lesson's own scenario. */
  onShow: (anchor: Anchor, text: string | null) => Promise<void>;
  /** The scenario an exercise runs for this student (null when there is none to run). */
  exerciseScenario: (exercise: Exercise) => Promise<string | null>;
  t: Translate;
}

export function LessonSection({ lesson, section, anchor, current, exercises, prompts, attempts, seed, armed, onArm, picked, check, onShow, exerciseScenario, t }: LessonSectionProps) {
  return (
    <section id={`section-${section.id}`} data-testid={`section-${section.id}`} aria-current={current ? 'true' : undefined}>
      <h3>{section.title}</h3>
      {anchor && (
        <button type="button" onClick={() => void onShow(anchor, null)} data-testid={`show-${section.id}`}>
          {t('lessons.show', { step: anchor.cursor })}
        </button>
      )}
      {section.parts.map((part, i) => {
        if (part.kind === 'text') return <Markdown key={i} skipHtml>{part.markdown}</Markdown>;
        const exercise = exercises.find((e) => e.id === part.id);
        if (!exercise) return null;
        return (
          <ExerciseBox
            key={part.id}
            exercise={exercise}
            prompt={prompts[part.id]}
            attempt={attempts?.[part.id]}
            t={t}
            check={check}
            look={(cursor, view) =>
              void (async () => {
                const variant = variantOf(seed, lesson, exercise).index > 0 ? await exerciseScenario(exercise) : null;
                await onShow({ cursor, view: view ?? anchor?.view, cache: anchor?.cache, file: exercise.file }, variant);
              })()
            }
            variant={variantOf(seed, lesson, exercise)}
            seed={seed}
            armed={armed === exercise.id}
            onArm={(on) => onArm(on ? exercise.id : null)}
            picked={picked}
          />
        );
      })}
    </section>
  );
}
