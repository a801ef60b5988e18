// The lessons index: every lesson in the order of the path through them with the student's score,
// the first one with an exercise left marked next; the progress file out and in; the seed panel.

import { useRef } from 'react';
import { LESSONS } from '../../lessons/load';
import { exportProgress, importProgress, score, type Progress } from '../../lessons/progress';
import { lessonHref } from '../../url/urlState';
import { download } from '../download';
import { variedCount, type Translate } from './ExerciseBox';
import { SeedPanel } from './SeedPanel';

/** The largest progress file read; a bigger one is refused as not a progress file. */
const MAX_PROGRESS_BYTES = 1 << 20;

export function LessonIndex({
  lesson,
  onLesson,
  titles,
  progress,
  onProgress,
  seed,
  onSeed,
  notice,
  onNotice,
  storage,
  t,
}: {
  /** The lesson asked for that does not exist, or null. */
  lesson: string | null;
  onLesson: (id: string | null) => void;
  /** Each lesson's title in the page's language, by id. */
  titles: Record<string, string>;
  progress: Progress;
  onProgress: (progress: Progress) => void;
  seed: number | null;
  onSeed: (seed: number | null) => void;
  notice: string | null;
  onNotice: (notice: string | null) => void;
  /** Where progress is kept, or null when the browser keeps nothing. */
  storage: Storage | null;
  t: Translate;
}) {
  const fileInput = useRef<HTMLInputElement | null>(null);
  // The path through the lessons is their order; the first one with an exercise left is next.
  const nextUp = LESSONS.find((l) => {
    const { done, total } = score(progress, l.id, l.exercises);
    return done < total;
  })?.id;
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
            const r = importProgress(storage, file.size > MAX_PROGRESS_BYTES ? '' : await file.text());
            if (r.ok) {
              onProgress(r.progress);
              if (r.seed !== null) onSeed(r.seed);
              onNotice(t('lessons.imported'));
            } else onNotice(t(r.key));
          }}
        />
      </p>
      {notice && <p role="status">{notice}</p>}
      <SeedPanel seed={seed} onSeed={onSeed} t={t} varied={variedCount(LESSONS.flatMap((l) => l.exercises))} />
    </section>
  );
}
