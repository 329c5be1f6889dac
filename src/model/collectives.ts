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
  PCI_HOP_LATENCY_US,
  NET_OVERHEAD_US,
  PAT_BUSBW_SHARE,
  SIMPLE_NET_OVERHEAD_FACTOR,
  TREE_ALGBW_RATIO,
  TREE_BUSBW_SHARE,
  TREE_LL_SHARE,
  channelsForSize,
  ll128BusbwShare,
  llBusbwShare,
  llMaxBandwidthGBps,
  nvlsChannels,
  nvlsChunkBytes,
  nvlsEfficiency,
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
import { nodeNetworkGBps, rankCount, spineSlowdown, switchHops, type CollectiveShape } from './collective-shape.js';
import { expectedTimeoutDelayUs } from './transport.js';
import type { AlgorithmChoice, NcclAlgorithm } from './algorithms.js';
import { autoCandidates, checkAlgorithmApplies, checkAlgorithmRuns, type AlgorithmUsed } from './algorithm-rules.js';

export { ALGORITHM_CHOICES, type AlgorithmChoice } from './algorithms.js';
export { applicableAlgorithms, checkAlgorithmApplies, checkAlgorithmRuns, type AlgorithmUsed } from './algorithm-rules.js';

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
  /** Channels NCCL runs this size on (0 where channels do not apply). */
  channels: number;
}

interface Cost {
  latencyUs: number;
  /** Bytes over the bottleneck divided by its bandwidth, in us. */
  bandwidthTimeUs: number;
  /** For TCP's timeout term: network steps, concurrent flows per step, bytes per flow. */
  networkSteps: number;
  flowsPerStep: number;
  bytesPerFlow: number;
  channels?: number;
}

const usFor = (bytes: number, gigabytesPerSecond: number): number =>
  gigabytesPerSecond === Number.POSITIVE_INFINITY ? 0 : (bytes / (gigabytesPerSecond * 1e9)) * 1e6;

const reduces = (op: CollectiveOp): boolean => op === 'all_reduce' || op === 'reduce' || op === 'reduce_scatter';

/** Per-hop NVLink or PCIe latency of NCCL's table for this shape (tree Simple from the version's row). */
function intraHwLatency(shape: CollectiveShape, algo: NcclAlgorithm, protocol: NcclProtocol): number {
  if (algo === 'tree' && protocol === 'Simple') return shape.intraKind === 'pcie' ? shape.tuning.treeSimpleHwLat.pci : shape.tuning.treeSimpleHwLat.nvlink;
  if ((algo === 'nvls' || algo === 'nvlstree') && protocol === 'Simple') return shape.tuning.nvlsHwLat;
  return (shape.intraKind === 'pcie' ? PCI_HOP_LATENCY_US : NVLINK_HOP_LATENCY_US)[algo][protocol];
}

/** NCCL's network hop latency plus the fabric's own message latency and switch hops. */
function interHopLatencyUs(shape: CollectiveShape, algo: NcclAlgorithm, protocol: NcclProtocol): number {
  const table = algo === 'tree' && protocol === 'Simple' ? shape.tuning.treeSimpleHwLat.net : NET_HOP_LATENCY_US[algo][protocol];
  // 2.25: with one GPU per node the inter-node latency is the tree's (tuning.cc interLat).
  const hw = shape.gpusPerNode === 1 && shape.tuning.interStepsMinusOne && algo !== 'tree' ? NET_HOP_LATENCY_US.tree[protocol] || table : table;
  const wire = shape.netMessageLatencyUs + switchHops(shape) * shape.switchHopLatencyUs;
  // tuning.cc adds the graph's inter-node latency once more for Simple ("flush extra latency").
  return hw + wire * (protocol === 'Simple' ? 2 : 1);
}

/** Bandwidth every ring edge gets: the node's network (spread over its NICs, fed by the GPUs' PCIe links) or NVLink. */
function ringBottleneckGBps(shape: CollectiveShape): number {
  if (shape.nodes <= 1) return shape.intraGBps;
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, 1 / leaves);
  return Math.min(network, shape.intraGBps);
}

