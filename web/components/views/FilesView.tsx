// The kernel's files at the cursor, exactly as the simulator wrote them: /proc/slabinfo, the
// shown cache's /sys/kernel/slab/<cache>/ directory (attribute → value), the entries of
// /sys/kernel/slab/ itself (`name/` for a directory, `name -> target` for a symlink, as the
// simulator lists them), /proc/buddyinfo. Text only, stacked sections with the file path as
// heading; nothing is rewrapped. The one thing read from the listing is whether the shown
// cache's name is a symlink, and to which directory.
// Above them, the scenario's `print` lines: each a button that takes the player to the point
// where that line reads its file (the one at the cursor is marked).

import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { KernelFiles } from '../../core/generated/KernelFiles';
import type { PrintInfo } from '../../core/generated/PrintInfo';
import type { SysfsMissing } from '../../core/generated/SysfsMissing';
import { printPath } from '../../scenario/print';

interface Props {
  files: KernelFiles | null;
  cacheName: string | null;
  /** The scenario's print lines, and what a press on one does (the player jumps there). */
  prints?: readonly PrintInfo[];
  cursor?: number;
  onPrint?: (print: PrintInfo) => void;
}

export function FilesView({ files, cacheName, prints = [], cursor, onPrint }: Props) {
  const { t, i18n } = useTranslation();
  // Why a /sys/kernel/slab file is not there, in the reader's language (the simulator's
  // English for a key this build does not know).
  const missing = (why: SysfsMissing) => {
    const key = `filesView.missing.${why.key.replace(/^sysfs\./, '')}`;
    return i18n.exists(key) ? t(key, { cache: why.cache ?? '' }) : t('filesView.sysfsMissing', { reason: why.message });
  };
  const base = useId();
  const printList =
    prints.length > 0 ? (
      <nav aria-labelledby={`${base}-prints`}>
        <h4 id={`${base}-prints`}>{t('filesView.prints')}</h4>
        <ol className="files-prints" data-testid="files-prints">
          {prints.map((p) => (
            <li key={p.line} aria-current={p.cursor === cursor ? 'step' : undefined} data-testid="files-print" data-cursor={p.cursor}>
              <button type="button" className="linkish" onClick={() => onPrint?.(p)}>
                {t('filesView.printItem', { line: p.line, path: printPath(p.file), step: p.cursor })}
              </button>
            </li>
          ))}
        </ol>
      </nav>
    ) : null;
  if (!files) {
    return (
      <section className="files-view" data-testid="files-view">
        <h3>{t('filesView.title')}</h3>
        {printList}
        <p data-testid="files-none">{t('filesView.none')}</p>
      </section>
    );
  }
  const sysfsPath = `/sys/kernel/slab/${cacheName ?? '…'}/`;
  const link = 'Ok' in files.slab_dir && cacheName ? symlinkTarget(files.slab_dir.Ok, cacheName) : null;
  return (
    <section className="files-view" data-testid="files-view">
      <h3>{t('filesView.title')}</h3>
      {printList}
      <section aria-labelledby={`${base}-slabinfo`}>
        <h4 id={`${base}-slabinfo`}>
          <code>/proc/slabinfo</code>
        </h4>
        <pre data-testid="files-slabinfo">{files.slabinfo}</pre>
      </section>
      <section aria-labelledby={`${base}-sysfs`}>
        <h4 id={`${base}-sysfs`}>
          <code>{sysfsPath}</code>
          {link && <span data-testid="files-sysfs-link"> ({t('filesView.symlink', { target: link })})</span>}
        </h4>
        {!cacheName ? (
          <p data-testid="files-sysfs-missing">{t('filesView.noCache')}</p>
        ) : 'Err' in files.sysfs ? (
          <p data-testid="files-sysfs-missing">{missing(files.sysfs.Err)}</p>
        ) : (
          <table data-testid="files-sysfs">
            <caption>{t('filesView.caption', { path: sysfsPath })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('filesView.attribute')}</th>
                <th scope="col">{t('filesView.value')}</th>
              </tr>
            </thead>
            <tbody>
              {files.sysfs.Ok.map(([name, value]) => (
                <tr key={name} data-testid="files-sysfs-row" data-attribute={name}>
                  <th scope="row">
                    <code>{name}</code>
                  </th>
                  <td>
                    <pre>{value}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby={`${base}-slab-dir`}>
        <h4 id={`${base}-slab-dir`}>
          <code>/sys/kernel/slab/</code>
        </h4>
        {'Ok' in files.slab_dir ? (
          <pre data-testid="files-slab-dir">{files.slab_dir.Ok}</pre>
        ) : (
          <p data-testid="files-slab-dir-missing">{missing(files.slab_dir.Err)}</p>
        )}
      </section>
      <section aria-labelledby={`${base}-buddyinfo`}>
        <h4 id={`${base}-buddyinfo`}>
          <code>/proc/buddyinfo</code>
        </h4>
        <pre data-testid="files-buddyinfo">{files.buddyinfo}</pre>
      </section>
    </section>
  );
}

/** The directory `name` is a symlink to in a listing of /sys/kernel/slab/, if it is one. */
export function symlinkTarget(listing: string, name: string): string | null {
  const prefix = `${name} -> `;
  const line = listing.split('\n').find((l) => l.startsWith(prefix));
  return line ? line.slice(prefix.length) : null;
}
