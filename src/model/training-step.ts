/**
 * One training step on one fabric: compute from FLOPs, communication per parallel dimension,
 * overlap, the pipeline bubble, and the wait for the slowest rank. Formulas: docs/models.md.
 */
import type { Job } from '../spec/index.js';
import { nodeNetworkGBps, type CollectiveShape } from './collective-shape.js';
import { estimateCollective, type CollectiveEstimate } from './collectives.js';
import type { CollectiveOp } from './busbw.js';
import {
  BYTES_PER_ELEMENT,
  parameterCounts,
  recomputeFlopsPerToken,
  storedActivationBytesPerLayer,
  trainingFlopsPerToken,
} from './flops.js';
import { groupShape, type GroupKind } from './parallel-groups.js';
import { stragglerPenalty } from './stragglers.js';
import { transportContext, transportTerms } from './transport.js';

/** Backward costs twice the forward (Kaplan et al. 2020, section 2.1): 2/3 of step compute. */
const BACKWARD_SHARE = 2 / 3;
/** Mixed-precision Adam: bf16 weights 2 + grads 2 + fp32 master, momentum, variance 12 bytes per parameter (ZeRO paper, Rajbhandari et al. 2020, section 3.1). */
const BYTES_PER_PARAM = { weights: 2, grads: 2, optimizer: 12 } as const;

export type CommKind = GroupKind;

export interface StepBreakdown {
  stepTimeMs: number;
  /** GEMMs at computeEfficiency plus, with `training.memoryBoundKernels`, the non-GEMM kernels' HBM time. */
  computeMs: number;
  /** The non-GEMM kernels' part of computeMs (ms; 0 unless `training.memoryBoundKernels`). */
  memoryBoundMs: number;
  /** Communication time per dimension, before overlap (ms). */
  commMs: Record<CommKind, number>;
  /** What each dimension leaves on the critical path after overlap (ms). */
  exposedMs: Record<CommKind, number>;
  exposedCommMs: number;
  bubbleMs: number;
  stragglerPenaltyMs: number;
  timeoutPenaltyMs: number;
  tokensPerSecond: number;
  tokensPerSecondPerGpu: number;
  /** Model FLOPs utilisation: model FLOPs per step over (step time x GPUs x dense peak). */
  mfu: number;
  /** Hardware FLOPs utilisation: as MFU, with the recomputed forward counted (equals MFU without recompute). */
  hfu: number;
  /** Hardware FLOP/s per GPU (TFLOP/s), recompute included: what Megatron-LM's papers print (eq. 3). */
  hardwareTflopsPerGpu: number;
  /** Exposed communication and straggler wait as a share of the step. */
  exposedCommShare: number;
  /** Cores per node busy moving network data (kernel TCP copies; ~0 with RDMA). */
  hostCpuCoresPerNode: number;
  /** Host DRAM traffic per node caused by the network data path (GB/s). */
  hostMemoryTrafficGBps: number;
  /** Network payload per node per step (GB). */
  networkGBPerNodePerStep: number;
  /** Weights, gradients and optimizer state per GPU (GB), activations excluded. */
  stateMemoryPerGpuGB: number;
  gpus: number;
  warnings: string[];
}

interface CommAccumulator {
  timeMs: number;
  timeoutMs: number;
  networkGB: number;
}

function addCollective(
  acc: CommAccumulator,
  shape: CollectiveShape | undefined,
  op: CollectiveOp,
  sizeBytes: number,
  repeat: number,
  gpusPerNode: number,
): void {
  if (!shape || sizeBytes <= 0 || repeat <= 0) return;
  const estimate: CollectiveEstimate = estimateCollective(op, sizeBytes, shape, 'auto');
  // A training run pays the loss stalls' expectation, not the typical nccl-tests row's.
  acc.timeMs += (repeat * (estimate.timeUs - estimate.stallUs + estimate.timeoutDelayUs)) / 1000;
  acc.timeoutMs += (repeat * estimate.timeoutDelayUs) / 1000;
  if (shape.nodes > 1) {
    // Bytes the node's NICs carried: the bandwidth term at the group's network rate (an upper bound
    // when NVLink is the bottleneck), times the groups of this kind that share the node.
    const perGroupGB = estimate.bandwidthTimeUs * 1e-6 * nodeNetworkGBps(shape) * repeat;
    acc.networkGB += perGroupGB * (gpusPerNode / shape.gpusPerNode);
  }
}

