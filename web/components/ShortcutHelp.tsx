// The keyboard shortcut help: a modal <dialog> listing the table of timeline/shortcuts.ts in
// the current language. Opening it moves focus to its close button; closing it (the button,
// Escape, `?` again, or a click on the backdrop) returns focus to where it was. Keys pressed
// inside it do not reach the page's shortcuts, so the timeline does not move behind it.

import { Fragment, memo, useEffect, useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { SHORTCUTS, keyLabelParts, type KeyCombo } from '../timeline/shortcuts';

export interface ShortcutHelpProps {
  open: boolean;
  /** Called when the person closes the dialog; the parent sets `open` to false. */
  onClose: () => void;
}

function Help({ open, onClose }: ShortcutHelpProps) {
  const { t } = useTranslation();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const headingId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!open || !dialog) return undefined;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    closeRef.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      previous?.focus();
    };
  }, [open]);

  const keyText = (combo: KeyCombo) =>
    keyLabelParts(combo).map((part, i) => (
      <Fragment key={i}>
        {i > 0 && '+'}
        <kbd>{part.i18n ? t(part.text) : part.text}</kbd>
      </Fragment>
    ));

  return (
    <dialog
      ref={dialogRef}
      className="shortcut-help"
      aria-labelledby={headingId}
      data-testid="shortcut-help"
      // The browser closes a modal dialog on Escape and then fires `close`. A `close` that
      // arrives while the dialog is open again is stale (StrictMode runs the effect twice).
      onClose={() => {
        if (!dialogRef.current?.open) onClose();
      }}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === '?') onClose();
      }}
      onClick={(e) => {
        // Only a click on the backdrop targets the dialog itself: its content fills it.
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="shortcut-help-body">
        <h2 id={headingId}>{t('shortcuts.heading')}</h2>
        <p>{t('shortcuts.intro')}</p>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('shortcuts.keysColumn')}</th>
              <th scope="col">{t('shortcuts.actionColumn')}</th>
            </tr>
          </thead>
          <tbody>
            {SHORTCUTS.map((shortcut) => (
              <tr key={shortcut.action} data-action={shortcut.action}>
                <td>
                  {shortcut.keys.map((combo, i) => (
                    <Fragment key={i}>
                      {i > 0 && ` ${t('shortcuts.or')} `}
                      {keyText(combo)}
                    </Fragment>
                  ))}
                </td>
                <td>{t(shortcut.description)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button ref={closeRef} type="button" data-testid="shortcut-help-close" onClick={onClose}>
          {t('shortcuts.close')}
        </button>
      </div>
    </dialog>
  );
}

/** Rendered again only when opened or closed, not on every tick of the timeline. */
export const ShortcutHelp = memo(Help);
