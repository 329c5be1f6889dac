/**
 * Alpha-beta cost of one collective on one shape: T = latency + bytes on the bottleneck / bandwidth
 * (+ expected TCP timeout stalls). Algorithms as NCCL runs them (ring, double binary tree) plus a
 * hierarchical NVLink-then-network scheme; `auto` picks the fastest algorithm and protocol by the
 * same model, as NCCL's tuner does (src/graph/tuning.cc). Formulas: docs/models.md.
 */
import { UsageError } from '../core/errors.js';
import { busbwFactor, algbwGBps, type CollectiveOp } from './busbw.js';
import {
  BASE_LATENCY_US,
  NET_HOP_LATENCY_US,
  NVLINK_HOP_LATENCY_US,
  PROTOCOL_BANDWIDTH_SHARE,
  SIMPLE_NET_OVERHEAD_FACTOR,
  TREE_ALGBW_RATIO,
  TREE_BUSBW_DERATE,
  type NcclAlgorithm,
  type NcclProtocol,
} from './nccl-tuning.js';
import { nodeNetworkGBps, rankCount, spineSlowdown, switchHops, type CollectiveShape } from './collective-shape.js';
import { expectedTimeoutDelayUs } from './transport.js';

import { ALGORITHM_CHOICES, type AlgorithmChoice } from './algorithms.js';
export { ALGORITHM_CHOICES, type AlgorithmChoice } from './algorithms.js';
/** `local`: a one-rank collective, which NCCL runs as a device copy (src/enqueue.cc ncclLaunchOneRank). */
export type AlgorithmUsed = 'ring' | 'tree' | 'hierarchical' | 'p2p' | 'local';

/** tuning.cc getNetOverhead: about 1 us of proxy work per network operation on x86 hosts. */
const NET_OVERHEAD_US = 1.0;

/**
 * Time of a one-rank call that moves nothing: 0.78 us, the in-place one-rank alltoall of
 * test/fixtures/nccl-tests/nccl-tests-issue287-rtx5090-alltoall-1rank-na.txt (NVIDIA/nccl-tests issue 287).
 */
const ONE_RANK_CALL_US = 0.78;

export interface CollectiveEstimate {
  timeUs: number;
  algbwGBps: number;
  busbwGBps: number;
  algo: AlgorithmUsed;
  /** `copy`: the local device copy of a one-rank collective. */
  protocol: NcclProtocol | 'alpha-beta' | 'copy';
  latencyUs: number;
  bandwidthTimeUs: number;
  timeoutDelayUs: number;
}

interface Cost {
  latencyUs: number;
  /** Bytes over the bottleneck divided by its bandwidth, in us. */
  bandwidthTimeUs: number;
  /** For TCP's timeout term: network steps, concurrent flows per step, bytes per flow. */
  networkSteps: number;
  flowsPerStep: number;
  bytesPerFlow: number;
}

const usFor = (bytes: number, gigabytesPerSecond: number): number =>
  gigabytesPerSecond === Number.POSITIVE_INFINITY ? 0 : (bytes / (gigabytesPerSecond * 1e9)) * 1e6;

function interHopLatencyUs(shape: CollectiveShape, algo: NcclAlgorithm, protocol: NcclProtocol): number {
  return NET_HOP_LATENCY_US[algo][protocol] + shape.netMessageLatencyUs + switchHops(shape) * shape.switchHopLatencyUs;
}

function intraHopLatencyUs(shape: CollectiveShape, algo: NcclAlgorithm, protocol: NcclProtocol): number {
  const nvlink = NVLINK_HOP_LATENCY_US[algo][protocol];
  if (shape.nodes <= 1) return nvlink;
  const overhead = protocol === 'Simple' ? NET_OVERHEAD_US * SIMPLE_NET_OVERHEAD_FACTOR : NET_OVERHEAD_US;
  return Math.max(nvlink, overhead);
}

/** Bandwidth every ring edge gets: the node's network (spread over its NICs) or NVLink, whichever is lower. */
function ringBottleneckGBps(shape: CollectiveShape): number {
  if (shape.nodes <= 1) return shape.intraGBps;
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkGBps(shape) / spineSlowdown(shape, 1 / leaves);
  return Math.min(network, shape.intraGBps);
}

