/**
 * NCCL's own tuner, the numbers it uses to choose an algorithm and protocol and to predict a time.
 * Source: NVIDIA/nccl src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime) and
 * src/include/device.h / src/graph/topo.h, versions 2.12 to 2.30; per-version differences are
 * keyed by NCCL_VERSIONS below. Values are copied as NCCL writes them; docs/models.md cites each.
 */
import { ALGORITHM_IDS, type NcclAlgorithm, type NcclProtocol } from '../core/collectives.js';

export { DEFAULT_NCCL_VERSION, isNcclVersion } from '../core/nccl-version.js';

export {
  PROTOCOLS,
  PROTOCOL_IDS,
  PROTOCOL_CHOICES,
  protocolOfId,
  type NcclAlgorithm,
  type NcclProtocol,
  type ProtocolId,
  type ProtocolChoice,
} from '../core/collectives.js';

/**
 * NCCL versions whose tuning the model encodes, oldest first; a version takes the newest entry at or
 * below it. Read from NVIDIA/nccl src/graph/tuning.cc at 2.20.3 (b6475625), 2.22.3 (178b6b75) and
 * 2.25.1 (80f6bda4), versions checked in makefiles/version.mk; NVLS from src/transport/nvls.cc.
 * - ringLlHalf: ring LL busBw = min(llMaxBw, busBw / 2) (2.22); before, busBw / 4 across nodes or for reductions, / 3 otherwise.
 * - hopperLl141: Hopper's one-node LL cap 141 GB/s (2.22; 87.7 before).
 * - treeSimpleHwLat: tree Simple per-hop latency NVLink / PCI / NET: 28 / 28 / 28 (2.20, 2.22), 4 / 4 / 14 (2.25).
 * - interStepsMinusOne: nInterSteps 2(N-1) for all_reduce (2.25); 2N before.
 * - nvlsHwLat: NVLS NVLink hop latency, 23 (2.20) then 25 (2.22).
 * - pat: PAT for all_gather / reduce_scatter at one GPU per node (seen in 2.25.1, absent from 2.22.3).
 * - nvls: NVLS (2.17, single node) and NVLSTree (2.18, several nodes) exist.
 * - blackwell: the SM100 rows of the caps (2.25: twice Hopper's).
 * - alltoallCall: ncclAlltoAll exists (2.28), and nccl-tests' alltoall calls it once instead of posting
 *   a ncclSend and a ncclRecv per rank (NVIDIA/nccl-tests src/alltoall.cu, `test_ncclVersion >= 2.28`).
 * - p2pNetChannelsByBw: a remote p2p peer gets ceil(the GPU's network bandwidth / NCCL_P2P_PER_CHANNEL_NET_BW)
 *   channels, halved across nodes until every peer fits one round (2.29; before, 2 halved by rank count):
 *   src/graph/paths.cc ncclTopoGetNchannels and ncclTopoComputeP2pChannels, p2p-costs.ts.
 */
export interface NcclVersionTuning {
  version: string;
  nvls: boolean;
  nvlsTree: boolean;
  pat: boolean;
  blackwell: boolean;
  ringLlHalf: boolean;
  hopperLl141: boolean;
  treeSimpleHwLat: { nvlink: number; pci: number; net: number };
  interStepsMinusOne: boolean;
  nvlsHwLat: number;
  ll128OneGpuShare: number;
  alltoallCall: boolean;
  p2pNetChannelsByBw: boolean;
}
const V2_20: NcclVersionTuning = {
  version: '2.20',
  nvls: true,
  nvlsTree: true,
  pat: false,
  blackwell: false,
  ringLlHalf: false,
  hopperLl141: false,
  treeSimpleHwLat: { nvlink: 28, pci: 28, net: 28 },
  interStepsMinusOne: false,
  nvlsHwLat: 23,
  ll128OneGpuShare: 0.7,
  alltoallCall: false,
  p2pNetChannelsByBw: false,
};
const V2_25: NcclVersionTuning = {
  ...V2_20,
  version: '2.25',
  pat: true,
  blackwell: true,
  ringLlHalf: true,
  hopperLl141: true,
  treeSimpleHwLat: { nvlink: 4, pci: 4, net: 14 },
  interStepsMinusOne: true,
  nvlsHwLat: 25,
  ll128OneGpuShare: 0.92,
};
export const NCCL_VERSIONS: readonly NcclVersionTuning[] = [
  { ...V2_20, version: '2.12', nvls: false, nvlsTree: false },
  { ...V2_20, version: '2.17', nvlsTree: false },
  { ...V2_20, version: '2.18' },
  V2_20,
  { ...V2_20, version: '2.22', ringLlHalf: true, hopperLl141: true, nvlsHwLat: 25 },
  V2_25,
  { ...V2_25, version: '2.28', alltoallCall: true },
  { ...V2_25, version: '2.29', alltoallCall: true, p2pNetChannelsByBw: true },
];

