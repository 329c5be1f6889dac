/**
 * Bus bandwidth against message size, on a log2 size axis, one line per fabric or run: predicted
 * curves (the model) dashed, measured ones (bench, captured nccl-tests) solid, so the gap between
 * what the fabric should do and what it did is the first thing the eye finds. One chart per op.
 */
import { bandwidthCurves } from '../../result/index.js';
import type { ReportItem } from '../data/report-item.js';
import {
  CHART_HEIGHT,
  CHART_WIDTH,
  SIZE_LABEL_EXPR,
  fabricColourScale,
  log2Axis,
  slug,
  uniqueLabel,
  type ChartSpec,
} from './chart.js';

interface BusbwRow {
  sizeBytes: number;
  busbwGBps: number;
  line: string;
  source: string;
}

export function busbwCurveCharts(items: readonly ReportItem[]): ChartSpec[] {
  const rowsByOp = new Map<string, BusbwRow[]>();
  const labelsByOp = new Map<string, Set<string>>();
  for (const item of items) {
    for (const curve of bandwidthCurves(item.envelope)) {
      const taken = labelsByOp.get(curve.op) ?? new Set<string>();
      labelsByOp.set(curve.op, taken);
      const line = uniqueLabel(`${curve.name} (${curve.source})`, item.ref, taken);
      const rows = rowsByOp.get(curve.op) ?? [];
      rowsByOp.set(curve.op, rows);
      for (const point of curve.points) rows.push({ ...point, line, source: curve.source });
    }
  }
  return [...rowsByOp.entries()].map(([op, rows]) => {
    const sizes = rows.map((row) => row.sizeBytes);
    const axis = log2Axis(Math.min(...sizes), Math.max(...sizes));
    return {
      id: `busbw-${slug(op)}`,
      title: `${op} bus bandwidth against message size`,
      caption:
        'busbw as nccl-tests defines it (GB = 1e9 bytes); dashed lines are predicted, solid ones measured.',
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: CHART_WIDTH,
        height: CHART_HEIGHT,
        data: { values: rows },
        mark: { type: 'line', point: { size: 24 }, strokeWidth: 2 },
        encoding: {
          x: {
            field: 'sizeBytes',
            type: 'quantitative',
            title: 'message size (bytes; K, M, G = 2^10, 2^20, 2^30)',
            scale: { type: 'log', base: 2, domain: axis.domain },
            axis: { values: axis.ticks, labelExpr: SIZE_LABEL_EXPR, grid: true },
          },
          y: { field: 'busbwGBps', type: 'quantitative', title: 'busbw (GB/s)' },
          color: {
            field: 'line',
            type: 'nominal',
            title: null,
            scale: fabricColourScale(rows.map((row) => row.line)),
            legend: { orient: 'bottom', columns: 2 },
          },
          strokeDash: {
            field: 'source',
            type: 'nominal',
            title: null,
            scale: {
              domain: ['measured', 'predicted'],
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
          tooltip: [{ field: 'line' }, { field: 'sizeBytes' }, { field: 'busbwGBps', format: '.2f' }],
        },
      },
    };
  });
}