/** The node's NICs together, bounded by what the GPUs' own PCIe links can feed them (GPUDirect: GPU to NIC). */
function nodeNetworkWithPcieGBps(shape: CollectiveShape): number {
  const network = nodeNetworkGBps(shape);
  if (shape.pureAlphaUs !== undefined || !shape.transport) return network;
  return Math.min(network, shape.gpusPerNode * gpuNetworkFeedGBps(shape));
}

/**
 * Warnings a shape deserves though it is valid: more NIC bandwidth than the GPUs' PCIe links (or the
 * host bounce without GPUDirect) can feed, so busbw is bounded by PCIe, not by the NICs.
 */
export function shapeWarnings(shape: CollectiveShape): string[] {
  if (shape.pureAlphaUs !== undefined || !shape.transport || shape.nodes <= 1) return [];
  const nics = nodeNetworkGBps(shape);
  const feed = shape.gpusPerNode * gpuNetworkFeedGBps(shape);
  if (nics <= feed) return [];
  const how = shape.gpuDirect || shape.fabric?.tcp?.devmem === true ? 'PCIe links' : 'PCIe links through the host bounce (no GPUDirect RDMA)';
  return [`the node's ${shape.nicsPerNode} NICs carry ${nics.toFixed(1)} GB/s but its ${shape.gpusPerNode} GPU(s) can feed them only ${feed.toFixed(1)} GB/s over their ${how}: busbw is bounded by PCIe`];
}

/**
 * What one GPU can feed its NICs: its PCIe link with GPUDirect RDMA (or GPUDirect-TCPX devmem);
 * without, the bounce through pinned host memory sustains only `bounceShare` of that link.
 */
function gpuNetworkFeedGBps(shape: CollectiveShape): number {
  const direct = shape.gpuDirect || shape.fabric?.tcp?.devmem === true;
  return direct ? shape.gpuPcieGBps : shape.gpuPcieGBps * shape.constants.bounceShare;
}

