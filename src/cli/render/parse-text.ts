/** Human text of `aifabric parse`: one summary line per file read (per host of a paste), its runs or groups, its warnings. */
import type { ResultEnvelope } from '../../core/envelope.js';
import { formatBytes } from '../../core/units.js';
import {
  parsedFileLabel,
  type NcclTestsFacts,
  type NcclTestsTest,
  type ParsedFile,
  type ParseMetrics,
  type TraceRankFacts,
} from '../../parse/index.js';

function formatGBps(value: number | null): string {
  return value === null ? 'n/a' : `${value.toFixed(2)} GB/s`;
}

function describeTest(test: NcclTestsTest, index: number, format: NcclTestsFacts['format']): string {
  const parts = [
    test.collective ?? 'collective not stated',
    test.ranks === null ? null : `${test.ranks} rank${test.ranks === 1 ? '' : 's'}`,
    test.layout ? `${test.layout.name} layout` : 'no table',
    `${test.rows.length} rows`,
    `peak busbw ${formatGBps(test.peakBusbwGBps)}`,
    test.avgBusbwGBps === null ? null : `avg ${formatGBps(test.avgBusbwGBps)}`,
    test.outOfBounds
      ? `out of bounds ${test.outOfBounds.count} ${test.outOfBounds.ok ? 'OK' : 'FAILED'}`
      : null,
  ];
  const wrong = test.rows.reduce(
    (sum, row) => sum + (row.outOfPlace.wrong ?? 0) + (row.inPlace.wrong ?? 0),
    0,
  );
  if (wrong > 0) parts.push(`#wrong ${wrong}`);
  const where = format === 'text' ? ` (lines ${test.startLine}-${test.endLine})` : '';
  return `  run ${index + 1}${where}: ${parts.filter((part) => part !== null).join(', ')}`;
}

/** A trace rank: one summary line, then its collectives per process group and op (count, bytes, GPU time). */
function describeTrace(parsed: ParsedFile): string[] {
  const facts = parsed.facts as TraceRankFacts;
  const rank =
    facts.rank === null
      ? 'rank unknown'
      : `rank ${facts.rank}${facts.worldSize === null ? '' : ` of ${facts.worldSize}`}${facts.rankSource === 'file-name' ? ' (from the file name)' : ''}`;
  const parts = [
    rank,
    facts.device,
    facts.ncclVersion === null ? null : `NCCL ${facts.ncclVersion}`,
    facts.hasGpu ? null : 'no GPU kernels',
    `${facts.collectives.length} collective${facts.collectives.length === 1 ? '' : 's'}`,
    `${facts.steps.length} profiler step${facts.steps.length === 1 ? '' : 's'}`,
    `${facts.counts.events} events`,
  ];
  const lines = [`${parsed.file}: pytorch-trace, ${parts.filter((part) => part !== null).join(', ')}`];
  const rows = new Map<
    string,
    {
      group: string;
      desc: string | null;
      size: number | null;
      op: string;
      count: number;
      bytes: number | null;
      durUs: number;
    }
  >();
  for (const collective of facts.collectives) {
    const key = `${collective.group}\u0000${collective.op}`;
    const row = rows.get(key) ?? {
      group: collective.group,
      desc: collective.groupDesc,
      size: collective.groupSize,
      op: collective.op,
      count: 0,
      bytes: 0,
      durUs: 0,
    };
    row.count++;
    row.bytes = row.bytes === null || collective.sizeBytes === null ? null : row.bytes + collective.sizeBytes;
    row.durUs += collective.durUs;
    rows.set(key, row);
  }
  for (const row of rows.values()) {
    const group = `group ${row.group}${row.desc ? ` (${row.desc})` : ''}${row.size === null ? '' : `, ${row.size} ranks`}`;
    lines.push(
      `  ${group}: ${row.op} x${row.count}, ${row.bytes === null ? 'size not in trace' : formatBytes(row.bytes)}, ${(row.durUs / 1000).toFixed(3)} ms on the GPU`,
    );
  }
  return lines;
}

function describeFile(parsed: ParsedFile): string[] {
  const lines: string[] = [];
  if (parsed.kind === 'pytorch-trace') {
    lines.push(...describeTrace(parsed));
  } else if (parsed.kind === 'nccl-tests') {
    const facts = parsed.facts as NcclTestsFacts;
    const rows = facts.tests.reduce((sum, test) => sum + test.rows.length, 0);
    const peak = facts.tests.reduce<number | null>(
      (best, test) =>
        test.peakBusbwGBps !== null && (best === null || test.peakBusbwGBps > best)
          ? test.peakBusbwGBps
          : best,
      null,
    );
    lines.push(
      `${parsedFileLabel(parsed)}: nccl-tests (${facts.format}), ${facts.tests.length} run(s), ${rows} rows, peak busbw ${formatGBps(peak)}`,
    );
    facts.tests.forEach((test, index) => lines.push(describeTest(test, index, facts.format)));
  } else {
    const facts = parsed.facts;
    const summary =
      typeof facts === 'object' && facts !== null
        ? Object.entries(facts)
            .filter(([, value]) => Array.isArray(value))
            .map(([key, value]) => `${(value as unknown[]).length} ${key}`)
            .join(', ')
        : '';
    lines.push(`${parsedFileLabel(parsed)}: ${parsed.kind}${summary ? `, ${summary}` : ''}`);
  }
  for (const warning of parsed.warnings)
    lines.push(`  warning${warning.line === undefined ? '' : ` line ${warning.line}`}: ${warning.message}`);
  return lines;
}

export function renderParseText(result: ResultEnvelope<ParseMetrics>): string {
  return `${result.metrics.files.flatMap(describeFile).join('\n')}\n`;
}
