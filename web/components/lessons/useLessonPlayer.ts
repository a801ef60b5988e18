// The player of a lesson page: which scenario it runs for a lesson, and moves to a section's
// anchor (the first one with an anchor when a lesson is opened), remembering which section it was
// moved to so the page can mark it and bring its view into sight.

import { useCallback, useEffect, useState } from 'react';
import type { SimClient } from '../../core/client';
import type { Anchor, LessonMeta } from '../../lessons/format';
import { lessonFile, lessonScenario } from '../../lessons/load';
import { playerActions, type Scenario } from '../../player/playerState';
import { usePlayer, type Player } from '../../player/usePlayer';
import { isPresetId } from '../../scenario/presetIds';

/** A preset's text by its id, or null when there is no such preset. */
export type PresetText = (id: string) => Promise<string | null>;

/** The section the player was last moved to, and how many moves there were (each brings its view
 *  into sight). */
export interface Moved {
  /** The lesson's id. */
  id: string;
  section: string | null;
  view: Anchor['view'] | null;
  moves: number;
}

/** The scenario the player shows for a lesson: `text` when given (an exercise's variant), else
 *  the file of the lesson's folder named by `file` (an anchor or exercise that runs its own),
 *  else the lesson's own (a preset by its id); null when there is none. */
export async function lessonPlayerScenario(meta: LessonMeta, preset: PresetText, text: string | null, file: string | null = null): Promise<Scenario | null> {
  if (text !== null) return { text, preset: null };
  if (file !== null) {
    const own = await lessonFile(meta, file);
    return own === null ? null : { text: own, preset: null };
  }
  if ('preset' in meta.scenario) {
    const id = meta.scenario.preset;
    const presetText = await preset(id);
    return presetText === null ? null : { text: presetText, preset: isPresetId(id) ? id : null };
  }
  const own = await lessonScenario(meta);
  return own === null ? null : { text: own, preset: null };
}

export function useLessonPlayer(client: SimClient, ready: boolean, meta: LessonMeta | null, preset: PresetText) {
  const player: Player = usePlayer(client, ready);
  const { dispatch } = player;
  const [moved, setMoved] = useState<Moved | null>(null);

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
    const scenario = await lessonPlayerScenario(meta, preset, text, anchor?.file ?? null);
    if (scenario) move(meta.id, section, anchor, scenario);
  };

  // The player starts at the first section's anchor (of each lesson opened).
  useEffect(() => {
    if (!meta) return undefined;
    let live = true;
    const first = meta.sections.find((s) => s.anchor !== null) ?? null;
    void lessonPlayerScenario(meta, preset, null, first?.anchor?.file ?? null).then((scenario) => live && scenario && move(meta.id, first?.id ?? null, first?.anchor ?? null, scenario));
    return () => {
      live = false;
    };
  }, [meta, preset, move]);

  return { player, moved, show };
}
