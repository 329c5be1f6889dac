/**
 * `accept`'s pair matrix (issue 11, "Outputs"): one heat map per accept run and pair tool (iperf3,
 * or perftest per HCA), each cell a pair's measured rate as a share of what was expected of it, so
 * a slow node shows as a row and column of red, a slow link as one cell, a slow rail as its own map.
 */
import type { ReportItem } from '../data/report-item.js';
import { asRecord, finite, records, text } from '../../result/index.js';
import { CHART_WIDTH, type ChartSpec } from './chart.js';

interface Cell {
  from: string;
  to: string;
  share: number;
  measured: number;
  expected: number;
  verdict: string;
}

export function acceptPairCharts(items: readonly ReportItem[]): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const item of items) {
    if (item.envelope.kind !== 'accept') continue;
    const groups = new Map<string, Cell[]>();
    for (const run of records(asRecord(item.envelope.metrics).runs)) {
      if (run.stage !== 'pairs') continue;
      const hosts = Array.isArray(run.hosts) ? run.hosts.map(String) : [];
      const measured = finite(run.measured);
      const expected = finite(run.expected);
      if (hosts.length !== 2 || measured === undefined || expected === undefined || !(expected > 0)) continue;
      const group = `${text(run.tool) ?? 'pairs'}${text(run.rail) ? ` on ${text(run.rail)}` : ''}`;
      const cells = groups.get(group) ?? [];
      const cell = { share: measured / expected, measured, expected, verdict: text(run.verdict) ?? '' };
      // Both orders, so the matrix reads the same from either host.
      cells.push({ from: hosts[0]!, to: hosts[1]!, ...cell }, { from: hosts[1]!, to: hosts[0]!, ...cell });
      groups.set(group, cells);
    }
    for (const [group, cells] of groups) {
      const hosts = [...new Set(cells.flatMap((cell) => [cell.from, cell.to]))].sort((a, b) =>
        a.localeCompare(b, undefined, { numeric: true }),
      );
      const side = Math.min(CHART_WIDTH, Math.max(160, 22 * hosts.length));
      charts.push({
        id: `accept-pairs-${item.ref}-${group}`.replace(/[^a-z0-9]+/gi, '-').toLowerCase(),
        title: `Pairs of ${item.ref}: ${group}, share of the expected rate`,
        caption:
          'Each cell a pair (both orders), measured over expected; a slow node is a red row and column, a slow link one red cell.',
        spec: {
          $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
          width: side,
          height: side,
          data: { values: cells },
          mark: { type: 'rect' },
          encoding: {
            x: { field: 'from', type: 'nominal', title: null, sort: hosts, axis: { labelAngle: -45 } },
            y: { field: 'to', type: 'nominal', title: null, sort: hosts },
            color: {
              field: 'share',
              type: 'quantitative',
              title: 'of expected',
              scale: { domain: [0, 1.1], scheme: 'redyellowgreen', clamp: true },
              legend: { format: '.0%' },
            },
            tooltip: [
              { field: 'from', type: 'nominal' },
              { field: 'to', type: 'nominal' },
              { field: 'measured', type: 'quantitative', format: '.3f' },
              { field: 'expected', type: 'quantitative', format: '.3f' },
              { field: 'verdict', type: 'nominal' },
            ],
          },
        },
      });
    }
  }
  return charts;
}
