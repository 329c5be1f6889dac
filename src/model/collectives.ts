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
  NET_OVERHEAD_US,
  SIMPLE_NET_OVERHEAD_FACTOR,
  TREE_ALGBW_RATIO,
  TREE_BUSBW_SHARE,
  TREE_LL_SHARE,
  channelsForSize,
  ll128BusbwShare,
  llBusbwShare,
  llMaxBandwidthGBps,
  protocolOfId,
  ringLl128PerChannelGBps,
  ringPlateauFactor,
  treeCorrection,
  treeLl128PerChannelGBps,
  treeLl128Share,
  treePerChannelGBps,
  type NcclProtocol,
  type ProtocolChoice,
} from './nccl-tuning.js';
import { rankCount, spineSlowdown, type CollectiveShape } from './collective-shape.js';
import { lossStalls } from './transport.js';
import type { AlgorithmChoice } from './algorithms.js';
import {
  autoCandidates,
  checkAlgorithmApplies,
  checkAlgorithmRuns,
  type AlgorithmUsed,
} from './algorithm-rules.js';
import {
  interHopLatencyUs,
  intraHwLatency,
  nodeNetworkWithPcieGBps,
  ringBottleneckGBps,
  ringChannels,
  ringSteps,
  scaled,
  treeNetworkAlgbwGBps,
  usFor,
  type Cost,
  type Latency,
} from './cost-terms.js';
import { collnetCost, nvlsCost, nvlsTreeCost, patCost } from './nvls-costs.js';
import { alltoallCost, oneRankCost, pureAlphaBetaCost, sendrecvCost } from './p2p-costs.js';

export { ALGORITHM_CHOICES, type AlgorithmChoice } from './algorithms.js';
export {
  applicableAlgorithms,
  checkAlgorithmApplies,
  checkAlgorithmRuns,
  type AlgorithmUsed,
} from './algorithm-rules.js';
export { shapeWarnings } from './cost-terms.js';

export interface CollectiveEstimate {
  timeUs: number;
  algbwGBps: number;
  busbwGBps: number;
  algo: AlgorithmUsed;
  /** `copy`: the local device copy of a one-rank collective. */
  protocol: NcclProtocol | 'alpha-beta' | 'copy';
  latencyUs: number;
  bandwidthTimeUs: number;
  /**
   * TCP loss stalls inside timeUs: those nccl-tests' printed average carries in a typical run of
   * `shape.iterations` calls (zero while a stall is unlikely within them; docs/models.md section 2).
   */
  stallUs: number;
  /** TCP loss stalls per call on average (what a long training run pays); not all of it is in timeUs. */
  timeoutDelayUs: number;
  /** Channels NCCL runs this size on (0 where channels do not apply). */
  channels: number;
}

function ringCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
  const ranks = rankCount(shape);
  const { steps, interSteps, volumeFactor } = ringSteps(
    op,
    ranks,
    shape.nodes,
    shape.tuning.interStepsMinusOne,
  );
  const maxChannels = ringChannels(shape);
  const channels = channelsForSize(sizeBytes, maxChannels, protocol, protocol === 'LL', ranks);
  // A rooted op on two ranks is a one-way chain: the root's path only sends, the other's only receives.
  const graph = ringBottleneckGBps(shape, (op === 'broadcast' || op === 'reduce') && ranks === 2);
  let busBw = graph;
  if (protocol === 'LL')
    busBw = Math.min(
      llMaxBandwidthGBps(shape.generation, shape.nodes, shape.tuning),
      graph * llBusbwShare(shape.nodes, op === 'all_reduce' || op === 'reduce', shape.tuning),
    );
  if (protocol === 'LL128')
    busBw = Math.min(
      graph * ll128BusbwShare(shape.gpusPerNode, shape.tuning),
      maxChannels * ringLl128PerChannelGBps(shape.generation, shape.nodes),
    );
  // Fewer channels for a small message (enqueue.cc): each keeps its share of the bandwidth.
  busBw *= channels / maxChannels;
  const netOverhead =
    shape.nodes > 1 ? NET_OVERHEAD_US * (protocol === 'Simple' ? SIMPLE_NET_OVERHEAD_FACTOR : 1) : 0;
  const intraHop = Math.max(intraHwLatency(shape, 'ring', protocol), netOverhead);
  let latency: Latency = {
    base: BASE_LATENCY_US.ring[protocol],
    intra: (steps - interSteps) * intraHop,
    inter: interSteps * interHopLatencyUs(shape, 'ring', protocol),
  };
  // broadcast and reduce pay every one of their nRanks hops, as tuning.cc does without sameChannels: a chain's first chunk crosses them all.
  if (
    protocol === 'Simple' &&
    shape.nodes > 1 &&
    op === 'all_reduce' &&
    sizeBytes / (maxChannels * ranks) >= 64
  ) {
    const factor = ringPlateauFactor(shape.generation);
    latency = { base: latency.base * factor, intra: latency.intra * factor, inter: latency.inter * factor };
  }
  return {
    latencyUs: scaled(shape, latency, protocol),
    bandwidthTimeUs: usFor(volumeFactor * sizeBytes, busBw),
    networkSteps: interSteps,
    connections: shape.nodes * shape.nicsPerNode,
    bytesPerConnection: sizeBytes / ranks,
    channels: Math.round(channels),
  };
}

function treeCost(sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
  // A chain inside the node (each GPU sends S up and S down over its NVLink) and a double binary tree across nodes.
  const channels = Math.max(2, ringChannels(shape));
  const chainAlgbw = shape.gpusPerNode > 1 ? shape.intraGBps / 2 : Number.POSITIVE_INFINITY;
  const physical =
    Math.min(
      chainAlgbw * shape.constants.treeChainShare,
      treeNetworkAlgbwGBps(shape) * shape.constants.treeShare,
    ) / TREE_ALGBW_RATIO;
  let busBw = Math.min(
    physical * TREE_BUSBW_SHARE,
    channels * treePerChannelGBps(shape.generation, shape.nodes),
  );
  if (protocol === 'LL')
    busBw = Math.min(
      physical * TREE_LL_SHARE,
      llMaxBandwidthGBps(shape.generation, shape.nodes, shape.tuning),
    );
  if (protocol === 'LL128')
    busBw = Math.min(
      physical * treeLl128Share(shape.nodes),
      channels * treeLl128PerChannelGBps(shape.generation, shape.nodes),
    );
  const algbw = busBw * TREE_ALGBW_RATIO * treeCorrection(protocol, sizeBytes);
  const depth = Math.floor(Math.log2(Math.max(1, shape.nodes)));
  const base =
    protocol === 'Simple' && shape.tuning.treeSimpleHwLat.net === 28 ? 0 : BASE_LATENCY_US.tree[protocol];
  const latency: Latency = {
    base,
    intra: 2 * (shape.gpusPerNode - 1) * intraHwLatency(shape, 'tree', protocol),
    inter: 2 * depth * interHopLatencyUs(shape, 'tree', protocol),
  };
  return {
    latencyUs: scaled(shape, latency, protocol),
    bandwidthTimeUs: usFor(sizeBytes, algbw),
    networkSteps: 2 * depth,
    connections: shape.nodes * shape.nicsPerNode,
    bytesPerConnection: sizeBytes / 2 / shape.nicsPerNode,
    channels,
  };
}

