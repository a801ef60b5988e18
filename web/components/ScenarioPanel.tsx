// The scenario being shown and the ways to change and pass it on: the presets, the editor
// (loaded when first opened), share links, .slab files in and out (a file input and drag and
// drop onto the page). What the person types is saved as it is typed (scenario/store.ts);
// anything that replaces it keeps it: among the person's earlier drafts when it was typed,
// among the opened ones when it was a link's or file's text, untouched.

import { lazy, Suspense, useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ParseError } from '../core/client';
import { encodeScenario, fitsInLink, MAX_LINK_CHARS, MAX_SCENARIO_BYTES } from '../scenario/link';
import type { Scenario } from '../player/playerState';
import { PRESET_IDS, presetText, type PresetId } from '../scenario/presets';
import { download } from './download';
import { ScenarioPalette } from './ScenarioPalette';
import { browserStorage, loadSaved, replaceDraft, saveDraft, type Earlier } from '../scenario/store';

const ScenarioEditor = lazy(() => import('./ScenarioEditor'));

export type { Scenario };

/** How long typing must pause before the draft is saved. */
const SAVE_DRAFT_MS = 300;

export interface ScenarioPanelProps {
  scenario: Scenario;
  /** Shows another scenario from its first step. */
  onScenario: (next: Scenario) => void;
  check: (text: string) => Promise<ParseError | null>;
  /** Every step of the run shown, as JSON text; null while the run is not open. */
  trace: (() => Promise<string>) | null;
  /** The share link of the page as it stands, for a scenario that fits in one. */
  shareUrl: (encoded: string | null) => string;
  /** The scenario line of the step shown (null: boot, or nothing shown), marked in the editor
   *  while it holds the text being run. */
  activeLine?: number | null;
}

