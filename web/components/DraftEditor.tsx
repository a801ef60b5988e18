// The editor of the person's draft, opened from the scenario panel: the text editor (loaded when
// first opened), the palette of operations, Run, taking the shown scenario's text into the draft,
// and a list of earlier drafts to bring back.

import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import type { ParseError } from '../core/client';
import { ScenarioPalette } from './ScenarioPalette';
import type { EarlierDrafts } from './useDraft';

const ScenarioEditor = lazy(() => import('./ScenarioEditor'));

export interface DraftEditorProps {
  draft: string;
  /** The draft as typed. */
  onChange: (text: string) => void;
  /** Replaces the draft, keeping the old one among the earlier drafts; `typed`: the new text is
   *  one the person typed. */
  onReplace: (text: string, typed?: boolean) => void;
  earlier: EarlierDrafts;
  check: (text: string) => Promise<ParseError | null>;
  /** Runs the draft. */
  onRun: () => void;
  /** The text of the scenario shown. */
  shown: string;
  /** The scenario line of the step shown, marked while the draft is the text being run. */
  activeLine: number | null;
}

export function DraftEditor({ draft, onChange, onReplace, earlier, check, onRun, shown, activeLine }: DraftEditorProps) {
  const { t } = useTranslation();
  return (
    <div className="editor-panel" data-testid="editor">
      <Suspense fallback={<p role="status">{t('editor.loading')}</p>}>
        <ScenarioEditor value={draft} onChange={onChange} check={check} onRun={onRun} activeLine={draft === shown ? activeLine : null} />
      </Suspense>
      <ScenarioPalette draft={draft} onChange={onChange} />
      <div className="editor-actions">
        <button type="button" onClick={onRun} data-testid="run-draft">
          {t('scenario.run')}
        </button>
        <button type="button" onClick={() => onReplace(shown)} data-testid="edit-shown" disabled={draft === shown}>
          {t('scenario.editShown')}
        </button>
        {earlier.typed.length + earlier.opened.length > 0 && <EarlierPicker earlier={earlier} onReplace={onReplace} />}
      </div>
    </div>
  );
}

/** The earlier drafts, typed and opened in groups of their own; picking one brings it back. */
function EarlierPicker({ earlier, onReplace }: { earlier: EarlierDrafts; onReplace: (text: string, typed?: boolean) => void }) {
  const { t, i18n } = useTranslation();
  return (
    <label>
      {t('scenario.earlier')}{' '}
      <select
        value=""
        data-testid="earlier"
        onChange={(e) => {
          const [list, index] = e.target.value.split(':');
          const pick = (list === 'typed' ? earlier.typed : earlier.opened)[Number(index)];
          if (pick) onReplace(pick.text, list === 'typed');
        }}
      >
        <option value="">—</option>
        {(['typed', 'opened'] as const)
          .filter((list) => earlier[list].length > 0)
          .map((list) => (
            <optgroup key={list} label={t(list === 'typed' ? 'scenario.earlierTyped' : 'scenario.earlierOpened')}>
              {earlier[list].map((d, i) => (
                <option key={`${d.at}-${i}`} value={`${list}:${i}`}>
                  {t('scenario.earlierItem', { when: new Date(d.at).toLocaleString(i18n.language), first: firstLine(d.text) })}
                </option>
              ))}
            </optgroup>
          ))}
      </select>
    </label>
  );
}

/** A draft's first comment or operation line, to tell drafts apart in a list. */
function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('slabscope-scenario')) ?? '';
  const clean = line.replace(/^#\s*/, '').trim();
  return clean.length > 48 ? `${clean.slice(0, 47)}…` : clean;
}