function ringSteps(op: CollectiveOp, ranks: number, nodes: number): { steps: number; interSteps: number; volumeFactor: number } {
  // tuning.cc: nsteps 2(n-1) for all_reduce, n-1 for all_gather/reduce_scatter, n otherwise;
  // nInterSteps 2(N-1) for all_reduce, N-1 otherwise.
  const interSteps = nodes <= 1 ? 0 : op === 'all_reduce' ? 2 * (nodes - 1) : nodes - 1;
  switch (op) {
    case 'all_reduce':
      return { steps: 2 * (ranks - 1), interSteps, volumeFactor: (2 * (ranks - 1)) / ranks };
    case 'all_gather':
    case 'reduce_scatter':
      return { steps: ranks - 1, interSteps, volumeFactor: (ranks - 1) / ranks };
    default:
      return { steps: ranks, interSteps, volumeFactor: 1 };
  }
}

function streamsPerFlow(shape: CollectiveShape): number {
  return shape.fabric?.tcp?.streamsPerPeer ?? 1;
}

function ringCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
  const ranks = rankCount(shape);
  const { steps, interSteps, volumeFactor } = ringSteps(op, ranks, shape.nodes);
  const bandwidth = ringBottleneckGBps(shape) * PROTOCOL_BANDWIDTH_SHARE[protocol];
  const latencyUs =
    BASE_LATENCY_US.ring[protocol] +
    (steps - interSteps) * intraHopLatencyUs(shape, 'ring', protocol) +
    interSteps * interHopLatencyUs(shape, 'ring', protocol);
  const streams = streamsPerFlow(shape);
  return {
    latencyUs,
    bandwidthTimeUs: usFor(volumeFactor * sizeBytes, bandwidth),
    networkSteps: interSteps,
    flowsPerStep: shape.nodes * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / ranks / streams,
  };
}

function treeCost(sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
  // NCCL's tuner: tree algbw = 0.5 x min(0.92 x bus bandwidth); latency 2((g-1) intra + log2(N) inter).
  const busBandwidth = ringBottleneckGBps(shape) * PROTOCOL_BANDWIDTH_SHARE[protocol] * TREE_BUSBW_DERATE;
  const depth = Math.floor(Math.log2(Math.max(1, shape.nodes)));
  const latencyUs =
    BASE_LATENCY_US.tree[protocol] +
    2 * ((shape.gpusPerNode - 1) * intraHopLatencyUs(shape, 'tree', protocol) + depth * interHopLatencyUs(shape, 'tree', protocol));
  const streams = streamsPerFlow(shape);
  return {
    latencyUs,
    bandwidthTimeUs: usFor(sizeBytes, busBandwidth * TREE_ALGBW_RATIO),
    networkSteps: 2 * depth,
    flowsPerStep: shape.nodes * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / 2 / shape.nicsPerNode / streams,
  };
}

function hierarchicalCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
  // Intra-node reduce-scatter over NVLink, inter-node ring per rail on 1/g of the data, intra-node
  // all-gather; phases pipelined chunk by chunk, so the slowest phase sets the bandwidth term.
  const g = shape.gpusPerNode;
  const n = shape.nodes;
  const passes = op === 'all_reduce' ? 2 : 1;
  const intraTime = usFor(passes * ((g - 1) / g) * sizeBytes, shape.intraGBps * PROTOCOL_BANDWIDTH_SHARE[protocol]);
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : n;
  const network = (nodeNetworkGBps(shape) / spineSlowdown(shape, 1 / leaves)) * PROTOCOL_BANDWIDTH_SHARE[protocol];
  const interTime = n <= 1 ? 0 : usFor(passes * ((n - 1) / n) * sizeBytes, network);
  const interSteps = n <= 1 ? 0 : passes * (n - 1);
  const latencyUs =
    BASE_LATENCY_US.ring[protocol] +
    passes * (g - 1) * intraHopLatencyUs(shape, 'ring', protocol) +
    interSteps * interHopLatencyUs(shape, 'ring', protocol);
  const streams = streamsPerFlow(shape);
  return {
    latencyUs,
    bandwidthTimeUs: Math.max(intraTime, interTime),
    networkSteps: interSteps,
    flowsPerStep: n * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / g / n / streams,
  };
}

