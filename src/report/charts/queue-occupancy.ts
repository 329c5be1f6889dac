/**
 * Switch queue occupancy over time, one line per queue, per result: whether buffers fill, how
 * often, and for how long (the story behind a goodput collapse or a PFC pause). Points are
 * {timeUs, queueBytes}, or {timeUs, bytes} in a series named `queue ...` (the simulator's form).
 * Only the busiest queues are drawn: an incast has one hot port and dozens that stay empty.
 */
import type { ReportItem } from '../data/report-item.js';
import { busiest, pickField, timelines } from '../data/timeline-series.js';
import { CHART_WIDTH, slug, type ChartSpec } from './chart.js';

export const MAX_QUEUES_DRAWN = 8;

export function queueOccupancyCharts(items: readonly ReportItem[]): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const item of items) {
    const found = timelines(item.envelope.series, pickField(['queueBytes'], [[/queue/i, 'bytes']]));
    if (found.length === 0) continue;
    const { shown } = busiest(found, MAX_QUEUES_DRAWN);
    const drawn = shown.length > 0 ? shown : found.slice(0, 1);
    const rows = drawn.flatMap((timeline) =>
      timeline.points.map((point) => ({
        timeUs: point.timeUs,
        queueBytes: point.value,
        queue: timeline.name,
      })),
    );
    const left = found.length - drawn.length;
    charts.push({
      id: `queue-${slug(item.ref)}`,
      title: `Queue occupancy over time (${item.ref})`,
      caption: `Bytes waiting in each switch queue (long series thinned, keeping every peak).${left > 0 ? ` ${left} quieter or empty queue${left === 1 ? '' : 's'} not drawn.` : ''}`,
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: CHART_WIDTH,
        height: 220,
        data: { values: rows },
        mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
        encoding: {
          x: { field: 'timeUs', type: 'quantitative', title: 'time (µs)' },
          y: { field: 'queueBytes', type: 'quantitative', title: 'queue (bytes)', axis: { format: '~s' } },
          color: { field: 'queue', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 3 } },
        },
      },
    });
  }
  return charts;
}
