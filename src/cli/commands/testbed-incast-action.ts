/**
 * The work behind `aifabric testbed incast`, imported only when it runs: options to the engine
 * (testbed/incast.ts), progress to stderr, the result as a table. Ctrl-C (or SIGTERM) aborts the
 * incast; the engine removes its testbed, and the command exits 128 + the signal without a result.
 */
import type { ResultEnvelope } from '../../core/envelope.js';
import { isAifabricError } from '../../core/errors.js';
import { INCAST_TARGET, formatBitRate, testbedIncast, type IncastMetrics } from '../../testbed/index.js';
import { emitResult } from '../emit.js';
import { fixed, percent, renderTable } from '../render/table.js';

export interface IncastCommandOptions {
  name: string;
  senders: number[];
  rate: number;
  buffer: number;
  block: number;
  rounds: number;
  runs: number;
  cc?: 'reno' | 'cubic' | 'bbr';
  compareSim?: true;
  json?: true;
  save?: true;
  db?: string;
}

const mbps = (gbps: number | null): string => (gbps === null ? 'n/a' : fixed(gbps * 1e3, 0));
const loads = (values: readonly number[]): string => values.map((value) => fixed(value, 2)).join(' ');

export function renderIncastText(result: ResultEnvelope<IncastMetrics>): string {
  const m = result.metrics;
  const inputs = result.inputs as { name: string; rateBps: number; bufferBytes: number; blockBytes: number; rounds: number; runs: number };
  const compare = m.sim !== null;
  const columns = [
    { header: 'senders' },
    { header: `testbed Mb/s (${m.congestionControl})` },
    ...(compare ? [{ header: 'sim Mb/s' }, { header: 'sim / testbed' }] : []),
    { header: 'drops' },
    ...(compare ? [{ header: 'sim drops' }] : []),
    { header: 'RTOs' },
    ...(compare ? [{ header: 'sim RTOs' }] : []),
  ];
  const rows = m.rows.map((row) => [
    String(row.senders),
    mbps(row.testbedGoodputGbps),
    ...(compare ? [mbps(row.simGoodputGbps), row.ratio === null ? 'n/a' : fixed(row.ratio, 2)] : []),
    fixed(row.drops, 0),
    ...(compare ? [row.simDrops === null ? 'n/a' : fixed(row.simDrops, 0)] : []),
    fixed(row.timeouts, 0),
    ...(compare ? [row.simTimeouts === null ? 'n/a' : fixed(row.simTimeouts, 0)] : []),
  ]);
  const single = m.singleSender;
  const lines = [
    `incast on testbed ${inputs.name}: ${formatBitRate(inputs.rateBps)} ports, ${inputs.bufferBytes} B bfifo at the receiver's port, ${inputs.blockBytes} B blocks, ${inputs.rounds} rounds; TCP ${m.congestionControl}; medians of ${inputs.runs} runs${compare ? ' and of 3 simulator seeds' : ''}`,
    `one sender: ${mbps(single.goodputGbps)} Mb/s, ${percent(single.fractionOfRate)} of the port rate (at least ${percent(single.atLeast, 0)}: ${single.ok ? 'ok' : 'NO, the emulated path is CPU-bound at this rate'})`,
    '',
    renderTable(columns, rows).trimEnd(),
    '',
  ];
  if (m.sim) {
    const outside = m.rows.filter((row) => row.ratio === null || Math.abs(row.ratio - 1) > INCAST_TARGET).map((row) => row.senders);
    lines.push(`every row within ${INCAST_TARGET * 100}%: ${m.withinTarget ? 'yes' : `no (senders ${outside.join(', ')})`}`);
    lines.push(
      `simulator given the testbed's settings: htb switch ports, hosts' side at ${formatBitRate(m.sim.uplinkRateBps)}, MSS ${m.sim.mssBytes} B, ${m.sim.tsoSegments} segments per packet, ACK every ${m.sim.ackEvery} segments, ${m.sim.quickAcks} quick ACKs, ${fixed(m.sim.delayedAckTimeoutS * 1e3, 0)} ms delayed-ACK timer, IW ${m.sim.initialCwnd}, min RTO ${fixed(m.sim.minRtoS * 1e3, 0)} ms, RACK-TLP, cable delay ${fixed(m.sim.linkDelayS * 1e6, 1)} us; seeds ${m.sim.seeds.join(', ')}`,
    );
  }
  lines.push(`load average (1, 5, 15 min): ${loads(m.loadAverageBefore)} before, ${loads(m.loadAverageAfter)} after`, '');
  return lines.join('\n');
}

export async function testbedIncastCommand(options: IncastCommandOptions): Promise<void> {
  const controller = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => (): void => {
    interrupted ??= signal;
    controller.abort();
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    const result = await testbedIncast(
      {
        name: options.name,
        senders: options.senders,
        rateBps: options.rate,
        bufferBytes: options.buffer,
        blockBytes: options.block,
        rounds: options.rounds,
        runs: options.runs,
        ...(options.cc !== undefined ? { congestionControl: options.cc } : {}),
        compareSim: options.compareSim === true,
      },
      { signal: controller.signal, onProgress: (line) => process.stderr.write(`${line}\n`) },
    );
    await emitResult(result, { ...(options.json ? { json: true } : {}), ...(options.save ? { save: true } : {}), ...(options.db !== undefined ? { db: options.db } : {}) }, renderIncastText);
  } catch (error) {
    if (interrupted === undefined || !isAifabricError(error)) throw error;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  if (interrupted !== undefined) {
    process.stderr.write(`aifabric: testbed incast: interrupted (${interrupted}); its testbed ${options.name} was removed\n`);
    process.exitCode = interrupted === 'SIGINT' ? 130 : 143;
  }
}
