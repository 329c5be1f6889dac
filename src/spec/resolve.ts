/**
 * From validated files to the resolved, self-contained inputs the engines take: presets looked up,
 * defaults filled, parallel degrees checked against the GPU count. Errors point at the YAML line.
 */
import { UsageError } from '../core/errors.js';
import type { FabricSpec } from './fabric.js';
import type { GpuSpec } from './gpu.js';
import { pcieBandwidthGBps } from './gpu.js';
import type { ModelSpec } from './model-spec.js';
import type { ClusterFileSpec, ClusterTopology } from './cluster.js';
import type { JobFileSpec } from './job.js';
import { resolveFabric, resolveGpu, resolveModel } from './presets/index.js';
import { semanticError, type SourceLocation } from './yaml-loader.js';

export interface Cluster {
  nodes: number;
  gpusPerNode: number;
  nicsPerNode: number;
  gpu: GpuSpec;
  fabric: FabricSpec;
  /** Per-GPU intra-node bandwidth, one direction (GB/s). */
  intraNodeGBps: number;
  intraNodeKind: 'nvlink' | 'pcie';
  topology: ClusterTopology;
  /** GPUDirect RDMA in effect: asked for (or defaulted) and possible on the fabric. */
  gpuDirectRdma: boolean;
  hostMemoryBandwidthGBps: number;
}

export interface Parallelism {
  dp: number;
  tp: number;
  pp: number;
  cp: number;
  ep: number;
}

export interface Job {
  name: string;
  cluster: Cluster;
  model: ModelSpec;
  parallelism: Parallelism;
  sharding: JobFileSpec['sharding'];
  sequenceLength: number;
  microBatchSize: number;
  globalBatchSize: number;
  /** Micro-batches each pipeline processes per step (gradient accumulation steps). */
  microBatches: number;
  precision: JobFileSpec['precision'];
  overlap: number;
  computeEfficiency: number;
  gradientBucketBytes: number;
  stragglers: JobFileSpec['stragglers'];
}

type Locate = (path: readonly (string | number)[]) => SourceLocation;

function withLocation<T>(locate: Locate | undefined, path: (string | number)[], fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (locate && error instanceof UsageError) throw semanticError(locate(path), path, error.message);
    throw error;
  }
}

export interface ClusterOverrides {
  nodes?: number;
  fabric?: string | FabricSpec;
  gpu?: string | GpuSpec;
  gpusPerNode?: number;
  nicsPerNode?: number;
}

/**
 * The GPUs of a node talk over NVLink unless the GPU has none (nvlinkBandwidthGBps 0: PCIe cards),
 * then over PCIe. Asking for NVLink on such a GPU is an error at `intraNode.kind`.
 */
function intraNodeKindFor(gpu: GpuSpec, asked: 'nvlink' | 'pcie' | undefined, fail: (message: string) => never): 'nvlink' | 'pcie' {
  const hasNvlink = gpu.nvlinkBandwidthGBps > 0;
  if (asked === 'nvlink' && !hasNvlink) fail(`nvlink, but GPU ${gpu.id} has no NVLink (nvlinkBandwidthGBps 0); use kind: pcie or leave intraNode.kind out`);
  return asked ?? (hasNvlink ? 'nvlink' : 'pcie');
}

export function resolveCluster(spec: ClusterFileSpec, overrides: ClusterOverrides = {}, locate?: Locate, basePath: (string | number)[] = []): Cluster {
  const fabric = overrides.fabric !== undefined ? resolveFabric(overrides.fabric) : withLocation(locate, [...basePath, 'fabric'], () => resolveFabric(spec.fabric));
  const gpu = overrides.gpu !== undefined ? resolveGpu(overrides.gpu) : withLocation(locate, [...basePath, 'gpu'], () => resolveGpu(spec.gpu));
  const gpusPerNode = overrides.gpusPerNode ?? spec.gpusPerNode;
  const kindPath = [...basePath, 'intraNode', 'kind'];
  const intraNodeKind = intraNodeKindFor(gpu, spec.intraNode.kind, (message) => {
    if (locate) throw semanticError(locate(kindPath), kindPath, message);
    throw new UsageError(`${kindPath.join('.')}: ${message}`);
  });
  const defaultIntra = intraNodeKind === 'nvlink' ? gpu.nvlinkBandwidthGBps / 2 : pcieBandwidthGBps(gpu);
  return {
    nodes: overrides.nodes ?? spec.nodes,
    gpusPerNode,
    nicsPerNode: overrides.nicsPerNode ?? spec.nicsPerNode ?? gpusPerNode,
    gpu,
    fabric,
    intraNodeGBps: spec.intraNode.bandwidthGBps ?? defaultIntra,
    intraNodeKind,
    topology: spec.topology,
    gpuDirectRdma: (spec.gpuDirectRdma ?? true) && fabric.gpuDirectRdma,
    hostMemoryBandwidthGBps: spec.hostMemoryBandwidthGBps,
  };
}

