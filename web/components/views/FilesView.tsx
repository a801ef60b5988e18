// The kernel's files at the cursor, exactly as the simulator wrote them: /proc/slabinfo, the
// shown cache's /sys/kernel/slab/<cache>/ directory (attribute → value), the entries of
// /sys/kernel/slab/ itself (`name/` for a directory, `name -> target` for a symlink, as the
// simulator lists them), /proc/buddyinfo. Stacked sections with the file path as heading.
// /proc/slabinfo is read back into a table that fits the column (columns chosen by the reader;
// the kernel's text, exactly as written, a click away); it and the sysfs attributes mark
// the values that changed since the step before. The other files are text, not rewrapped. The one
// thing read from the listing is whether the shown cache's name is a symlink, and to which
// directory.
// Above them, the scenario's `print` lines: each a button that takes the player to the point
// where that line reads its file (the one at the cursor is marked).

import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { KernelFiles } from '../../core/generated/KernelFiles';
import type { PrintInfo } from '../../core/generated/PrintInfo';
import type { SysfsMissing } from '../../core/generated/SysfsMissing';
import { printPath } from '../../scenario/print';
import { parseSlabinfo, slabinfoChanges, type Slabinfo } from './slabinfo';

interface Props {
  files: KernelFiles | null;
  /** The files at the step before (null at step 0, or not known yet): what changed is marked. */
  before?: KernelFiles | null;
  cacheName: string | null;
  /** The scenario's print lines, and what a press on one does (the player jumps there). */
  prints?: readonly PrintInfo[];
  cursor?: number;
  onPrint?: (print: PrintInfo) => void;
}

export function FilesView({ files, before = null, cacheName, prints = [], cursor, onPrint }: Props) {
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
  // The cache's attributes at the step before, when that step had the same directory.
  const beforeSysfs = before && 'Ok' in before.sysfs ? new Map(before.sysfs.Ok) : null;
  const link = 'Ok' in files.slab_dir && cacheName ? symlinkTarget(files.slab_dir.Ok, cacheName) : null;
  return (
    <section className="files-view" data-testid="files-view">
      <h3>{t('filesView.title')}</h3>
      {printList}
      <section aria-labelledby={`${base}-slabinfo`}>
        <h4 id={`${base}-slabinfo`}>
          <code>/proc/slabinfo</code>
        </h4>
        <SlabinfoSection text={files.slabinfo} before={before?.slabinfo ?? null} cacheName={cacheName} />
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
          <SysfsTable rows={files.sysfs.Ok} before={beforeSysfs} caption={t('filesView.caption', { path: sysfsPath })} />
        )}
      </section>
      <section aria-labelledby={`${base}-slab-dir`}>
        <h4 id={`${base}-slab-dir`}>
          <code>/sys/kernel/slab/</code>
        </h4>
        {'Ok' in files.slab_dir ? (
          <pre data-testid="files-slab-dir" tabIndex={0}>
            {files.slab_dir.Ok}
          </pre>
        ) : (
          <p data-testid="files-slab-dir-missing">{missing(files.slab_dir.Err)}</p>
        )}
      </section>
      <section aria-labelledby={`${base}-buddyinfo`}>
        <h4 id={`${base}-buddyinfo`}>
          <code>/proc/buddyinfo</code>
        </h4>
        <pre data-testid="files-buddyinfo" tabIndex={0}>
          {files.buddyinfo}
        </pre>
      </section>
    </section>
  );
}

/** /proc/slabinfo as a table with the columns the reader chose (by default every column but
 *  those after the object counts that read 0 for every cache: SLUB's tunables and
 *  `sharedavail`), the values changed since `before` marked, and the kernel's text below; the
 *  text alone if it cannot be read back. */
