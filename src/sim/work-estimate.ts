/**
 * What a scenario asks of the machine, estimated from its numbers alone (nothing is built), so a
 * scenario that would run for days or exhaust memory is refused in milliseconds at the YAML line of
 * the field that drives it, instead of dying of heap exhaustion after a minute.
 *
 * Packet mode: events ~ 2.5 per packet-hop (measured on the example scenarios: 1.6 to 2.4), with
 * data packets of one MSS or MTU, one ACK per `ackEvery` of them, and every packet crossing the
 * topology's longest route. A run is also bounded by maxTime: no more packet-hops than every link
 * sending back-to-back MTU frames (ACKs counted as many again) for that long. Fluid mode counts chunk
 * transfers, one flow each (about 2 events each: 67 M events for 33.5 M transfers, docs/PERFORMANCE.md).
 * Memory: per node, link (the packet sampler keeps 256 samples of 2 doubles per link), connection,
 * message and rank-iteration. Checked against peak RSS: 20,000 hosts 241 MiB estimated, 99 MiB
 * resident after a short run (the sampler's pages fill as samples are taken); 4,032 connections 81
 * against 83 MiB; 200,000 iterations of a 2-rank all_reduce 224 against 212 MiB. The JavaScript heap
 * (objects, arrays of numbers) is checked against V8's own limit, typed arrays only against the total.
 */
import { getHeapStatistics } from 'node:v8';
import { semanticError, type SourceLocation } from '../spec/index.js';
import { roceWireBytes, tcpWireBytes } from './net/wire.js';
import { chunkBytesOf, stepsPerIteration } from './plan/index.js';
import type { Scenario, ScenarioWorkload } from './scenario-schema.js';

export type WorkMode = 'packet' | 'fluid';

/** Limits printed in `sim --help`. */
export const WORK_LIMITS = {
  /** Packet-mode events: about 10 minutes at 1.5 M events/s, this machine's rate under load. */
  events: 1e9,
  /** Fluid-mode chunk transfers: about 3 minutes at the 4,096-GPU benchmark's 6 M transfers/s. */
  fluidTransfers: 1e9,
  /** Total memory the run may need (heap and typed arrays). */
  memoryBytes: 16 * 2 ** 30,
} as const;

/** V8's heap limit of this process (about 4 GiB by default; --max-old-space-size changes it). */
export function heapLimitBytes(): number {
  return getHeapStatistics().heap_size_limit;
}

const EVENTS_PER_PACKET_HOP = 2.5;
/** Measured coarsely: bytes per unit, [heap, typed arrays]. */
const BYTES = {
  base: [64 * 2 ** 20, 0],
  node: [200, 64],
  /** Packet mode: link objects and route maps on the heap; 256 x 2 doubles of samples, per-link state. */
  packetLink: [300, 256 * 2 * 8 + 120],
  fluidLink: [300, 64],
  connection: [4096, 0],
  /** Offset, tag, offer time and completion time of each message, in growing arrays. */
  message: [48, 0],
  /** One per-rank step point object in the series and its JSON text; join and finish times. */
  rankIteration: [300, 24],
  /** An explicit fluid flow: the FluidFlow object, its path and dependencies, its timing. */
  fluidFlow: [350, 60],
  /** A transfer of the fluid engine's arithmetic ring (no per-flow object). */
  fluidRingTransfer: [0, 4],
} as const;

interface TopologyShape {
  hosts: number;
  switches: number;
  cables: number;
  maxHops: number;
  /** Fastest link, bits per second (the maxTime bound assumes every link at this rate). */
  maxRateBps: number;
  /** The field that sets the host count. */
  hostField: (string | number)[];
}

