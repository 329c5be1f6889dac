/**
 * The terms every collective's cost is built from: NCCL's per-hop latencies for the shape, the
 * bottleneck bandwidths (network through the GPUs' PCIe links, NVLink), ring steps and channels,
 * and how the fitted scales turn NCCL's tuner latency into a real one. Costs: collectives.ts,
 * nvls-costs.ts, p2p-costs.ts.
 */
import { busbwFactor, type CollectiveOp } from './busbw.js';
import {
  BASE_LATENCY_US,
  NET_HOP_LATENCY_US,
  NVLINK_HOP_LATENCY_US,
  PCI_HOP_LATENCY_US,
  type NcclProtocol,
} from './nccl-tuning.js';
import {
  PCIE_P2P_SHARE,
  nodeNetworkGBps,
  spineSlowdown,
  switchHops,
  type CollectiveShape,
} from './collective-shape.js';
import type { NcclAlgorithm } from './algorithms.js';

export interface Cost {
  latencyUs: number;
  /** Bytes over the bottleneck divided by its bandwidth, in us. */
  bandwidthTimeUs: number;
  /** For TCP's loss term: network steps, NCCL network connections active at once, bytes one carries per step. */
  networkSteps: number;
  connections: number;
  bytesPerConnection: number;
  channels?: number;
}

export const usFor = (bytes: number, gigabytesPerSecond: number): number =>
  gigabytesPerSecond === Number.POSITIVE_INFINITY ? 0 : (bytes / (gigabytesPerSecond * 1e9)) * 1e6;

/** Per-hop NVLink or PCIe latency of NCCL's table for this shape (tree Simple from the version's row). */
export function intraHwLatency(shape: CollectiveShape, algo: NcclAlgorithm, protocol: NcclProtocol): number {
  if (algo === 'tree' && protocol === 'Simple')
    return shape.intraKind === 'pcie'
      ? shape.tuning.treeSimpleHwLat.pci
      : shape.tuning.treeSimpleHwLat.nvlink;
  if ((algo === 'nvls' || algo === 'nvlstree') && protocol === 'Simple') return shape.tuning.nvlsHwLat;
  return (shape.intraKind === 'pcie' ? PCI_HOP_LATENCY_US : NVLINK_HOP_LATENCY_US)[algo][protocol];
}

/** NCCL's network hop latency plus the fabric's own message latency and switch hops. */
export function interHopLatencyUs(
  shape: CollectiveShape,
  algo: NcclAlgorithm,
  protocol: NcclProtocol,
): number {
  const table =
    algo === 'tree' && protocol === 'Simple'
      ? shape.tuning.treeSimpleHwLat.net
      : NET_HOP_LATENCY_US[algo][protocol];
  // 2.25: with one GPU per node the inter-node latency is the tree's (tuning.cc interLat).
  const hw =
    shape.gpusPerNode === 1 && shape.tuning.interStepsMinusOne && algo !== 'tree'
      ? NET_HOP_LATENCY_US.tree[protocol] || table
      : table;
  const wire = shape.netMessageLatencyUs + switchHops(shape) * shape.switchHopLatencyUs;
  // tuning.cc adds the graph's inter-node latency once more for Simple ("flush extra latency").
  return hw + wire * (protocol === 'Simple' ? 2 : 1);
}

/** Bandwidth every ring edge gets: the node's network (spread over its NICs, fed by the GPUs' PCIe links) or NVLink. */
export function ringBottleneckGBps(shape: CollectiveShape, oneWay = false): number {
  if (shape.nodes <= 1) return shape.intraGBps;
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkWithPcieGBps(shape, oneWay) / spineSlowdown(shape, 1 / leaves);
  // With one GPU per node the ring never crosses a link inside the node.
  return shape.gpusPerNode > 1 ? Math.min(network, shape.intraGBps) : network;
}

/**
 * The node's NICs together, bounded by what the GPUs' own PCIe links can feed them (GPUDirect: GPU to NIC).
 * `oneWay`: each GPU's path carries data in one direction only (see gpuNetworkFeedGBps).
 */
export function nodeNetworkWithPcieGBps(shape: CollectiveShape, oneWay = false): number {
  const network = nodeNetworkGBps(shape);
  if (shape.pureAlphaUs !== undefined || !shape.transport) return network;
  return Math.min(network, shape.gpusPerNode * gpuNetworkFeedGBps(shape, oneWay));
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
  const how =
    shape.gpuDirect || shape.fabric?.tcp?.devmem === true
      ? 'PCIe links'
      : 'PCIe links through the host bounce (no GPUDirect RDMA)';
  return [
    `the node's ${shape.nicsPerNode} NICs carry ${nics.toFixed(1)} GB/s but its ${shape.gpusPerNode} GPU(s) can feed them only ${feed.toFixed(1)} GB/s over their ${how}: busbw is bounded by PCIe`,
  ];
}

