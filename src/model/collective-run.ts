/** `collective`: a predicted nccl-tests table for one operation on one shape. */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import type { CollectiveOp } from './busbw.js';
import { checkAlgorithmApplies, type AlgorithmChoice } from './collectives.js';
import { collectiveSweep, shapeFor, type CollectiveRow, type PredictInput } from './predict.js';

export interface CollectiveRunInput extends Omit<PredictInput, 'algo'> {
  op: CollectiveOp;
  algo: AlgorithmChoice;
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

export function runCollective(input: CollectiveRunInput): ResultEnvelope<CollectiveMetrics> {
  checkAlgorithmApplies(input.op, input.algo);
  const shape = shapeFor(input);
  const rows = collectiveSweep(input.op, shape, {
    minBytes: input.minBytes,
    maxBytes: input.maxBytes,
    factor: input.factor,
    ...(input.stepBytes !== undefined ? { stepBytes: input.stepBytes } : {}),
    algo: input.algo,
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
    minBytes: input.minBytes,
    maxBytes: input.maxBytes,
    factor: input.stepBytes !== undefined ? null : input.factor,
    stepBytes: input.stepBytes ?? null,
    alphaUs: input.alphaSeconds !== undefined ? input.alphaSeconds * 1e6 : null,
    bandwidthGbps: input.bandwidthBps !== undefined ? input.bandwidthBps / 1e9 : null,
  };
  return makeResult('collective', inputs, {
    rows,
    ranks: shape.nodes * shape.gpusPerNode,
    peakBusbwGBps: peak,
    avgBusbwGBps: avg,
    nicGBps: shape.nicGBps,
    limitedBy: shape.pureAlphaUs !== undefined ? 'alpha-beta' : (shape.transport?.limitedBy ?? 'wire'),
    pureAlphaBeta: shape.pureAlphaUs !== undefined,
  });
}
