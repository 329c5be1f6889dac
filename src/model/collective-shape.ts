/**
 * The shape a collective runs on and the per-link bandwidths and latencies it sees, either from a
 * fabric (with all transport terms) or pure alpha-beta (`--alpha`, `--bandwidth`: nothing else).
 */
import { pcieBandwidthGBps, type ClusterTopology, type FabricSpec, type GpuSpec } from '../spec/index.js';
import { NCCL_TESTS_DEFAULT_ITERS, transportTerms, type TransportTerms } from './transport.js';
import { FITTED_CONSTANTS, type ModelConstants } from './fitted.js';
import { tuningFor, type GpuGeneration, type NcclVersionTuning } from './nccl-tuning.js';

/**
 * Share of NVLink's per-direction bandwidth NCCL's ring sustains inside one node: about 20% goes to
 * protocol overhead, 370 of 450 GB/s on H100 (NVIDIA/nccl-tests issue 212, maintainer). DGX A100
 * logs show 226-233 of 300 GB/s (superbench fixtures). NVLink SHARP (NVLS) all_reduce can exceed this.
 */
export const NVLINK_EFFICIENCY = 370 / 450;

/**
 * A device-to-device copy reads and writes every byte in HBM, so it moves at most half the HBM
 * bandwidth: what a one-rank collective (a local copy, NCCL src/enqueue.cc ncclLaunchOneRank) runs at.
 */
export const DEVICE_COPY_HBM_SHARE = 0.5;

/**
 * GPUs without NVLink exchange data over PCIe through the host bridge or a PCIe switch; NCCL's
 * P2P/SHM transports reach about half the link's rate per direction in a ring (each GPU's link
 * carries a send and a receive through the CPU's root complex): the 4 x A40 run of
 * test/fixtures/nccl-tests/llm-insights-a40-4gpu-sys-all_reduce-nvlink-disabled.txt shows it.
 */
export const PCIE_P2P_SHARE = 0.5;

export interface CollectiveShape {
  nodes: number;
  gpusPerNode: number;
  nicsPerNode: number;
  topology: ClusterTopology;
  /** Payload bandwidth of one NIC (GB/s). */
  nicGBps: number;
  /** Per-GPU intra-node bandwidth, one direction (GB/s). */
  intraGBps: number;
  /** Device-to-device copy bandwidth of one GPU (GB/s): all a one-rank collective moves. */
  localCopyGBps: number;
  /** Software latency of one message over the network (us), added to NCCL's hop latency. */
  netMessageLatencyUs: number;
  switchHopLatencyUs: number;
  /** Pure alpha-beta: every step costs alpha, no NCCL protocol or base latencies. */
  pureAlphaUs?: number;
  /** Present when derived from a fabric. */
  transport?: TransportTerms;
  fabric?: FabricSpec;
  /** How GPUs in a node reach each other: NVLink (NVSwitch) or PCIe only. */
  intraKind: 'nvlink' | 'pcie';
  /** The GPU generation NCCL's tuning tables index by (compute capability 7.x, 8.x, 9.x, 10.x). */
  generation: GpuGeneration;
  /** NVLink SHARP is available (NVSwitch gen 3+): NVLS and NVLSTree can run. */
  nvls: boolean;
  /** NVLink bandwidth per GPU per direction as NVIDIA quotes it (GB/s): NVLS's reference. */
  nvlinkPerDirectionGBps: number;
  /** The GPU's own PCIe link, one direction (GB/s): what feeds its NICs with GPUDirect. */
  gpuPcieGBps: number;
  /** GPUDirect RDMA on the path (NCCL's `GDR 1`). */
  gpuDirect: boolean;
  /** The GPU-to-NIC path crosses the CPU's host bridge (NCCL's path type PHB or SYS), not a PCIe switch. */
  gdrViaCpu: boolean;
  /** GPUs one host thread issues NCCL calls for (nccl-tests -g; 1 with a process per GPU). */
  gpusPerThread: number;
  /** Timed iterations nccl-tests averages per size (-n): how rare a TCP stall may be and still show in a row. */
  iterations: number;
  /** The NCCL version whose tuning applies. */
  ncclVersion: string;
  tuning: NcclVersionTuning;
  constants: ModelConstants;
}

/** The generation NCCL's tables use for a GPU, from its id (Ada counts as Ampere there: compute capability 8.9 < 9.0). */
export function gpuGeneration(gpu: Pick<GpuSpec, 'id' | 'name'>): GpuGeneration {
  const text = `${gpu.id} ${gpu.name}`.toLowerCase();
  if (/\b(gb|b)(10|100|200|300)\b|blackwell/.test(text)) return 'blackwell';
  if (/\b(gh200|h100|h200|h800|h20)\b|hopper/.test(text)) return 'hopper';
  if (/\bv100\b|volta|\bp100\b|\bk80\b|pascal|kepler/.test(text)) return 'volta';
  return 'ampere';
}

export interface ShapeInput {
  nodes: number;
  gpusPerNode: number;
  nicsPerNode?: number;
  fabric: FabricSpec;
  gpu: GpuSpec;
  gpuDirectRdma?: boolean;
  topology?: ClusterTopology;
  intraNodeGBps?: number;
  hostMemoryBandwidthGBps?: number;
  /** Override the per-NIC latency (seconds); with bandwidthBps too, the model is pure alpha-beta. */
  alphaSeconds?: number;
  /** Override the per-NIC bandwidth (bits per second). */
  bandwidthBps?: number;
  intraNodeKind?: 'nvlink' | 'pcie';
  ncclVersion?: string;
  /** GPUs one host thread drives (nccl-tests -g); default 1. */
  gpusPerThread?: number;
  /** Timed iterations nccl-tests averages per size (-n); default 20 (NCCL_TESTS_DEFAULT_ITERS). */
  iterations?: number;
  /** The GPU reaches its NIC through the CPU's host bridge (NCCL path PHB or SYS); default false (a PCIe switch). */
  gdrViaCpu?: boolean;
  constants?: ModelConstants;
}

