import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SweepRow } from '../core/sweepRows';

const PAGE_ROWS = 64;

interface Props {
  rows: SweepRow[];
}

/** One page size and CPU count of the sweep, paginated, with a jump to any object size. */
export function SweepTable({ rows }: Props) {
  const { t } = useTranslation();
  const [start, setStart] = useState(0);
  const [jump, setJump] = useState('');
  const first = Math.min(start, Math.max(0, rows.length - 1));
  const shown = rows.slice(first, first + PAGE_ROWS);

  const jumpTo = (text: string) => {
    setJump(text);
    const size = Number(text);
    if (!Number.isFinite(size) || text.trim() === '') return;
    const index = rows.findIndex((r) => r.object_size >= size);
    setStart(index < 0 ? Math.max(0, rows.length - PAGE_ROWS) : index);
  };

  return (
    <div className="table-block">
      <div className="table-controls">
        <label>
          {t('geometry.showFrom')}{' '}
          <input
            type="number"
            min={1}
            value={jump}
            onChange={(e) => jumpTo(e.target.value)}
            data-testid="table-jump"
          />
        </label>
        <button type="button" disabled={first === 0} onClick={() => setStart(Math.max(0, first - PAGE_ROWS))}>
          {t('geometry.prev')}
        </button>
        <button
          type="button"
          disabled={first + PAGE_ROWS >= rows.length}
          onClick={() => setStart(first + PAGE_ROWS)}
        >
          {t('geometry.next')}
        </button>
        <span>
          {t('geometry.page', {
            from: rows.length ? first + 1 : 0,
            to: first + shown.length,
            total: rows.length,
          })}
        </span>
      </div>
      <table data-testid="sweep-table">
        <thead>
          <tr>
            {[
              'object_size',
              'kmalloc_class',
              'size',
              'offset',
              'order',
              'objs_per_slab',
              'slab_bytes',
              'waste',
              'min_partial',
              'cpu_partial',
              'cpu_partial_slabs',
              'sheaf_capacity',
            ].map((c) => (
              <th key={c} scope="col">
                {t(`column.${c}`)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((r) =>
            r.status === 0 ? (
              <tr key={r.object_size} data-size={r.object_size}>
                <th scope="row">{r.object_size}</th>
                <td>{r.kmalloc_class ? `kmalloc-${r.kmalloc_class >= 1024 ? `${r.kmalloc_class / 1024}k` : r.kmalloc_class}` : '—'}</td>
                <td data-col="size">{r.size}</td>
                <td data-col="offset">{r.offset}</td>
                <td data-col="order">{r.order}</td>
                <td data-col="objs_per_slab">{r.objs_per_slab}</td>
                <td data-col="slab_size">{r.page_size * 2 ** r.order}</td>
                <td data-col="waste">{r.waste}</td>
                <td data-col="min_partial">{r.min_partial}</td>
                <td data-col="cpu_partial">{r.cpu_partial}</td>
                <td data-col="cpu_partial_slabs">{r.cpu_partial_slabs}</td>
                <td data-col="sheaf_capacity">{r.sheaf_capacity}</td>
              </tr>
            ) : (
              <tr key={r.object_size} data-size={r.object_size}>
                <th scope="row">{r.object_size}</th>
                <td colSpan={11}>{t('geometry.refused')}</td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </div>
  );
}
