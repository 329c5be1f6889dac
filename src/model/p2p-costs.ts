/**
 * Costs without an NCCL algorithm to choose: point-to-point groups (alltoall, sendrecv), one rank
 * (a local copy), and pure alpha-beta (`--alpha`, `--bandwidth`).
 */
import type { CollectiveOp } from './busbw.js';
import {
  NVLINK_EFFICIENCY,
  nodeNetworkGBps,
  rankCount,
  spineSlowdown,
  type CollectiveShape,
} from './collective-shape.js';
import type { AlgorithmUsed } from './algorithm-rules.js';
import {
  gpuNetworkFeedGBps,
  nodeNetworkWithPcieGBps,
  p2pLatencyUs,
  ringChannels,
  ringSteps,
  usFor,
  type Cost,
} from './cost-terms.js';

/**
 * Time of a one-rank call that moves nothing: 0.78 us, the in-place one-rank alltoall of
 * test/fixtures/nccl-tests/nccl-tests-issue287-rtx5090-alltoall-1rank-na.txt (NVIDIA/nccl-tests issue 287).
 */
export const ONE_RANK_CALL_US = 0.78;

/** NCCL_MAX_DEV_WORK_P2P_PER_BATCH (NVIDIA/nccl src/include/device.h): p2p operations one channel takes per round. */
const P2P_OPS_PER_ROUND = 8;

/**
 * What a point-to-point transfer gets of a GPU's NVLink: p2pNvlinkShare of the link per direction (fitted; the
 * ring's NVLINK_EFFICIENCY does not carry over to sends and receives, which move NCCL_P2P_NVL_CHUNKSIZE chunks
 * on fewer channels); over PCIe the shape's intra-node bandwidth as it is.
 */
function p2pIntraGBps(shape: CollectiveShape): number {
  return shape.intraKind === 'nvlink'
    ? (shape.intraGBps / NVLINK_EFFICIENCY) * shape.constants.p2pNvlinkShare
    : shape.intraGBps;
}

export function alltoallCost(sizeBytes: number, shape: CollectiveShape): Cost {
  // Each rank sends S/n to every other rank; all sends are posted at once (one group). A channel's
  // kernel works through the peers in rounds of P2P_OPS_PER_ROUND, the peers of a round side by side,
  // so the latency is one hop's plus a cost per round, plus a cost per remote peer (the proxy thread
  // serves those one by one); the bandwidth term is the busier of the network and NVLink.
  const ranks = rankCount(shape);
  const g = shape.gpusPerNode;
  const remoteShare = ranks > g ? (ranks - g) / ranks : 0;
  const crossLeaf =
    shape.topology.kind === 'leaf-spine' && shape.nodes > 1
      ? Math.max(0, shape.nodes - shape.topology.nodesPerLeaf) / (shape.nodes - 1)
      : 0;
  const network = nodeNetworkWithPcieGBps(shape) / spineSlowdown(shape, crossLeaf);
  const netTime = remoteShare > 0 ? usFor(g * remoteShare * sizeBytes, network) : 0;
  const intraTime = usFor(((g - 1) / ranks) * sizeBytes, p2pIntraGBps(shape));
  return {
    latencyUs:
      p2pLatencyUs(shape) +
      Math.ceil((ranks - 1) / P2P_OPS_PER_ROUND) * shape.constants.p2pRoundUs +
      (ranks - Math.min(g, ranks)) * shape.constants.netPeerUs,
    bandwidthTimeUs: Math.max(netTime, intraTime),
    networkSteps: shape.nodes > 1 ? 1 : 0,
    connections: g * (ranks - g),
    bytesPerConnection: sizeBytes / ranks,
  };
}

/** NCCL_P2P_PER_CHANNEL_NET_BW: the network bandwidth NCCL gives one p2p channel, 14 GB/s (NVIDIA/nccl src/graph/paths.cc, 2.29 on). */
export const P2P_PER_CHANNEL_NET_GBPS = 14;
const pow2Up = (value: number): number => 2 ** Math.ceil(Math.log2(Math.max(1, value)));

/**
 * Channels NCCL runs a send to a remote peer on (src/graph/paths.cc ncclTopoGetNchannels, ncclTopoComputeP2pChannels).
 * From 2.29: ceil(the GPU's network bandwidth / 14 GB/s), at least one per NIC, rounded up to a power of 2, then
 * halved across nodes while channels x ceil(nRanks / 8) exceeds the communicator's p2p channels (its ring channels,
 * a power of 2), so that every peer fits one round (NCCL 2.30.4's init line "Tuning P2P operations with maxP2pPeers",
 * maxP2pPeers = nRanks, NVIDIA/nccl issue 2397). Earlier versions (2 channels per remote peer, scaled by rank count)
 * are not modelled: no cap applies to them.
 */