function ringSteps(op: CollectiveOp, ranks: number, nodes: number, minusOne: boolean): { steps: number; interSteps: number; volumeFactor: number } {
  // tuning.cc: nsteps 2(n-1) for all_reduce, n-1 for all_gather/reduce_scatter, n otherwise;
  // nInterSteps 2(N-1) for all_reduce (2N before 2.25), N-1 otherwise.
  const interSteps = nodes <= 1 ? 0 : op === 'all_reduce' ? (minusOne ? 2 * (nodes - 1) : 2 * nodes) : nodes - 1;
  switch (op) {
    case 'all_reduce':
      return { steps: 2 * (ranks - 1), interSteps: Math.min(interSteps, 2 * (ranks - 1)), volumeFactor: (2 * (ranks - 1)) / ranks };
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

/** Ring channels NCCL's search builds: 2 per NIC across nodes (at least 2), 16 over NVLink, 4 over PCIe (src/graph/search.cc). */
function ringChannels(shape: CollectiveShape): number {
  const intra = shape.intraKind === 'nvlink' ? 16 : 4;
  if (shape.nodes <= 1) return intra;
  return Math.max(2, Math.min(intra, 2 * shape.nicsPerNode));
}

/** Latency split into NCCL's fixed part, its intra-node hops and its network hops (us, unscaled). */
interface Latency {
  base: number;
  intra: number;
  inter: number;
}

function scaled(shape: CollectiveShape, latency: Latency, protocol: NcclProtocol = 'Simple'): number {
  const { launchUs, intraLatencyScale, netLatencyScale, simpleLatencyScale } = shape.constants;
  const hops = latency.base + latency.intra * intraLatencyScale + latency.inter * netLatencyScale;
  return launchUs + hops * (protocol === 'Simple' ? simpleLatencyScale : 1);
}

function ringCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
  const ranks = rankCount(shape);
  const { steps, interSteps, volumeFactor } = ringSteps(op, ranks, shape.nodes, shape.tuning.interStepsMinusOne);
  const maxChannels = ringChannels(shape);
  const channels = channelsForSize(sizeBytes, maxChannels, protocol, protocol === 'LL', ranks);
  const graph = ringBottleneckGBps(shape);
  let busBw = graph;
  if (protocol === 'LL') busBw = Math.min(llMaxBandwidthGBps(shape.generation, shape.nodes, shape.tuning), graph * llBusbwShare(shape.nodes, reduces(op), shape.tuning) * 2);
  if (protocol === 'LL128') busBw = Math.min(graph * ll128BusbwShare(shape.gpusPerNode, shape.tuning), maxChannels * ringLl128PerChannelGBps(shape.generation, shape.nodes));
  // Fewer channels for a small message (enqueue.cc): each keeps its share of the bandwidth.
  busBw *= channels / maxChannels;
  const netOverhead = shape.nodes > 1 ? NET_OVERHEAD_US * (protocol === 'Simple' ? SIMPLE_NET_OVERHEAD_FACTOR : 1) : 0;
  const intraHop = Math.max(intraHwLatency(shape, 'ring', protocol), netOverhead);
  let latency: Latency = {
    base: BASE_LATENCY_US.ring[protocol],
    intra: (steps - interSteps) * intraHop,
    inter: interSteps * interHopLatencyUs(shape, 'ring', protocol),
  };
  if (op === 'broadcast' || op === 'reduce') latency = { base: latency.base, intra: intraHwLatency(shape, 'ring', protocol), inter: shape.nodes > 1 ? interHopLatencyUs(shape, 'ring', protocol) : 0 };
  if (protocol === 'Simple' && shape.nodes > 1 && op === 'all_reduce' && sizeBytes / (maxChannels * ranks) >= 64) {
    const factor = ringPlateauFactor(shape.generation);
    latency = { base: latency.base * factor, intra: latency.intra * factor, inter: latency.inter * factor };
  }
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: scaled(shape, latency, protocol),
    bandwidthTimeUs: usFor(volumeFactor * sizeBytes, busBw),
    networkSteps: interSteps,
    flowsPerStep: shape.nodes * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / ranks / streams,
    channels: Math.round(channels),
  };
}

/**
 * The network's share of a tree-like all_reduce (tree, NVLSTree, CollNet): on two nodes each node
 * sends and receives S once (the two trees mirror each other), beyond two an interior node moves 2S,
 * so the algorithm bandwidth is the node's network bandwidth, halved beyond two nodes.
 */
function treeNetworkAlgbwGBps(shape: CollectiveShape): number {
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, 1 / leaves);
  return network * (shape.nodes === 2 ? 1 : 0.5);
}

function treeCost(sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
  // A chain inside the node (each GPU sends S up and S down over its NVLink) and a double binary tree across nodes.
  const channels = Math.max(2, ringChannels(shape));
  const chainAlgbw = shape.gpusPerNode > 1 ? shape.intraGBps / 2 : Number.POSITIVE_INFINITY;
  const physical = Math.min(chainAlgbw * shape.constants.treeChainShare, treeNetworkAlgbwGBps(shape) * shape.constants.treeShare) / TREE_ALGBW_RATIO;
  let busBw = Math.min(physical * TREE_BUSBW_SHARE, channels * treePerChannelGBps(shape.generation, shape.nodes));
  if (protocol === 'LL') busBw = Math.min(physical * TREE_LL_SHARE, llMaxBandwidthGBps(shape.generation, shape.nodes, shape.tuning));
  if (protocol === 'LL128') busBw = Math.min(physical * treeLl128Share(shape.nodes), channels * treeLl128PerChannelGBps(shape.generation, shape.nodes));
  const algbw = busBw * TREE_ALGBW_RATIO * treeCorrection(protocol, sizeBytes);
  const depth = Math.floor(Math.log2(Math.max(1, shape.nodes)));
  const base = protocol === 'Simple' && shape.tuning.treeSimpleHwLat.net === 28 ? 0 : BASE_LATENCY_US.tree[protocol];
  const latency: Latency = {
    base,
    intra: 2 * (shape.gpusPerNode - 1) * intraHwLatency(shape, 'tree', protocol),
    inter: 2 * depth * interHopLatencyUs(shape, 'tree', protocol),
  };
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: scaled(shape, latency, protocol),
    bandwidthTimeUs: usFor(sizeBytes, algbw),
    networkSteps: 2 * depth,
    flowsPerStep: shape.nodes * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / 2 / shape.nicsPerNode / streams,
    channels,
  };
}