const versionKey = (version: string): number => {
  const [major, minor] = version.split('.').map((part) => Number.parseInt(part, 10));
  return (major ?? 0) * 1000 + (minor ?? 0);
};

/** The tuning of the newest encoded version at or below `version` (X.Y or X.Y.Z); the oldest for older ones. */
export function tuningFor(version: string | undefined): NcclVersionTuning {
  if (!version) return V2_25;
  const key = versionKey(version);
  let chosen: NcclVersionTuning = { ...V2_20, version: '2.12', nvls: false, nvlsTree: false };
  for (const entry of NCCL_VERSIONS) if (versionKey(entry.version) <= key) chosen = entry;
  return chosen;
}

type PerProtocol = Record<NcclProtocol, number>;
type PerAlgorithm = Record<NcclAlgorithm, PerProtocol>;
const p = (ll: number, ll128: number, simple: number): PerProtocol => ({
  LL: ll,
  LL128: ll128,
  Simple: simple,
});

/** tuning.cc baseLat (us): the fixed cost of one collective per algorithm and protocol. */
export const BASE_LATENCY_US: PerAlgorithm = {
  tree: p(6.8, 14.0, 8.4),
  ring: p(6.6, 14.0, 8.4),
  collnetdirect: p(0, 0, 0),
  collnetchain: p(0, 0, 0),
  nvls: p(0, 0, 0),
  nvlstree: p(0, 0, 0),
  pat: p(0, 0, 0),
};

/** tuning.cc hwLat[NCCL_HW_NVLINK] (us per hop). */
export const NVLINK_HOP_LATENCY_US: PerAlgorithm = {
  tree: p(0.6, 1.25, 4.0),
  ring: p(0.6, 1.9, 3.4),
  collnetdirect: p(0, 0, 3.7),
  collnetchain: p(0, 0, 2.8),
  nvls: p(0, 0, 25),
  nvlstree: p(0, 0, 25),
  pat: p(0, 0, 4.0),
};

/** tuning.cc hwLat[NCCL_HW_PCI] (us per hop): GPUs joined by PCIe only. */
export const PCI_HOP_LATENCY_US: PerAlgorithm = {
  tree: p(1.0, 1.9, 6.0),
  ring: p(1.0, 2.5, 5.7),
  collnetdirect: p(0, 0, 3.7),
  collnetchain: p(0, 0, 2.8),
  nvls: p(0, 0, 0),
  nvlstree: p(0, 0, 0),
  pat: p(0, 0, 6.0),
};

/** tuning.cc hwLat[NCCL_HW_NET] (us per hop). */
export const NET_HOP_LATENCY_US: PerAlgorithm = {
  tree: p(5.0, 8.5, 14),
  ring: p(2.7, 4.0, 14),
  collnetdirect: p(0, 0, 31),
  collnetchain: p(0, 0, 30),
  nvls: p(0, 0, 18),
  nvlstree: p(0, 0, 14),
  pat: p(0, 0, 14),
};

export type GpuGeneration = 'volta' | 'ampere' | 'hopper' | 'blackwell';
/** tuning.cc indexes its caps by node count: one node, two nodes, more (N1 / N2 / N4). */
const nodeIndex = (nodes: number): 0 | 1 | 2 => (nodes <= 1 ? 0 : nodes === 2 ? 1 : 2);

/**
 * tuning.cc llMaxBws (GB/s): LL's bus bandwidth cap. One node: the GPU generation's row; several
 * nodes: the CPU's row (Intel {39.0, 39.0, 20.4}, AMD {87.7, 22.5, 19.0}); the model assumes Intel hosts.
 */
const LL_MAX_BW_ONE_NODE: Record<GpuGeneration, number> = {
  volta: 39.0,
  ampere: 87.7,
  hopper: 141.0,
  blackwell: 282.0,
};
const LL_MAX_BW_INTEL: [number, number, number] = [39.0, 39.0, 20.4];
/** tuning.cc perChMaxRingLL128Bws (GB/s per channel). */
const RING_LL128_PER_CHANNEL: Record<GpuGeneration, [number, number, number]> = {
  volta: [20.0, 20.0, 20.0],
  ampere: [20.0, 20.0, 20.0],
  hopper: [36.7, 36.7, 36.7],
  blackwell: [73.4, 73.4, 73.4],
};
/** tuning.cc perChMaxTreeBws (GB/s per channel); Blackwell twice Hopper (2.25.1). */
const TREE_PER_CHANNEL: Record<GpuGeneration, [number, number, number]> = {
  volta: [26.5, 18.5, 10.0],
  ampere: [24.0, 23.6, 17.8],
  hopper: [38.7, 41.4, 36.0],
  blackwell: [77.4, 82.8, 72.0],
};
/** tuning.cc perChMaxTreeLL128Bws (GB/s per channel). */
const TREE_LL128_PER_CHANNEL: Record<GpuGeneration, [number, number, number]> = {
  volta: [20.0, 20.0, 20.0],
  ampere: [20.0, 20.0, 20.0],
  hopper: [36.7, 36.7, 29.0],
  blackwell: [73.4, 73.4, 58.0],
};

