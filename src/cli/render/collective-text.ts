/** The `collective` prediction in nccl-tests' table layout, with the algorithm and protocol the model picked. */
import type { ResultEnvelope } from '../../core/envelope.js';
import type { CollectiveMetrics } from '../../model/index.js';

const pad = (text: string | number, width: number): string => String(text).padStart(width);

function ncclLine(inputs: Record<string, unknown>): string {
  const version = String(inputs.ncclVersion);
  const tuning = inputs.ncclTuning;
  return typeof tuning === 'string' && tuning !== version
    ? `${version} (tuning of ${tuning}, the newest encoded at or below it)`
    : version;
}

/** `gpu.pcieGen=3`, `fabric.tcp.rttUs=30`: the recorded overrides as `--set` spells them. */
export function overrideTexts(overrides: unknown): string[] {
  if (overrides === null || typeof overrides !== 'object') return [];
  const texts: string[] = [];
  const walk = (prefix: string, value: unknown): void => {
    if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>))
        walk(prefix === '' ? key : `${prefix}.${key}`, inner);
    } else {
      texts.push(`${prefix}=${String(value)}`);
    }
  };
  walk('', overrides);
  return texts;
}

export function renderCollectiveText(result: ResultEnvelope<CollectiveMetrics>): string {
  const inputs = result.inputs;
  const m = result.metrics;
  const lines: string[] = [];
  const model = m.pureAlphaBeta
    ? `pure alpha-beta: alpha ${String(inputs.alphaUs)} us, bandwidth ${String(inputs.bandwidthGbps)} Gb/s per NIC`
    : `fabric ${String(inputs.fabric)} (${m.nicGBps.toFixed(2)} GB/s payload per NIC, limited by ${m.limitedBy}), gpu ${String(inputs.gpu)}`;
  lines.push(
    `# aifabric collective (predicted): ${String(inputs.op)}, ${String(inputs.nodes)} node(s) x ${String(inputs.gpusPerNode)} GPU(s) = ${m.ranks} ranks, ${String(inputs.nicsPerNode)} NIC(s) per node`,
  );
  lines.push(
    `# ${model}; algo ${String(inputs.algo)}, proto ${typeof inputs.proto === 'string' ? inputs.proto : 'auto'}`,
  );
  lines.push(
    `# NCCL ${ncclLine(inputs)}, GDR ${inputs.gdr === true ? 'on' : 'off'}, intra-node ${typeof inputs.intraNodeKind === 'string' ? inputs.intraNodeKind : 'nvlink'}`,
  );
  const overrides = overrideTexts(inputs.overrides);
  if (overrides.length > 0) lines.push(`# overrides: ${overrides.join(', ')}`);
  for (const warning of result.warnings ?? []) lines.push(`# warning: ${warning}`);
  if (m.ranks === 1)
    lines.push(
      "# one rank moves nothing over the network: each time is a local device copy, and busbw is 0 where nccl-tests' factor is 0",
    );
  lines.push('#');
  lines.push(
    `#${pad('size', 11)}  ${pad('count', 12)}  ${pad('type', 8)}  ${pad('redop', 6)}  ${pad('root', 6)}  ${pad('time', 9)}  ${pad('algbw', 7)}  ${pad('busbw', 7)}  ${'algo'.padEnd(12)}  proto`,
  );
  lines.push(
    `#${pad('(B)', 11)}  ${pad('(elements)', 12)}  ${pad('', 8)}  ${pad('', 6)}  ${pad('', 6)}  ${pad('(us)', 9)}  ${pad('(GB/s)', 7)}  ${pad('(GB/s)', 7)}`,
  );
  for (const row of m.rows) {
    const time = row.timeUs >= 1e6 ? row.timeUs.toExponential(2) : row.timeUs.toFixed(2);
    lines.push(
      `${pad(row.sizeBytes, 12)}  ${pad(row.count, 12)}  ${pad(row.type, 8)}  ${pad(row.redop, 6)}  ${pad(row.root, 6)}  ${pad(time, 9)}  ${pad(row.algbwGBps.toFixed(2), 7)}  ${pad(row.busbwGBps.toFixed(2), 7)}  ${row.algo.padEnd(12)}  ${row.protocol}`,
    );
  }
  lines.push(`# Avg bus bandwidth    : ${m.avgBusbwGBps.toFixed(4)}`);
  lines.push(
    `# (the average depends on -b; the large-message plateau is ${m.peakBusbwGBps.toFixed(2)} GB/s)`,
  );
  // Loss stalls a typical run of -n iterations does not show, which a long training run still pays.
  const unseen = m.rows.filter((row) => row.timeoutDelayUs - row.stallUs > 0.005 * row.timeUs);
  if (unseen.length > 0) {
    const iterations = typeof result.inputs['iterations'] === 'number' ? result.inputs['iterations'] : 20;
    const worst = unseen.reduce((a, b) => (b.timeoutDelayUs > a.timeoutDelayUs ? b : a));
    lines.push(
      `# TCP loss stalls: on average up to ${worst.timeoutDelayUs.toFixed(1)} us per call (${worst.sizeBytes} B), too rare to show in a typical run of ${iterations} iterations (-n); training step times include them`,
    );
  }
  lines.push('#');
  return `${lines.join('\n')}\n`;
}
