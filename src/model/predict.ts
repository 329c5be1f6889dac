/**
 * Convenience entry points over presets: one prediction, an nccl-tests-style sweep, and the
 * large-message busbw plateau a healthy cluster should reach (used by `check`).
 */
import { UsageError } from '../core/errors.js';
import type { FabricSpec } from '../spec/fabric.js';
import type { GpuSpec } from '../spec/gpu.js';
import type { ClusterTopology } from '../spec/cluster.js';
import { resolveFabric, resolveGpu } from '../spec/presets/index.js';
import { busbwFactor, elementCount, type CollectiveOp } from './busbw.js';
import { buildShape, type CollectiveShape } from './collective-shape.js';
import { estimateCollective, type AlgorithmChoice, type CollectiveEstimate } from './collectives.js';

export interface PredictInput {
  op: CollectiveOp;
  nodes: number;
  gpusPerNode: number;
  nicsPerNode?: number;
  fabric: string | FabricSpec;
  gpu?: string | GpuSpec;
  algo?: AlgorithmChoice;
  gpuDirectRdma?: boolean;
  topology?: ClusterTopology;
  /** Per-NIC latency override (seconds). */
  alphaSeconds?: number;
  /** Per-NIC bandwidth override (bits per second). */
  bandwidthBps?: number;
}

export function shapeFor(input: Omit<PredictInput, 'op' | 'algo'>): CollectiveShape {
  if (!Number.isInteger(input.nodes) || input.nodes < 1) throw new UsageError(`invalid node count ${input.nodes} (expected a whole number of at least 1)`);
  if (!Number.isInteger(input.gpusPerNode) || input.gpusPerNode < 1) throw new UsageError(`invalid GPUs per node ${input.gpusPerNode} (expected a whole number of at least 1)`);
  const shapeInput: Parameters<typeof buildShape>[0] = {
    nodes: input.nodes,
    gpusPerNode: input.gpusPerNode,
    fabric: resolveFabric(input.fabric),
    gpu: resolveGpu(input.gpu ?? 'h100-sxm'),
  };
  if (input.nicsPerNode !== undefined) shapeInput.nicsPerNode = input.nicsPerNode;
  if (input.gpuDirectRdma !== undefined) shapeInput.gpuDirectRdma = input.gpuDirectRdma;
  if (input.topology !== undefined) shapeInput.topology = input.topology;
  if (input.alphaSeconds !== undefined) shapeInput.alphaSeconds = input.alphaSeconds;
  if (input.bandwidthBps !== undefined) shapeInput.bandwidthBps = input.bandwidthBps;
  return buildShape(shapeInput);
}

export function predictCollective(input: PredictInput & { sizeBytes: number }): CollectiveEstimate {
  return estimateCollective(input.op, input.sizeBytes, shapeFor(input), input.algo ?? 'auto');
}

/** Busbw at a message so large that latency no longer counts (16 GiB). */
export const PLATEAU_SIZE_BYTES = 16 * 1024 ** 3;

export function predictBusbwPlateauGBps(input: Omit<PredictInput, 'algo'> & { algo?: AlgorithmChoice }): number {
  return predictCollective({ ...input, sizeBytes: PLATEAU_SIZE_BYTES }).busbwGBps;
}

export interface SweepOptions {
  minBytes: number;
  maxBytes: number;
  /** Multiplicative step, as nccl-tests -f. */
  factor: number;
  algo: AlgorithmChoice;
  typeBytes?: number;
  typeName?: string;
}

export interface CollectiveRow {
  sizeBytes: number;
  count: number;
  type: string;
  redop: string;
  root: number;
  timeUs: number;
  algbwGBps: number;
  busbwGBps: number;
  algo: string;
  protocol: string;
  latencyUs: number;
  bandwidthTimeUs: number;
  timeoutDelayUs: number;
}

/** nccl-tests columns: reductions print their op, others `none`; rooted ops print root 0, others -1. */
function redopAndRoot(op: CollectiveOp): { redop: string; root: number } {
  const reduces = op === 'all_reduce' || op === 'reduce_scatter' || op === 'reduce';
  const rooted = op === 'broadcast' || op === 'reduce';
  return { redop: reduces ? 'sum' : 'none', root: rooted ? 0 : -1 };
}

/** Message sizes as nccl-tests steps them: from -b to -e, times -f (a factor of 1 would never end). */
export function sweepSizes(minBytes: number, maxBytes: number, factor: number): number[] {
  if (minBytes < 0 || maxBytes < minBytes) throw new UsageError(`invalid size range -b ${minBytes} -e ${maxBytes} (expected 0 <= -b <= -e)`);
  if (!(factor > 1)) throw new UsageError(`invalid -f ${factor} (expected a factor above 1)`);
  const sizes: number[] = [];
  for (let size = minBytes; size <= maxBytes; size = size === 0 ? 1 : Math.round(size * factor)) {
    sizes.push(size);
    if (sizes.length > 4096) break;
  }
  return sizes;
}

export function collectiveSweep(op: CollectiveOp, shape: CollectiveShape, options: SweepOptions): CollectiveRow[] {
  const typeBytes = options.typeBytes ?? 4;
  const ranks = shape.nodes * shape.gpusPerNode;
  const { redop, root } = redopAndRoot(op);
  return sweepSizes(options.minBytes, options.maxBytes, options.factor).map((requested) => {
    // nccl-tests rounds each size down to whole elements (per rank for all_gather, reduce_scatter, alltoall).
    const count = elementCount(op, requested, ranks, typeBytes);
    const perRankOps = op === 'all_gather' || op === 'reduce_scatter' || op === 'alltoall';
    const sizeBytes = perRankOps ? count * typeBytes * ranks : count * typeBytes;
    const estimate = estimateCollective(op, sizeBytes, shape, options.algo);
    return {
      sizeBytes,
      count,
      type: options.typeName ?? 'float',
      redop,
      root,
      timeUs: estimate.timeUs,
      algbwGBps: estimate.algbwGBps,
      busbwGBps: estimate.busbwGBps,
      algo: estimate.algo,
      protocol: estimate.protocol,
      latencyUs: estimate.latencyUs,
      bandwidthTimeUs: estimate.bandwidthTimeUs,
      timeoutDelayUs: estimate.timeoutDelayUs,
    };
  });
}

export { busbwFactor };