export function llMaxBandwidthGBps(
  generation: GpuGeneration,
  nodes: number,
  tuning: NcclVersionTuning,
): number {
  if (nodes > 1) return LL_MAX_BW_INTEL[nodeIndex(nodes)];
  if (generation === 'hopper' && !tuning.hopperLl141) return 87.7;
  if (generation === 'blackwell') return tuning.blackwell ? 282.0 : 141.0;
  return LL_MAX_BW_ONE_NODE[generation];
}
export const ringLl128PerChannelGBps = (generation: GpuGeneration, nodes: number): number =>
  RING_LL128_PER_CHANNEL[generation][nodeIndex(nodes)];
export const treePerChannelGBps = (generation: GpuGeneration, nodes: number): number =>
  TREE_PER_CHANNEL[generation][nodeIndex(nodes)];
export const treeLl128PerChannelGBps = (generation: GpuGeneration, nodes: number): number =>
  TREE_LL128_PER_CHANNEL[generation][nodeIndex(nodes)];

/**
 * tuning.cc treeCorrectionFactor[protocol][log2(bytes / 64)]: the tuner's own correction of tree
 * bandwidth by size, for sizes 64 B (index 0) to 256 MiB (index 22); 1 beyond.
 */
const TREE_CORRECTION: Record<NcclProtocol, readonly number[]> = {
  LL: [
    1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0,
    1.0, 1.0,
  ],
  LL128: [
    1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9, 0.9, 0.9, 0.9,
    1.0, 1.0,
  ],
  Simple: [
    0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8, 0.7, 0.7, 0.8,
    0.9, 0.9,
  ],
};
export function treeCorrection(protocol: NcclProtocol, sizeBytes: number): number {
  const index = Math.floor(Math.log2(Math.max(1, sizeBytes / 64)));
  const table = TREE_CORRECTION[protocol];
  return index >= 0 && index < table.length ? (table[index] ?? 1) : 1;
}

/** tuning.cc ring LL: busBw / 2 (2.22 on); before, / 4 across nodes or for all_reduce and reduce, / 3 otherwise. */
export const llBusbwShare = (nodes: number, reduces: boolean, tuning: NcclVersionTuning): number =>
  tuning.ringLlHalf ? 0.5 : nodes > 1 || reduces ? 1 / 4 : 1 / 3;
/** tuning.cc ring LL128: 0.92 of busBw (120/128); 0.7 with one GPU per node before 2.25. */
export const ll128BusbwShare = (gpusPerNode: number, tuning: NcclVersionTuning): number =>
  gpusPerNode < 2 ? tuning.ll128OneGpuShare : 0.92;
/** tuning.cc: NVLS and NVLSTree convert bus to algorithm bandwidth with 5/6 (2.20 to 2.25). */
export const NVLS_ALGBW_RATIO = 5 / 6;
/** src/transport/nvls.cc: NVLS_NCHANNELS_SM90 16, NVLS_NCHANNELS_SM100 32. */
export const nvlsChannels = (generation: GpuGeneration): number => (generation === 'blackwell' ? 32 : 16);
/** enqueue.cc: NVLS all_gather / reduce_scatter run on one node with at most NCCL_MAX_NVLS_ARITY 32 ranks; nvls.cc: off with 2 GPUs or fewer. */
export const NVLS_MAX_ARITY = 32;
/** tuning.cc PAT: busBw x 0.75; latency 8 + log2(N) x interLat / 3.5 + nRanks x 2.8 (2.25.1). */
export const PAT_BUSBW_SHARE = 0.75;
/** tuning.cc: tree bus bandwidth is cut to 92% of the graph's; LL 1/3.8; LL128 7/9 in one node, 120/128 across nodes. */
export const TREE_BUSBW_SHARE = 0.92;
export const TREE_LL_SHARE = 1 / 3.8;
export const treeLl128Share = (nodes: number): number => (nodes === 1 ? 7 / 9 : 120 / 128);
/** tuning.cc: tree, CollNet and NVLS convert bus to algorithm bandwidth with ratio 0.5 (ring: nRanks / nsteps). */
export const TREE_ALGBW_RATIO = 0.5;
/** tuning.cc getNetOverhead: about 1 us of proxy work per network operation on x86 hosts; Simple pays it three times. */
export const NET_OVERHEAD_US = 1.0;
export const SIMPLE_NET_OVERHEAD_FACTOR = 3;
/** tuning.cc ncclTopoGetAlgoTime: a multi-node Simple ring all_reduce's latency is multiplied by 1.4 (1.9 before SM80): the ring's plateau. */
export const ringPlateauFactor = (generation: GpuGeneration): number => (generation === 'volta' ? 1.9 : 1.4);