function peakTflops(job: Job): number {
  const gpu = job.cluster.gpu;
  if (job.precision === 'fp8') return gpu.fp8DenseTflops ?? gpu.bf16DenseTflops;
  if (job.precision === 'fp32') return gpu.bf16DenseTflops / 2; // TF32 tensor cores run at half the BF16 rate (A100/H100 datasheets)
  return gpu.bf16DenseTflops;
}

export function trainingStep(job: Job): StepBreakdown {
  const { cluster, model, parallelism } = job;
  const { dp, tp, pp, cp, ep } = parallelism;
  const gpus = cluster.nodes * cluster.gpusPerNode;
  const warnings: string[] = [];
  const tokensPerStep = job.globalBatchSize * job.sequenceLength;
  const techniques = job.training;
  const flopsPerStep = trainingFlopsPerToken(model, job.sequenceLength) * tokensPerStep;
  const hardwareFlopsPerStep =
    flopsPerStep +
    recomputeFlopsPerToken(model, job.sequenceLength, techniques.activationRecompute) * tokensPerStep;
  const peak = peakTflops(job) * 1e12;
  // computeEfficiency is the kernels' share of peak on the FLOPs they run, recomputed ones included.
  const gemmMs = (hardwareFlopsPerStep / gpus / (peak * job.computeEfficiency)) * 1000;

  const counts = parameterCounts(model);
  const activationBytes = BYTES_PER_ELEMENT[job.precision === 'fp32' ? 'fp32' : 'bf16'];
  const gradBytes = job.precision === 'fp32' ? 4 : 2;
  const denseParams = counts.total - counts.expertTotal;
  // Parameters one GPU holds before data-parallel sharding: split by TP and PP, experts also by EP.
  const localParams = (denseParams + counts.expertTotal / ep) / (tp * pp);
  const localGradientBytes = localParams * gradBytes;
  const tokensPerMicroBatch = job.microBatchSize * job.sequenceLength;
  const m = job.microBatches;
  const layersPerStage = Math.ceil(model.layers / pp);
  // Each stored activation byte is written by one kernel and read by the next, once per pass: as many
  // passes as the GEMMs make (forward 1, backward 2, a full recompute 1 more), at the GPU's HBM rate.
  const passes = (3 * hardwareFlopsPerStep) / flopsPerStep;
  const memoryBoundMs = techniques.memoryBoundKernels
    ? ((2 *
        storedActivationBytesPerLayer(model, {
          microBatch: job.microBatchSize,
          sequenceLength: job.sequenceLength,
          tp,
          cp,
          sequenceParallel: techniques.sequenceParallel,
          flashAttention: techniques.flashAttention,
        }) *
        (activationBytes / 2) *
        layersPerStage *
        m *
        passes) /
        (cluster.gpu.hbmBandwidthTBps * 1e12)) *
      1000
    : 0;
  const computeMs = gemmMs + memoryBoundMs;

  const shapes: Record<CommKind, CollectiveShape | undefined> = {
    tp: groupShape('tp', parallelism, cluster),
    cp: groupShape('cp', parallelism, cluster),
    dp: groupShape('dp', parallelism, cluster),
    ep: groupShape('ep', parallelism, cluster),
    pp: groupShape('pp', parallelism, cluster),
  };
  const acc: Record<CommKind, CommAccumulator> = {
    tp: { timeMs: 0, timeoutMs: 0, networkGB: 0 },
    cp: { timeMs: 0, timeoutMs: 0, networkGB: 0 },
    dp: { timeMs: 0, timeoutMs: 0, networkGB: 0 },
    ep: { timeMs: 0, timeoutMs: 0, networkGB: 0 },
    pp: { timeMs: 0, timeoutMs: 0, networkGB: 0 },
  };

  // Data parallel. DDP: one all_reduce per gradient bucket per step. ZeRO-1/2: reduce_scatter of
  // gradients then all_gather of updated weights. ZeRO-3/FSDP: all_gather of weights in forward and
  // again in backward for every micro-batch, one reduce_scatter of gradients per step.
  if (job.sharding === 'none') {
    const buckets = Math.max(1, Math.ceil(localGradientBytes / job.gradientBucketBytes));
    addCollective(
      acc.dp,
      shapes.dp,
      'all_reduce',
      localGradientBytes / buckets,
      buckets,
      cluster.gpusPerNode,
    );
  } else if (job.sharding === 'zero1') {
    addCollective(acc.dp, shapes.dp, 'reduce_scatter', localGradientBytes, 1, cluster.gpusPerNode);
    addCollective(acc.dp, shapes.dp, 'all_gather', localParams * 2, 1, cluster.gpusPerNode);
  } else if (job.sharding === 'zero2') {
    // Partitioned gradients are reduced after every backward, not once per step (DeepSpeed issue 2252, maintainer).
    addCollective(acc.dp, shapes.dp, 'reduce_scatter', localGradientBytes, m, cluster.gpusPerNode);
    addCollective(acc.dp, shapes.dp, 'all_gather', localParams * 2, 1, cluster.gpusPerNode);
  } else {
    // Each layer's weights are gathered before its forward and again before its backward, and its
    // gradients reduce-scattered after its backward, every micro-batch; a layer moves in collectives of
    // at most shardBucketBytes. Each rank holds 1/dp of every collective: over a large group the
    // per-collective latency (it grows with the ring) is what stops the scaling.
    const layerWeightBytes = (localParams * 2) / layersPerStage;
    const layerGradBytes = localGradientBytes / layersPerStage;
    const gatherPieces = techniques.shardBucketBytes
      ? Math.max(1, Math.ceil(layerWeightBytes / techniques.shardBucketBytes))
      : 1;
    const scatterPieces = techniques.shardBucketBytes
      ? Math.max(1, Math.ceil(layerGradBytes / techniques.shardBucketBytes))
      : 1;
    addCollective(
      acc.dp,
      shapes.dp,
      'all_gather',
      layerWeightBytes / gatherPieces,
      2 * m * layersPerStage * gatherPieces,
      cluster.gpusPerNode,
    );
    addCollective(
      acc.dp,
      shapes.dp,
      'reduce_scatter',
      layerGradBytes / scatterPieces,
      m * layersPerStage * scatterPieces,
      cluster.gpusPerNode,
    );
  }

  // Tensor parallel (Megatron-LM, Shoeybi et al. 2019): two all_reduces of the activations per layer
  // in forward and two in backward, on the critical path; full recompute runs the forward's two again
  // (Korthikanti et al. 2022, section 4.2). Sequence parallelism turns each all_reduce into an
  // all_gather and a reduce_scatter of the same activations (same volume, section 4.2.2).
  const activationPerMicroBatch = (tokensPerMicroBatch / cp) * model.hidden * activationBytes;
  const tpPerLayer = techniques.activationRecompute === 'full' ? 6 : 4;
  if (techniques.sequenceParallel) {
    addCollective(
      acc.tp,
      shapes.tp,
      'all_gather',
      activationPerMicroBatch,
      tpPerLayer * layersPerStage * m,
      cluster.gpusPerNode,
    );
    addCollective(
      acc.tp,
      shapes.tp,
      'reduce_scatter',
      activationPerMicroBatch,
      tpPerLayer * layersPerStage * m,
      cluster.gpusPerNode,
    );
  } else {
    addCollective(
      acc.tp,
      shapes.tp,
      'all_reduce',
      activationPerMicroBatch,
      tpPerLayer * layersPerStage * m,
      cluster.gpusPerNode,
    );
  }

  // Context parallel (ring attention): all_gather of K and V per layer forward, reduce_scatter of
  // their gradients backward.
  const kvBytes =
    (tokensPerMicroBatch * 2 * model.kvHeads * (model.hidden / model.heads) * activationBytes) / tp;
  addCollective(acc.cp, shapes.cp, 'all_gather', kvBytes, layersPerStage * m, cluster.gpusPerNode);
  addCollective(acc.cp, shapes.cp, 'reduce_scatter', kvBytes, layersPerStage * m, cluster.gpusPerNode);

  // Expert parallel (GShard/Switch): dispatch and combine all-to-alls per MoE layer, forward and backward.
  if (model.experts > 1) {
    const routed = ((tokensPerMicroBatch / cp) * model.expertsPerToken * model.hidden * activationBytes) / tp;
    addCollective(acc.ep, shapes.ep, 'alltoall', routed, 4 * layersPerStage * m, cluster.gpusPerNode);
  }

  // Pipeline parallel: each micro-batch's activations cross each stage boundary forward, its
  // gradients backward (1F1B, Narayanan et al. 2021); with v interleaved chunks per stage a micro-batch
  // crosses v times as many boundaries (section 2.2.2). With sequence parallelism (or Megatron's
  // scatter/gather optimisation) each TP rank sends 1/tp of the activations.
  const interleave = pp > 1 ? techniques.pipelineInterleave : 1;
  addCollective(
    acc.pp,
    shapes.pp,
    'sendrecv',
    activationPerMicroBatch / tp,
    2 * m * interleave,
    cluster.gpusPerNode,
  );

  const commMs = {
    tp: acc.tp.timeMs,
    cp: acc.cp.timeMs,
    dp: acc.dp.timeMs,
    ep: acc.ep.timeMs,
    pp: acc.pp.timeMs,
  };
  // Overlap: DP traffic hides behind backward compute (all of compute for ZeRO-3/FSDP prefetching),
  // CP's ring exchange behind attention. TP, EP and PP are on the critical path.
  const sharded = job.sharding === 'zero3' || job.sharding === 'fsdp';
  const dpWindow = sharded ? computeMs : (computeMs * BACKWARD_SHARE) / m;
  const hiddenDp = Math.min(job.overlap * commMs.dp, dpWindow);
  const hiddenCp = Math.min(job.overlap * commMs.cp, computeMs * BACKWARD_SHARE);
  // TP overlap splits each GEMM and pipelines its chunks with the collective: it hides behind compute
  // that DP's prefetch has not already taken.
  const hiddenTp = Math.min(
    techniques.tpCommOverlap * commMs.tp,
    Math.max(0, computeMs - (sharded ? hiddenDp : 0)),
  );
  const exposedMs = {
    tp: commMs.tp - hiddenTp,
    cp: commMs.cp - hiddenCp,
    dp: commMs.dp - hiddenDp,
    ep: commMs.ep,
    pp: commMs.pp,
  };
  const exposedCommMs = exposedMs.tp + exposedMs.cp + exposedMs.dp + exposedMs.ep + exposedMs.pp;
  const timeoutMs =
    acc.tp.timeoutMs + acc.cp.timeoutMs + acc.dp.timeoutMs + acc.ep.timeoutMs + acc.pp.timeoutMs;

  // Pipeline bubble: (pp - 1) / (v m) of the compute (Narayanan et al. 2021, eq. 1 and section 2.2.2).
  const bubbleMs = pp > 1 ? ((pp - 1) / (interleave * m)) * computeMs : 0;
  if (interleave > 1 && m % pp !== 0)
    warnings.push(
      `the interleaved schedule needs the ${m} micro-batches to be a multiple of pp ${pp} (Megatron-LM)`,
    );

  // Timeout stalls sit inside the collectives' times as an expectation; take them out, then let the
  // straggler model put back jitter and stalls (analytically or by seeded Monte Carlo).
  const expectedTimeoutMs = Math.min(timeoutMs, exposedCommMs);
  const baseCommMs = exposedCommMs - expectedTimeoutMs;
  const straggler = stragglerPenalty({
    commMs: baseCommMs,
    expectedTimeoutMs,
    rtoMs: cluster.fabric.tcp?.minRtoMs ?? 0,
    ranks: gpus,
    jitterCv: job.stragglers.jitterCv,
    method: job.stragglers.method,
    samples: job.stragglers.samples,
    seed: job.stragglers.seed,
  });
  const stragglerPenaltyMs = straggler.jitterPenaltyMs;
  const exposedWithStallsMs = baseCommMs + straggler.timeoutPenaltyMs;
  const stepTimeMs = computeMs + bubbleMs + exposedWithStallsMs + stragglerPenaltyMs;

  const stepSeconds = stepTimeMs / 1000;
  const modelFlops = flopsPerStep;
  const mfu = modelFlops / (stepSeconds * gpus * peak);
  const hfu = hardwareFlopsPerStep / (stepSeconds * gpus * peak);

  // Host cost of the data path: network bytes per node per second, times CPU seconds and DRAM touches per byte, both directions.
  const networkGBPerNodePerStep =
    acc.tp.networkGB + acc.cp.networkGB + acc.dp.networkGB + acc.ep.networkGB + acc.pp.networkGB;
  const terms = transportTerms(transportContext(cluster));
  const networkGBps = cluster.nodes > 1 ? networkGBPerNodePerStep / stepSeconds : 0;
  const hostCpuCoresPerNode = 2 * networkGBps * terms.cpuSecondsPerGB;
  const hostMemoryTrafficGBps = 2 * networkGBps * terms.hostMemoryTouchesPerByte;

  const shardFactor = (stage: 'grads' | 'optimizer' | 'weights'): number => {
    if (job.sharding === 'zero3' || job.sharding === 'fsdp') return dp;
    if (job.sharding === 'zero2') return stage === 'weights' ? 1 : dp;
    if (job.sharding === 'zero1') return stage === 'optimizer' ? dp : 1;
    return 1;
  };
  const stateMemoryPerGpuGB =
    (localParams *
      (BYTES_PER_PARAM.weights / shardFactor('weights') +
        BYTES_PER_PARAM.grads / shardFactor('grads') +
        BYTES_PER_PARAM.optimizer / shardFactor('optimizer'))) /
    1e9;
  if (stateMemoryPerGpuGB > cluster.gpu.hbmGB) {
    warnings.push(
      `weights, gradients and optimizer state need ${stateMemoryPerGpuGB.toFixed(1)} GB per GPU, more than the ${cluster.gpu.hbmGB} GB of a ${cluster.gpu.id} (more sharding, tp or pp needed) at ${cluster.nodes} node(s)`,
    );
  }
  if (tp > cluster.gpusPerNode)
    warnings.push(`tp ${tp} spans nodes: its all_reduces cross the network on the critical path`);

  return {
    stepTimeMs,
    computeMs,
    memoryBoundMs,
    commMs,
    exposedMs,
    exposedCommMs: exposedWithStallsMs,
    bubbleMs,
    stragglerPenaltyMs,
    timeoutPenaltyMs: straggler.timeoutPenaltyMs,
    tokensPerSecond: tokensPerStep / stepSeconds,
    tokensPerSecondPerGpu: tokensPerStep / stepSeconds / gpus,
    mfu,
    hfu,
    hardwareTflopsPerGpu: hardwareFlopsPerStep / stepSeconds / gpus / 1e12,
    exposedCommShare: (exposedWithStallsMs + stragglerPenaltyMs) / stepTimeMs,
    hostCpuCoresPerNode,
    hostMemoryTrafficGBps,
    networkGBPerNodePerStep,
    stateMemoryPerGpuGB,
    gpus,
    warnings,
  };
}