function hierarchicalCost(
  op: CollectiveOp,
  sizeBytes: number,
  shape: CollectiveShape,
  protocol: NcclProtocol,
): Cost {
  // Intra-node reduce-scatter over NVLink, inter-node ring per rail on 1/g of the data, intra-node
  // all-gather; phases pipelined chunk by chunk, so the slowest phase sets the bandwidth term.
  const g = shape.gpusPerNode;
  const n = shape.nodes;
  const passes = op === 'all_reduce' ? 2 : 1;
  const share = protocol === 'LL' ? 0.5 : protocol === 'LL128' ? 120 / 128 : 1;
  const intraTime = usFor(passes * ((g - 1) / g) * sizeBytes, shape.intraGBps * share);
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : n;
  const network = (nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, 1 / leaves)) * share;
  const interTime = n <= 1 ? 0 : usFor(passes * ((n - 1) / n) * sizeBytes, network);
  const interSteps = n <= 1 ? 0 : passes * (n - 1);
  const latency: Latency = {
    base: BASE_LATENCY_US.ring[protocol],
    intra: passes * (g - 1) * intraHwLatency(shape, 'ring', protocol),
    inter: interSteps * interHopLatencyUs(shape, 'ring', protocol),
  };
  return {
    latencyUs: scaled(shape, latency, protocol),
    bandwidthTimeUs: Math.max(intraTime, interTime),
    networkSteps: interSteps,
    connections: n * shape.nicsPerNode,
    bytesPerConnection: sizeBytes / g / n,
  };
}

/**
 * Protocols NCCL enables on this path (tuning.cc LL128 rules): LL128 needs NVLink or PCIe switches
 * inside the node and GPUDirect RDMA (no CPU bounce) across nodes; NVLS, CollNet and PAT run Simple only.
 * Across nodes over EFA, aws-ofi-nccl sets NCCL_PROTO=simple unless the endpoint delivers 128-byte
 * aligned writes in order, which only the p5 (Hopper) class's RDMA write is taken to do
 * (aws/aws-ofi-nccl src/platform-aws.c: force_proto_simple for p4d, p4de, p3dn; the p5 + RDMA exception).
 */
function protocolsFor(shape: CollectiveShape, algo: AlgorithmUsed, forced: boolean): NcclProtocol[] {
  if (
    algo === 'nvls' ||
    algo === 'nvlstree' ||
    algo === 'collnetdirect' ||
    algo === 'collnetchain' ||
    algo === 'pat' ||
    algo === 'p2p'
  )
    return ['Simple'];
  // The plugin sets NCCL_PROTO only when the user has not: a forced protocol still runs.
  const efaBeforeP5 = shape.nodes > 1 && shape.fabric?.transport === 'efa';
  if (efaBeforeP5 && !forced) return ['Simple'];
  const ll128 =
    shape.intraKind === 'nvlink' &&
    (shape.nodes <= 1 || (shape.fabric !== undefined && shape.fabric.transport !== 'tcp' && shape.gpuDirect));
  return ll128 ? ['LL', 'LL128', 'Simple'] : ['LL', 'Simple'];
}

/**
 * ncclSend / ncclRecv calls nccl-tests posts per GPU and iteration inside its group: alltoall one of each
 * to every rank, itself included (NVIDIA/nccl-tests src/alltoall.cu AlltoAllRunColl; from NCCL 2.28 one
 * ncclAlltoAll call instead), sendrecv one of each (src/sendrecv.cu); a collective is one call, counted in hostLaunchUs.
 */
function p2pCallsPerGpu(op: CollectiveOp, ranks: number, shape: CollectiveShape): number {
  if (op === 'alltoall') return shape.tuning.alltoallCall ? 0 : 2 * ranks;
  return op === 'sendrecv' ? 2 : 0;
}

function finish(
  op: CollectiveOp,
  sizeBytes: number,
  shape: CollectiveShape,
  cost: Cost,
  algo: AlgorithmUsed,
  protocol: CollectiveEstimate['protocol'],
): CollectiveEstimate {
  const stalls =
    shape.fabric && shape.pureAlphaUs === undefined
      ? lossStalls(
          shape.fabric,
          cost.networkSteps,
          cost.connections,
          cost.bytesPerConnection,
          shape.iterations,
        )
      : { expectedUs: 0, typicalUs: 0 };
  // nccl-tests issues one NCCL call per GPU its thread drives (-g, src/common.cu startColl), so an
  // iteration takes at least that many host enqueues; the wait is counted as latency.
  const ranks = rankCount(shape);
  const perGpuUs =
    shape.constants.hostLaunchUs + p2pCallsPerGpu(op, ranks, shape) * shape.constants.hostCallUs;
  const hostFloorUs =
    shape.pureAlphaUs === undefined && algo !== 'local' ? shape.gpusPerThread * perGpuUs : 0;
  const latencyUs = Math.max(cost.latencyUs, hostFloorUs - cost.bandwidthTimeUs - stalls.typicalUs);
  const timeUs = latencyUs + cost.bandwidthTimeUs + stalls.typicalUs;
  const algbw = algbwGBps(sizeBytes, timeUs);
  return {
    timeUs,
    algbwGBps: algbw,
    busbwGBps: algbw * busbwFactor(op, ranks),
    algo,
    protocol,
    latencyUs,
    bandwidthTimeUs: cost.bandwidthTimeUs,
    stallUs: stalls.typicalUs,
    timeoutDelayUs: stalls.expectedUs,
    channels: cost.channels ?? 0,
  };
}

