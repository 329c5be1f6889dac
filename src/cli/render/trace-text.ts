/**
 * `aifabric trace` as terminal text: a header (ranks, hosts, world size, clock alignment), the
 * matched collectives (at most DEFAULT_COLLECTIVE_ROWS rows: a long trace has thousands, and
 * `--json` holds them all), the per-iteration terms of the step-time model, the straggler ranking,
 * then the findings.
 */
import type { Finding, ResultEnvelope } from '../../core/envelope.js';
import type { TraceCollectiveRow, TraceIteration, TraceMetrics, TraceStraggler } from '../../trace/index.js';
import { fixed, percent, renderTable, type Column } from './table.js';

/** Collective rows the text shows; the rest are counted in a "... K more" line. */
export const DEFAULT_COLLECTIVE_ROWS = 40;
/** Iterations and stragglers are short lists, but a 10,000-step trace is not: the same cap keeps the text readable. */
const MAX_LIST_ROWS = 40;

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** Sizes as nccl-tests' -b/-e spell them: powers of 1024, exact below 1K. */
export function sizeText(bytes: number | null): string {
  if (bytes === null) return '-';
  const units: [number, string][] = [
    [1024 ** 3, 'G'],
    [1024 ** 2, 'M'],
    [1024, 'K'],
  ];
  for (const [scale, unit] of units) {
    if (bytes >= scale) return `${Number((bytes / scale).toFixed(2))}${unit}`;
  }
  return `${bytes}`;
}

function us(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? '-' : fixed(value, digits);
}

function rankList(ranks: readonly number[]): string {
  if (ranks.length === 0) return '-';
  // Consecutive runs as ranges: "0-7" rather than eight numbers.
  const parts: string[] = [];
  let start = ranks[0]!;
  let previous = start;
  for (const rank of [...ranks.slice(1), Number.NaN]) {
    if (rank === previous + 1) {
      previous = rank;
      continue;
    }
    parts.push(start === previous ? `${start}` : `${start}-${previous}`);
    start = rank;
    previous = rank;
  }
  return parts.join(',');
}

function header(result: ResultEnvelope<TraceMetrics>): string[] {
  const m = result.metrics;
  const hosts = [...new Set(m.ranks.map((rank) => rank.host ?? '(unnamed host)'))];
  const formats = [...new Set(m.ranks.map((rank) => rank.format))].join(', ');
  const lines = [
    `aifabric trace: ${plural(m.ranks.length, 'rank')} (${formats}), ${plural(hosts.length, 'host')}, world size ${m.worldSize ?? 'unknown'}, ${m.nodes > 0 ? `${m.nodes} node(s) x ${m.gpusPerNode} GPU(s)` : 'no rank with GPU kernels'}`,
  ];
  const shifted = Object.entries(m.clockOffsetsUs).filter(([, offset]) => offset !== 0);
  lines.push(
    m.clockAligned
      ? `clocks aligned: ${shifted.map(([host, offset]) => `${host} ${offset >= 0 ? '+' : ''}${fixed(offset, 1)} us`).join(', ')} (skews and waits are after alignment)`
      : hosts.length > 1
        ? 'clocks: not shifted (no offset between hosts found)'
        : 'clocks: one host, one clock (nothing shifted)',
  );
  const inputs = result.inputs;
  if (typeof inputs.fabric === 'string')
    lines.push(
      `model: fabric ${inputs.fabric}, gpu ${String(inputs.gpu)}${typeof inputs.job === 'string' ? `, job ${inputs.job}` : ''}`,
    );
  const steps = inputs.steps as { from?: number; to?: number } | null | undefined;
  if (steps && typeof steps.from === 'number')
    lines.push(
      `steps: ProfilerStep ${steps.from === steps.to ? steps.from : `${steps.from}-${String(steps.to)}`}`,
    );
  const noGpu = m.ranks.filter((rank) => !rank.hasGpu).map((rank) => rank.rank);
  if (noGpu.length > 0) lines.push(`ranks without GPU kernels: ${rankList(noGpu)}`);
  for (const warning of result.warnings ?? []) lines.push(`warning: ${warning}`);
  return lines;
}

