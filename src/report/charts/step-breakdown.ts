/**
 * Where a training step's time goes, per fabric: compute, communication the overlap did not hide,
 * pipeline bubble and straggler penalty, stacked so each bar's height is the step time. From
 * `compare` results (one bar per fabric) and `plan` results (one bar per plan).
 */
import type { ReportItem } from '../data/report-item.js';
import { asRecord, finite, records, text, type UnknownRecord } from '../../result/index.js';
import { CHART_HEIGHT, uniqueLabel, slug, type ChartSpec } from './chart.js';

const COMPONENTS: readonly { key: string; label: string }[] = [
  { key: 'computeMs', label: 'compute' },
  { key: 'exposedCommMs', label: 'exposed communication' },
  { key: 'bubbleMs', label: 'pipeline bubble' },
  { key: 'stragglerPenaltyMs', label: 'straggler penalty' },
  { key: 'timeoutPenaltyMs', label: 'timeout penalty' },
];
const OTHER = 'other';

interface BreakdownRow {
  bar: string;
  component: string;
  order: number;
  ms: number;
}

function breakdown(bar: string, row: UnknownRecord): BreakdownRow[] {
  const parts: BreakdownRow[] = [];
  COMPONENTS.forEach((component, order) => {
    const ms = finite(row[component.key]);
    if (ms !== undefined && ms > 0) parts.push({ bar, component: component.label, order, ms });
  });
  // Whatever the components do not explain stays visible rather than silently shortening the bar.
  const stepTimeMs = finite(row.stepTimeMs);
  const explained = parts.reduce((total, part) => total + part.ms, 0);
  if (stepTimeMs !== undefined && stepTimeMs - explained > stepTimeMs * 1e-6) {
    parts.push({ bar, component: OTHER, order: COMPONENTS.length, ms: stepTimeMs - explained });
  }
  return parts;
}

const COLOURS = ['#4c78a8', '#e45756', '#f2cf5b', '#b279a2', '#9d755d', '#bab0ac'];

function chart(id: string, title: string, rows: BreakdownRow[], bars: number): ChartSpec {
  // The legend names only the components present, in stacking order, each in its fixed colour.
  const labels = [...COMPONENTS.map((component) => component.label), OTHER];
  const present = labels
    .map((label, index) => ({ label, colour: COLOURS[index] ?? '#888888' }))
    .filter(({ label }) => rows.some((row) => row.component === label));
  return {
    id,
    title,
    caption:
      'Each bar is one step; its height is the step time. Exposed communication is what compute did not hide.',
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: Math.max(240, Math.min(560, bars * 90)),
      height: CHART_HEIGHT,
      data: { values: rows },
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'bar', type: 'nominal', title: null, sort: null, axis: { labelAngle: 0 } },
        y: { field: 'ms', type: 'quantitative', title: 'step time (ms)', stack: 'zero' },
        color: {
          field: 'component',
          type: 'nominal',
          title: null,
          scale: { domain: present.map((entry) => entry.label), range: present.map((entry) => entry.colour) },
          legend: { orient: 'bottom', columns: 3 },
        },
        order: { field: 'order', type: 'quantitative' },
        tooltip: [{ field: 'bar' }, { field: 'component' }, { field: 'ms', format: '.3f' }],
      },
    },
  };
}

export function stepBreakdownCharts(items: readonly ReportItem[]): ChartSpec[] {
  const charts: ChartSpec[] = [];
  const planRows: BreakdownRow[] = [];
  const planLabels = new Set<string>();
  for (const item of items) {
    const metrics = asRecord(item.envelope.metrics);
    if (item.envelope.kind === 'compare') {
      const taken = new Set<string>();
      const rows = records(metrics.rows).flatMap((row, index) =>
        breakdown(uniqueLabel(text(row.fabric) ?? `row ${index + 1}`, String(index + 1), taken), row),
      );
      if (rows.length > 0)
        charts.push(
          chart(
            `step-breakdown-${slug(item.ref)}`,
            `Step time breakdown per fabric (${item.ref})`,
            rows,
            taken.size,
          ),
        );
    } else if (item.envelope.kind === 'plan') {
      const inputs = asRecord(item.envelope.inputs);
      const name =
        text(metrics.fabric) ??
        text(inputs.fabric) ??
        text(asRecord(inputs.fabric).name) ??
        text(asRecord(inputs.job).fabric) ??
        'plan';
      planRows.push(...breakdown(uniqueLabel(name, item.ref, planLabels), metrics));
    }
  }
  if (planRows.length > 0)
    charts.push(chart('step-breakdown-plans', 'Step time breakdown of plans', planRows, planLabels.size));
  return charts;
}