function costFor(
  op: CollectiveOp,
  sizeBytes: number,
  shape: CollectiveShape,
  algo: AlgorithmUsed,
  protocol: NcclProtocol,
): Cost {
  switch (algo) {
    case 'tree':
      return treeCost(sizeBytes, shape, protocol);
    case 'nvls':
      return nvlsCost(op, sizeBytes, shape);
    case 'nvlstree':
      return nvlsTreeCost(sizeBytes, shape);
    case 'collnetdirect':
      return collnetCost(sizeBytes, shape, false);
    case 'collnetchain':
      return collnetCost(sizeBytes, shape, true);
    case 'pat':
      return patCost(sizeBytes, shape);
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

/**
 * One collective on one shape. `auto` picks the algorithm and protocol with the least time, over what
 * the shape's NCCL version runs; a forced algorithm (NCCL_ALGO) or protocol (NCCL_PROTO) is kept.
 */
export function estimateCollective(
  op: CollectiveOp,
  sizeBytes: number,
  shape: CollectiveShape,
  choice: AlgorithmChoice = 'auto',
  protocolChoice: ProtocolChoice = 'auto',
): CollectiveEstimate {
  if (!(sizeBytes >= 0)) throw new UsageError(`invalid message size ${sizeBytes} (expected 0 or more bytes)`);
  checkAlgorithmApplies(op, choice);
  if (rankCount(shape) === 1) {
    return finish(
      op,
      sizeBytes,
      shape,
      oneRankCost(sizeBytes, shape),
      'local',
      shape.pureAlphaUs !== undefined ? 'alpha-beta' : 'copy',
    );
  }
  const p2p = op === 'alltoall' || op === 'sendrecv';
  if (shape.pureAlphaUs !== undefined) {
    const algo: AlgorithmUsed = p2p ? 'p2p' : choice === 'tree' ? 'tree' : 'ring';
    return finish(op, sizeBytes, shape, pureAlphaBetaCost(op, sizeBytes, shape, algo), algo, 'alpha-beta');
  }
  checkAlgorithmRuns(op, choice, shape);
  const candidates: AlgorithmUsed[] = p2p
    ? ['p2p']
    : choice === 'auto'
      ? autoCandidates(op, shape)
      : [choice];
  let best: CollectiveEstimate | undefined;
  for (const algo of candidates) {
    const enabled = protocolsFor(shape, algo, protocolChoice !== 'auto');
    const protocols =
      protocolChoice === 'auto' || algo === 'p2p'
        ? enabled
        : enabled.filter((protocol) => protocol === protocolOfId(protocolChoice));
    for (const protocol of protocols) {
      const estimate = finish(
        op,
        sizeBytes,
        shape,
        costFor(op, sizeBytes, shape, algo, protocol),
        algo,
        protocol,
      );
      if (!best || estimate.timeUs < best.timeUs) best = estimate;
    }
  }
  if (!best) {
    throw new UsageError(
      `--proto ${protocolChoice} does not run with ${choice === 'auto' ? 'any algorithm' : `--algo ${choice}`} for ${op} here (protocols: ${[...new Set(candidates.flatMap((algo) => protocolsFor(shape, algo, true)))].join(', ')})`,
    );
  }
  return best;
}
