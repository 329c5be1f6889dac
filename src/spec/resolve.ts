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
import { applyFabricOverrides, applyGpuOverrides, type FieldOverrides } from './overrides.js';
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
  /** NCCL version whose tuning applies (X.Y); absent: the model's default. */
  ncclVersion?: string;
  /** Per-NIC payload bandwidth replacing the fabric's (bits per second), as `--bandwidth`. */
  bandwidthBps?: number;
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
  /** Recompute, pipeline interleaving, sequence parallelism, TP overlap, shard buckets (spec/job.ts). */
  training: JobFileSpec['training'];
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
  /** `--gdr on|off`: asked for GPUDirect RDMA (still only where the fabric allows it). */
  gpuDirectRdma?: boolean;
  ncclVersion?: string;
  /** `--bandwidth`: per-NIC payload bandwidth replacing the fabric's (bits per second). */
  bandwidthBps?: number;
  /** `--set gpu.* / fabric.* / cluster.*`: applied to whichever GPU and fabric the job resolves to. */
  fields?: FieldOverrides;
}

/**
 * `--set cluster.nodes=4` and friends folded into the overrides they mean; a dedicated flag (`--nodes`)
 * wins over a `--set` of the same field. What stays in `cluster` are the fields only the file has.
 */
function foldClusterFields(overrides: ClusterOverrides): {
  overrides: ClusterOverrides;
  cluster: Record<string, unknown>;
} {
  const { nodes, gpusPerNode, nicsPerNode, gpuDirectRdma, ncclVersion, ...rest } =
    overrides.fields?.cluster ?? {};
  const folded: ClusterOverrides = { ...overrides };
  if (folded.nodes === undefined && typeof nodes === 'number') folded.nodes = nodes;
  if (folded.gpusPerNode === undefined && typeof gpusPerNode === 'number') folded.gpusPerNode = gpusPerNode;
  if (folded.nicsPerNode === undefined && typeof nicsPerNode === 'number') folded.nicsPerNode = nicsPerNode;
  if (folded.gpuDirectRdma === undefined && typeof gpuDirectRdma === 'boolean')
    folded.gpuDirectRdma = gpuDirectRdma;
  if (folded.ncclVersion === undefined && typeof ncclVersion === 'string') folded.ncclVersion = ncclVersion;
  return { overrides: folded, cluster: rest };
}

/**
 * The GPUs of a node talk over NVLink unless the GPU has none (nvlinkBandwidthGBps 0: PCIe cards),
 * then over PCIe. Asking for NVLink on such a GPU is an error at `intraNode.kind`.
 */
function intraNodeKindFor(
  gpu: GpuSpec,
  asked: 'nvlink' | 'pcie' | undefined,
  fail: (message: string) => never,
): 'nvlink' | 'pcie' {
  const hasNvlink = gpu.nvlinkBandwidthGBps > 0;
  if (asked === 'nvlink' && !hasNvlink)
    fail(
      `nvlink, but GPU ${gpu.id} has no NVLink (nvlinkBandwidthGBps 0); use kind: pcie or leave intraNode.kind out`,
    );
  return asked ?? (hasNvlink ? 'nvlink' : 'pcie');
}

export function resolveCluster(
  fileSpec: ClusterFileSpec,
  given: ClusterOverrides = {},
  locate?: Locate,
  basePath: (string | number)[] = [],
): Cluster {
  const { overrides, cluster: clusterFields } = foldClusterFields(given);
  const { intraNode: intraNodeFields, ...scalarFields } = clusterFields;
  const spec: ClusterFileSpec = {
    ...fileSpec,
    ...(scalarFields as Partial<ClusterFileSpec>),
    intraNode: {
      ...fileSpec.intraNode,
      ...(intraNodeFields as Partial<ClusterFileSpec['intraNode']> | undefined),
    },
  };
  const presetFabric =
    overrides.fabric !== undefined
      ? resolveFabric(overrides.fabric)
      : withLocation(locate, [...basePath, 'fabric'], () => resolveFabric(spec.fabric));
  const presetGpu =
    overrides.gpu !== undefined
      ? resolveGpu(overrides.gpu)
      : withLocation(locate, [...basePath, 'gpu'], () => resolveGpu(spec.gpu));
  const fabric = applyFabricOverrides(presetFabric, overrides.fields?.fabric ?? {}, { tcpWhereTcp: true });
  const gpu = applyGpuOverrides(presetGpu, overrides.fields?.gpu ?? {});
  const gpusPerNode = overrides.gpusPerNode ?? spec.gpusPerNode;
  const kindPath = [...basePath, 'intraNode', 'kind'];
  const intraNodeKind = intraNodeKindFor(gpu, spec.intraNode.kind, (message) => {
    if ((intraNodeFields as { kind?: unknown } | undefined)?.kind !== undefined)
      throw new UsageError(`--set cluster.intraNode.kind: ${message}`);
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
    gpuDirectRdma: (overrides.gpuDirectRdma ?? spec.gpuDirectRdma ?? true) && fabric.gpuDirectRdma,
    hostMemoryBandwidthGBps: spec.hostMemoryBandwidthGBps,
    ...((overrides.ncclVersion ?? spec.ncclVersion) !== undefined
      ? { ncclVersion: overrides.ncclVersion ?? spec.ncclVersion }
      : {}),
    ...(overrides.bandwidthBps !== undefined ? { bandwidthBps: overrides.bandwidthBps } : {}),
  };
}

export interface JobOverrides extends ClusterOverrides {
  /** Keep each replica's batch when the node count changes (weak scaling), as the scale study does. */
  keepBatchPerReplica?: boolean;
}

export function resolveJob(spec: JobFileSpec, given: JobOverrides = {}, locate?: Locate): Job {
  const overrides: JobOverrides = { ...given, ...foldClusterFields(given).overrides };
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
    fail(
      ['parallelism', 'dp'],
      `dp ${spec.parallelism.dp} x tp ${tp} x pp ${pp} x cp ${cp} must equal the ${gpus} GPUs of the cluster (dp would be ${derivedDp})`,
    );
  }
  if (dp < 1) dp = 1;
  if (model.experts % ep !== 0)
    fail(['parallelism', 'ep'], `ep ${ep} must divide the model's ${model.experts} experts`);
  if ((dp * cp) % ep !== 0) fail(['parallelism', 'ep'], `ep ${ep} must divide dp x cp = ${dp * cp}`);
  if (model.heads % tp !== 0)
    fail(['parallelism', 'tp'], `tp ${tp} must divide the model's ${model.heads} attention heads`);
  if (pp > model.layers) fail(['parallelism', 'pp'], `pp ${pp} exceeds the model's ${model.layers} layers`);

  let globalBatchSize = spec.globalBatchSize;
  if (nodesChanged && overrides.keepBatchPerReplica !== false) {
    const originalDp = spec.parallelism.dp ?? (spec.cluster.nodes * spec.cluster.gpusPerNode) / modelParallel;
    globalBatchSize = Math.max(1, Math.round((spec.globalBatchSize / originalDp) * dp));
  }
  const sequencesPerReplica = globalBatchSize / dp;
  const microBatches = sequencesPerReplica / spec.microBatchSize;
  if (!Number.isInteger(microBatches) || microBatches < 1) {
    fail(
      ['globalBatchSize'],
      `global batch ${globalBatchSize} must be a whole multiple of dp ${dp} x microBatchSize ${spec.microBatchSize}`,
    );
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
    training: spec.training,
    stragglers: spec.stragglers,
  };
}
