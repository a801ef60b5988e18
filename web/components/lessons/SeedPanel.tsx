// The student's seed on the lessons index: set by hand, picked at random, or dropped; and a
// link that hands it out, for a teacher to give each student a variant of the exercises.

import { useState } from 'react';
import { MAX_SEED, parseSeed } from '../../lessons/variant';
import { currentHref, seedLink } from '../../url/urlState';
import type { Translate } from './ExerciseBox';

/** The student's seed: set, picked at random, or dropped; and a link that hands it out. */
export function SeedPanel({ seed, onSeed, t, varied }: { seed: number | null; onSeed: (seed: number | null) => void; t: Translate; varied: number }) {
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