function topologyShape(scenario: Scenario): TopologyShape {
  const t = scenario.topology;
  switch (t.kind) {
    case 'star': {
      const hops = new Set(t.faultHops ?? []).size;
      return {
        hosts: t.hosts,
        switches: 1 + hops,
        cables: t.hosts + hops,
        maxHops: hops > 0 ? 4 : 2,
        maxRateBps: t.linkRate,
        hostField: ['topology', 'hosts'],
      };
    }
    case 'leaf-spine': {
      const leaves = Math.ceil(t.hosts / t.hostsPerLeaf);
      const uplink = (t.hostsPerLeaf * t.linkRate) / (t.spines * t.oversubscription);
      return {
        hosts: t.hosts,
        switches: leaves + t.spines,
        cables: t.hosts + leaves * t.spines,
        maxHops: leaves > 1 ? 4 : 2,
        maxRateBps: Math.max(t.linkRate, uplink),
        hostField: ['topology', 'hosts'],
      };
    }
    case 'rail': {
      const hosts = t.servers * t.gpusPerServer;
      const uplink = (t.servers * t.linkRate) / Math.max(1, t.spines);
      return {
        hosts,
        switches: t.gpusPerServer + t.spines,
        cables: hosts + t.gpusPerServer * t.spines,
        maxHops: t.gpusPerServer > 1 ? 4 : 2,
        maxRateBps: Math.max(t.linkRate, uplink),
        hostField: ['topology', 'servers'],
      };
    }
    case 'fat-tree': {
      const k = t.k;
      return {
        hosts: k ** 3 / 4,
        switches: (5 * k * k) / 4,
        cables: k ** 3 / 4 + k ** 3 / 2,
        maxHops: 6,
        maxRateBps: t.linkRate,
        hostField: ['topology', 'k'],
      };
    }
    case 'ring': {
      const hosts = t.switches * t.hostsPerSwitch;
      return {
        hosts,
        switches: t.switches,
        cables: hosts + t.switches,
        maxHops: t.switches + 1,
        maxRateBps: t.linkRate,
        hostField: ['topology', 'switches'],
      };
    }
  }
}

/** One workload reduced to the numbers that cost: n parties, bytes per message, repetitions. */
interface WorkloadShape {
  index: number;
  kind: ScenarioWorkload['kind'];
  transport: 'tcp' | 'roce';
  /** Ranks, senders or hosts. */
  parties: number;
  /** Whether `parties` is every host of the topology (then the topology's host field drives it). */
  partiesAreHosts: boolean;
  sizeBytes: number;
  repeats: number;
}

function workloadShape(scenario: Scenario, w: ScenarioWorkload, index: number, hosts: number): WorkloadShape {
  const transport = w.transport ?? scenario.transport.kind;
  const base = { index, kind: w.kind, transport };
  switch (w.kind) {
    case 'incast':
      return {
        ...base,
        parties: typeof w.senders === 'number' ? w.senders : w.senders.length,
        partiesAreHosts: false,
        sizeBytes: w.blockSize,
        repeats: w.rounds,
      };
    case 'flow':
      return { ...base, parties: 1, partiesAreHosts: false, sizeBytes: w.size, repeats: 1 };
    case 'permutation':
      return { ...base, parties: hosts, partiesAreHosts: true, sizeBytes: w.size, repeats: 1 };
    default: {
      const parties = w.ranks === undefined ? hosts : typeof w.ranks === 'number' ? w.ranks : w.ranks.length;
      return {
        ...base,
        parties,
        partiesAreHosts: w.ranks === undefined,
        sizeBytes: w.size,
        repeats: w.iterations,
      };
    }
  }
}

/** Messages, their size, connections and (rank, iteration) pairs of one workload. */
function workloadCounts(w: WorkloadShape): {
  messages: number;
  messageBytes: number;
  connections: number;
  rankIterations: number;
} {
  const n = w.parties;
  switch (w.kind) {
    case 'incast':
      return { messages: n * w.repeats, messageBytes: w.sizeBytes, connections: n, rankIterations: 0 };
    case 'flow':
      return { messages: 1, messageBytes: w.sizeBytes, connections: 1, rankIterations: 0 };
    case 'permutation':
      return { messages: n, messageBytes: w.sizeBytes, connections: n, rankIterations: 0 };
    default: {
      const chunk = chunkBytesOf(w.sizeBytes, n);
      const perRank = stepsPerIteration(w.kind, n);
      return {
        messages: n * perRank * w.repeats,
        messageBytes: chunk,
        connections: w.kind === 'alltoall' ? n * (n - 1) : n,
        rankIterations: n * w.repeats,
      };
    }
  }
}