/** NVLS (NVLink SHARP) inside one node: the NVSwitch reduces and multicasts; all_reduce, reduce_scatter, all_gather. */
function nvlsAlgbwGBps(op: CollectiveOp, shape: CollectiveShape): number {
  const g = shape.gpusPerNode;
  const perDirection = shape.nvlinkPerDirectionGBps;
  // all_reduce: every GPU sends its whole buffer into the switch (which reduces) and receives the
  // reduced buffer (S/g of it its own slice): S (1 + 1/g) each way, so algbw = B g/(g+1) and nccl-tests'
  // busbw 2B (g-1)/(g+1), the in-network-reduction bound nccl-tests' doc/PERFORMANCE.md gives ((n-1)/(n+1)).
  // all_gather / reduce_scatter: each GPU receives (or sends) S (g-1)/g: busbw = B.
  const busbw = op === 'all_reduce' ? (2 * perDirection * (g - 1)) / (g + 1) : perDirection;
  return (shape.constants.nvlsShare * nvlsEfficiency(shape.generation) * busbw) / Math.max(busbwFactor(op, g), 1e-9);
}

/** What NVLS's chunk pipeline allows (GB/s of algorithm bandwidth): each channel moves one chunk per `nvlsChunkUs` (plus a network hop across nodes). */
function nvlsPipelineGBps(sizeBytes: number, shape: CollectiveShape, tree: boolean): number {
  const channels = nvlsChannels(shape.generation);
  const chunk = nvlsChunkBytes(sizeBytes, channels, tree, shape.nodes);
  const perChunkUs = shape.constants.nvlsChunkUs + (tree && shape.nodes > 1 ? interHopLatencyUs(shape, 'nvlstree', 'Simple') * shape.constants.netLatencyScale : 0);
  return (channels * chunk) / perChunkUs / 1e3;
}

function nvlsCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape): Cost {
  const latency: Latency = { base: 0, intra: intraHwLatency(shape, 'nvls', 'Simple'), inter: 0 };
  const algbw = Math.min(nvlsAlgbwGBps(op, shape), nvlsPipelineGBps(sizeBytes, shape, false));
  return { latencyUs: scaled(shape, latency), bandwidthTimeUs: usFor(sizeBytes, algbw), networkSteps: 0, flowsPerStep: 0, bytesPerFlow: 0, channels: nvlsChannels(shape.generation) };
}

function nvlsTreeCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const algbw = Math.min(nvlsAlgbwGBps('all_reduce', { ...shape, nodes: 1 }), treeNetworkAlgbwGBps(shape) * shape.constants.treeShare, nvlsPipelineGBps(sizeBytes, shape, true));
  const depth = Math.floor(Math.log2(Math.max(1, shape.nodes)));
  const latency: Latency = { base: 0, intra: intraHwLatency(shape, 'nvlstree', 'Simple'), inter: 2 * depth * interHopLatencyUs(shape, 'nvlstree', 'Simple') };
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: scaled(shape, latency),
    bandwidthTimeUs: usFor(sizeBytes, algbw),
    networkSteps: 2 * depth,
    flowsPerStep: shape.nodes * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / 2 / shape.nicsPerNode / streams,
    channels: nvlsChannels(shape.generation),
  };
}

