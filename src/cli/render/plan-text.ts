/** Human text for `plan`, `compare` and `scale`. */
import type { ResultEnvelope } from '../../core/envelope.js';
import {
  NCCL_NET_DESCRIPTIONS,
  transportSplitDetail,
  transportSplitLine,
  type CompareMetrics,
  type PlanMetrics,
  type ScaleMetrics,
  type TransportSplit,
} from '../../model/index.js';
import { fixed, milliseconds, percent, renderTable } from './table.js';

/** The mark beside a fabric the command added as a same-line-rate counterpart. */
const COUNTERPART_MARK = '*';

function counterpartNote(marked: { fabric: string; counterpartOf?: string }[]): string {
  if (marked.length === 0) return '';
  const pairs = marked.map((entry) => `${entry.fabric} beside ${entry.counterpartOf ?? '?'}`).join(', ');
  return `${COUNTERPART_MARK} added counterpart: the same line rate over the other transport (${pairs}); --no-counterparts leaves them out\n`;
}

/** Which NCCL network transport the rows stand for: "Socket = NET/Socket (kernel TCP, host staging)". */
function ncclNetNote(nets: readonly (string | undefined)[]): string {
  const present = [...new Set(nets.filter((net): net is string => net !== undefined))];
  if (present.length === 0) return '';
  return `NCCL net: ${present.map((net) => (NCCL_NET_DESCRIPTIONS[net] ? `${net} = ${NCCL_NET_DESCRIPTIONS[net]}` : `${net} = the ${net} network plugin`)).join('; ')}\n`;
}

/** The split lines: `TCP 100G vs RoCE 400G: 1.32x = 1.15 line rate x 1.14 transport`, each with where its intermediate came from. */
export function renderSplitLines(splits: readonly TransportSplit[], detail = true): string {
  return splits
    .map((split) => `${transportSplitLine(split)}\n${detail ? `  ${transportSplitDetail(split)}\n` : ''}`)
    .join('');
}

function warningLines(result: ResultEnvelope<unknown>): string {
  return (result.warnings ?? []).map((warning) => `warning: ${warning}\n`).join('');
}

function jobLine(result: ResultEnvelope<unknown>): string {
  const job = result.inputs.job as Record<string, unknown> | undefined;
  if (!job) return '';
  const p = job.parallelism as Record<string, number>;
  return `${String(job.name)}: ${String(job.model)} on ${String(job.nodes)} x ${String(job.gpusPerNode)} ${String(job.gpu)}, ${String(job.nicsPerNode)} NIC(s)/node; dp ${p.dp} tp ${p.tp} pp ${p.pp} cp ${p.cp} ep ${p.ep}, ${String(job.sharding)}, global batch ${String(job.globalBatchSize)} x ${String(job.sequenceLength)} tokens\n`;
}

export function renderPlanText(result: ResultEnvelope<PlanMetrics>): string {
  const m = result.metrics;
  const rows: string[][] = [
    [
      'compute',
      milliseconds(m.computeMs),
      m.memoryBoundMs > 0 ? `of which non-GEMM kernels ${milliseconds(m.memoryBoundMs)}` : '',
    ],
    ['pipeline bubble', milliseconds(m.bubbleMs), ''],
    ...(['dp', 'tp', 'pp', 'cp', 'ep'] as const)
      .filter((kind) => m.commMs[kind] > 0)
      .map((kind) => [
        `${kind} communication (exposed)`,
        milliseconds(m.exposedMs[kind]),
        `of ${milliseconds(m.commMs[kind])}`,
      ]),
    ['timeout stalls (expected)', milliseconds(m.timeoutPenaltyMs), ''],
    ['straggler wait (jitter)', milliseconds(m.stragglerPenaltyMs), ''],
    ['step', milliseconds(m.stepTimeMs), ''],
  ];
  return (
    `${jobLine(result)}fabric ${m.fabric}\n\n` +
    renderTable(
      [{ header: 'part', align: 'left' }, { header: 'time' }, { header: '', align: 'left' }],
      rows,
    ) +
    `\ntokens/s ${fixed(m.tokensPerSecond, 0)} (${fixed(m.tokensPerSecondPerGpu, 1)} per GPU), MFU ${percent(m.mfu)}, exposed communication ${percent(m.exposedCommShare)} of the step\n` +
    `data path per node: ${fixed(m.networkGBPerNodePerStep, 2)} GB over the network per step, ${fixed(m.hostCpuCoresPerNode, 2)} CPU cores, ${fixed(m.hostMemoryTrafficGBps, 1)} GB/s of host memory traffic\n` +
    warningLines(result)
  );
}

