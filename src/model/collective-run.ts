/** `collective`: a predicted nccl-tests table for one operation on one shape. */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import { resolveFabric, resolveGpu, type FieldOverrides } from '../spec/index.js';
import type { CollectiveOp } from './busbw.js';
import { buildShape, type CollectiveShape, type ShapeInput } from './collective-shape.js';
import { shapeWarnings, checkAlgorithmApplies, type AlgorithmChoice } from './collectives.js';
import { DEFAULT_NCCL_VERSION, type ProtocolChoice } from './nccl-tuning.js';
import { collectiveSweep, shapeFor, type CollectiveRow, type PredictInput } from './predict.js';

export interface CollectiveRunInput extends Omit<PredictInput, 'algo' | 'proto'> {
  op: CollectiveOp;
  algo: AlgorithmChoice;
  /** NCCL_PROTO: a forced protocol, or auto (default). */
  proto?: ProtocolChoice;
  /** Host DRAM bandwidth per node (GB/s), which kernel TCP's copies consume (`--set cluster.hostMemoryBandwidthGBps`). */
  hostMemoryBandwidthGBps?: number;
  /** Per-GPU intra-node bandwidth, one direction (GB/s), replacing the GPU's (`--set cluster.intraNode.bandwidthGBps`). */
  intraNodeGBps?: number;
  /** The `--set` / hardware-flag overrides behind `gpu` and `fabric`, recorded in the inputs as given. */
  overrides?: FieldOverrides;
  minBytes: number;
  maxBytes: number;
  /** nccl-tests -f: a whole number of at least 2; ignored when stepBytes is set. */
  factor: number;
  /** nccl-tests -i: a fixed increment in bytes between rows. */
  stepBytes?: number;
}

export interface CollectiveMetrics {
  rows: CollectiveRow[];
  ranks: number;
  /** Bus bandwidth of the largest message (GB/s). */
  peakBusbwGBps: number;
  /** Mean busbw over the rows, as nccl-tests' `# Avg bus bandwidth` (depends on -b). */
  avgBusbwGBps: number;
  /** Per-NIC payload bandwidth the model used (GB/s) and what bounds it. */
  nicGBps: number;
  limitedBy: string;
  pureAlphaBeta: boolean;
}

/**
 * shapeFor's shape, rebuilt with the two cluster fields shapeFor does not take (host memory and
 * intra-node bandwidth) when they are given; shapeFor still checks the counts and presets first.
 */
function runShape(input: CollectiveRunInput): CollectiveShape {
  const shape = shapeFor(input);
  if (input.hostMemoryBandwidthGBps === undefined && input.intraNodeGBps === undefined) return shape;
  const shapeInput: ShapeInput = {
    nodes: input.nodes,
    gpusPerNode: input.gpusPerNode,
    nicsPerNode: shape.nicsPerNode,
    fabric: resolveFabric(input.fabric),
    gpu: resolveGpu(input.gpu ?? 'h100-sxm'),
    gpuDirectRdma: shape.gpuDirect,
    topology: shape.topology,
    intraNodeKind: shape.intraKind,
    ncclVersion: shape.ncclVersion,
  };
  if (input.hostMemoryBandwidthGBps !== undefined)
    shapeInput.hostMemoryBandwidthGBps = input.hostMemoryBandwidthGBps;
  if (input.intraNodeGBps !== undefined) shapeInput.intraNodeGBps = input.intraNodeGBps;
  if (input.alphaSeconds !== undefined) shapeInput.alphaSeconds = input.alphaSeconds;
  if (input.bandwidthBps !== undefined) shapeInput.bandwidthBps = input.bandwidthBps;
  if (input.constants !== undefined) shapeInput.constants = input.constants;
  if (input.gpusPerThread !== undefined) shapeInput.gpusPerThread = input.gpusPerThread;
  if (input.iterations !== undefined) shapeInput.iterations = input.iterations;
  return buildShape(shapeInput);
}

export function runCollective(input: CollectiveRunInput): ResultEnvelope<CollectiveMetrics> {
  checkAlgorithmApplies(input.op, input.algo);
  const shape = runShape(input);
  const proto = input.proto ?? 'auto';
  const rows = collectiveSweep(input.op, shape, {
    minBytes: input.minBytes,
    maxBytes: input.maxBytes,
    factor: input.factor,
    ...(input.stepBytes !== undefined ? { stepBytes: input.stepBytes } : {}),
    algo: input.algo,
    proto,
  });
  const peak = rows.reduce((best, row) => Math.max(best, row.busbwGBps), 0);
  const avg = rows.length > 0 ? rows.reduce((sum, row) => sum + row.busbwGBps, 0) / rows.length : 0;
  const inputs = {
    op: input.op,
    nodes: input.nodes,
    gpusPerNode: input.gpusPerNode,
    nicsPerNode: shape.nicsPerNode,
    fabric: typeof input.fabric === 'string' ? input.fabric : input.fabric.id,
    gpu: typeof input.gpu === 'string' ? input.gpu : (input.gpu?.id ?? 'h100-sxm'),
    algo: input.algo,
    proto,
    ncclVersion: input.ncclVersion ?? DEFAULT_NCCL_VERSION,
    /** The encoded tuning that version takes (the newest at or below it). */
    ncclTuning: shape.tuning.version,
    /** GPUDirect RDMA in effect: asked for (or the fabric's) and possible on its transport. */
    gdr: shape.gpuDirect,
    intraNodeKind: shape.intraKind,
    overrides: input.overrides ?? { gpu: {}, fabric: {}, cluster: {} },
    minBytes: input.minBytes,
    maxBytes: input.maxBytes,
    factor: input.stepBytes !== undefined ? null : input.factor,
    stepBytes: input.stepBytes ?? null,
    /** nccl-tests -n: the iterations a printed row averages (TCP loss stalls: docs/models.md section 2). */
    iterations: shape.iterations,
    alphaUs: input.alphaSeconds !== undefined ? input.alphaSeconds * 1e6 : null,
    bandwidthGbps: input.bandwidthBps !== undefined ? input.bandwidthBps / 1e9 : null,
  };
  return makeResult(
    'collective',
    inputs,
    {
      rows,
      ranks: shape.nodes * shape.gpusPerNode,
      peakBusbwGBps: peak,
      avgBusbwGBps: avg,
      nicGBps: shape.nicGBps,
      limitedBy: shape.pureAlphaUs !== undefined ? 'alpha-beta' : (shape.transport?.limitedBy ?? 'wire'),
      pureAlphaBeta: shape.pureAlphaUs !== undefined,
    },
    { warnings: shapeWarnings(shape) },
  );
}
