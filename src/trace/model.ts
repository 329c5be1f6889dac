/**
 * `modelFor`: the TraceModel the CLI hands to analyseTrace from the user's flags alone. Collective
 * times come from the model room's `predictCollective` (estimateCollective on the group's shape);
 * with a job, its cluster (NICs, topology, GPUDirect, NCCL version) shapes the predictions and
 * `plan`'s step time is the predicted step. Without --gpu the GPU is the preset the trace's device
 * name matches, else the model's default.
 */
import { UsageError } from '../core/errors.js';
import { planStep, predictCollective, type PredictInput } from '../model/index.js';
import {
  gpuPresets,
  loadJobFile,
  resolveFabric,
  resolveGpu,
  type GpuSpec,
  type Job,
  type LoadedJob,
} from '../spec/index.js';
import { busbwOp } from './collective-row.js';
import type { TraceModel } from './model-types.js';

/** The trace's layout, for the notes and the default GPU. */
export interface TraceShape {
  nodes: number;
  gpusPerNode: number;
  /** GPU model name from the trace (deviceProperties), when present. */
  device?: string | null;
}

/** The model's default GPU where neither the flags nor the trace say (predict.ts uses the same). */
export const DEFAULT_TRACE_GPU = 'h100-sxm';

const tokens = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((t) => t !== '' && t !== 'nvidia');

/**
 * The GPU preset a trace's device name stands for ("Tesla V100-SXM2-32GB" -> v100-sxm2): the presets
 * whose family (id before the first '-') is a word of the name, best word overlap with the preset's name.
 */
export function gpuPresetForDevice(device: string): GpuSpec | null {
  const words = new Set(tokens(device));
  let best: { gpu: GpuSpec; score: number } | null = null;
  for (const gpu of gpuPresets) {
    const family = gpu.id.split('-')[0]!;
    if (!words.has(family)) continue;
    const nameWords = tokens(gpu.name);
    // A PCIe card says so in its name ("NVIDIA H100 PCIe"); "NVIDIA H100 80GB HBM3" is the SXM part.
    const pcieMismatch = nameWords.includes('pcie') && !words.has('pcie') ? 0.5 : 0;
    const score =
      nameWords.filter((w) => words.has(w)).length -
      nameWords.filter((w) => !words.has(w)).length / 100 -
      pcieMismatch;
    if (!best || score > best.score) best = { gpu, score };
  }
  return best?.gpu ?? null;
}

/**
 * `job`: a job file's path, a loaded job (resolved here with --fabric / --gpu as overrides) or an
 * already resolved job (used as it is: its cluster's fabric and GPU win over the two strings).
 */
export function modelFor(
  fabric: string | undefined,
  gpu: string | undefined,
  shape: TraceShape,
  job?: string | LoadedJob | Job,
): TraceModel {
  const notes: string[] = [];
  let resolvedJob: Job | undefined;
  if (job !== undefined && typeof job !== 'string' && 'cluster' in job) resolvedJob = job;
  else if (job !== undefined) {
    const loaded = typeof job === 'string' ? loadJobFile(job) : job;
    const overrides: { fabric?: string; gpu?: string } = {};
    if (fabric !== undefined) overrides.fabric = fabric;
    if (gpu !== undefined) overrides.gpu = gpu;
    resolvedJob = loaded.resolve(overrides);
  }
  let gpuSpec: GpuSpec;
  if (resolvedJob) gpuSpec = resolvedJob.cluster.gpu;
  else if (gpu !== undefined) gpuSpec = resolveGpu(gpu);
  else {
    const fromTrace = shape.device ? gpuPresetForDevice(shape.device) : null;
    gpuSpec = fromTrace ?? resolveGpu(DEFAULT_TRACE_GPU);
    notes.push(
      fromTrace
        ? `model GPU ${gpuSpec.id}, from the trace's device "${shape.device}" (--gpu to change)`
        : `model GPU ${gpuSpec.id}, the default: the trace names no known GPU (--gpu to change)`,
    );
  }
  if (!resolvedJob && fabric === undefined)
    throw new UsageError('a model needs --fabric F or --job JOB.yaml');
  const fabricSpec = resolvedJob ? resolvedJob.cluster.fabric : resolveFabric(fabric!);
  const cluster = resolvedJob?.cluster;
  const predict = (
    op: string,
    sizeBytes: number,
    groupSize: number,
    nodesInGroup: number,
    gpusPerNodeInGroup: number,
  ): number | null => {
    const modelOp = busbwOp(op);
    if (modelOp === null || !(sizeBytes >= 0) || groupSize < 1) return null;
    const input: PredictInput & { sizeBytes: number } = {
      op: modelOp,
      sizeBytes,
      nodes: nodesInGroup,
      gpusPerNode: gpusPerNodeInGroup,
      fabric: fabricSpec,
      gpu: gpuSpec,
    };
    if (cluster) {
      input.nicsPerNode = Math.max(
        1,
        Math.round((cluster.nicsPerNode * gpusPerNodeInGroup) / cluster.gpusPerNode),
      );
      input.topology = cluster.topology;
      input.gpuDirectRdma = cluster.gpuDirectRdma;
      input.intraNodeKind = cluster.intraNodeKind;
      if (cluster.ncclVersion !== undefined) input.ncclVersion = cluster.ncclVersion;
      if (cluster.bandwidthBps !== undefined) input.bandwidthBps = cluster.bandwidthBps;
    }
    try {
      return predictCollective(input).timeUs;
    } catch {
      // A shape the model refuses (too many nodes, an algorithm that cannot run): no prediction.
      return null;
    }
  };
  const model: TraceModel = { fabric: fabricSpec.id, gpu: gpuSpec.id, predict, notes };
  if (resolvedJob) {
    model.stepUs = planStep(resolvedJob).stepTimeMs * 1000;
    if (resolvedJob.cluster.nodes !== shape.nodes || resolvedJob.cluster.gpusPerNode !== shape.gpusPerNode) {
      notes.push(
        `the job is ${resolvedJob.cluster.nodes} x ${resolvedJob.cluster.gpusPerNode} GPUs, the traces ${shape.nodes} host(s) x ${shape.gpusPerNode}: the predicted step is the job's`,
      );
    }
  }
  return model;
}
