// The scenario being shown and the ways to change and pass it on: the presets, the editor
// (loaded when first opened), share links, .slab files in and out (a file input and drag and
// drop onto the page). What the person types is saved as it is typed (scenario/store.ts);
// anything that replaces it keeps it: among the person's earlier drafts when it was typed,
// among the opened ones when it was a link's or file's text, untouched.

import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ParseError } from '../core/client';
import { encodeScenario, fitsInLink, MAX_LINK_CHARS, MAX_SCENARIO_BYTES } from '../scenario/link';
import type { Scenario } from '../player/playerState';
import { PRESET_IDS, presetText, type PresetId } from '../scenario/presets';
import { PROFILE_IDS, profileOf, withProfile, type ProfileId } from '../scenario/profile';
import { counterpart, variantId, variantOf } from '../scenario/variant';
import { compareAddress, currentHref, type ScenarioRef } from '../url/urlState';
import { download } from './download';
import { DraftEditor } from './DraftEditor';
import { useDraft } from './useDraft';
import { useFileDrop } from './useFileDrop';

/** A message under the bar: a link made (with the link to copy), a file opened, or what failed
 *  (with a file to save instead when the scenario is too long for a link). */
interface Notice {
  kind: 'ok' | 'error';
  text: string;
  link?: string;
  offerFile?: boolean;
}

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
  /** Opens another page of the app at this address (the split view of this scenario). */
  onGo?: (href: string) => void;
  /** The shown scenario under another kernel, landing after the operations done now (else
   *  `onScenario`: from its first step). */
  onProfileScenario?: (next: Scenario) => void;
}

/** The split view of `scenario`: as it runs, beside its counterpart (a preset by its id,
 *  another scenario in the link when it fits, else as the saved run). */
async function sideBySideAddress(scenario: Scenario): Promise<string> {
  const here = variantOf(scenario.text);
  let ref: ScenarioRef = { preset: null, link: null };
  if (scenario.preset !== null) ref = { preset: scenario.preset };
  else {
    const encoded = await encodeScenario(scenario.text);
    if (fitsInLink(encoded)) ref = { preset: null, link: encoded };
  }
  return compareAddress(currentHref(), ref, { a: variantId(here), b: variantId(counterpart(here)), op: 0 });
}

export function ScenarioPanel({ scenario, onScenario, check, trace, shareUrl, activeLine = null, onGo, onProfileScenario }: ScenarioPanelProps) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [gallery, setGallery] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);
  const notSaved = useCallback(() => setNotice({ kind: 'error', text: t('scenario.notSaved') }), [t]);
  const { draft, earlier, replace, onChange } = useDraft(scenario.text, notSaved);

  // A preset's text is a chunk fetched when it is opened, which can fail (the network, a new
  // deployment): the person hears why, and nothing else changes.
  const openPreset = async (id: PresetId) => {
    let text: string;
    try {
      text = await presetText(id);
    } catch (e) {
      setNotice({ kind: 'error', text: t('scenario.presetFailed', { title: t(`presets.${id}.title`), error: e instanceof Error ? e.message : String(e) }) });
      return;
    }
    onScenario({ text, preset: id });
  };

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

  const sideBySide = async () => {
    const href = await sideBySideAddress(scenario);
    if (onGo) onGo(href);
    else window.location.assign(href);
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

  // Drag and drop of a .slab file anywhere on the page.
  useFileDrop((file) => void openFile(file));

  return (
    <section className="scenario-panel" aria-label={t('scenario.label')}>
      <ScenarioBar
        scenario={scenario}
        onPreset={(id) => (id === null ? runDraft() : void openPreset(id))}
        onProfile={(id) => {
          // The shown scenario under another kernel: a scenario of the person's own, which the
          // editor then holds (what they had typed and not run stays under "earlier").
          const text = withProfile(scenario.text, id);
          replace(text);
          (onProfileScenario ?? onScenario)({ text, preset: null });
        }}
        gallery={gallery}
        onGallery={() => setGallery((g) => !g)}
        editing={editing}
        onEditing={() => setEditing((e) => !e)}
        onShare={() => void share()}
        onSideBySide={() => void sideBySide()}
        onSaveFile={saveFile}
        onExportTrace={trace ? () => void exportTrace() : null}
        onOpenFile={(file) => void openFile(file)}
      />
      {gallery && (
        <PresetGallery
          current={scenario.preset}
          onOpen={(id) => {
            void openPreset(id);
            setGallery(false);
          }}
        />
      )}
      {notice && <ScenarioNotice notice={notice} onSaveFile={saveFile} onDismiss={() => setNotice(null)} />}
      {editing && (
        <DraftEditor draft={draft} onChange={onChange} onReplace={replace} earlier={earlier} check={check} onRun={runDraft} shown={scenario.text} activeLine={activeLine} />
      )}
    </section>
  );
}

/** The panel's bar: the preset picker (or the person's own scenario) with its summary, the
 *  gallery and editor toggles, and the ways to pass the scenario on or open one. */
