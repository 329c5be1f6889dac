/**
 * Scenario -> packet-level simulation: resolves defaults (DCQCN parameters, PFC headroom), builds
 * the simulator, the connections and the workloads, and runs them.
 */
import { psToUs } from './engine/time.js';
import type { BufferConfig } from './net/buffers.js';
import { tcpWireBytes, MIN_FRAME_WIRE_BYTES } from './net/wire.js';
import { planWorkloads, type WorkloadPlan } from './plan/index.js';
import { headroomBounds, mtuWireBytes, pfcResponseDelayNs } from './scenario.js';
import type { Scenario } from './scenario-schema.js';
import { Simulator, type MessageListener } from './simulator.js';
import { connectionEcmpHash, type Topology } from './topo/index.js';
import { CLS_LOSSLESS, CLS_LOSSY, type Connection } from './transport/connection.js';
import { RoceConnection, type RoceConfig } from './transport/roce.js';
import { TcpConnection, type TcpConfig } from './transport/tcp.js';
import { RackTcpConnection } from './transport/tcp-rack.js';
import { CollectiveWorkload } from './workload/collectives.js';
import { FlowsWorkload } from './workload/flows.js';
import { IncastWorkload } from './workload/incast.js';
import type { TransportKind, Workload } from './workload/types.js';

/** DCQCN paper (Zhu et al. 2015): R_AI = 40 Mb/s at 40 Gb/s; scaled with line rate as open simulators do. */
const DCQCN_RAI_PER_BPS = 40e6 / 40e9;
/** Hyper-increase step: the paper leaves it tunable; 10 x R_AI here (set `rhai` to change it). */
const DCQCN_RHAI_OVER_RAI = 10;

export interface PacketRun {
  sim: Simulator;
  workloads: Workload[];
  status: 'done' | 'stalled' | 'time-limit';
  hostRateBps: number;
  /** The scenario's sim.maxTime, in ps. */
  maxTimePs: number;
}

export function bufferConfigOf(scenario: Scenario, topology: Topology): BufferConfig {
  const sw = scenario.switch;
  const mtu = mtuWireBytes(scenario);
  let pfc: BufferConfig['pfc'] = null;
  if (sw.pfc?.enabled) {
    const bounds = headroomBounds(scenario, topology);
    const headroom = new Float64Array(topology.links.length);
    const response = new Float64Array(topology.links.length);
    for (const link of topology.links) {
      if (topology.nodes[link.to]?.kind !== 'switch') continue;
      headroom[link.id] = sw.pfc.headroom === 'auto' ? bounds[link.id]! : sw.pfc.headroom;
      response[link.id] = Math.round(pfcResponseDelayNs(scenario, link.rateBps) * 1000);
    }
    pfc = {
      headroomBytes: headroom,
      responseDelayPs: response,
      xoffAlpha: sw.pfc.xoffAlpha,
      resumeOffsetBytes: 2 * mtu,
    };
    const wd = sw.pfc.watchdog;
    if (wd)
      pfc.watchdog = {
        timeoutPs: Math.round(wd.timeout * 1e12),
        restorationPs: Math.round(wd.restoration * 1e12),
      };
  }
  const ecn = sw.ecn ? { kminBytes: sw.ecn.kmin, kmaxBytes: sw.ecn.kmax, pmax: sw.ecn.pmax } : null;
  return {
    bufferPerPortBytes: sw.buffer,
    sharing: sw.sharing,
    dtAlpha: sw.dtAlpha,
    ecn,
    pfc,
    mtuWireBytes: mtu,
  };
}

function tcpConfigOf(scenario: Scenario): TcpConfig {
  const t = scenario.transport.tcp;
  return {
    mssBytes: t.mss,
    initialCwndSegments: t.initialCwnd,
    minRtoPs: Math.round(t.minRto * 1e12),
    maxRtoPs: Math.round(t.maxRto * 1e12),
    cc: t.cc,
    ackEvery: t.ackEvery,
    delayedAckTimeoutPs: Math.round(t.delayedAckTimeout * 1e12),
    quickAcks: t.quickAcks,
    sack: t.sack,
    rack: t.rack && t.sack,
    tsoSegments: t.tsoSegments,
    slowStartAfterIdle: t.slowStartAfterIdle,
  };
}

function roceConfigOf(scenario: Scenario, lineRateBps: number): RoceConfig {
  const r = scenario.transport.roce;
  const d = r.dcqcn;
  const rai = d.rai ?? DCQCN_RAI_PER_BPS * lineRateBps;
  return {
    mtuBytes: r.mtu,
    ackEvery: r.ackEvery,
    retransmitTimeoutPs: Math.round(r.retransmitTimeout * 1e12),
    dcqcn: {
      enabled: d.enabled,
      g: d.g,
      timerPs: Math.round(d.timer * 1e12),
      byteCounterBytes: d.byteCounter,
      fastRecoveryRounds: d.fastRecoveryRounds,
      raiBps: rai,
      rhaiBps: d.rhai ?? DCQCN_RHAI_OVER_RAI * rai,
      minRateBps: d.minRate,
      cnpIntervalPs: Math.round(d.cnpInterval * 1e12),
    },
  };
}

