/**
 * `aifabric parse FILE... [--kind KIND] [--json]`: captured tool output to typed facts. Exit 0 when
 * every file was recognised and read, even if the output reports failures (judging is `check`'s job);
 * exit 2 when a file is unreadable, not of the kind asked for, or of no kind known: the files that
 * were read are still printed, and each bad one is named on stderr.
 */
import type { Command } from '@commander-js/extra-typings';
import type { ResultEnvelope } from '../../core/envelope.js';
import { formatBytes } from '../../core/units.js';
import { addStoreOptions } from '../store-options.js';
import type { NcclTestsFacts, NcclTestsTest, ParsedFile, ParserKind, TraceRankFacts } from '../../parse/index.js';

/** Listed here rather than read from the registry so registering imports no parser. */
const KIND_NAMES = 'nccl-tests, perftest, iperf3, ibv-devinfo, rdma-link, show-gids, nvidia-smi-topo, sysctl, nccl-env, ethtool, mlnx-qos, sonic-config-db, virt, dmi, cpuinfo, pytorch-trace';

export interface ParseMetrics {
  /** One entry per file read, or per host of a multi-host paste (with `host`). */
  files: ParsedFile[];
  /** Files that could not be read or recognised, with the reason; the command then exits 2. */
  failed?: { file: string; message: string }[];
  /** The nccl-tests runs, directly, when exactly one nccl-tests file was given. */
  tests?: NcclTestsTest[];
}

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
    test.outOfBounds ? `out of bounds ${test.outOfBounds.count} ${test.outOfBounds.ok ? 'OK' : 'FAILED'}` : null,
  ];
  const wrong = test.rows.reduce((sum, row) => sum + (row.outOfPlace.wrong ?? 0) + (row.inPlace.wrong ?? 0), 0);
  if (wrong > 0) parts.push(`#wrong ${wrong}`);
  const where = format === 'text' ? ` (lines ${test.startLine}-${test.endLine})` : '';
  return `  run ${index + 1}${where}: ${parts.filter((part) => part !== null).join(', ')}`;
}

function label(parsed: ParsedFile): string {
  return parsed.host === undefined ? parsed.file : `${parsed.file} (host ${parsed.host})`;
}


/** A trace rank: one summary line, then its collectives per process group and op (count, bytes, GPU time). */
function describeTrace(parsed: ParsedFile): string[] {
  const facts = parsed.facts as TraceRankFacts;
  const rank = facts.rank === null ? 'rank unknown' : `rank ${facts.rank}${facts.worldSize === null ? '' : ` of ${facts.worldSize}`}${facts.rankSource === 'file-name' ? ' (from the file name)' : ''}`;
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
  const rows = new Map<string, { group: string; desc: string | null; size: number | null; op: string; count: number; bytes: number | null; durUs: number }>();
  for (const collective of facts.collectives) {
    const key = `${collective.group}\u0000${collective.op}`;
    const row = rows.get(key) ?? { group: collective.group, desc: collective.groupDesc, size: collective.groupSize, op: collective.op, count: 0, bytes: 0, durUs: 0 };
    row.count++;
    row.bytes = row.bytes === null || collective.sizeBytes === null ? null : row.bytes + collective.sizeBytes;
    row.durUs += collective.durUs;
    rows.set(key, row);
  }
  for (const row of rows.values()) {
    const group = `group ${row.group}${row.desc ? ` (${row.desc})` : ''}${row.size === null ? '' : `, ${row.size} ranks`}`;
    lines.push(`  ${group}: ${row.op} x${row.count}, ${row.bytes === null ? 'size not in trace' : formatBytes(row.bytes)}, ${(row.durUs / 1000).toFixed(3)} ms on the GPU`);
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
    const peak = facts.tests.reduce<number | null>((best, test) => (test.peakBusbwGBps !== null && (best === null || test.peakBusbwGBps > best) ? test.peakBusbwGBps : best), null);
    lines.push(`${label(parsed)}: nccl-tests (${facts.format}), ${facts.tests.length} run(s), ${rows} rows, peak busbw ${formatGBps(peak)}`);
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
    lines.push(`${label(parsed)}: ${parsed.kind}${summary ? `, ${summary}` : ''}`);
  }
  for (const warning of parsed.warnings) lines.push(`  warning${warning.line === undefined ? '' : ` line ${warning.line}`}: ${warning.message}`);
  return lines;
}

export function renderParseText(result: ResultEnvelope<ParseMetrics>): string {
  return `${result.metrics.files.flatMap(describeFile).join('\n')}\n`;
}

export function registerParse(program: Command): void {
  const command = program
    .command('parse')
    .description('read captured tool output (nccl-tests, perftest, ...) into typed facts; the kind is detected from the content')
    .argument('<files...>', 'captured output files')
    .option('--kind <kind>', `parse as this kind instead of detecting it (${KIND_NAMES})`)
    .option('--json', 'print the result envelope as JSON')
    .option('--out <file>', 'also write the JSON envelope to this file');
  addStoreOptions(command).action(async (files, options) => {
      const { UsageError, InputError } = await import('../../core/errors.js');
      const { makeResult } = await import('../../core/envelope.js');
      const { parseFileAll, findParser, knownKinds } = await import('../../parse/index.js');
      const { emitResult } = await import('../emit.js');
      let kind: ParserKind | undefined;
      if (options.kind !== undefined) {
        const parser = findParser(options.kind);
        if (!parser) throw new UsageError(`invalid value for --kind: "${options.kind}" (expected one of ${knownKinds().join(', ')})`);
        kind = parser.kind;
      }
      const parsed: ParsedFile[] = [];
      const failed: { file: string; message: string }[] = [];
      // Sequential: streaming parsers keep memory flat, and errors come out in argument order.
      for (const file of files) {
        try {
          parsed.push(...(await parseFileAll(file, kind ? { kind } : {})));
        } catch (error) {
          if (error instanceof InputError) failed.push({ file, message: error.message });
          else throw error;
        }
      }
      const errors = failed.map((failure) => failure.message);
      if (parsed.length === 0) throw new InputError(errors.join('\naifabric: '));
      const metrics: ParseMetrics = { files: parsed };
      if (failed.length > 0) metrics.failed = failed;
      const only = parsed[0];
      if (parsed.length === 1 && only?.kind === 'nccl-tests') metrics.tests = (only.facts as NcclTestsFacts).tests;
      const warnings = parsed.flatMap((file) => file.warnings.map((w) => `${label(file)}${w.line === undefined ? '' : `:${w.line}`}: ${w.message}`));
      const result = makeResult('parse', { files, kind: kind ?? null }, metrics, { warnings });
      await emitResult(result, options, renderParseText);
      // The files that were read are out; the bad ones are named on stderr and the exit is 2.
      if (errors.length > 0) throw new InputError(errors.join('\naifabric: '));
    });
}