/**
 * What one GPU can feed its NICs: its PCIe link with GPUDirect RDMA (or GPUDirect-TCPX devmem);
 * without, the bounce through pinned host memory sustains only `bounceShare` of that link. GPUDirect
 * through the CPU's host bridge (path PHB or SYS) is peer-to-peer through the root complex, which
 * sustains PCIE_P2P_SHARE of the link as GPU-to-GPU traffic does there (collective-shape.ts) when the
 * path carries a send and a receive at once. With `oneWay` (a rooted chain of two ranks, where the root
 * only sends and the other only receives) it carries one direction and runs at the link's rate: the
 * 2 x 1 A100-PCIe HDR broadcast with GDR through the host bridge reaches 24.07 GB/s, the line rate,
 * where the same nodes' all_reduce stops at 13.5-14.9
 * (test/fixtures/nccl-tests/thomaslie-2x1-a100pcie-hdr-broadcast-gdr-on-nccl-info.log, all_reduce beside it).
 */
export function gpuNetworkFeedGBps(shape: CollectiveShape, oneWay = false): number {
  const direct = shape.gpuDirect || shape.fabric?.tcp?.devmem === true;
  if (!direct) return shape.gpuPcieGBps * shape.constants.bounceShare;
  return shape.gdrViaCpu && shape.gpuDirect && !oneWay
    ? shape.gpuPcieGBps * PCIE_P2P_SHARE
    : shape.gpuPcieGBps;
}

export function ringSteps(
  op: CollectiveOp,
  ranks: number,
  nodes: number,
  minusOne: boolean,
): { steps: number; interSteps: number; volumeFactor: number } {
  // tuning.cc: nsteps 2(n-1) for all_reduce, n-1 for all_gather/reduce_scatter, n otherwise;
  // nInterSteps 2(N-1) for all_reduce (2N before 2.25), N-1 otherwise.
  const interSteps =
    nodes <= 1 ? 0 : op === 'all_reduce' ? (minusOne ? 2 * (nodes - 1) : 2 * nodes) : nodes - 1;
  switch (op) {
    case 'all_reduce':
      return {
        steps: 2 * (ranks - 1),
        interSteps: Math.min(interSteps, 2 * (ranks - 1)),
        volumeFactor: busbwFactor(op, ranks),
      };
    case 'all_gather':
    case 'reduce_scatter':
      return { steps: ranks - 1, interSteps, volumeFactor: busbwFactor(op, ranks) };
    default:
      return { steps: ranks, interSteps, volumeFactor: 1 };
  }
}

/** Ring channels NCCL's search builds: 2 per NIC across nodes (at least 2), 16 over NVLink, 4 over PCIe (src/graph/search.cc). */
export function ringChannels(shape: CollectiveShape): number {
  const intra = shape.intraKind === 'nvlink' ? 16 : 4;
  if (shape.nodes <= 1) return intra;
  return Math.max(2, Math.min(intra, 2 * shape.nicsPerNode));
}

/** Latency split into NCCL's fixed part, its intra-node hops and its network hops (us, unscaled). */
export interface Latency {
  base: number;
  intra: number;
  inter: number;
}

/**
 * Real latency from NCCL's tuner figures: NCCL's base latency as it is, its intra-node hops times
 * intraLatencyScale, its network hops times netLatencyScale (and simpleLatencyScale for Simple's proxy
 * and flush), after the device-side launch.
 */
export function scaled(shape: CollectiveShape, latency: Latency, protocol: NcclProtocol = 'Simple'): number {
  const { launchUs, intraLatencyScale, netLatencyScale, simpleLatencyScale } = shape.constants;
  const simple = protocol === 'Simple' ? simpleLatencyScale : 1;
  return (
    launchUs + latency.base + latency.intra * intraLatencyScale + latency.inter * netLatencyScale * simple
  );
}

/**
 * The network's share of a tree-like all_reduce (tree, NVLSTree, CollNet): on two nodes each node
 * sends and receives S once (the two trees mirror each other), beyond two an interior node moves 2S,
 * so the algorithm bandwidth is the node's network bandwidth, halved beyond two nodes.
 */
export function treeNetworkAlgbwGBps(shape: CollectiveShape): number {
  const leaves = shape.topology.kind === 'leaf-spine' ? shape.topology.nodesPerLeaf : shape.nodes;
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, 1 / leaves);
  return network * (shape.nodes === 2 ? 1 : 0.5);
}

/** One point-to-point hop's latency: NCCL's Simple hop over the network or inside the node, after the launch. */
export function p2pLatencyUs(shape: CollectiveShape): number {
  const latency: Latency =
    shape.nodes > 1
      ? { base: BASE_LATENCY_US.ring.Simple, intra: 0, inter: interHopLatencyUs(shape, 'ring', 'Simple') }
      : { base: BASE_LATENCY_US.ring.Simple, intra: intraHwLatency(shape, 'ring', 'Simple'), inter: 0 };
  return scaled(shape, latency);
}
