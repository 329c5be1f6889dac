/**
 * Convenience entry points over presets: one prediction, an nccl-tests-style sweep, and the
 * large-message busbw plateau a healthy cluster should reach (used by `check`).
 */
import { UsageError } from '../core/errors.js';
import {
  resolveFabric,
  resolveGpu,
  type ClusterTopology,
  type FabricSpec,
  type GpuSpec,
} from '../spec/index.js';
import { MAX_GPUS_PER_NODE, MAX_NODES } from '../core/limits.js';
import { countsPerRank, usesRedOp, usesRoot } from '../core/collectives.js';
import { busbwFactor, elementCount, type CollectiveOp } from './busbw.js';
import { buildShape, type CollectiveShape } from './collective-shape.js';
import {
  checkAlgorithmApplies,
  estimateCollective,
  type AlgorithmChoice,
  type CollectiveEstimate,
} from './collectives.js';
import type { ProtocolChoice } from './nccl-tuning.js';
import type { ModelConstants } from './fitted.js';

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
  /** NCCL version whose tuning applies (X.Y); default the newest encoded. */
  ncclVersion?: string;
  /** NCCL_PROTO: a forced protocol, or auto. */
  proto?: ProtocolChoice;
  intraNodeKind?: 'nvlink' | 'pcie';
  /** GPUs one host thread issues calls for (nccl-tests -g); default 1. */
  gpusPerThread?: number;
  /** Timed iterations nccl-tests averages per size (-n); default 20. */
  iterations?: number;
  /** The GPU reaches its NIC through the CPU's host bridge (NCCL path PHB or SYS). */
  gdrViaCpu?: boolean;
  /** Fitted constants other than the shipped ones (the validation bench's re-fits). */
  constants?: ModelConstants;
}

export function shapeFor(input: Omit<PredictInput, 'op' | 'algo' | 'proto'>): CollectiveShape {
  if (!Number.isInteger(input.nodes) || input.nodes < 1 || input.nodes > MAX_NODES) {
    throw new UsageError(
      `invalid node count ${input.nodes} (expected a whole number from 1 to ${MAX_NODES})`,
    );
  }
  if (
    !Number.isInteger(input.gpusPerNode) ||
    input.gpusPerNode < 1 ||
    input.gpusPerNode > MAX_GPUS_PER_NODE
  ) {
    throw new UsageError(
      `invalid GPUs per node ${input.gpusPerNode} (expected a whole number from 1 to ${MAX_GPUS_PER_NODE})`,
    );
  }
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
  if (input.ncclVersion !== undefined) shapeInput.ncclVersion = input.ncclVersion;
  if (input.intraNodeKind !== undefined) shapeInput.intraNodeKind = input.intraNodeKind;
  if (input.gpusPerThread !== undefined) shapeInput.gpusPerThread = input.gpusPerThread;
  if (input.iterations !== undefined) shapeInput.iterations = input.iterations;
  if (input.gdrViaCpu !== undefined) shapeInput.gdrViaCpu = input.gdrViaCpu;
  if (input.constants !== undefined) shapeInput.constants = input.constants;
  return buildShape(shapeInput);
}

export function predictCollective(input: PredictInput & { sizeBytes: number }): CollectiveEstimate {
  return estimateCollective(
    input.op,
    input.sizeBytes,
    shapeFor(input),
    input.algo ?? 'auto',
    input.proto ?? 'auto',
  );
}

/** Busbw at a message so large that latency no longer counts (16 GiB). */
export const PLATEAU_SIZE_BYTES = 16 * 1024 ** 3;

export function predictBusbwPlateauGBps(
  input: Omit<PredictInput, 'algo'> & { algo?: AlgorithmChoice },
): number {
  return predictCollective({ ...input, sizeBytes: PLATEAU_SIZE_BYTES }).busbwGBps;
}

export interface SweepOptions {
  minBytes: number;
  maxBytes: number;
  /** Multiplicative step, as nccl-tests -f: a whole number of at least 2. */
  factor: number;
  /** Fixed increment in bytes, as nccl-tests -i; when set it replaces the factor. */
  stepBytes?: number;
  algo: AlgorithmChoice;
  /** NCCL_PROTO: a forced protocol, or auto. */
  proto?: ProtocolChoice;
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
  stallUs: number;
  timeoutDelayUs: number;
}

/** nccl-tests columns: reductions print their op, others `none`; rooted ops print root 0, others -1. */
function redopAndRoot(op: CollectiveOp): { redop: string; root: number } {
  return { redop: usesRedOp(op) ? 'sum' : 'none', root: usesRoot(op) ? 0 : -1 };
}

/** Most rows one sweep may print; an increment that asks for more is refused rather than cut short. */
export const MAX_SWEEP_ROWS = 10_000;