export function renderCompareText(result: ResultEnvelope<CompareMetrics>): string {
  const rows = result.metrics.rows;
  const splits = result.metrics.splits;
  const best = Math.min(...rows.map((row) => row.stepTimeMs));
  return (
    jobLine(result) +
    '\n' +
    renderTable(
      [
        { header: 'fabric', align: 'left' },
        { header: 'NCCL net', align: 'left' },
        { header: 'step' },
        { header: 'vs best' },
        { header: 'tokens/s' },
        { header: 'MFU' },
        { header: 'exposed comm' },
        { header: 'straggler' },
        { header: 'timeouts' },
        { header: 'CPU cores/node' },
        { header: 'host mem GB/s' },
      ],
      rows.map((row) => [
        row.addedAsCounterpart ? `${row.fabric} ${COUNTERPART_MARK}` : row.fabric,
        row.ncclNet,
        milliseconds(row.stepTimeMs),
        `${fixed(row.stepTimeMs / best, 2)}x`,
        fixed(row.tokensPerSecond, 0),
        percent(row.mfu),
        percent(row.exposedCommShare),
        milliseconds(row.stragglerPenaltyMs),
        milliseconds(row.timeoutPenaltyMs),
        fixed(row.hostCpuCoresPerNode, 2),
        fixed(row.hostMemoryTrafficGBps, 1),
      ]),
    ) +
    counterpartNote(rows.filter((row) => row.addedAsCounterpart)) +
    ncclNetNote(rows.map((row) => row.ncclNet)) +
    (splits.length > 0
      ? `\nline rate against transport (step time ratio, split through the first fabric's transport at the second's line rate):\n${renderSplitLines(splits)}`
      : '') +
    warningLines(result)
  );
}

export function renderScaleText(result: ResultEnvelope<ScaleMetrics>): string {
  const m = result.metrics;
  const nodes = [...new Set(m.fabrics.flatMap((fabric) => fabric.points.map((point) => point.nodes)))].sort(
    (a, b) => a - b,
  );
  const columns = [
    { header: 'nodes' },
    { header: 'GPUs' },
    ...m.fabrics.flatMap((fabric) => [
      { header: `${fabric.fabric}${fabric.addedAsCounterpart ? COUNTERPART_MARK : ''} step` },
      { header: 'eff' },
    ]),
  ];
  const rows = nodes.map((count) => {
    const cells = [
      String(count),
      String(count * ((result.inputs.job as { gpusPerNode?: number } | undefined)?.gpusPerNode ?? 0)),
    ];
    for (const fabric of m.fabrics) {
      const point = fabric.points.find((candidate) => candidate.nodes === count);
      cells.push(
        point ? milliseconds(point.stepTimeMs) : '-',
        point ? percent(point.scalingEfficiency, 0) : '-',
      );
    }
    return cells;
  });
  const splits = m.splitsByNodes;
  let splitTable = '';
  const first = splits[0]?.split;
  if (first) {
    splitTable =
      `\n${first.from.label} vs ${first.to.label}, step time ratio = line rate x transport:\n  ${transportSplitDetail(first)}\n` +
      renderTable(
        [{ header: 'nodes' }, { header: 'total' }, { header: 'line rate' }, { header: 'transport' }],
        splits.map(({ nodes, split }) => [
          String(nodes),
          `${fixed(split.total, 2)}x`,
          fixed(split.lineRate, 2),
          fixed(split.transport, 2),
        ]),
      );
  }
  const marked = m.fabrics.filter((fabric) => fabric.addedAsCounterpart);
  return (
    `${jobLine(result)}\nweak scaling (batch per replica fixed); eff = tokens/s per GPU against the smallest node count\n\n${renderTable(columns, rows)}` +
    counterpartNote(marked) +
    ncclNetNote(m.fabrics.map((fabric) => fabric.ncclNet)) +
    `\n${m.rdmaPaysOffStatement}${marked.length > 0 ? ' (added counterparts not counted)' : ''}\n` +
    splitTable +
    warningLines(result)
  );
}
