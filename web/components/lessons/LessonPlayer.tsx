// The player beside a lesson's text, in a region of its own that scrolls; a move to a section's
// anchor brings that section's view into sight, and its bar names the scenario shown.

import { useContext, useState } from 'react';
import type { Player as PlayerModel } from '../../player/usePlayer';
import type { Pick } from '../player/Player';
import { PlayerComponent } from '../player/PlayerComponent';
import type { Translate } from './ExerciseBox';
import type { Moved } from './useLessonPlayer';

export function LessonPlayer({
  player,
  moved,
  onPick,
  onNextLanguage,
  t,
}: {
  player: PlayerModel;
  moved: Moved | null;
  onPick: (pick: Pick) => void;
  /** Switches the page to the next language. */
  onNextLanguage: () => void;
  t: Translate;
}) {
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null);
  const renderPlayer = useContext(PlayerComponent);
  if (renderPlayer === null) throw new Error('LessonPlayer needs a PlayerComponent provider');
  return (
    <div className="lesson-player" ref={setScroller} role="region" aria-label={t('lessons.player')} data-testid="lesson-player">
      {renderPlayer({
        player,
        exports: false,
        onLanguage: onNextLanguage,
        onPick,
        reveal: moved?.view ? { view: moved.view, key: moved.moves } : null,
        scroller,
        scopedShortcuts: true,
        bar: () => {
          const scenario = player.state.scenario;
          if (!scenario) return null;
          return (
            <p className="preset-summary" data-testid="embed-summary">
              {scenario.preset ? `${t(`presets.${scenario.preset}.title`)}: ${t(`presets.${scenario.preset}.summary`)}` : t('vis.ownSummary')}
            </p>
          );
        },
      })}
    </div>
  );
}