function ScenarioBar({
  scenario,
  onPreset,
  onProfile,
  gallery,
  onGallery,
  editing,
  onEditing,
  onShare,
  onSideBySide,
  onSaveFile,
  onExportTrace,
  onOpenFile,
}: {
  scenario: Scenario;
  /** A preset picked, or null for the person's own scenario (the draft). */
  onPreset: (id: PresetId | null) => void;
  /** Another kernel profile picked for the shown scenario. */
  onProfile: (id: ProfileId) => void;
  gallery: boolean;
  onGallery: () => void;
  editing: boolean;
  onEditing: () => void;
  onShare: () => void;
  onSideBySide: () => void;
  onSaveFile: () => void;
  /** Saves the run's trace; null while the run is not open. */
  onExportTrace: (() => void) | null;
  onOpenFile: (file: File) => void;
}) {
  const { t } = useTranslation();
  const profile = profileOf(scenario.text);
  return (
    <div className="scenario-bar">
      <label>
        {t('vis.preset')}{' '}
        <select value={scenario.preset ?? ''} data-testid="preset" onChange={(e) => onPreset(e.target.value === '' ? null : (e.target.value as PresetId))}>
          {PRESET_IDS.map((id) => (
            <option key={id} value={id}>
              {t(`presets.${id}.title`)}
            </option>
          ))}
          <option value="">{t('scenario.own')}</option>
        </select>
      </label>
      <label>
        {t('scenario.profile')}{' '}
        {/* Short names keep the bar on one line at 1280 px; what each kernel changed is the
            option's and the picker's title. */}
        <select
          value={profile}
          data-testid="profile"
          title={(PROFILE_IDS as readonly string[]).includes(profile) ? t(`profiles.${profile.replace(/\./g, '_')}`) : profile}
          onChange={(e) => onProfile(e.target.value as ProfileId)}
        >
          {PROFILE_IDS.map((id) => (
            <option key={id} value={id} title={t(`profiles.${id.replace(/\./g, '_')}`)}>
              {t(`profilesShort.${id.replace(/\./g, '_')}`)}
            </option>
          ))}
          {!(PROFILE_IDS as readonly string[]).includes(profile) && <option value={profile}>{profile}</option>}
        </select>
      </label>
      <span className="preset-summary">{scenario.preset ? t(`presets.${scenario.preset}.summary`) : t('scenario.ownSummary')}</span>
      <button type="button" aria-expanded={gallery} onClick={onGallery} data-testid="gallery-toggle">
        {gallery ? t('scenario.closeGallery') : t('scenario.openGallery')}
      </button>
      <button type="button" aria-expanded={editing} onClick={onEditing} data-testid="edit-toggle">
        {editing ? t('scenario.closeEditor') : t('scenario.openEditor')}
      </button>
      <button type="button" onClick={onShare} data-testid="share">
        {t('scenario.share')}
      </button>
      <button type="button" onClick={onSideBySide} title={t('compare.openTitle')} data-testid="side-by-side">
        {t('compare.open')}
      </button>
      <FileMenu onSaveFile={onSaveFile} onExportTrace={onExportTrace} onOpenFile={onOpenFile} />
    </div>
  );
}

/** Saving the scenario, opening a file and exporting the trace: a menu that opens over the
    page and closes when an item is chosen. */
function FileMenu({ onSaveFile, onExportTrace, onOpenFile }: { onSaveFile: () => void; onExportTrace: (() => void) | null; onOpenFile: (file: File) => void }) {
  const { t } = useTranslation();
  const fileInput = useRef<HTMLInputElement | null>(null);
  const menu = useRef<HTMLDetailsElement | null>(null);
  /** Closes the menu (an item was chosen). */
  const close = () => {
    if (menu.current) menu.current.open = false;
  };
  const openFile = () => {
    close();
    fileInput.current?.click();
  };
  return (
    <>
      <details className="file-menu" ref={menu} data-testid="file-menu">
        <summary data-testid="file-toggle">{t('scenario.fileMenu')}</summary>
        <div className="file-menu-items">
          <button type="button" onClick={() => (close(), onSaveFile())} data-testid="save-file">
            {t('scenario.saveFile')}
          </button>
          <button type="button" onClick={openFile} data-testid="open-file">
            {t('scenario.openFile')}
          </button>
          <button type="button" onClick={() => (close(), onExportTrace?.())} disabled={!onExportTrace} data-testid="export-trace">
            {t('scenario.exportTrace')}
          </button>
        </div>
      </details>
      <input
        ref={fileInput}
        type="file"
        accept=".slab,text/plain"
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) onOpenFile(file);
        }}
      />
    </>
  );
}

/** Every preset with its summary, the one shown marked; picking one opens it. */
function PresetGallery({ current, onOpen }: { current: PresetId | null; onOpen: (id: PresetId) => void }) {
  const { t } = useTranslation();
  return (
    <ul className="preset-gallery" data-testid="gallery">
      {PRESET_IDS.map((id) => (
        <li key={id} aria-current={current === id ? 'true' : undefined}>
          <button type="button" data-testid={`gallery-${id}`} onClick={() => onOpen(id)}>
            {t(`presets.${id}.title`)}
          </button>
          <span>{t(`presets.${id}.summary`)}</span>
        </li>
      ))}
    </ul>
  );
}

/** The notice, with a button that dismisses it. */
function ScenarioNotice({ notice, onSaveFile, onDismiss }: { notice: Notice; onSaveFile: () => void; onDismiss: () => void }) {
  const { t } = useTranslation();
  return (
    <p role={notice.kind === 'error' ? 'alert' : 'status'} className={notice.kind === 'error' ? 'error' : 'notice'} data-testid="scenario-notice">
      {notice.text}{' '}
      {notice.link && <input className="share-link" readOnly value={notice.link} onFocus={(e) => e.target.select()} data-testid="share-link" aria-label={t('scenario.share')} />}
      {notice.offerFile && (
        <button type="button" onClick={onSaveFile}>
          {t('scenario.saveFile')}
        </button>
      )}{' '}
      <button type="button" className="linkish" onClick={onDismiss}>
        {t('scenario.dismiss')}
      </button>
    </p>
  );
}
