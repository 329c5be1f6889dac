/** Human text of `aifabric testbed incast`: the single-sender line, the per-sender-count table, and the simulator's settings. */
import type { ResultEnvelope } from '../../core/envelope.js';
import { INCAST_TARGET, formatBitRate, type IncastMetrics } from '../../testbed/index.js';
import { fixed, percent, renderTable } from './table.js';

const mbps = (gbps: number | null): string => (gbps === null ? 'n/a' : fixed(gbps * 1e3, 0));
const loads = (values: readonly number[]): string => values.map((value) => fixed(value, 2)).join(' ');

/** The single sender's share of the port, with a second decimal where one would round a miss up to the threshold (89.97% is not 90.0%). */
export function shareText(fraction: number, atLeast: number): string {
  const oneDecimal = percent(fraction);
  return fraction < atLeast && Number(fixed(fraction * 100, 1)) >= atLeast * 100
    ? percent(fraction, 2)
    : oneDecimal;
}

export function renderIncastText(result: ResultEnvelope<IncastMetrics>): string {
  const m = result.metrics;
  const inputs = result.inputs as {
    name: string;
    rateBps: number;
    bufferBytes: number;
    blockBytes: number;
    rounds: number;
    runs: number;
  };
  const compare = m.sim !== null;
  const columns = [
    { header: 'senders' },
    { header: `testbed Mb/s (${m.congestionControl})` },
    ...(compare ? [{ header: 'sim Mb/s' }, { header: 'sim / testbed' }] : []),
    { header: 'drops' },
    ...(compare ? [{ header: 'sim drops' }] : []),
    { header: 'RTOs' },
    ...(compare ? [{ header: 'sim RTOs' }] : []),
    { header: 'start gap us' },
  ];
  const rows = m.rows.map((row) => [
    String(row.senders),
    mbps(row.testbedGoodputGbps),
    ...(compare ? [mbps(row.simGoodputGbps), row.ratio === null ? 'n/a' : fixed(row.ratio, 2)] : []),
    fixed(row.drops, 0),
    ...(compare ? [row.simDrops === null ? 'n/a' : fixed(row.simDrops, 0)] : []),
    fixed(row.timeouts, 0),
    ...(compare ? [row.simTimeouts === null ? 'n/a' : fixed(row.simTimeouts, 0)] : []),
    row.startGapUs === null ? '-' : fixed(row.startGapUs, 0),
  ]);
  const single = m.singleSender;
  const lines = [
    `incast on testbed ${inputs.name}: ${formatBitRate(inputs.rateBps)} ports, ${inputs.bufferBytes} B bfifo at the receiver's port, ${inputs.blockBytes} B blocks, ${inputs.rounds} rounds; TCP ${m.congestionControl}; medians of ${inputs.runs} runs${compare ? ' and of 3 simulator seeds' : ''}`,
    `one sender: ${mbps(single.goodputGbps)} Mb/s, ${shareText(single.fractionOfRate, single.atLeast)} of the port rate (at least ${percent(single.atLeast, 0)}: ${single.ok ? 'ok' : 'NO, the emulated path is CPU-bound at this rate'})`,
    '',
    renderTable(columns, rows).trimEnd(),
    '',
  ];
  if (m.sim) {
    const outside = m.rows
      .filter((row) => row.ratio === null || Math.abs(row.ratio - 1) > INCAST_TARGET)
      .map((row) => row.senders);
    lines.push(
      `every row within ${INCAST_TARGET * 100}%: ${m.withinTarget ? 'yes' : `no (senders ${outside.join(', ')})`}`,
    );
    for (const finding of result.findings ?? [])
      if (finding.ruleId === 'sim.incast-few-rounds') lines.push(`note: ${finding.message}`);
    lines.push(
      `simulator given the testbed's settings: htb switch ports, hosts' side at ${formatBitRate(m.sim.uplinkRateBps)}, MSS ${m.sim.mssBytes} B, ${m.sim.tsoSegments} segments per packet, ACK every ${m.sim.ackEvery} segments, ${m.sim.quickAcks} quick ACKs, ${fixed(m.sim.delayedAckTimeoutS * 1e3, 0)} ms delayed-ACK timer, IW ${m.sim.initialCwnd}, min RTO ${fixed(m.sim.minRtoS * 1e3, 0)} ms, RACK-TLP, ${m.sim.slowStartAfterIdle ? 'slow start after idle' : 'no slow start after idle'}, cable delay ${fixed(m.sim.linkDelayS * 1e6, 1)} us, senders starting their blocks as the testbed's servers did (each measured round's start offsets in turn, handed out in a random order; the median gap where none were measured); seeds ${m.sim.seeds.join(', ')}`,
    );
  }
  lines.push(
    `load average (1, 5, 15 min): ${loads(m.loadAverageBefore)} before, ${loads(m.loadAverageAfter)} after`,
    '',
  );
  return lines.join('\n');
}
