/**
 * Packet-mode speed on the scenarios htsim is quoted for (issue 3), plus the 64-sender target:
 *   npx tsx bench/sim-packet.ts incast-fattree [--transport tcp|roce]   32 x 1 MiB -> 1, 100 Gb/s, k=8 fat tree
 *   npx tsx bench/sim-packet.ts permutation [--k 12] [--size-mb 50] [--transport tcp|roce]
 *   npx tsx bench/sim-packet.ts incast64 [--transport tcp|roce]         64 x 1 MB -> 1, 100 Gb/s, one switch
 * --cc reno|cubic|dctcp|bbr, --rack true, --ack-every N and --quick-acks N pick the TCP (default Reno
 * without RACK-TLP, an ACK per segment: the figures of docs/PERFORMANCE.md, not the scenario defaults).
 * --mss 8960 runs TCP with 9000 B jumbo frames (htsim's figures work out to about 9 KB per packet:
 * 56 M events for 432 x 50 MB at 2 events per packet-hop).
 * Prints wall time, events, events per second, packet-hops, events per packet-hop and peak RSS.
 * Figures only; it never passes or fails on time. Run one scenario per process so RSS is its own.
 */
import { performance } from 'node:perf_hooks';
import { scenarioSchema } from '../src/sim/scenario-schema.js';
import { validateScenario } from '../src/sim/scenario.js';
import { runPacket } from '../src/sim/packet-run.js';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const which = process.argv[2] ?? 'incast-fattree';
const transport = flag('transport', 'tcp');
const k = Number(flag('k', '12'));
const sizeMb = Number(flag('size-mb', '50'));
const mss = Number(flag('mss', '1460'));
/** TCP congestion control, RACK-TLP and the receiver (defaults: the scenario defaults before issue 13, Reno without RACK, an ACK per segment). */
const cc = flag('cc', 'reno');
const rack = flag('rack', 'false') === 'true';
const ackEvery = Number(flag('ack-every', '1'));
const quickAcks = Number(flag('quick-acks', '0'));

// Switch settings shared by every run: 1 MiB per port, dynamic thresholds; RoCE adds PFC and DCQCN marking.
const switchConfig =
  transport === 'roce'
    ? { buffer: '1MiB', ecn: { kmin: '5KB', kmax: '200KB', pmax: 0.01 }, pfc: {} }
    : { buffer: '1MiB' };

const raw = (() => {
  switch (which) {
    case 'incast-fattree':
      return {
        name: 'htsim-incast-k8',
        topology: { kind: 'fat-tree', k: 8, linkRate: '100Gbps', linkDelay: '1us' },
        workloads: [{ kind: 'incast', receiver: 0, senders: Array.from({ length: 32 }, (_, i) => 96 + i), blockSize: '1MiB' }],
      };
    case 'permutation':
      return {
        name: `htsim-permutation-k${k}`,
        topology: { kind: 'fat-tree', k, linkRate: '100Gbps', linkDelay: '1us' },
        workloads: [{ kind: 'permutation', size: sizeMb * 1e6 }],
      };
    case 'incast64':
      return {
        name: 'incast64',
        topology: { kind: 'star', hosts: 65, linkRate: '100Gbps', linkDelay: '1us' },
        workloads: [{ kind: 'incast', receiver: 0, senders: 64, blockSize: 1e6 }],
      };
    default:
      throw new Error(`unknown bench ${which}: incast-fattree, permutation, incast64`);
  }
})();

const scenario = scenarioSchema.parse({ ...raw, switch: switchConfig, transport: { kind: transport, tcp: { mss, cc, rack, ackEvery, quickAcks } }, sim: { maxTime: '10s' } });
const topology = validateScenario(scenario);
const started = performance.now();
const cpuStart = process.cpuUsage();
const run = runPacket(scenario, topology, 1);
const wallS = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStart);
// On a shared machine the process may not get a whole core: CPU time gives the one-core rate.
const cpuS = (cpu.user + cpu.system) / 1e6;
const sim = run.sim;
const result = {
  bench: which,
  transport,
  mssBytes: transport === 'tcp' ? mss : undefined,
  hosts: topology.hostCount,
  status: run.status,
  simulatedMs: sim.now / 1e9,
  wallSeconds: wallS,
  events: sim.events,
  eventsPerSecond: sim.events / wallS,
  cpuSeconds: cpuS,
  eventsPerCpuSecond: sim.events / cpuS,
  packetHops: sim.packetHops,
  eventsPerPacketHop: sim.events / sim.packetHops,
  // htsim counts two events per packet per hop; this simulator skips the end-of-transmission
  // event when nothing waits for the port, so compare per packet-hop.
  packetHopsPerCpuSecond: sim.packetHops / cpuS,
  htsimEquivalentEventsPerCpuSecond: (2 * sim.packetHops) / cpuS,
  drops: sim.drops,
  goodputGbps: (sim.deliveredBytes * 8) / (sim.now / 1e12) / 1e9,
  peakRssMiB: process.memoryUsage().rss / 2 ** 20,
  node: process.version,
};
console.log(JSON.stringify(result));