export function buildShape(input: ShapeInput): CollectiveShape {
  const nicsPerNode = input.nicsPerNode ?? input.gpusPerNode;
  const topology = input.topology ?? { kind: 'single-switch' };
  const pure = input.alphaSeconds !== undefined && input.bandwidthBps !== undefined;
  const gpuDirect = input.gpuDirectRdma ?? input.fabric.gpuDirectRdma;
  const intraKind = input.intraNodeKind ?? (input.gpu.nvlinkBandwidthGBps > 0 ? 'nvlink' : 'pcie');
  const common = {
    intraKind,
    generation: gpuGeneration(input.gpu),
    nvls: intraKind === 'nvlink' && (input.gpu as { nvls?: boolean }).nvls === true,
    nvlinkPerDirectionGBps: input.gpu.nvlinkBandwidthGBps / 2,
    gpuPcieGBps: pcieBandwidthGBps(input.gpu),
    gpuDirect: gpuDirect && input.fabric.transport !== 'tcp',
    gdrViaCpu: input.gdrViaCpu ?? false,
    gpusPerThread: input.gpusPerThread ?? 1,
    iterations: input.iterations ?? NCCL_TESTS_DEFAULT_ITERS,
    ncclVersion: input.ncclVersion ?? tuningFor(undefined).version,
    tuning: tuningFor(input.ncclVersion),
    constants: input.constants ?? FITTED_CONSTANTS,
  };
  if (pure) {
    const bandwidthGBps = (input.bandwidthBps ?? 0) / 8 / 1e9;
    return {
      nodes: input.nodes,
      gpusPerNode: input.gpusPerNode,
      nicsPerNode,
      topology,
      nicGBps: bandwidthGBps,
      // Pure alpha-beta has no GPU terms: inside a node data moves at the same rate as over a NIC.
      intraGBps: Number.POSITIVE_INFINITY,
      localCopyGBps: Number.POSITIVE_INFINITY,
      netMessageLatencyUs: (input.alphaSeconds ?? 0) * 1e6,
      switchHopLatencyUs: 0,
      pureAlphaUs: (input.alphaSeconds ?? 0) * 1e6,
      ...common,
    };
  }
  const transport = transportTerms({
    fabric: input.fabric,
    gpuDirectRdma: gpuDirect,
    nicsPerNode,
    gpusPerNode: input.gpusPerNode,
    pcieGBps: pcieBandwidthGBps(input.gpu),
    hostMemoryBandwidthGBps: input.hostMemoryBandwidthGBps ?? 614,
  });
  const nicGBps = input.bandwidthBps !== undefined ? input.bandwidthBps / 8 / 1e9 : transport.achievableGBps;
  // EFA has no published per-message latency: the model uses the one fitted to the corpus (fitted.ts).
  const fabricLatencyUs =
    input.fabric.transport === 'efa' ? common.constants.efaMessageUs : input.fabric.perMessageLatencyUs;
  const latencyUs = input.alphaSeconds !== undefined ? input.alphaSeconds * 1e6 : fabricLatencyUs;
  return {
    nodes: input.nodes,
    gpusPerNode: input.gpusPerNode,
    nicsPerNode,
    topology,
    nicGBps,
    intraGBps:
      input.intraNodeGBps !== undefined
        ? input.intraNodeGBps * (intraKind === 'nvlink' ? NVLINK_EFFICIENCY : 1)
        : intraKind === 'nvlink'
          ? (input.gpu.nvlinkBandwidthGBps / 2) * NVLINK_EFFICIENCY
          : pcieBandwidthGBps(input.gpu) * PCIE_P2P_SHARE,
    localCopyGBps: input.gpu.hbmBandwidthTBps * 1e3 * DEVICE_COPY_HBM_SHARE,
    netMessageLatencyUs: latencyUs,
    switchHopLatencyUs: input.fabric.switchHopLatencyUs,
    transport,
    fabric: input.fabric,
    ...common,
  };
}

export function rankCount(shape: CollectiveShape): number {
  return shape.nodes * shape.gpusPerNode;
}

/** Network payload bandwidth of one node, all NICs together (GB/s). */
export function nodeNetworkGBps(shape: CollectiveShape): number {
  return shape.nicGBps * shape.nicsPerNode;
}

/**
 * Slowdown of traffic that leaves a leaf switch on an oversubscribed leaf-spine: the share of a
 * node's traffic that crosses the spine, times the oversubscription, when that exceeds 1.
 */
export function spineSlowdown(shape: CollectiveShape, crossLeafShare: number): number {
  if (shape.topology.kind !== 'leaf-spine' || shape.nodes <= shape.topology.nodesPerLeaf) return 1;
  return Math.max(1, crossLeafShare * shape.topology.oversubscription);
}

/** Switch hops between two nodes: one switch, or leaf-spine-leaf once the job spans leaves. */
export function switchHops(shape: CollectiveShape): number {
  if (shape.topology.kind === 'leaf-spine' && shape.nodes > shape.topology.nodesPerLeaf) return 3;
  return 1;
}