/**
 * Channel counts (src/graph/search.cc, src/graph/connect.cc): NCCL runs up to MAXCHANNELS 32
 * (64 from 2.12 on for NVLS/ring) channels; the ring search finds 2 per NIC on NIC-per-GPU systems
 * and 16 to 32 over NVLink. enqueue.cc then uses fewer for small sizes: while
 * bytes < channels x threads x threshold, drop a channel (threshold per thread: LL 8 B,
 * LL128 8 B, Simple 64 B, times nRanks for ring: NCCL_LL_THREAD_THRESHOLD,
 * NCCL_LL128_THREAD_THRESHOLD, NCCL_SIMPLE_THREAD_THRESHOLD in src/include/device.h).
 */
export const THREADS_PER_CHANNEL: PerProtocol = p(512, 640, 512);
export const THREAD_THRESHOLD_BYTES: PerProtocol = p(8, 8, 64);

/**
 * Channels enqueue.cc keeps for a message, at least 1 and at most `channels`. NCCL drops whole
 * channels; the model keeps the fraction (bytes / per-channel threshold), so the time never falls as the
 * size grows between two whole counts (the share of bandwidth follows the bytes, as whole channels do on average).
 */
export function channelsForSize(
  sizeBytes: number,
  channels: number,
  protocol: NcclProtocol,
  ring: boolean,
  ranks: number,
): number {
  const perChannel = THREADS_PER_CHANNEL[protocol] * THREAD_THRESHOLD_BYTES[protocol] * (ring ? ranks : 1);
  return Math.max(1, Math.min(channels, sizeBytes / perChannel));
}

export const isAlgorithmId = (value: string): value is NcclAlgorithm =>
  (ALGORITHM_IDS as readonly string[]).includes(value);

/**
 * NVLS chunk size for a message (enqueue.cc 2.25.1, calcCollChunking): NCCL_NVLS_CHUNKSIZE 128 KiB, cut to
 * 64 KiB below 64 x ops x chunk, 32 KiB below 8 x ops x chunk, 16 KiB below 2 x ops x chunk, where
 * ops = `concurrentOps` = nChannels x nvls.nHeads (one head per GPU of the NVLink domain).
 * NVLSTree: cut to 64 KiB from 4 nodes (NCCL_NVLSTREE_MAX_CHUNKSIZE), then capped at 64 / 32 KiB below
 * 4 / 1 x ops x chunk (its 256 and 128 KiB caps never bind below NCCL_NVLS_CHUNKSIZE).
 */
export function nvlsChunkBytes(
  sizeBytes: number,
  concurrentOps: number,
  tree: boolean,
  nodes: number,
): number {
  const KiB = 1024;
  let chunk = 128 * KiB;
  if (!tree) {
    if (sizeBytes < 64 * concurrentOps * chunk) chunk = 64 * KiB;
    if (sizeBytes < 8 * concurrentOps * chunk) chunk = 32 * KiB;
    if (sizeBytes < 2 * concurrentOps * chunk) chunk = 16 * KiB;
    return chunk;
  }
  // Each line caps the chunk (NCCL applies it only while the chunk is above the cap).
  if (nodes >= 4) chunk = 64 * KiB;
  if (sizeBytes < 4 * concurrentOps * chunk && chunk > 64 * KiB) chunk = 64 * KiB;
  if (sizeBytes < concurrentOps * chunk && chunk > 32 * KiB) chunk = 32 * KiB;
  return chunk;
}

/** The message sizes at which nvlsChunkBytes changes (the candidates of its comparisons). */
export function nvlsChunkThresholds(concurrentOps: number, tree: boolean, nodes: number): number[] {
  const KiB = 1024;
  if (!tree) return [64 * 128, 8 * 64, 2 * 32].map((k) => k * KiB * concurrentOps);
  return nodes >= 4 ? [64 * KiB * concurrentOps] : [4 * 128 * KiB * concurrentOps, 64 * KiB * concurrentOps];
}

/**
 * NCCL's NVLS efficiency per generation (nvlsEfficiency: Hopper 0.85, Blackwell 0.74), NVIDIA/nccl
 * src/tuning/nvls.cc at 1fc949c5 (a release after 2.28; its exact version could not be verified).
 */
export const nvlsEfficiency = (generation: GpuGeneration): number =>
  generation === 'blackwell' ? 0.74 : 0.85;