export interface WorkEstimate {
  /** Packet mode: events; fluid mode: chunk transfers (flows). */
  work: number;
  workUnit: 'events' | 'chunk transfers';
  memoryBytes: number;
  heapBytes: number;
  /** Each workload's share of `work`, in workload order. */
  byWorkload: number[];
  /** Memory the topology alone needs. */
  topologyBytes: number;
}

function packetEstimate(scenario: Scenario, topo: TopologyShape, shapes: WorkloadShape[]): WorkEstimate {
  const nodes = topo.hosts + topo.switches;
  const links = 2 * topo.cables;
  const [heapNode, typedNode] = BYTES.node;
  const [heapLink, typedLink] = BYTES.packetLink;
  const topologyHeap = nodes * heapNode + links * heapLink;
  const topologyTyped = nodes * typedNode + links * typedLink;
  const tcp = scenario.transport.tcp;
  const roce = scenario.transport.roce;
  let events = 0;
  let connections = 0;
  let messages = 0;
  let rankIterations = 0;
  let mtuWire = 0;
  let ackShare = 0;
  const byWorkload = shapes.map((w) => {
    const c = workloadCounts(w);
    const payload = w.transport === 'tcp' ? tcp.mss : roce.mtu;
    const ackEvery = w.transport === 'tcp' ? tcp.ackEvery : roce.ackEvery;
    mtuWire = Math.max(mtuWire, w.transport === 'tcp' ? tcpWireBytes(tcp.mss) : roceWireBytes(roce.mtu));
    ackShare = Math.max(ackShare, 1 / ackEvery);
    const packets = c.messages * Math.max(1, Math.ceil(c.messageBytes / payload)) * (1 + 1 / ackEvery);
    const e = EVENTS_PER_PACKET_HOP * packets * topo.maxHops;
    events += e;
    connections += c.connections;
    messages += c.messages;
    rankIterations += c.rankIterations;
    return e;
  });
  // Within maxTime no link sends more than back-to-back MTU frames (and as many ACKs on the way back).
  const hopsPerSecond = ((links * topo.maxRateBps) / (8 * Math.max(1, mtuWire))) * (1 + ackShare);
  const bound = EVENTS_PER_PACKET_HOP * hopsPerSecond * scenario.sim.maxTime;
  const work = Math.min(events, bound);
  // Messages and iterations are recorded as they happen: only the share maxTime lets happen counts.
  const share = events > 0 ? work / events : 0;
  const heap =
    BYTES.base[0] +
    topologyHeap +
    connections * BYTES.connection[0] +
    share * (messages * BYTES.message[0] + rankIterations * BYTES.rankIteration[0]);
  const typed = topologyTyped + share * rankIterations * BYTES.rankIteration[1];
  return {
    work,
    workUnit: 'events',
    memoryBytes: heap + typed,
    heapBytes: heap,
    byWorkload: byWorkload.map((e) => e * share),
    topologyBytes: topologyHeap + topologyTyped,
  };
}

/**
 * Whether fluid mode runs this scenario on the engine's arithmetic ring (fluid-ring-fast-path.ts):
 * one ring all_reduce or all_gather, once, without compute, of at least `minTransfers` chunk transfers.
 */
export function fluidRingFastPath(
  scenario: Scenario,
  hosts: number,
  minTransfers: number = FLUID_FAST_PATH_MIN_TRANSFERS,
): boolean {
  const w = scenario.workloads[0];
  if (scenario.workloads.length !== 1 || !w || (w.kind !== 'allreduce' && w.kind !== 'allgather'))
    return false;
  if (w.iterations !== 1 || (w.compute?.mean ?? 0) > 0 || w.start > 0) return false;
  const ranks = w.ranks === undefined ? hosts : typeof w.ranks === 'number' ? w.ranks : w.ranks.length;
  return ranks * stepsPerIteration(w.kind, ranks) >= minTransfers;
}