export interface SweepStep {
  /** Multiply by this between rows (nccl-tests -f), a whole number of at least 2. */
  factor?: number;
  /** Add this many bytes between rows (nccl-tests -i), at least 1. */
  stepBytes?: number;
}

/**
 * Requested message sizes as nccl-tests' TimeTest loop steps them: from -b to -e, times -f or plus
 * -i (src/common.cu). A -b of 0 is followed by 1 so a factor can grow it. Refuses -b above -e.
 */
export function sweepSizes(minBytes: number, maxBytes: number, step: SweepStep): number[] {
  if (!Number.isSafeInteger(minBytes) || !Number.isSafeInteger(maxBytes) || minBytes < 0) {
    throw new UsageError(
      `invalid size range -b ${minBytes} -e ${maxBytes} (expected whole byte counts, 0 <= -b <= -e)`,
    );
  }
  if (minBytes > maxBytes)
    throw new UsageError(`invalid sizes: -b ${minBytes} is above -e ${maxBytes} (expected -b <= -e)`);
  const sizes: number[] = [];
  if (step.stepBytes !== undefined) {
    const increment = step.stepBytes;
    if (!Number.isSafeInteger(increment) || increment < 1)
      throw new UsageError(`invalid -i ${increment} (expected an increment of at least 1 byte)`);
    const rows = Math.floor((maxBytes - minBytes) / increment) + 1;
    if (rows > MAX_SWEEP_ROWS) {
      throw new UsageError(
        `-b ${minBytes} -e ${maxBytes} -i ${increment} asks for ${rows} sizes; the limit is ${MAX_SWEEP_ROWS} (use a larger -i or -f)`,
      );
    }
    for (let size = minBytes; size <= maxBytes; size += increment) sizes.push(size);
    return sizes;
  }
  const factor = step.factor ?? 2;
  if (!Number.isSafeInteger(factor) || factor < 2)
    throw new UsageError(`invalid -f ${factor} (expected a whole multiplication factor of at least 2)`);
  for (let size = minBytes; size <= maxBytes; size = size === 0 ? 1 : size * factor) sizes.push(size);
  return sizes;
}

/**
 * Bytes one row's size must be a multiple of: one element, or one element per rank for the ops
 * nccl-tests counts per rank (all_gather, reduce_scatter, alltoall), which round down to it.
 */
export function sizeGranuleBytes(op: CollectiveOp, ranks: number, typeBytes: number): number {
  return countsPerRank(op) ? typeBytes * Math.max(1, ranks) : typeBytes;
}

/**
 * The sizes a sweep prints: each requested size rounded down to whole elements (nccl-tests'
 * getCollByteCount), without the rows that round to 0 bytes unless 0 was asked for, and without
 * repeats. Refuses a range in which no size holds a whole element.
 */
export function alignedSweepSizes(
  op: CollectiveOp,
  ranks: number,
  typeBytes: number,
  minBytes: number,
  maxBytes: number,
  step: SweepStep,
): number[] {
  const granule = sizeGranuleBytes(op, ranks, typeBytes);
  const sizes: number[] = [];
  for (const requested of sweepSizes(minBytes, maxBytes, step)) {
    const aligned = Math.floor(requested / granule) * granule;
    if (aligned === 0 && requested > 0) continue;
    if (sizes.length > 0 && sizes[sizes.length - 1] === aligned) continue;
    sizes.push(aligned);
  }
  if (sizes.length === 0) {
    const perRank = granule > typeBytes ? ` (${typeBytes} bytes per element x ${ranks} ranks for ${op})` : '';
    throw new UsageError(
      `no size from -b ${minBytes} to -e ${maxBytes} holds a whole element: the smallest is ${granule} bytes${perRank}`,
    );
  }
  return sizes;
}

export function collectiveSweep(
  op: CollectiveOp,
  shape: CollectiveShape,
  options: SweepOptions,
): CollectiveRow[] {
  const typeBytes = options.typeBytes ?? 4;
  const ranks = shape.nodes * shape.gpusPerNode;
  const { redop, root } = redopAndRoot(op);
  checkAlgorithmApplies(op, options.algo);
  const step: SweepStep =
    options.stepBytes !== undefined ? { stepBytes: options.stepBytes } : { factor: options.factor };
  return alignedSweepSizes(op, ranks, typeBytes, options.minBytes, options.maxBytes, step).map(
    (sizeBytes) => {
      // nccl-tests prints the element count per rank for all_gather, reduce_scatter, alltoall.
      const count = elementCount(op, sizeBytes, ranks, typeBytes);
      const estimate = estimateCollective(op, sizeBytes, shape, options.algo, options.proto ?? 'auto');
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
        stallUs: estimate.stallUs,
        timeoutDelayUs: estimate.timeoutDelayUs,
      };
    },
  );
}

export { busbwFactor };
