import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { drawGeometryChart } from '../views/geometryChart';
import { cpuLabel, geometryScene, type Metric, type SweepTableData } from '../views/geometryScene';

interface Props {
  table: SweepTableData;
  pageSize: number;
  metric: Metric;
}

/** The chart, and beside it the same series as a list a screen reader can follow. */
export function GeometryChart({ table, pageSize, metric }: Props) {
  const { t } = useTranslation();
  const svg = useRef<SVGSVGElement>(null);
  const scene = useMemo(() => geometryScene(table, pageSize, metric), [table, pageSize, metric]);

  useEffect(() => {
    if (!svg.current) return;
    drawGeometryChart(
      svg.current,
      scene,
      { x: t('geometry.xLabel'), y: t(`metric.${metric}`), cpus: t('geometry.cpusSuffix') },
      { width: 900, height: 360 },
    );
  }, [scene, metric, t]);

  return (
    <figure className="chart">
      <svg ref={svg} role="img" aria-label={`${t(`metric.${metric}`)} / ${t('geometry.xLabel')}`} data-testid="geometry-chart" />
      <figcaption className="sr-only">
        <ul>
          {scene.series.map((s) => (
            <li key={s.key}>
              {t('geometry.cpusSuffix')} {cpuLabel(s.cpus)}: {t('geometry.points', { count: s.points.length })}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