/** Below this many chunk transfers the explicit flows are cheap enough (fluid-run.ts); a run option lowers it. */
export const FLUID_FAST_PATH_MIN_TRANSFERS = 1_000_000;

function fluidEstimate(scenario: Scenario, topo: TopologyShape, shapes: WorkloadShape[]): WorkEstimate {
  const nodes = topo.hosts + topo.switches;
  const links = 2 * topo.cables;
  const topologyHeap = nodes * BYTES.node[0] + links * BYTES.fluidLink[0];
  const topologyTyped = nodes * BYTES.node[1] + links * BYTES.fluidLink[1];
  const arithmetic = fluidRingFastPath(scenario, topo.hosts);
  const [heapFlow, typedFlow] = arithmetic ? BYTES.fluidRingTransfer : BYTES.fluidFlow;
  let transfers = 0;
  const byWorkload = shapes.map((w) => {
    const c = workloadCounts(w);
    transfers += c.messages;
    return c.messages;
  });
  const heap = BYTES.base[0] + topologyHeap + transfers * heapFlow;
  const typed = topologyTyped + transfers * typedFlow;
  return {
    work: transfers,
    workUnit: 'chunk transfers',
    memoryBytes: heap + typed,
    heapBytes: heap,
    byWorkload,
    topologyBytes: topologyHeap + topologyTyped,
  };
}

function estimateShapes(
  scenario: Scenario,
  mode: WorkMode,
  topo: TopologyShape,
  shapes: WorkloadShape[],
): WorkEstimate {
  return mode === 'fluid' ? fluidEstimate(scenario, topo, shapes) : packetEstimate(scenario, topo, shapes);
}

export function estimateWork(scenario: Scenario, mode: WorkMode): WorkEstimate {
  const topo = topologyShape(scenario);
  const shapes = scenario.workloads.map((w, i) => workloadShape(scenario, w, i, topo.hosts));
  return estimateShapes(scenario, mode, topo, shapes);
}

/** Counts below this print in full with digit groups, larger ones as 5.1e13 (chosen: six digits still read at a glance). */
const PLAIN_COUNT_BELOW = 1e6;

/** 5.1e13, 3e9, 120,000: about two significant digits. */
function formatCount(value: number): string {
  if (value < PLAIN_COUNT_BELOW) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(2)).toExponential().replace('e+', 'e');
}

function formatBytes(bytes: number): string {
  const units: [string, number][] = [
    ['PiB', 2 ** 50],
    ['TiB', 2 ** 40],
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
  ];
  for (const [unit, factor] of units)
    if (bytes >= factor) return `${Number((bytes / factor).toPrecision(2))} ${unit}`;
  return `${Math.round(bytes)} B`;
}

type Locate = (path: readonly (string | number)[]) => SourceLocation;

interface Exceeded {
  measure: (e: WorkEstimate) => number;
  text: (value: number) => string;
  limit: string;
}

/**
 * Refuse a scenario whose estimate is over a limit, naming the field that drives it: of the
 * dominant workload's fields (repetitions, size, parties) and the topology's host count, the one
 * whose reduction to its smallest value lowers the estimate the most.
 */
