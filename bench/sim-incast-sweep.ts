/**
 * TCP incast goodput against the number of senders, in the setting of Chen et al. (WREN 2009):
 * examples/scenarios/incast-tcp.yaml (200 ms minimum RTO) and incast-tcp-rto1ms.yaml, varying only
 * the sender count, with the TCP of Chen's era pinned (Reno, an ACK per segment, no RACK-TLP: the
 * simulator's defaults before issue 13). Prints the markdown table of docs/simulator.md:
 *   npx tsx bench/sim-incast-sweep.ts [--rounds 10]
 * Chen's model: goodput = S x D / (L + R x r), L = S x D / C the transfer time without timeouts,
 * r the RTO, R the timeouts that stall a round. The "RTO stalls per round" column inverts the
 * model on the simulated goodput, R = (S x D / goodput - L) / r, next to the raw timeout count:
 * many senders time out together, so stalls grow far slower than timeouts (Chen's R saturating).
 */
import { tcpWireBytes } from '../src/sim/net/wire.js';
import { loadScenario, validateScenario } from '../src/sim/scenario.js';
import { runPacket } from '../src/sim/packet-run.js';
import type { Scenario } from '../src/sim/scenario-schema.js';

const i = process.argv.indexOf('--rounds');
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 10;
const SENDERS = [1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48];
const LINK_BPS = 1e9;

function run(file: string, senders: number): { goodputBps: number; timeoutsPerRound: number; rtoS: number; blockBytes: number } {
  const base = loadScenario(file);
  const w = base.workloads[0];
  if (w?.kind !== 'incast') throw new Error(`${file}: expected an incast workload`);
  const scenario: Scenario = {
    ...base,
    transport: { ...base.transport, tcp: { ...base.transport.tcp, cc: 'reno', ackEvery: 1, quickAcks: 0, rack: false } },
    topology: { ...base.topology, hosts: senders + 1 } as Scenario['topology'],
    workloads: [{ ...w, senders, rounds }],
  };
  const result = runPacket(scenario, validateScenario(scenario), base.seed ?? 1);
  const metrics = result.workloads[0]!.report().metrics;
  return {
    goodputBps: (metrics.goodputGbps as number) * 1e9,
    timeoutsPerRound: (metrics.timeouts as number) / rounds,
    rtoS: base.transport.tcp.minRto,
    blockBytes: w.blockSize,
  };
}

const pct = (bps: number): string => `${((100 * bps) / LINK_BPS).toFixed(1)}%`;
console.log(`| senders | 200 ms min RTO: goodput | timeouts per round | RTO stalls per round (model inverted) | 1 ms min RTO: goodput | timeouts per round |`);
console.log(`|---:|---:|---:|---:|---:|---:|`);
for (const s of SENDERS) {
  const slow = run('examples/scenarios/incast-tcp.yaml', s);
  const fast = run('examples/scenarios/incast-tcp-rto1ms.yaml', s);
  const bits = s * slow.blockBytes * 8;
  const payloadBps = (LINK_BPS * 1460) / tcpWireBytes(1460);
  const stalls = Math.max(0, (bits / slow.goodputBps - bits / payloadBps) / slow.rtoS);
  console.log(
    `| ${s} | ${(slow.goodputBps / 1e6).toFixed(0)} Mb/s (${pct(slow.goodputBps)}) | ${slow.timeoutsPerRound.toFixed(1)} | ${stalls.toFixed(2)} | ${(fast.goodputBps / 1e6).toFixed(0)} Mb/s (${pct(fast.goodputBps)}) | ${fast.timeoutsPerRound.toFixed(1)} |`,
  );
}
