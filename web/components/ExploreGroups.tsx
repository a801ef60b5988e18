// What an exploration found: how many schedules ran (and whether the bound cut the search
// short), then one row per outcome, the most frequent first: how many schedules end that way,
// the damage and the invariants broken (worded in the reader's language from their keys), what
// each name holds, the retries, and the first schedule, which opens in the player.
//
// A table of real table elements; on a narrow screen (styles.css) each row stacks its cells,
// each labelled with its column, and the explicit roles keep the table's meaning for screen
// readers once the cells no longer display as a table.

import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ExploreGroup, ExploreReport } from '../core/client';
import { problemText } from '../i18n/problems';
import { MAX_SCHEDULES } from './exploreForm';

const COLUMNS = ['outcome', 'schedules', 'what', 'names', 'retries', 'schedule', 'open'] as const;

export function ExploreGroups({ report, text, onOpen }: { report: ExploreReport; text: string; onOpen: (replay: string) => void }) {
  const { t, i18n } = useTranslation();
  const n = (x: number) => x.toLocaleString(i18n.language);
  return (
    <div
      className="explore-results"
      data-testid="explore-results"
      data-schedules={report.schedules}
      data-groups={report.groups.length}
      data-cut-short={String(report.cut_short)}
    >
      <p data-testid="explore-summary">
        {t('interleavings.summary', {
          schedules: t('interleavings.scheduleCount', { count: report.schedules, n: n(report.schedules) }),
          line: report.line,
          switches: t('interleavings.switchCount', { count: report.preemptions, n: n(report.preemptions) }),
          outcomes: t('interleavings.outcomeCount', { count: report.groups.length, n: n(report.groups.length) }),
        })}
      </p>
      {report.cut_short ? (
        <p className="cut-short" data-testid="explore-cut-short">
          {t('interleavings.cutShort', { max: n(report.max_schedules), limit: n(MAX_SCHEDULES) })}
        </p>
      ) : (
        <p data-testid="explore-complete">{t('interleavings.complete')}</p>
      )}
      <details className="explore-text">
        <summary>{t('interleavings.showScenario')}</summary>
        <pre>{text}</pre>
      </details>
      <table className="explore-groups" role="table" data-testid="explore-groups">
        <caption>{t('interleavings.caption')}</caption>
        <thead role="rowgroup">
          <tr role="row">
            {COLUMNS.map((c) => (
              <th key={c} scope="col" role="columnheader">
                {t(`interleavings.column.${c}`)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {report.groups.map((g, i) => (
            <GroupRow key={i} index={i} group={g} total={report.schedules} onOpen={onOpen} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function GroupRow({ index, group, total, onOpen }: { index: number; group: ExploreGroup; total: number; onOpen: (replay: string) => void }) {
  const { t, i18n } = useTranslation();
  const [opening, setOpening] = useState(false);
  const label = (c: (typeof COLUMNS)[number]) => t(`interleavings.column.${c}`);
  const clean = group.damage.length === 0 && group.violations.length === 0;
  const share = total > 0 ? Math.round((group.schedules / total) * 100) : 0;
  return (
    <tr role="row" data-testid="explore-group" data-damaged={String(group.damage.length > 0)} data-clean={String(clean)}>
      <th scope="row" role="rowheader" data-label={label('outcome')}>
        {index + 1}
      </th>
      <td role="cell" data-label={label('schedules')}>
        {group.schedules.toLocaleString(i18n.language)} <span className="share">({share}%)</span>
      </td>
      <td role="cell" data-label={label('what')} className="what">
        {clean ? (
          <span className="clean">{t('interleavings.clean')}</span>
        ) : (
          <ul>
            {group.damage.map((p, k) => (
              <li key={`d${k}`} className="damage">
                <strong>{t('interleavings.damage')}</strong> {problemText(t, p)}
              </li>
            ))}
            {group.violations.map((p, k) => (
              <li key={`v${k}`} className="violation">
                <strong>{t('interleavings.violation')}</strong> {problemText(t, p)}
              </li>
            ))}
          </ul>
        )}
      </td>
      <td role="cell" data-label={label('names')}>
        {group.names.length === 0 ? (
          '—'
        ) : (
          <ul className="names">
            {group.names.map(([name, value]) => (
              <li key={name}>
                <code>
                  {name} = {value}
                </code>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td role="cell" data-label={label('retries')}>{group.retries.toLocaleString(i18n.language)}</td>
      <td role="cell" data-label={label('schedule')}>
        {/* Wraps between its decisions, never inside one (`preempt(cpu0, cpu1)` stays whole). */}
        <code className="schedule">
          {['schedule', ...group.schedule.split(/ (?![^(]*\))/)].map((word, i) => (
            <span key={i} className="decision">
              {i > 0 && ' '}
              {word}
            </span>
          ))}
        </code>
      </td>
      <td role="cell" data-label={label('open')}>
        <button
          type="button"
          disabled={opening}
          aria-label={t('interleavings.openLabel', { n: index + 1 })}
          onClick={() => {
            setOpening(true);
            onOpen(group.replay);
          }}
          data-testid="explore-open"
        >
          {t('interleavings.open')}
        </button>
      </td>
    </tr>
  );
}