function SlabinfoSection({ text, before, cacheName }: { text: string; before: string | null; cacheName: string | null }) {
  const { t } = useTranslation();
  const wrap = useRef<HTMLDivElement>(null);
  // The shown cache's row is brought into view inside the table's own scroll (not the page's).
  useEffect(() => {
    const box = wrap.current;
    const row = box?.querySelector<HTMLElement>('tr[data-current]');
    const head = box?.querySelector<HTMLElement>('thead');
    if (box && row) box.scrollTop = Math.max(0, row.offsetTop - (head?.offsetHeight ?? 0));
  }, [cacheName, text]);
  const now = useMemo(() => parseSlabinfo(text), [text]);
  const old = useMemo(() => (before === null ? null : parseSlabinfo(before)), [before]);
  const [chosen, setChosen] = useState<Record<string, boolean>>({});
  // The files' text boxes scroll on their own (long listings, wide lines): focusable, so that a
  // keyboard can scroll them too.
  const raw = (
    <pre data-testid="files-slabinfo" tabIndex={0}>
      {text}
    </pre>
  );
  if (!now) return raw;
  const { changed, gone } = slabinfoChanges(now, old);
  const columns = now.groups.flatMap((g, gi) => g.columns.map((name, ci) => ({ key: `${gi}:${ci}`, name, group: g.label, gi, ci })));
  const shown = new Set(columns.filter((c) => chosen[c.key] ?? defaultShown(now, c.gi, c.ci)).map((c) => c.key));
  const count = [...changed.values()].reduce((n, keys) => n + [...keys].filter((k) => k !== 'name').length, 0);
  return (
    <>
      <details className="files-columns" data-testid="files-slabinfo-columns">
        <summary>{t('filesView.columnsShown', { shown: shown.size, total: columns.length })}</summary>
        {columns.map((c) => (
          <label key={c.key}>
            <input type="checkbox" checked={shown.has(c.key)} onChange={(e) => setChosen({ ...chosen, [c.key]: e.target.checked })} />{' '}
            <code>{c.group ? `${c.group}: ${c.name}` : c.name}</code>
          </label>
        ))}
      </details>
      {old && (
        <p className="files-change-count" data-testid="files-slabinfo-changes">
          {t('filesView.changedCount', { count })}
        </p>
      )}
      {/* Scrolls on its own: focusable, so that a keyboard can scroll it too. */}
      <div className="files-table-wrap" ref={wrap} tabIndex={0} role="region" aria-label={t('filesView.slabinfoCaption')}>
        <table className="files-slabinfo" data-testid="files-slabinfo-table">
          <caption className="sr-only">{t('filesView.slabinfoCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">name</th>
              {columns
                .filter((c) => shown.has(c.key))
                .map((c) => (
                  <th scope="col" key={c.key} title={c.group ? `${c.group}: ${c.name}` : c.name}>
                    {breakable(c.name)}
                  </th>
                ))}
            </tr>
          </thead>
          <tbody>
            {now.rows.map((row) => {
              const keys = changed.get(row.name);
              const isNew = keys?.has('name') ?? false;
              return (
                <tr
                  key={row.name}
                  data-testid="files-slabinfo-row"
                  data-cache={row.name}
                  data-changed={keys ? true : undefined}
                  data-current={row.name === cacheName || undefined}
                >
                  <th scope="row" className={isNew ? 'changed' : undefined}>
                    {row.name}
                    {isNew && <span className="sr-only"> ({t('filesView.new')})</span>}
                  </th>
                  {columns
                    .filter((c) => shown.has(c.key))
                    .map((c) => {
                      const mark = !isNew && (keys?.has(c.key) ?? false);
                      return (
                        <td key={c.key} className={mark ? 'changed' : undefined} data-changed={mark || undefined}>
                          {row.values[c.gi][c.ci]}
                          {mark && <span className="sr-only"> ({t('filesView.changed')})</span>}
                        </td>
                      );
                    })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {gone.length > 0 && <p data-testid="files-slabinfo-gone">{t('filesView.gone', { names: gone.join(', ') })}</p>}
      <details className="files-raw">
        <summary>{t('filesView.slabinfoText')}</summary>
        {raw}
      </details>
    </>
  );
}

/** A cache's /sys/kernel/slab attributes, one compact row each, those that differ from `before`
 *  (the step before's, when known) marked. */
function SysfsTable({ rows, before, caption }: { rows: [string, string][]; before: Map<string, string> | null; caption: string }) {
  const { t } = useTranslation();
  return (
    <table data-testid="files-sysfs">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{t('filesView.attribute')}</th>
          <th scope="col">{t('filesView.value')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, value]) => {
          const changed = before !== null && before.get(name) !== value;
          return (
            <tr key={name} data-testid="files-sysfs-row" data-attribute={name} data-changed={changed || undefined}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td className={changed ? 'changed' : undefined}>
                <code className="files-value">{value}</code>
                {changed && <span className="sr-only"> ({t('filesView.changed')})</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The object counts are always shown by default; a later column only when some cache reads
 *  other than 0 there (SLAB's tunables and shared arrays; not SLUB's). */
function defaultShown(info: Slabinfo, group: number, column: number): boolean {
  return group === 0 || info.rows.some((r) => r.values[group][column] !== '0');
}

/** A column name that may wrap where its words meet (`active_objs` → `active_` `objs`,
 *  `pagesperslab` → `pages` `per` `slab`), spelled as the kernel spells it. */
function breakable(name: string) {
  const parts = name.split(/(?<=_)|(?=per|slab|size|objs)/).filter((p) => p !== '');
  return parts.map((p, i) => (
    <span key={i}>
      {i > 0 && <wbr />}
      {p}
    </span>
  ));
}

/** The directory `name` is a symlink to in a listing of /sys/kernel/slab/, if it is one. */
export function symlinkTarget(listing: string, name: string): string | null {
  const prefix = `${name} -> `;
  const line = listing.split('\n').find((l) => l.startsWith(prefix));
  return line ? line.slice(prefix.length) : null;
}
