/**
 * A `trace` result's per-rank timeline: one bar per collective per rank, from its aligned start for
 * its duration, coloured by op. A rank whose bars start late is the one the others wait for, and a
 * bar longer than its neighbours' above and below is a rank that waited. Drawn only when the result
 * carries per-rank starts (TraceCollectiveRow.startsUs); times are from the first collective's start.
 */
import type { ReportItem } from '../data/report-item.js';
import { traceCells } from '../data/trace-collectives.js';
import { CHART_WIDTH, slug, type ChartSpec } from './chart.js';

/** Collectives drawn: beyond a few hundred the bars are thinner than a pixel. */
export const MAX_TIMELINE_COLLECTIVES = 400;

export function traceTimelineCharts(items: readonly ReportItem[]): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const item of items) {
    const found = traceCells(item, MAX_TIMELINE_COLLECTIVES);
    if (!found) continue;
    const timed = found.cells.filter((cell) => cell.startUs !== undefined && cell.durUs !== undefined);
    if (timed.length === 0) continue;
    const origin = Math.min(...timed.map((cell) => cell.startUs!));
    const rows = timed.map((cell) => ({
      rank: cell.rank,
      op: cell.op,
      collective: `${cell.group}#${cell.seq}`,
      startUs: cell.startUs! - origin,
      endUs: cell.startUs! - origin + cell.durUs!,
      waitUs: cell.waitUs,
    }));
    const ranks = new Set(rows.map((row) => row.rank)).size;
    const left = found.collectives - Math.min(found.collectives, MAX_TIMELINE_COLLECTIVES);
    charts.push({
      id: `trace-timeline-${slug(item.ref)}`,
      title: `Collectives per rank over time (${item.ref})`,
      caption: `One bar per collective on each rank, after clock alignment; a late start is a late arriver, a long bar a rank that waited.${left > 0 ? ` The first ${MAX_TIMELINE_COLLECTIVES} collectives of ${found.collectives} drawn.` : ''}`,
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: CHART_WIDTH,
        height: Math.min(480, Math.max(80, ranks * 18)),
        data: { values: rows },
        mark: { type: 'bar', cornerRadius: 0 },
        encoding: {
          x: { field: 'startUs', type: 'quantitative', title: 'time from the first collective (µs)' },
          x2: { field: 'endUs' },
          y: { field: 'rank', type: 'ordinal', title: 'rank', sort: 'ascending' },
          color: {
            field: 'op',
            type: 'nominal',
            title: 'op',
            sort: 'ascending',
            legend: { orient: 'bottom' },
          },
          tooltip: [
            { field: 'collective', type: 'nominal' },
            { field: 'op', type: 'nominal' },
            { field: 'rank', type: 'ordinal' },
            { field: 'waitUs', type: 'quantitative', title: 'wait (µs)', format: '.1f' },
          ],
        },
      },
    });
  }
  return charts;
}
