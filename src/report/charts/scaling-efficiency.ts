/**
 * Scaling efficiency against node count, one line per fabric, from `scale` results, with a rule at
 * the node count from which RDMA pays off: below it TCP is good enough, above it the RDMA fabric
 * buys back more step time than it costs. One chart per result.
 */
import type { ReportItem } from '../data/report-item.js';
import { asRecord, finite, records, text } from '../../result/index.js';
import { CHART_HEIGHT, CHART_WIDTH, fabricColourScale, log2Axis, slug, type ChartSpec } from './chart.js';

interface ScalingRow {
  fabric: string;
  nodes: number;
  scalingEfficiency: number;
}

export function scalingEfficiencyCharts(items: readonly ReportItem[]): ChartSpec[] {
  const charts: ChartSpec[] = [];
  for (const item of items) {
    if (item.envelope.kind !== 'scale') continue;
    const metrics = asRecord(item.envelope.metrics);
    const rows: ScalingRow[] = [];
    for (const fabric of records(metrics.fabrics)) {
      const name = text(fabric.fabric) ?? text(fabric.name) ?? 'fabric';
      for (const point of records(fabric.points)) {
        const nodes = finite(point.nodes);
        const scalingEfficiency = finite(point.scalingEfficiency);
        if (nodes !== undefined && nodes > 0 && scalingEfficiency !== undefined)
          rows.push({ fabric: name, nodes, scalingEfficiency });
      }
    }
    if (rows.length === 0) continue;
    const paysOff = finite(metrics.rdmaPaysOffFromNodes);
    const nodes = rows.map((row) => row.nodes);
    const axis = log2Axis(Math.min(...nodes), Math.max(...nodes, paysOff ?? 0), 12);
    const x = {
      field: 'nodes',
      type: 'quantitative' as const,
      title: 'nodes',
      scale: { type: 'log' as const, base: 2, domain: axis.domain },
      axis: { values: axis.ticks, format: '~d' },
    };
    const layers: object[] = [
      {
        data: { values: rows },
        mark: { type: 'line', point: { size: 30 }, strokeWidth: 2 },
        encoding: {
          x,
          y: {
            field: 'scalingEfficiency',
            type: 'quantitative',
            title: 'scaling efficiency',
            axis: { format: '.0%' },
            scale: { domain: [0, 1] },
          },
          color: {
            field: 'fabric',
            type: 'nominal',
            title: 'fabric',
            scale: fabricColourScale(rows.map((row) => row.fabric)),
            legend: { orient: 'bottom' },
          },
        },
      },
    ];
    if (paysOff !== undefined && paysOff > 0) {
      const marker = [{ nodes: paysOff, label: `RDMA pays off from ${paysOff} nodes` }];
      layers.push(
        {
          data: { values: marker },
          mark: { type: 'rule', strokeDash: [4, 3], color: '#57606a' },
          encoding: { x },
        },
        {
          data: { values: marker },
          mark: { type: 'text', align: 'left', dx: 4, dy: -4, baseline: 'bottom', color: '#24292f' },
          encoding: { x, y: { datum: 0.02, type: 'quantitative' }, text: { field: 'label' } },
        },
      );
    }
    charts.push({
      id: `scaling-${slug(item.ref)}`,
      title: `Scaling efficiency against node count (${item.ref})`,
      caption:
        text(metrics.rdmaPaysOffStatement) ??
        (paysOff === undefined ? 'No node count in range where RDMA pays off.' : undefined),
      spec: {
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: CHART_WIDTH,
        height: CHART_HEIGHT,
        layer: layers,
      } as ChartSpec['spec'],
    });
  }
  return charts;
}