function alltoallCost(sizeBytes: number, shape: CollectiveShape): Cost {
  // Each rank sends S/n to every other rank; all sends are posted at once (one group), so the
  // latency is one hop's and the bandwidth term is the busier of the network and NVLink.
  const ranks = rankCount(shape);
  const g = shape.gpusPerNode;
  const remoteShare = ranks > g ? (ranks - g) / ranks : 0;
  const crossLeaf = shape.topology.kind === 'leaf-spine' && shape.nodes > 1
    ? Math.max(0, shape.nodes - shape.topology.nodesPerLeaf) / (shape.nodes - 1)
    : 0;
  const network = nodeNetworkGBps(shape) / spineSlowdown(shape, crossLeaf);
  const netTime = remoteShare > 0 ? usFor(g * remoteShare * sizeBytes, network) : 0;
  const intraTime = usFor(((g - 1) / ranks) * sizeBytes, shape.intraGBps);
  const hop = shape.nodes > 1 ? interHopLatencyUs(shape, 'ring', 'Simple') : intraHopLatencyUs(shape, 'ring', 'Simple');
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: BASE_LATENCY_US.ring.Simple + hop,
    bandwidthTimeUs: Math.max(netTime, intraTime),
    networkSteps: shape.nodes > 1 ? 1 : 0,
    flowsPerStep: g * (ranks - g) * streams,
    bytesPerFlow: sizeBytes / ranks / streams,
  };
}

function sendrecvCost(sizeBytes: number, shape: CollectiveShape): Cost {
  // nccl-tests sendrecv: rank r sends S to r+1. Across nodes one pair per node crosses, on one NIC.
  const linkGBps = shape.nodes > 1 ? Math.min(shape.nicGBps, shape.intraGBps) : shape.intraGBps;
  const hop = shape.nodes > 1 ? interHopLatencyUs(shape, 'ring', 'Simple') : intraHopLatencyUs(shape, 'ring', 'Simple');
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: BASE_LATENCY_US.ring.Simple + hop,
    bandwidthTimeUs: usFor(sizeBytes, linkGBps),
    networkSteps: shape.nodes > 1 ? 1 : 0,
    flowsPerStep: shape.nodes * streams,
    bytesPerFlow: sizeBytes / streams,
  };
}

/** Pure alpha-beta (no NCCL, protocol or GPU terms): ring T = steps x alpha + volume / B. */
function pureAlphaBetaCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, algo: AlgorithmUsed): Cost {
  const alpha = shape.pureAlphaUs ?? 0;
  const ranks = rankCount(shape);
  const bandwidth = shape.nodes > 1 || shape.gpusPerNode === 1 ? nodeNetworkGBps(shape) : shape.nicGBps;
  const none = { networkSteps: 0, flowsPerStep: 0, bytesPerFlow: 0 };
  if (algo === 'tree') {
    const depth = Math.ceil(Math.log2(Math.max(1, ranks)));
    return { latencyUs: 2 * depth * alpha, bandwidthTimeUs: usFor(2 * sizeBytes, bandwidth), ...none };
  }
  if (op === 'alltoall') {
    return { latencyUs: (ranks - 1) * alpha, bandwidthTimeUs: usFor(((ranks - 1) / ranks) * sizeBytes, bandwidth), ...none };
  }
  if (op === 'sendrecv') return { latencyUs: alpha, bandwidthTimeUs: usFor(sizeBytes, shape.nicGBps), ...none };
  const { volumeFactor } = ringSteps(op, ranks, shape.nodes);
  const steps = op === 'all_reduce' ? 2 * (ranks - 1) : ranks - 1;
  return { latencyUs: steps * alpha, bandwidthTimeUs: usFor(volumeFactor * sizeBytes, bandwidth), ...none };
}

const supportsAlgorithm = (op: CollectiveOp, algo: AlgorithmUsed): boolean => {
  if (op === 'alltoall' || op === 'sendrecv') return algo === 'p2p';
  if (algo === 'tree') return op === 'all_reduce';
  if (algo === 'hierarchical') return op === 'all_reduce' || op === 'all_gather' || op === 'reduce_scatter';
  return algo === 'ring';
};

/**
 * The `--algo` choices that apply to an op: NCCL runs tree for all_reduce only; the hierarchical
 * scheme covers all_reduce, all_gather and reduce_scatter; alltoall and sendrecv are point-to-point
 * sends with no algorithm to choose (NCCL src/enqueue.cc), so only `auto` applies to them.
 */
export function applicableAlgorithms(op: CollectiveOp): AlgorithmChoice[] {
  return ALGORITHM_CHOICES.filter((choice) => choice === 'auto' || supportsAlgorithm(op, choice));
}

/** Throws the usage error `--algo` gets for an algorithm that does not apply to the op. */
export function checkAlgorithmApplies(op: CollectiveOp, choice: AlgorithmChoice): void {
  if (choice === 'auto' || supportsAlgorithm(op, choice)) return;
  const p2p = op === 'alltoall' || op === 'sendrecv' ? ': NCCL runs it as point-to-point sends' : '';
  throw new UsageError(`--algo ${choice} does not apply to ${op}${p2p} (algorithms for ${op}: ${applicableAlgorithms(op).join(', ')})`);
}