/** CollNet (IB SHARP): the switches reduce, each node sends and receives S once whatever the node count. */
function collnetCost(sizeBytes: number, shape: CollectiveShape, chain: boolean): Cost {
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, 1 / leaves);
  const intra = shape.nvls ? nvlsAlgbwGBps('all_reduce', { ...shape, nodes: 1 }) : shape.intraGBps / 2;
  const algbw = Math.min(network, intra);
  const ppn = shape.gpusPerNode;
  const hop = intraHwLatency(shape, chain ? 'collnetchain' : 'collnetdirect', 'Simple');
  const intra2 = chain ? 2 * (ppn - 1) * hop : 2 * (Math.min(1, ppn - 1) * hop + (ppn - 1) * 0.4);
  const latency: Latency = { base: 0, intra: intra2, inter: interHopLatencyUs(shape, chain ? 'collnetchain' : 'collnetdirect', 'Simple') };
  return { latencyUs: scaled(shape, latency), bandwidthTimeUs: usFor(sizeBytes, algbw), networkSteps: 2, flowsPerStep: shape.nodes * shape.nicsPerNode, bytesPerFlow: sizeBytes / shape.nicsPerNode, channels: 16 };
}

/** PAT (all_gather / reduce_scatter, one GPU per node, 2.23+): log2(N) network steps instead of N-1, at 0.75 of the ring's bandwidth. */
function patCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const ranks = rankCount(shape);
  const busBw = ringBottleneckGBps(shape) * PAT_BUSBW_SHARE;
  const interLat = interHopLatencyUs(shape, 'pat', 'Simple');
  const latency: Latency = { base: 8, intra: ranks * 2.8, inter: Math.floor(Math.log2(Math.max(1, shape.nodes))) * (interLat / 3.5) };
  return {
    latencyUs: scaled(shape, latency),
    bandwidthTimeUs: usFor(((ranks - 1) / ranks) * sizeBytes, busBw),
    networkSteps: Math.ceil(Math.log2(Math.max(2, shape.nodes))),
    flowsPerStep: shape.nodes,
    bytesPerFlow: sizeBytes / ranks,
    channels: ringChannels(shape),
  };
}

function hierarchicalCost(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, protocol: NcclProtocol): Cost {
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
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: scaled(shape, latency, protocol),
    bandwidthTimeUs: Math.max(intraTime, interTime),
    networkSteps: interSteps,
    flowsPerStep: n * shape.nicsPerNode * streams,
    bytesPerFlow: sizeBytes / g / n / streams,
  };
}

/** One point-to-point hop's latency: NCCL's Simple hop over the network or inside the node, after the launch. */
function p2pLatencyUs(shape: CollectiveShape): number {
  const latency: Latency = shape.nodes > 1
    ? { base: BASE_LATENCY_US.ring.Simple, intra: 0, inter: interHopLatencyUs(shape, 'ring', 'Simple') }
    : { base: BASE_LATENCY_US.ring.Simple, intra: intraHwLatency(shape, 'ring', 'Simple'), inter: 0 };
  return scaled(shape, latency);
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
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, crossLeaf);
  const netTime = remoteShare > 0 ? usFor(g * remoteShare * sizeBytes, network) : 0;
  const intraTime = usFor(((g - 1) / ranks) * sizeBytes, shape.intraGBps);
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: p2pLatencyUs(shape) + Math.max(0, ranks - 2) * shape.constants.peerUs,
    bandwidthTimeUs: Math.max(netTime, intraTime),
    networkSteps: shape.nodes > 1 ? 1 : 0,
    flowsPerStep: g * (ranks - g) * streams,
    bytesPerFlow: sizeBytes / ranks / streams,
  };
}

