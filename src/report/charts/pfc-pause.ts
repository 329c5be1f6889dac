/**
 * PFC pause activity over time, per result. Accepts {timeUs, pausedPorts}, {timeUs, pauseFrames},
 * or per-port {timeUs, pausedFraction} series (the simulator's form), which are summed into one
 * "ports paused" line: with 64 senders, 64 overlapping areas would hide what the sum shows at once.
 * A lossless fabric that pauses constantly trades drops for head-of-line blocking; this shows when.
 */
import type { ReportItem } from '../data/report-item.js';
import { busiest, pickField, sumByTime, timelines, type Timeline } from '../data/timeline-series.js';
import { CHART_WIDTH, slug, type ChartSpec } from './chart.js';

const TITLES: Record<string, string> = {
  pausedPorts: 'paused ports',
  pauseFrames: 'pause frames',
  pausedFraction: 'ports paused',
};
const MAX_SERIES_DRAWN = 6;

interface PauseRow {
  timeUs: number;
  value: number;
  series: string;
}

function rowsOf(found: Timeline[]): PauseRow[] {
  const fractions = found.filter((timeline) => timeline.field === 'pausedFraction');
  const counts = busiest(
    found.filter((timeline) => timeline.field !== 'pausedFraction'),
    MAX_SERIES_DRAWN,
  ).shown;
  const rows: PauseRow[] = counts.flatMap((timeline) =>
    timeline.points.map((point) => ({
      timeUs: point.timeUs,
      value: point.value,
      series: `${timeline.name} (${TITLES[timeline.field] ?? timeline.field})`,
    })),
  );
  if (fractions.length > 0) {
    const label = `ports paused (sum over ${fractions.length} port${fractions.length === 1 ? '' : 's'})`;
    rows.push(
      ...sumByTime(fractions).map((point) => ({ timeUs: point.timeUs, value: point.value, series: label })),
    );
  }
  return rows;
}

export function pfcPauseCharts(items: readonly ReportItem[]): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const item of items) {
    const found = timelines(
      item.envelope.series,
      pickField(['pausedPorts', 'pauseFrames'], [[/pause/i, 'pausedFraction']]),
    );
    if (found.length === 0) continue;
    const rows = rowsOf(found);
    if (rows.length === 0) continue;
    const fields = [...new Set(found.map((timeline) => TITLES[timeline.field] ?? timeline.field))];
    charts.push({
      id: `pfc-${slug(item.ref)}`,
      title: `PFC pause timeline (${item.ref})`,
      caption: 'Priority flow control: ports paused (or pause frames sent) per interval.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: CHART_WIDTH,
        height: 160,
        data: { values: rows },
        mark: { type: 'area', interpolate: 'step-after', opacity: 0.55, line: true },
        encoding: {
          x: { field: 'timeUs', type: 'quantitative', title: 'time (µs)' },
          y: { field: 'value', type: 'quantitative', title: fields.join(' / '), stack: null },
          color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 2 } },
        },
      },
    });
  }
  return charts;
}