export function ScenarioPanel({ scenario, onScenario, check, trace, shareUrl, activeLine = null }: ScenarioPanelProps) {
  const { t } = useTranslation();
  const [storage] = useState(browserStorage);
  const [editing, setEditing] = useState(false);
  const [gallery, setGallery] = useState(false);
  const [draft, setDraft] = useState<string>(() => loadSaved(storage).draft ?? scenario.text);
  const [earlier, setEarlier] = useState<{ typed: Earlier[]; opened: Earlier[] }>(() => {
    const saved = loadSaved(storage);
    return { typed: saved.earlier, opened: saved.opened };
  });
  const [notice, setNotice] = useState<{ kind: 'ok' | 'error'; text: string; link?: string; offerFile?: boolean } | null>(null);
  const fileInput = useRef<HTMLInputElement | null>(null);

  // Replacing the draft (not typing) keeps the old one among the earlier drafts. `typed`: the
  // new text is one the person typed (an earlier draft brought back).
  const replace = useCallback(
    (text: string, typed = false) => {
      const { saved, stored } = replaceDraft(storage, text, { typed });
      setDraft(text);
      setEarlier({ typed: saved.earlier, opened: saved.opened });
      if (!stored && storage) setNotice({ kind: 'error', text: t('scenario.notSaved') });
    },
    [storage, t],
  );

  // Typing is saved once it pauses, and before the page goes away.
  const pending = useRef<string | null>(null);
  useEffect(() => {
    const flush = () => {
      if (pending.current !== null) saveDraft(storage, pending.current);
      pending.current = null;
    };
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, [storage]);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onChange = useCallback(
    (text: string) => {
      setDraft(text);
      pending.current = text;
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        if (pending.current !== null && !saveDraft(storage, pending.current) && storage) setNotice({ kind: 'error', text: t('scenario.notSaved') });
        pending.current = null;
      }, SAVE_DRAFT_MS);
    },
    [storage, t],
  );

  const openPreset = async (id: PresetId) => onScenario({ text: await presetText(id), preset: id });

  const runDraft = useCallback(() => onScenario({ text: draft, preset: null }), [draft, onScenario]);

  const share = async () => {
    const encoded = await encodeScenario(scenario.text);
    if (!fitsInLink(encoded)) {
      setNotice({ kind: 'error', text: t('scenario.tooLongForLink', { length: encoded.length, max: MAX_LINK_CHARS }), offerFile: true });
      return;
    }
    const link = shareUrl(encoded);
    try {
      await navigator.clipboard.writeText(link);
      setNotice({ kind: 'ok', text: t('scenario.linkCopied'), link });
    } catch {
      setNotice({ kind: 'ok', text: t('scenario.linkReady'), link });
    }
  };

  const saveFile = () => download(`${scenario.preset ?? 'scenario'}.slab`, scenario.text, 'text/plain;charset=utf-8');

  const exportTrace = async () => {
    if (!trace) return;
    try {
      download(`${scenario.preset ?? 'scenario'}.trace.json`, await trace(), 'application/json');
    } catch (e) {
      setNotice({ kind: 'error', text: t('scenario.traceFailed', { error: e instanceof Error ? e.message : String(e) }) });
    }
  };

  const openFile = async (file: File) => {
    if (file.size > MAX_SCENARIO_BYTES) {
      setNotice({ kind: 'error', text: t('scenario.fileTooLarge', { name: file.name, max: MAX_SCENARIO_BYTES }) });
      return;
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
    } catch {
      setNotice({ kind: 'error', text: t('scenario.fileNotText', { name: file.name }) });
      return;
    }
    replace(text);
    setEditing(true);
    setNotice({ kind: 'ok', text: t('scenario.fileOpened', { name: file.name }) });
    onScenario({ text, preset: null });
  };

  // Drag and drop of a .slab file anywhere on the page (listened to once; the drop reads the
  // latest openFile).
  const opener = useRef(openFile);
  useEffect(() => {
    opener.current = openFile;
  });
  useEffect(() => {
    const over = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      const file = e.dataTransfer?.files[0];
      if (!file) return;
      e.preventDefault();
      void opener.current(file);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, []);

  return (
    <section className="scenario-panel" aria-label={t('scenario.label')}>
      <div className="scenario-bar">
        <label>
          {t('vis.preset')}{' '}
          <select
            value={scenario.preset ?? ''}
            data-testid="preset"
            onChange={(e) => {
              if (e.target.value === '') runDraft();
              else void openPreset(e.target.value as PresetId);
            }}
          >
            {PRESET_IDS.map((id) => (
              <option key={id} value={id}>
                {t(`presets.${id}.title`)}
              </option>
            ))}
            <option value="">{t('scenario.own')}</option>
          </select>
        </label>
        <span className="preset-summary">{scenario.preset ? t(`presets.${scenario.preset}.summary`) : t('scenario.ownSummary')}</span>
        <button type="button" aria-expanded={gallery} onClick={() => setGallery((g) => !g)} data-testid="gallery-toggle">
          {gallery ? t('scenario.closeGallery') : t('scenario.openGallery')}
        </button>
        <button type="button" aria-expanded={editing} onClick={() => setEditing((e) => !e)} data-testid="edit-toggle">
          {editing ? t('scenario.closeEditor') : t('scenario.openEditor')}
        </button>
        <button type="button" onClick={() => void share()} data-testid="share">
          {t('scenario.share')}
        </button>
        <button type="button" onClick={saveFile} data-testid="save-file">
          {t('scenario.saveFile')}
        </button>
        <button type="button" onClick={() => void exportTrace()} disabled={!trace} data-testid="export-trace">
          {t('scenario.exportTrace')}
        </button>
        <button type="button" onClick={() => fileInput.current?.click()} data-testid="open-file">
          {t('scenario.openFile')}
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".slab,text/plain"
          hidden
          data-testid="file-input"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (file) void openFile(file);
          }}
        />
      </div>
      {gallery && (
        <ul className="preset-gallery" data-testid="gallery">
          {PRESET_IDS.map((id) => (
            <li key={id} aria-current={scenario.preset === id ? 'true' : undefined}>
              <button
                type="button"
                data-testid={`gallery-${id}`}
                onClick={() => {
                  void openPreset(id);
                  setGallery(false);
                }}
              >
                {t(`presets.${id}.title`)}
              </button>
              <span>{t(`presets.${id}.summary`)}</span>
            </li>
          ))}
        </ul>
      )}
      {notice && (
        <p role={notice.kind === 'error' ? 'alert' : 'status'} className={notice.kind === 'error' ? 'error' : 'notice'} data-testid="scenario-notice">
          {notice.text}{' '}
          {notice.link && <input className="share-link" readOnly value={notice.link} onFocus={(e) => e.target.select()} data-testid="share-link" aria-label={t('scenario.share')} />}
          {notice.offerFile && (
            <button type="button" onClick={saveFile}>
              {t('scenario.saveFile')}
            </button>
          )}{' '}
          <button type="button" className="linkish" onClick={() => setNotice(null)}>
            {t('scenario.dismiss')}
          </button>
        </p>
      )}
      {editing && (
        <div className="editor-panel" data-testid="editor">
          <Suspense fallback={<p role="status">{t('editor.loading')}</p>}>
            <ScenarioEditor value={draft} onChange={onChange} check={check} onRun={runDraft} activeLine={draft === scenario.text ? activeLine : null} />
          </Suspense>
          <ScenarioPalette draft={draft} onChange={onChange} />
          <div className="editor-actions">
            <button type="button" onClick={runDraft} data-testid="run-draft">
              {t('scenario.run')}
            </button>
            <button type="button" onClick={() => replace(scenario.text)} data-testid="edit-shown" disabled={draft === scenario.text}>
              {t('scenario.editShown')}
            </button>
            {earlier.typed.length + earlier.opened.length > 0 && (
              <label>
                {t('scenario.earlier')}{' '}
                <select
                  value=""
                  data-testid="earlier"
                  onChange={(e) => {
                    const [list, index] = e.target.value.split(':');
                    const pick = (list === 'typed' ? earlier.typed : earlier.opened)[Number(index)];
                    if (pick) replace(pick.text, list === 'typed');
                  }}
                >
                  <option value="">—</option>
                  {(['typed', 'opened'] as const)
                    .filter((list) => earlier[list].length > 0)
                    .map((list) => (
                      <optgroup key={list} label={t(list === 'typed' ? 'scenario.earlierTyped' : 'scenario.earlierOpened')}>
                        {earlier[list].map((d, i) => (
                          <option key={`${d.at}-${i}`} value={`${list}:${i}`}>
                            {t('scenario.earlierItem', { when: new Date(d.at).toLocaleString(), first: firstLine(d.text) })}
                          </option>
                        ))}
                      </optgroup>
                    ))}
                </select>
              </label>
            )}
          </div>
        </div>
      )}
    </section>
  );
}

/** A draft's first comment or operation line, to tell drafts apart in a list. */
function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '' && !l.startsWith('slabscope-scenario')) ?? '';
  const clean = line.replace(/^#\s*/, '').trim();
  return clean.length > 48 ? `${clean.slice(0, 47)}…` : clean;
}