function sendrecvCost(sizeBytes: number, shape: CollectiveShape): Cost {
  // nccl-tests sendrecv: rank r sends S to r+1. Across nodes one pair per node crosses, on one NIC,
  // which the node's GPUs share when there are fewer NICs than GPUs (every rank's send runs at once).
  const perNic = Math.min(shape.nicGBps, gpuNetworkFeedGBps(shape));
  const linkGBps = shape.nodes > 1 ? Math.min(perNic, shape.intraGBps) : shape.intraGBps;
  const streams = streamsPerFlow(shape);
  return {
    latencyUs: p2pLatencyUs(shape),
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
  const { volumeFactor } = ringSteps(op, ranks, shape.nodes, true);
  const steps = op === 'all_reduce' ? 2 * (ranks - 1) : ranks - 1;
  return { latencyUs: steps * alpha, bandwidthTimeUs: usFor(volumeFactor * sizeBytes, bandwidth), ...none };
}

/** One rank: no network, no peers; a local copy at device-copy speed after the call floor (pure alpha-beta: nothing). */
function oneRankCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const none = { networkSteps: 0, flowsPerStep: 0, bytesPerFlow: 0 };
  if (shape.pureAlphaUs !== undefined) return { latencyUs: 0, bandwidthTimeUs: 0, ...none };
  return { latencyUs: ONE_RANK_CALL_US, bandwidthTimeUs: usFor(sizeBytes, shape.localCopyGBps), ...none };
}

/**
 * Protocols NCCL enables on this path (tuning.cc LL128 rules): LL128 needs NVLink or PCIe switches
 * inside the node and GPUDirect RDMA (no CPU bounce) across nodes; NVLS, CollNet and PAT run Simple only.
 */
function protocolsFor(shape: CollectiveShape, algo: AlgorithmUsed): NcclProtocol[] {
  if (algo === 'nvls' || algo === 'nvlstree' || algo === 'collnetdirect' || algo === 'collnetchain' || algo === 'pat' || algo === 'p2p') return ['Simple'];
  const ll128 = shape.intraKind === 'nvlink' && (shape.nodes <= 1 || (shape.fabric !== undefined && shape.fabric.transport !== 'tcp' && shape.gpuDirect));
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
    channels: cost.channels ?? 0,
  };
}

function costFor(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, algo: AlgorithmUsed, protocol: NcclProtocol): Cost {
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
export function estimateCollective(op: CollectiveOp, sizeBytes: number, shape: CollectiveShape, choice: AlgorithmChoice = 'auto', protocolChoice: ProtocolChoice = 'auto'): CollectiveEstimate {
  if (!(sizeBytes >= 0)) throw new UsageError(`invalid message size ${sizeBytes} (expected 0 or more bytes)`);
  checkAlgorithmApplies(op, choice);
  if (rankCount(shape) === 1) {
    return finish(op, sizeBytes, shape, oneRankCost(sizeBytes, shape), 'local', shape.pureAlphaUs !== undefined ? 'alpha-beta' : 'copy');
  }
  const p2p = op === 'alltoall' || op === 'sendrecv';
  if (shape.pureAlphaUs !== undefined) {
    const algo: AlgorithmUsed = p2p ? 'p2p' : choice === 'tree' ? 'tree' : 'ring';
    return finish(op, sizeBytes, shape, pureAlphaBetaCost(op, sizeBytes, shape, algo), algo, 'alpha-beta');
  }
  checkAlgorithmRuns(op, choice, shape);
  const candidates: AlgorithmUsed[] = p2p ? ['p2p'] : choice === 'auto' ? autoCandidates(op, shape) : [choice];
  let best: CollectiveEstimate | undefined;
  for (const algo of candidates) {
    const enabled = protocolsFor(shape, algo);
    const protocols = protocolChoice === 'auto' || algo === 'p2p' ? enabled : enabled.filter((protocol) => protocol === protocolOfId(protocolChoice));
    for (const protocol of protocols) {
      const estimate = finish(op, sizeBytes, shape, costFor(op, sizeBytes, shape, algo, protocol), algo, protocol);
      if (!best || estimate.timeUs < best.timeUs) best = estimate;
    }
  }
  if (!best) {
    throw new UsageError(`--proto ${protocolChoice} does not run with ${choice === 'auto' ? 'any algorithm' : `--algo ${choice}`} for ${op} here (protocols: ${[...new Set(candidates.flatMap((algo) => protocolsFor(shape, algo)))].join(', ')})`);
  }
  return best;
}