export interface JobOverrides extends ClusterOverrides {
  /** Keep each replica's batch when the node count changes (weak scaling), as the scale study does. */
  keepBatchPerReplica?: boolean;
}

export function resolveJob(spec: JobFileSpec, overrides: JobOverrides = {}, locate?: Locate): Job {
  const cluster = resolveCluster(spec.cluster, overrides, locate, ['cluster']);
  const model = withLocation(locate, ['model'], () => resolveModel(spec.model));
  const { tp, pp, cp, ep } = spec.parallelism;
  const gpus = cluster.nodes * cluster.gpusPerNode;
  const fail = (path: (string | number)[], message: string): never => {
    if (locate) throw semanticError(locate(path), path, message);
    throw new UsageError(`${path.join('.')}: ${message}`);
  };
  const modelParallel = tp * pp * cp;
  if (gpus % modelParallel !== 0) {
    fail(['parallelism'], `tp x pp x cp = ${modelParallel} does not divide the ${gpus} GPUs of the cluster`);
  }
  const derivedDp = gpus / modelParallel;
  const nodesChanged = overrides.nodes !== undefined && overrides.nodes !== spec.cluster.nodes;
  let dp = derivedDp;
  if (spec.parallelism.dp !== undefined && !nodesChanged && spec.parallelism.dp !== derivedDp) {
    fail(['parallelism', 'dp'], `dp ${spec.parallelism.dp} x tp ${tp} x pp ${pp} x cp ${cp} must equal the ${gpus} GPUs of the cluster (dp would be ${derivedDp})`);
  }
  if (dp < 1) dp = 1;
  if (model.experts % ep !== 0) fail(['parallelism', 'ep'], `ep ${ep} must divide the model's ${model.experts} experts`);
  if ((dp * cp) % ep !== 0) fail(['parallelism', 'ep'], `ep ${ep} must divide dp x cp = ${dp * cp}`);
  if (model.heads % tp !== 0) fail(['parallelism', 'tp'], `tp ${tp} must divide the model's ${model.heads} attention heads`);
  if (pp > model.layers) fail(['parallelism', 'pp'], `pp ${pp} exceeds the model's ${model.layers} layers`);

  let globalBatchSize = spec.globalBatchSize;
  if (nodesChanged && overrides.keepBatchPerReplica !== false) {
    const originalDp = spec.parallelism.dp ?? (spec.cluster.nodes * spec.cluster.gpusPerNode) / modelParallel;
    globalBatchSize = Math.max(1, Math.round((spec.globalBatchSize / originalDp) * dp));
  }
  const sequencesPerReplica = globalBatchSize / dp;
  const microBatches = sequencesPerReplica / spec.microBatchSize;
  if (!Number.isInteger(microBatches) || microBatches < 1) {
    fail(['globalBatchSize'], `global batch ${globalBatchSize} must be a whole multiple of dp ${dp} x microBatchSize ${spec.microBatchSize}`);
  }
  return {
    name: spec.name,
    cluster,
    model,
    parallelism: { dp, tp, pp, cp, ep },
    sharding: spec.sharding,
    sequenceLength: spec.sequenceLength,
    microBatchSize: spec.microBatchSize,
    globalBatchSize,
    microBatches,
    precision: spec.precision,
    overlap: spec.overlap,
    computeEfficiency: spec.computeEfficiency,
    gradientBucketBytes: spec.gradientBucketBytes,
    stragglers: spec.stragglers,
  };
}