/** One rank: no network, no peers; a local copy at device-copy speed after the call floor (pure alpha-beta: nothing). */
function oneRankCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const none = { networkSteps: 0, flowsPerStep: 0, bytesPerFlow: 0 };
  if (shape.pureAlphaUs !== undefined) return { latencyUs: 0, bandwidthTimeUs: 0, ...none };
  return { latencyUs: ONE_RANK_CALL_US, bandwidthTimeUs: usFor(sizeBytes, shape.localCopyGBps), ...none };
}

/** Protocols NCCL enables on this path: LL128 needs ordered 128-byte stores (NVLink, GPUDirect RDMA). */
function protocolsFor(shape: CollectiveShape): NcclProtocol[] {
  const ll128 = shape.nodes <= 1 || (shape.fabric !== undefined && shape.fabric.transport !== 'tcp' && shape.transport?.stagingLimitGBps === Number.POSITIVE_INFINITY);
  return ll128 ? ['LL', 'LL128', 'Simple'] : ['LL', 'Simple'];
}

function finish(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, cost: Cost, algo: AlgorithmUsed, protocol: CollectiveEstimate['protocol']): CollectiveEstimate {
  const timeoutDelayUs = shape.fabric && shape.pureAlphaUs === undefined
    ? expectedTimeoutDelayUs(shape.fabric, cost.networkSteps, cost.flowsPerStep, cost.bytesPerFlow)
    : 0;
  const timeUs = cost.latencyUs + cost.bandwidthTimeUs + timeoutDelayUs;
  const ranks = rankCount(shape);
  const algbw = algbwGBps(sizeBytes, timeUs);
  return {
    timeUs,
    algbwGBps: algbw,
    busbwGBps: algbw * busbwFactor(op, ranks),
    algo,
    protocol,
    latencyUs: cost.latencyUs,
    bandwidthTimeUs: cost.bandwidthTimeUs,
    timeoutDelayUs,
  };
}

function costFor(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, algo: AlgorithmUsed, protocol: NcclProtocol): Cost {
  switch (algo) {
    case 'tree':
      return treeCost(sizeBytes, shape, protocol);
    case 'hierarchical':
      return hierarchicalCost(op, sizeBytes, shape, protocol);
    case 'p2p':
      return op === 'alltoall' ? alltoallCost(sizeBytes, shape) : sendrecvCost(sizeBytes, shape);
    case 'ring':
      return ringCost(op, sizeBytes, shape, protocol);
    case 'local':
      return oneRankCost(sizeBytes, shape);
  }
}

export function estimateCollective(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, choice: AlgorithmChoice = 'auto'): CollectiveEstimate {
  if (!(sizeBytes >= 0)) throw new UsageError(`invalid message size ${sizeBytes} (expected 0 or more bytes)`);
  checkAlgorithmApplies(op, choice);
  if (rankCount(shape) === 1) {
    return finish(op, sizeBytes, shape, oneRankCost(sizeBytes, shape), 'local', shape.pureAlphaUs !== undefined ? 'alpha-beta' : 'copy');
  }
  const p2p = op === 'alltoall' || op === 'sendrecv';
  // auto considers what NCCL itself would run: ring and tree (hierarchical needs NVLS/CollNet hardware).
  const candidates: AlgorithmUsed[] = p2p ? ['p2p'] : choice === 'auto' ? ['ring', 'tree'] : [choice];
  if (shape.pureAlphaUs !== undefined) {
    const algo = candidates.find((candidate) => supportsAlgorithm(op, candidate)) ?? 'ring';
    return finish(op, sizeBytes, shape, pureAlphaBetaCost(op, sizeBytes, shape, algo), algo, 'alpha-beta');
  }
  let best: CollectiveEstimate | undefined;
  for (const algo of candidates) {
    if (!supportsAlgorithm(op, algo)) continue;
    if (algo === 'tree' && choice === 'auto' && shape.nodes <= 1) continue; // NCCL uses tree across nodes only
    const protocols: NcclProtocol[] = algo === 'p2p' ? ['Simple'] : protocolsFor(shape);
    for (const protocol of protocols) {
      const estimate = finish(op, sizeBytes, shape, costFor(op, sizeBytes, shape, algo, protocol), algo, protocol);
      if (!best || estimate.timeUs < best.timeUs) best = estimate;
    }
  }
  if (!best) throw new UsageError(`no algorithm available for ${op}`);
  return best;
}