export function p2pNetChannelsPerPeer(shape: CollectiveShape): number {
  if (!shape.tuning.p2pNetChannelsByBw) return Number.POSITIVE_INFINITY;
  const ranks = rankCount(shape);
  const p2pChannels = pow2Up(ringChannels(shape));
  const nicsPerGpu = Math.max(1, Math.floor(shape.nicsPerNode / shape.gpusPerNode));
  const gpuNetGBps = nicsPerGpu * Math.min(shape.nicGBps, gpuNetworkFeedGBps(shape));
  let channels = pow2Up(Math.max(nicsPerGpu, Math.ceil(gpuNetGBps / P2P_PER_CHANNEL_NET_GBPS)));
  while (channels * Math.ceil(ranks / P2P_OPS_PER_ROUND) > p2pChannels && channels > 1) channels /= 2;
  return channels;
}

export function sendrecvCost(sizeBytes: number, shape: CollectiveShape): Cost {
  // nccl-tests sendrecv: rank r sends S to r+1. Across nodes one pair per node crosses, on one NIC,
  // which the node's GPUs share when there are fewer NICs than GPUs (every rank's send runs at once).
  // From 2.29 its channels each carry at most NCCL_P2P_PER_CHANNEL_NET_BW (p2pNetChannelsPerPeer).
  const perNic = Math.min(shape.nicGBps, gpuNetworkFeedGBps(shape));
  const channelsGBps = p2pNetChannelsPerPeer(shape) * P2P_PER_CHANNEL_NET_GBPS;
  const intraGBps = p2pIntraGBps(shape);
  const linkGBps = shape.nodes > 1 ? Math.min(perNic, intraGBps, channelsGBps) : intraGBps;
  return {
    latencyUs: p2pLatencyUs(shape),
    bandwidthTimeUs: usFor(sizeBytes, linkGBps),
    networkSteps: shape.nodes > 1 ? 1 : 0,
    connections: shape.nodes,
    bytesPerConnection: sizeBytes,
  };
}

/** Pure alpha-beta (no NCCL, protocol or GPU terms): ring T = steps x alpha + volume / B. */
export function pureAlphaBetaCost(
  op: CollectiveOp,
  sizeBytes: number,
  shape: CollectiveShape,
  algo: AlgorithmUsed,
): Cost {
  const alpha = shape.pureAlphaUs ?? 0;
  const ranks = rankCount(shape);
  const bandwidth = shape.nodes > 1 || shape.gpusPerNode === 1 ? nodeNetworkGBps(shape) : shape.nicGBps;
  const none = { networkSteps: 0, connections: 0, bytesPerConnection: 0 };
  if (algo === 'tree') {
    const depth = Math.ceil(Math.log2(Math.max(1, ranks)));
    return { latencyUs: 2 * depth * alpha, bandwidthTimeUs: usFor(2 * sizeBytes, bandwidth), ...none };
  }
  if (op === 'alltoall') {
    return {
      latencyUs: (ranks - 1) * alpha,
      bandwidthTimeUs: usFor(((ranks - 1) / ranks) * sizeBytes, bandwidth),
      ...none,
    };
  }
  if (op === 'sendrecv')
    return { latencyUs: alpha, bandwidthTimeUs: usFor(sizeBytes, shape.nicGBps), ...none };
  const { volumeFactor } = ringSteps(op, ranks, shape.nodes, true);
  const steps = op === 'all_reduce' ? 2 * (ranks - 1) : ranks - 1;
  return { latencyUs: steps * alpha, bandwidthTimeUs: usFor(volumeFactor * sizeBytes, bandwidth), ...none };
}

/** One rank: no network, no peers; a local copy at device-copy speed after the call floor (pure alpha-beta: nothing). */
export function oneRankCost(sizeBytes: number, shape: CollectiveShape): Cost {
  const none = { networkSteps: 0, connections: 0, bytesPerConnection: 0 };
  if (shape.pureAlphaUs !== undefined) return { latencyUs: 0, bandwidthTimeUs: 0, ...none };
  return { latencyUs: ONE_RANK_CALL_US, bandwidthTimeUs: usFor(sizeBytes, shape.localCopyGBps), ...none };
}
