/**
 * Incast goodput against the number of senders: simulated points from `sim` incast results and any
 * `goodput-vs-senders` series (which may carry testbed measurements), one line per source and run,
 * so the sender count where goodput collapses (TCP without ECN) or holds (PFC) is plain to see.
 */
import type { ReportItem } from '../data/report-item.js';
import { asRecord, finite, records, text } from '../../result/index.js';
import { CHART_HEIGHT, CHART_WIDTH, uniqueLabel, type ChartSpec } from './chart.js';

interface GoodputRow {
  senders: number;
  goodputGbps: number;
  line: string;
  source: string;
}

const SERIES_NAME = /goodput.*senders/i;

/**
 * A sim result's incast points: the scenario's own workload list (metrics.workloads[], the
 * simulator's form), or one workload described in the inputs ({workload: {kind: 'incast', senders}}).
 */
function incastPoints(
  inputsValue: unknown,
  metricsValue: unknown,
): { senders: number; goodputGbps: number }[] {
  const metrics = asRecord(metricsValue);
  const fromWorkloads = records(metrics.workloads).flatMap((workload) => {
    const senders = finite(workload.senders);
    const goodputGbps = finite(workload.goodputGbps);
    return workload.kind === 'incast' && senders !== undefined && goodputGbps !== undefined
      ? [{ senders, goodputGbps }]
      : [];
  });
  if (fromWorkloads.length > 0) return fromWorkloads;
  const workload = asRecord(asRecord(inputsValue).workload);
  const senders = finite(workload.senders);
  const goodputGbps = finite(metrics.goodputGbps);
  return workload.kind === 'incast' && senders !== undefined && goodputGbps !== undefined
    ? [{ senders, goodputGbps }]
    : [];
}

export function incastGoodputCharts(items: readonly ReportItem[]): ChartSpec[] {
  const rows: GoodputRow[] = [];
  const taken = new Set<string>();
  const simulatedLines = new Map<string, string>();
  for (const item of items) {
    const { envelope } = item;
    const inputs = asRecord(envelope.inputs);
    if (envelope.kind === 'sim') {
      // Runs of one scenario (or fabric) at different sender counts join into one line across runs.
      const lineName =
        text(inputs.fabric) ??
        text(asRecord(inputs.fabric).name) ??
        text(inputs.scenario) ??
        text(inputs.transport) ??
        'sim';
      for (const point of incastPoints(envelope.inputs, envelope.metrics)) {
        const line = simulatedLines.get(lineName) ?? uniqueLabel(`${lineName} (simulated)`, item.ref, taken);
        simulatedLines.set(lineName, line);
        rows.push({ ...point, line, source: 'simulated' });
      }
    }
    for (const series of envelope.series ?? []) {
      if (!SERIES_NAME.test(series.name)) continue;
      const bySource = new Map<string, string>();
      for (const point of records(series.points)) {
        const x = finite(point.senders);
        const y = finite(point.goodputGbps);
        if (x === undefined || y === undefined) continue;
        const source = text(point.source) ?? 'simulated';
        const line = bySource.get(source) ?? uniqueLabel(`${series.name} (${source})`, item.ref, taken);
        bySource.set(source, line);
        rows.push({ senders: x, goodputGbps: y, line, source });
      }
    }
  }
  if (rows.length === 0) return [];
  rows.sort((a, b) => a.line.localeCompare(b.line) || a.senders - b.senders);
  return [
    {
      id: 'incast-goodput',
      title: 'Incast goodput against senders',
      caption: 'Aggregate goodput at the receiver; simulated lines dashed, testbed measurements solid.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: CHART_WIDTH,
        height: CHART_HEIGHT,
        data: { values: rows },
        mark: { type: 'line', point: { size: 30 }, strokeWidth: 2 },
        encoding: {
          x: {
            field: 'senders',
            type: 'quantitative',
            title: 'senders',
            axis: { tickMinStep: 1, format: '~d' },
          },
          y: { field: 'goodputGbps', type: 'quantitative', title: 'goodput (Gbit/s)', scale: { zero: true } },
          color: { field: 'line', type: 'nominal', title: null, legend: { orient: 'bottom', columns: 2 } },
          strokeDash: {
            field: 'source',
            type: 'nominal',
            title: null,
            scale: {
              domain: ['measured', 'simulated'],
              range: [
                [1, 0],
                [6, 4],
              ],
            },
            legend: {
              orient: 'bottom',
              symbolType: 'stroke',
              symbolStrokeWidth: 2,
              symbolSize: 300,
              encode: { symbols: { update: { stroke: { value: '#57606a' } } } },
            },
          },
        },
      } as ChartSpec['spec'],
    },
  ];
}
