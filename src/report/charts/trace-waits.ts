/**
 * A `trace` result's waits as a heat map: x the collective (in the result's order), y the rank,
 * colour the time that rank waited at that collective for the last arriver (latest start minus its
 * own). A rank that is always pale while the others are dark is the straggler; a dark column is one
 * collective everyone waited at. The colour scale is a square root: one stalled collective of
 * milliseconds would otherwise wash out waits of tens of microseconds.
 */
import type { ReportItem } from '../data/report-item.js';
import { traceCells } from '../data/trace-collectives.js';
import { CHART_WIDTH, slug, type ChartSpec } from './chart.js';

/** Collectives drawn: past a few hundred columns each is narrower than a pixel. */
export const MAX_HEATMAP_COLLECTIVES = 300;

export function traceWaitCharts(items: readonly ReportItem[]): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const item of items) {
    const found = traceCells(item, MAX_HEATMAP_COLLECTIVES);
    if (!found || found.cells.length === 0) continue;
    const rows = found.cells.map((cell) => ({
      index: cell.index,
      next: cell.index + 1,
      rank: cell.rank,
      waitUs: cell.waitUs,
      collective: `${cell.group}#${cell.seq} ${cell.op}`,
    }));
    const ranks = new Set(rows.map((row) => row.rank)).size;
    const left = found.collectives - Math.min(found.collectives, MAX_HEATMAP_COLLECTIVES);
    charts.push({
      id: `trace-waits-${slug(item.ref)}`,
      title: `Wait for the last arriver, per rank and collective (${item.ref})`,
      caption: `Each cell: how long the rank waited at the collective (latest start minus its own); the palest row at dark columns is the rank the others wait for.${left > 0 ? ` The first ${MAX_HEATMAP_COLLECTIVES} collectives of ${found.collectives} drawn.` : ''}`,
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: CHART_WIDTH,
        height: Math.min(480, Math.max(80, ranks * 18)),
        data: { values: rows },
        mark: { type: 'rect' },
        encoding: {
          x: {
            field: 'index',
            type: 'quantitative',
            title: 'collective (in order)',
            axis: { tickMinStep: 1, format: 'd' },
          },
          x2: { field: 'next' },
          y: { field: 'rank', type: 'ordinal', title: 'rank', sort: 'ascending' },
          color: {
            field: 'waitUs',
            type: 'quantitative',
            title: 'wait (µs)',
            scale: { scheme: 'oranges', type: 'sqrt' },
          },
          tooltip: [
            { field: 'collective', type: 'nominal' },
            { field: 'rank', type: 'ordinal' },
            { field: 'waitUs', type: 'quantitative', title: 'wait (µs)', format: '.1f' },
          ],
        },
      },
    });
  }
  return charts;
}
