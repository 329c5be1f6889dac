/**
 * Terminal text for `aifabric runs`: aligned columns a person can scan and grep. Numbers are
 * rounded here only; `--json` carries them unrounded.
 */
import type { ResultEnvelope } from '../../core/envelope.js';
import { formatBytes, formatNumber, safeText } from '../../report/index.js';
import { renderTable } from './table.js';
import type { RunsDiffMetrics, RunsImportMetrics, RunsListMetrics } from '../../store/index.js';

/** Left-aligned columns under a header line, no rule: easy to grep and cut. */
function columns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return renderTable(
    header.map((title) => ({ header: title })),
    rows,
    { layout: 'plain' },
  );
}

export function renderRunsListText(result: ResultEnvelope<RunsListMetrics>): string {
  const runs = result.metrics.runs;
  if (runs.length === 0) return `no runs in ${String(result.inputs.db)} (save results with --save)\n`;
  return columns(
    ['ID', 'KIND', 'CREATED', 'AIFABRIC', 'INPUTS'],
    runs.map((run) => [String(run.id), run.kind, run.createdAt, run.toolVersion ?? '', run.label]),
  );
}

function scalarLines(value: unknown, path: string, out: string[], depth = 0): void {
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item !== 'object' || item === null))
      out.push(`  ${path}: ${value.join(', ')}`);
    else out.push(`  ${path}: ${value.length} rows`);
    return;
  }
  if (typeof value === 'object' && value !== null && depth < 4) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>))
      scalarLines(child, path === '' ? key : `${path}.${key}`, out, depth + 1);
    return;
  }
  if (typeof value === 'number')
    out.push(`  ${path}: ${path.endsWith('Bytes') ? formatBytes(value) : formatNumber(value)}`);
  else if (value !== undefined) out.push(`  ${path}: ${safeText(value)}`);
}

function flattenOneLevel(row: Record<string, unknown>): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [inner, field] of Object.entries(value as Record<string, unknown>))
        flat[`${key}.${inner}`] = field;
    } else flat[key] = value;
  }
  return flat;
}

function rowsTables(metrics: unknown): string[] {
  const out: string[] = [];
  if (typeof metrics !== 'object' || metrics === null) return out;
  for (const [key, value] of Object.entries(metrics as Record<string, unknown>)) {
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      !value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))
    )
      continue;
    // One nested level (nccl-tests' outOfPlace / inPlace) becomes dotted columns.
    const records = (value as Record<string, unknown>[]).map(flattenOneLevel);
    const header = [
      ...new Set(
        records.flatMap((row) =>
          Object.keys(row).filter((name) => typeof row[name] !== 'object' || row[name] === null),
        ),
      ),
    ];
    const rows = records.slice(0, 100).map((row) =>
      header.map((name) => {
        const cell = row[name];
        if (typeof cell === 'number') return name.endsWith('Bytes') ? formatBytes(cell) : formatNumber(cell);
        return cell === undefined || cell === null ? '' : safeText(cell);
      }),
    );
    out.push(
      `${key}:\n${columns(header, rows)}${records.length > 100 ? `(first 100 of ${records.length} rows; --json for all)\n` : ''}`,
    );
  }
  return out;
}

export function renderRunText(id: number, envelope: ResultEnvelope<unknown>): string {
  const lines = [
    `run ${id}: ${envelope.kind}, created ${envelope.createdAt} by ${envelope.tool?.name ?? '?'} ${envelope.tool?.version ?? '?'}`,
    'inputs:',
  ];
  scalarLines(envelope.inputs, '', lines);
  lines.push('metrics:');
  scalarLines(envelope.metrics, '', lines);
  const parts = [lines.join('\n') + '\n', ...rowsTables(envelope.metrics)];
  if (envelope.findings && envelope.findings.length > 0) {
    parts.push(
      `findings:\n${columns(
        ['SEVERITY', 'RULE', 'HOST', 'MESSAGE'],
        envelope.findings.map((finding) => [
          finding.severity,
          finding.ruleId,
          finding.host ?? '',
          finding.message,
        ]),
      )}`,
    );
  }
  for (const warning of envelope.warnings ?? []) parts.push(`warning: ${warning}\n`);
  return parts.join('\n');
}

function signed(value: number | null): string {
  return value === null ? 'n/a' : `${value > 0 ? '+' : ''}${value.toFixed(1)}%`;
}

export function renderDiffText(result: ResultEnvelope<RunsDiffMetrics>): string {
  const diff = result.metrics;
  const { a, b } = diff;
  const parts = [`diff of ${diff.kind} runs ${a.id} -> ${b.id}\n`];
  if (diff.busbw.length > 0) {
    if (diff.regressions.length === 0) {
      parts.push(
        `no busbw regression beyond ${diff.thresholdPercent}% over ${diff.busbw.length} message sizes\n`,
      );
    } else {
      parts.push(
        `busbw fell by more than ${diff.thresholdPercent}% at ${diff.regressions.length} message size${diff.regressions.length === 1 ? '' : 's'}:\n` +
          columns(
            ['OP', 'SIZE', `BUSBW ${a.id} (GB/s)`, `BUSBW ${b.id} (GB/s)`, 'CHANGE'],
            diff.regressions.map((entry) => [
              entry.op,
              formatBytes(entry.sizeBytes),
              formatNumber(entry.aBusbwGBps),
              formatNumber(entry.bBusbwGBps),
              signed(entry.changePercent),
            ]),
          ),
      );
    }
  }
  const shown = diff.changes
    .filter((change) => !/busbwGBps|algbwGBps|timeUs/.test(change.path) || diff.busbw.length === 0)
    .slice(0, 40);
  if (shown.length > 0) {
    parts.push(
      `changed metrics (${diff.changes.length} changed, ${diff.unchangedMetrics} unchanged${shown.length < diff.changes.length ? '; --json for all' : ''}):\n` +
        columns(
          ['METRIC', String(a.id), String(b.id), 'CHANGE'],
          shown.map((change) => [
            change.path,
            formatNumber(change.a),
            formatNumber(change.b),
            signed(change.changePercent),
          ]),
        ),
    );
  } else if (diff.changes.length === 0) {
    parts.push(`no numeric metric changed (${diff.unchangedMetrics} compared)\n`);
  }
  return parts.join('\n');
}

export function renderImportText(result: ResultEnvelope<RunsImportMetrics>): string {
  const path = String(result.inputs.db);
  const saved = result.metrics.runs;
  return (
    saved.map((run) => `saved ${run.kind} result as run ${run.id} in ${path}\n`).join('') +
    (saved.length === 0 ? `nothing new to save in ${path}\n` : '')
  );
}