function collectivesTable(rows: readonly TraceCollectiveRow[], withModel: boolean, limit: number): string {
  const columns: Column[] = [
    { header: 'group', align: 'left' },
    { header: 'seq' },
    { header: 'op', align: 'left' },
    { header: 'size' },
    { header: 'ranks seen', align: 'left' },
    { header: 'skew us' },
    { header: 'true time us' },
    { header: 'last rank' },
    { header: 'busbw GB/s' },
  ];
  if (withModel) columns.push({ header: 'predicted us' }, { header: '% of model' });
  const cells = rows.slice(0, limit).map((row) => {
    const busbw =
      row.busbwGBps === null ? '-' : `${fixed(row.busbwGBps, 2)}${row.busbwIsBound ? ' (bound)' : ''}`;
    const seen = `${rankList(row.ranksSeen)}${row.ranksMissing.length > 0 ? ` (missing ${rankList(row.ranksMissing)})` : ''}`;
    const cellsOfRow = [
      row.group,
      `${row.seq}`,
      row.op,
      sizeText(row.sizeBytes),
      seen,
      us(row.startSkewUs),
      us(row.trueTimeUs),
      `${row.lastRank}`,
      busbw,
    ];
    if (withModel)
      cellsOfRow.push(
        us(row.predictedUs),
        row.modelFraction === null || row.modelFraction === undefined ? '-' : percent(row.modelFraction, 0),
      );
    return cellsOfRow;
  });
  let text = renderTable(columns, cells, '  ');
  if (rows.length > limit) text += `  ... ${rows.length - limit} more (use --json)\n`;
  return text;
}

function iterationsTable(iterations: readonly TraceIteration[]): string {
  const withModel = iterations.some(
    (iteration) => iteration.predictedStepUs !== undefined && iteration.predictedStepUs !== null,
  );
  const columns: Column[] = [
    { header: 'step' },
    { header: 'ranks', align: 'left' },
    { header: 'T_compute us' },
    { header: 'exposed comm us' },
    { header: 'max T_comm us' },
    { header: 'step us' },
  ];
  if (withModel) columns.push({ header: 'predicted step us' });
  const cells = iterations.slice(0, MAX_LIST_ROWS).map((iteration) => {
    const exposed = iteration.exposedCommUs.length > 0 ? Math.max(...iteration.exposedCommUs) : null;
    const row = [
      `${iteration.step}`,
      rankList(iteration.ranks),
      us(iteration.maxComputeUs),
      us(exposed),
      us(iteration.maxCommUs),
      us(iteration.maxStepUs),
    ];
    if (withModel) row.push(us(iteration.predictedStepUs));
    return row;
  });
  let text = renderTable(columns, cells, '  ');
  if (iterations.length > MAX_LIST_ROWS)
    text += `  ... ${iterations.length - MAX_LIST_ROWS} more (use --json)\n`;
  return text;
}

function stragglersTable(stragglers: readonly TraceStraggler[]): string {
  const columns: Column[] = [
    { header: 'rank' },
    { header: 'last at' },
    { header: 'others lost us' },
    { header: 'cause', align: 'left' },
  ];
  const cells = stragglers
    .slice(0, MAX_LIST_ROWS)
    .map((straggler) => [
      `${straggler.rank}`,
      `${straggler.lastCount}`,
      us(straggler.lostUs),
      straggler.cause,
    ]);
  let text = renderTable(columns, cells, '  ');
  if (stragglers.length > MAX_LIST_ROWS)
    text += `  ... ${stragglers.length - MAX_LIST_ROWS} more (use --json)\n`;
  return text;
}

const SEVERITY_ORDER: Record<string, number> = { error: 0, warn: 1, info: 2, pass: 3 };

function findingLines(findings: readonly Finding[]): string[] {
  if (findings.length === 0) return ['findings: none'];
  const sorted = [...findings].sort(
    (a, b) => (SEVERITY_ORDER[a.severity] ?? 9) - (SEVERITY_ORDER[b.severity] ?? 9),
  );
  return [
    'findings:',
    ...sorted.flatMap((finding) => [
      `  ${finding.severity.toUpperCase().padEnd(5)} ${finding.ruleId.padEnd(20)} ${finding.message}`,
      ...(finding.evidence ? [`        evidence: ${finding.evidence}`] : []),
      ...(finding.remediation ? [`        fix: ${finding.remediation}`] : []),
    ]),
  ];
}

export function renderTraceText(
  result: ResultEnvelope<TraceMetrics>,
  limit = DEFAULT_COLLECTIVE_ROWS,
): string {
  const m = result.metrics;
  const out = header(result);
  const withModel = m.collectives.some((row) => row.predictedUs !== undefined);
  out.push(
    '',
    `collectives: ${m.collectives.length} matched across ranks${m.collectives.length > limit ? ` (first ${limit} shown)` : ''}`,
  );
  if (m.collectives.length > 0) out.push(collectivesTable(m.collectives, withModel, limit).trimEnd());
  out.push(
    '',
    `iterations: ${m.iterations.length}${m.iterations.length === 0 ? ' (the traces hold no ProfilerStep windows)' : ''}`,
  );
  if (m.iterations.length > 0) out.push(iterationsTable(m.iterations).trimEnd());
  out.push(
    '',
    `stragglers: ${m.stragglers.length === 0 ? 'none (no collective was seen on two or more ranks)' : `${m.stragglers.length}, most harmful first`}`,
  );
  if (m.stragglers.length > 0) out.push(stragglersTable(m.stragglers).trimEnd());
  out.push('', ...findingLines(result.findings ?? []));
  return `${out.join('\n')}\n`;
}