export function checkWork(scenario: Scenario, mode: WorkMode, locate: Locate): void {
  const topo = topologyShape(scenario);
  const shapes = scenario.workloads.map((w, i) => workloadShape(scenario, w, i, topo.hosts));
  const estimate = estimateShapes(scenario, mode, topo, shapes);
  const heapLimit = heapLimitBytes();
  const workLimit = mode === 'fluid' ? WORK_LIMITS.fluidTransfers : WORK_LIMITS.events;
  const checks: Exceeded[] = [
    {
      measure: (e) => e.memoryBytes,
      text: (v) => `${formatBytes(v)} of memory`,
      limit: formatBytes(WORK_LIMITS.memoryBytes),
    },
    {
      measure: (e) => e.heapBytes,
      text: (v) => `${formatBytes(v)} of JavaScript heap`,
      limit: `${formatBytes(heapLimit)} (node's heap limit; NODE_OPTIONS=--max-old-space-size=MiB raises it)`,
    },
    {
      measure: (e) => e.work,
      text: (v) => `${formatCount(v)} ${estimate.workUnit}`,
      limit: `${formatCount(workLimit)} ${estimate.workUnit}`,
    },
  ];
  const limits = [WORK_LIMITS.memoryBytes, heapLimit, workLimit];
  checks.forEach((check, i) => {
    const value = check.measure(estimate);
    const limit = limits[i]!;
    if (!(value > limit)) return;
    const path = blame(scenario, mode, topo, shapes, estimate, check.measure, i === 2);
    throw semanticError(
      locate(path),
      path,
      `asks for about ${check.text(value)}; the limit is ${check.limit}`,
    );
  });
}

/** The topology is blamed first when its own memory is more than this share of the whole (chosen: it is then the bigger half). */
const TOPOLOGY_DOMINATES_SHARE = 0.5;

function blame(
  scenario: Scenario,
  mode: WorkMode,
  topo: TopologyShape,
  shapes: WorkloadShape[],
  estimate: WorkEstimate,
  measure: (e: WorkEstimate) => number,
  isWork: boolean,
): (string | number)[] {
  const candidates: { path: (string | number)[]; value: number }[] = [];
  const tryReduced = (
    path: (string | number)[],
    topoPatch: Partial<TopologyShape>,
    change: (w: WorkloadShape) => WorkloadShape,
  ): void => {
    const smallTopo = { ...topo, ...topoPatch };
    const reduced = shapes.map(change);
    candidates.push({ path, value: measure(estimateShapes(scenario, mode, smallTopo, reduced)) });
  };
  // The topology by itself, then the workload that costs the most.
  const topologyDominates = !isWork && estimate.topologyBytes > TOPOLOGY_DOMINATES_SHARE * measure(estimate);
  const smallHosts = {
    hosts: 2,
    cables: Math.min(topo.cables, 2 + topo.switches),
    switches: Math.min(topo.switches, 2),
  };
  const hostsPatch = (w: WorkloadShape): WorkloadShape => (w.partiesAreHosts ? { ...w, parties: 2 } : w);
  if (topologyDominates) return topo.hostField;
  let dominant = 0;
  estimate.byWorkload.forEach((value, i) => {
    if (value > (estimate.byWorkload[dominant] ?? 0)) dominant = i;
  });
  const w = shapes[dominant];
  if (!w) return topo.hostField;
  const at = (field: string): (string | number)[] => ['workloads', w.index, field];
  const only =
    (patch: Partial<WorkloadShape>) =>
    (x: WorkloadShape): WorkloadShape =>
      x.index === w.index ? { ...x, ...patch } : x;
  if (w.repeats > 1) tryReduced(at(w.kind === 'incast' ? 'rounds' : 'iterations'), {}, only({ repeats: 1 }));
  if (w.sizeBytes > 1) tryReduced(at(w.kind === 'incast' ? 'blockSize' : 'size'), {}, only({ sizeBytes: 1 }));
  if (w.kind === 'incast' && w.parties > 1) tryReduced(at('senders'), {}, only({ parties: 1 }));
  if (w.partiesAreHosts) tryReduced(topo.hostField, smallHosts, hostsPatch);
  else if (w.kind !== 'incast' && w.kind !== 'flow' && w.parties > 2)
    tryReduced(at('ranks'), {}, only({ parties: 2 }));
  let best = candidates[0];
  for (const c of candidates) if (best && c.value < best.value) best = c;
  return best?.path ?? topo.hostField;
}
