/**
 * The testbed's incast rows (docs/bench.md "Incast on real kernel TCP", re-measured 2026-12-01,
 * 20 rounds, BBR and Reno per namespace) next to what the simulator predicts for them with the
 * TCP this kernel runs: the congestion control of the row, RACK-TLP on, delayed ACKs every second
 * segment with 16 quick ACKs at the start and a 40 ms timer, initial window 10, 200 ms minimum RTO
 * (Linux 6.x defaults). Same fabric as examples/scenarios/incast-tcp.yaml: 1 Gb/s, 128 KiB per
 * port, 256 KiB blocks. Figures only:
 *   npx tsx bench/sim-incast-linux.ts [--rounds 20] [--rack false] [--ack-every 1] [--quick-acks 0] [--tso 44]
 * --tso N sends new data in packets of up to N segments (the veth testbed carries GSO packets of up
 * to 64 KB, 44 x 1460 B, whole through its bridge and 128 KiB bfifo; the default 1 is a real wire).
 * The star has one path per pair and no random marking, so every seed gives the same run: one
 * simulation per row stands for the median of three.
 */
import { loadScenario, validateScenario } from '../src/sim/scenario.js';
import { runPacket } from '../src/sim/packet-run.js';
import type { Scenario } from '../src/sim/scenario-schema.js';
import type { RackTcpConnection } from '../src/sim/transport/tcp-rack.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const rounds = Number(flag('rounds', '20'));
const rack = flag('rack', 'true') === 'true';
const ackEvery = Number(flag('ack-every', '2'));
const quickAcks = Number(flag('quick-acks', '16'));
const tsoSegments = Number(flag('tso', '1'));

/** docs/bench.md, re-measured 2026-12-01 15:53-15:56 UTC: senders -> [goodput Mb/s, drops] per congestion control. */
const TESTBED: Record<'bbr' | 'reno', Record<number, [number, number]>> = {
  bbr: { 1: [837, 56], 2: [816, 518], 3: [126, 1037], 4: [83, 1693], 6: [70, 2492], 8: [80, 3821], 10: [93, 5339], 12: [99, 6494], 16: [103, 8499] },
  reno: { 1: [348, 24], 2: [804, 54], 3: [693, 135], 4: [421, 225], 6: [476, 449], 8: [896, 507], 10: [275, 784], 12: [297, 989], 16: [262, 1689] },
};

function simulate(cc: 'bbr' | 'reno', senders: number): { mbps: number; drops: number; timeouts: number; probes: number } {
  const base = loadScenario('examples/scenarios/incast-tcp.yaml');
  const w = base.workloads[0];
  if (w?.kind !== 'incast') throw new Error('expected an incast workload');
  const scenario: Scenario = {
    ...base,
    topology: { ...base.topology, hosts: senders + 1 } as Scenario['topology'],
    transport: { ...base.transport, tcp: { ...base.transport.tcp, cc, rack, ackEvery, quickAcks, tsoSegments, delayedAckTimeout: 0.04, initialCwnd: 10, minRto: 0.2 } },
    workloads: [{ ...w, senders, rounds }],
  };
  const run = runPacket(scenario, validateScenario(scenario), 1);
  const metrics = run.workloads[0]!.report().metrics;
  let probes = 0;
  for (const conn of run.sim.connections) probes += (conn as RackTcpConnection).lossProbes ?? 0;
  return { mbps: (metrics.goodputGbps as number) * 1e3, drops: run.sim.drops, timeouts: run.sim.counters.timeouts, probes };
}

console.log(`incast, ${rounds} rounds; simulated TCP: RACK-TLP ${rack ? 'on' : 'off'}, ACK every ${ackEvery}, ${quickAcks} quick ACKs, ${tsoSegments} segments per packet, IW 10, min RTO 200 ms`);
console.log('| cc | senders | testbed Mb/s | sim Mb/s | sim / testbed | testbed drops | sim drops | sim timeouts | sim loss probes |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const cc of ['bbr', 'reno'] as const) {
  for (const [s, [mbps, drops]] of Object.entries(TESTBED[cc])) {
    const sim = simulate(cc, Number(s));
    console.log(`| ${cc} | ${s} | ${mbps} | ${sim.mbps.toFixed(0)} | ${(sim.mbps / mbps).toFixed(2)} | ${drops} | ${sim.drops} | ${sim.timeouts} | ${sim.probes} |`);
  }
}