/** One-way time of the idle route for a packet of `wire` bytes (store-and-forward at every hop). */
export function routeTimePs(topology: Topology, route: ArrayLike<number>, wire: number): number {
  let total = 0;
  for (let i = 0; i < route.length; i++) {
    const link = topology.links[route[i]!];
    if (!link) continue;
    total += Math.ceil((wire * 8e12) / link.rateBps) + Math.round(link.delayNs * 1000);
  }
  return total;
}

/** The plan's workloads as packet-mode workload objects (they open their connections in the plan's order). */
export function buildWorkloads(plan: WorkloadPlan): Workload[] {
  return plan.workloads.map((w) => {
    const { name, transport } = w;
    const startPs = Math.round(w.startS * 1e12);
    switch (w.kind) {
      case 'incast':
        return new IncastWorkload({
          name,
          receiver: w.receiver,
          senders: w.senders,
          blockBytes: w.blockBytes,
          rounds: w.rounds,
          startGapPs: Math.round(w.startGapS * 1e12),
          startOffsetsPs: w.startOffsetsS?.map((round) => round.map((s) => Math.round(s * 1e12))) ?? null,
          startPs,
          transport,
        });
      case 'flow':
      case 'permutation':
        return new FlowsWorkload(
          w.kind,
          name,
          w.flows.map((f) => ({ ...f, startPs, transport })),
        );
      default:
        return new CollectiveWorkload({
          name,
          kind: w.kind,
          ranks: w.ranks,
          sizeBytes: w.sizeBytes,
          chunkBytes: w.chunkBytes,
          steps: w.steps,
          slices: w.slices,
          iterations: w.iterations,
          computeMeanPs: Math.round(w.computeMeanS * 1e12),
          computeJitterPs: Math.round(w.computeJitterS * 1e12),
          startPs,
          transport,
        });
    }
  });
}

export function runPacket(
  scenario: Scenario,
  topology: Topology,
  seed: number,
  onProgress?: (simUs: number) => void,
): PacketRun {
  const bufferConfig = bufferConfigOf(scenario, topology);
  const sim = new Simulator(topology, bufferConfig, seed, Math.round(scenario.sim.sampleInterval * 1e12));
  const tcpConfig = tcpConfigOf(scenario);
  const pfcOn = scenario.switch.pfc?.enabled === true;
  const hostRateBps = topology.links[0]?.rateBps ?? 0;
  const connect = (
    src: number,
    dst: number,
    transport: TransportKind,
    listener: MessageListener,
  ): Connection =>
    sim.addConnection((id) => {
      const hash = connectionEcmpHash(id, seed);
      const forward = Int32Array.from(topology.route(src, dst, hash));
      const reverse = Int32Array.from(topology.route(dst, src, hash));
      const lineRate = topology.links[forward[0]!]?.rateBps ?? hostRateBps;
      if (transport === 'tcp') {
        const rtt =
          routeTimePs(topology, forward, tcpWireBytes(tcpConfig.mssBytes)) +
          routeTimePs(topology, reverse, MIN_FRAME_WIRE_BYTES);
        const options = {
          id,
          src,
          dst,
          cls: CLS_LOSSY,
          forward,
          reverse,
          ctx: sim,
          config: tcpConfig,
          baseRttPs: rtt,
          randomSeed: connectionRandomSeed(id, seed),
        };
        return tcpConfig.rack ? new RackTcpConnection(options) : new TcpConnection(options);
      }
      const roce = roceConfigOf(scenario, lineRate);
      return new RoceConnection({
        id,
        src,
        dst,
        cls: pfcOn ? CLS_LOSSLESS : CLS_LOSSY,
        forward,
        reverse,
        ctx: sim,
        config: roce,
        lineRateBps: lineRate,
      });
    }, listener);
  const workloads = buildWorkloads(planWorkloads(scenario, topology.hostCount, seed));
  for (const workload of workloads) workload.start(sim, connect);
  for (const fault of scenario.faults ?? []) sim.setHostPortLoss(fault.host, fault.loss);
  for (const storm of scenario.pauseStorms ?? []) {
    const startPs = Math.round(storm.start * 1e12);
    sim.pfc.addPauseStorm(
      storm.host,
      startPs,
      storm.duration === undefined ? Infinity : startPs + Math.round(storm.duration * 1e12),
    );
  }
  const maxTimePs = Math.round(scenario.sim.maxTime * 1e12);
  const status = sim.run(maxTimePs, onProgress ? (ps) => onProgress(psToUs(ps)) : undefined);
  return { sim, workloads, status, hostRateBps, maxTimePs };
}

/**
 * A connection's own seed for the draws its transport makes (BBR's first PROBE_BW phase, random in
 * Linux: tcp_bbr.c get_random_u32_below): the run's seed mixed with the connection's id (MurmurHash3's
 * fmix32 finaliser), so runs with different seeds draw differently and a run repeats for its seed.
 */
function connectionRandomSeed(id: number, seed: number): number {
  let h = (Math.imul(id + 1, 0x9e3779b1) ^ Math.imul(seed >>> 0, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0 || 1;
}
