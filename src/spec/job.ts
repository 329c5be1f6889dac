/** A training job: model, parallelism and batch on a cluster. */
import { z } from 'zod';
import { presetOrInline, specObject } from './strict-object.js';
import { ClusterSchema } from './cluster.js';
import { ModelSchema } from './model-spec.js';

export const ParallelismSchema = specObject({
  /** Data-parallel degree; derived from the GPU count when absent. */
  dp: z.number().int().positive().optional(),
  tp: z.number().int().positive().default(1),
  pp: z.number().int().positive().default(1),
  cp: z.number().int().positive().default(1),
  ep: z.number().int().positive().default(1),
});

export const StragglerSchema = specObject({
  /** Coefficient of variation of each rank's communication time (OS noise, link jitter). */
  jitterCv: z.number().min(0).max(2).default(0.03),
  method: z.enum(['order-statistics', 'monte-carlo']).default('order-statistics'),
  samples: z.number().int().positive().max(1_000_000).default(2000),
  seed: z.number().int().default(1),
});

/**
 * How the framework runs the step: recompute, pipeline schedule, sequence parallelism and the
 * overlap of tensor-parallel and sharded data-parallel communication. Formulas: docs/models.md section 3.
 */
export const TrainingTechniquesSchema = specObject({
  /**
   * none; selective: the attention core is recomputed in backward (Korthikanti et al. 2022, section 5);
   * full: every layer's forward runs again in backward (Chen et al. 2016; Megatron-LM's eq. 3 counts it).
   */
  activationRecompute: z.enum(['none', 'selective', 'full']).default('none'),
  /** Model chunks per pipeline stage: 1 is plain 1F1B, v > 1 the interleaved schedule (Narayanan et al. 2021, section 2.2.2). */
  pipelineInterleave: z.number().int().positive().default(1),
  /** Megatron sequence parallelism: TP's all_reduces become all_gather + reduce_scatter pairs (Korthikanti et al. 2022, section 4.2.2). */
  sequenceParallel: z.boolean().default(false),
  /** Share of TP communication hidden behind the GEMMs it feeds (Megatron-Core --tp-comm-overlap, PyTorch AsyncTP); 0 none. */
  tpCommOverlap: z.number().min(0).max(1).default(0),
  /**
   * ZeRO-3/FSDP: most bytes one parameter all_gather (and one gradient reduce_scatter) carries. Absent: one
   * per layer (FSDP wrapping each transformer block); DeepSpeed's stage3_prefetch_bucket_size and
   * reduce_bucket_size set it there.
   */
  shardBucketBytes: z.number().int().positive().optional(),
  /**
   * The non-GEMM kernels (softmax, dropout, GeLU, layer norms, residual adds) as their own HBM-bound time
   * instead of folded into computeEfficiency: each activation byte a layer stores for backward
   * (Korthikanti et al. 2022, section 4) is written by one kernel and read by the next, once per pass.
   */
  memoryBoundKernels: z.boolean().default(false),
  /** With memoryBoundKernels: fused attention (FlashAttention) stores no softmax scores, so the `5as/h` term goes. */
  flashAttention: z.boolean().default(false),
});
export const TRAINING_TECHNIQUE_DEFAULTS = {
  activationRecompute: 'none',
  pipelineInterleave: 1,
  sequenceParallel: false,
  tpCommOverlap: 0,
  memoryBoundKernels: false,
  flashAttention: false,
} as const;

export const JobSchema = specObject({
  name: z.string().default('job'),
  cluster: ClusterSchema,
  model: presetOrInline('model', ModelSchema),
  parallelism: ParallelismSchema.default({ tp: 1, pp: 1, cp: 1, ep: 1 }),
  /** none: DDP; zero1/zero2: optimizer (and gradient) states sharded; zero3 and fsdp: parameters sharded too. */
  sharding: z.enum(['none', 'zero1', 'zero2', 'zero3', 'fsdp']).default('none'),
  sequenceLength: z.number().int().positive(),
  /** Sequences per micro-batch on one model replica. */
  microBatchSize: z.number().int().positive().default(1),
  /** Sequences per optimizer step across the whole job. */
  globalBatchSize: z.number().int().positive(),
  precision: z.enum(['bf16', 'fp16', 'fp8', 'fp32']).default('bf16'),
  /** Share of data-parallel communication that can hide behind backward compute (0 none, 1 all). */
  overlap: z.number().min(0).max(1).default(0.8),
  /** Achievable fraction of the GPU's dense peak on this model's kernels (MFU without communication). */
  computeEfficiency: z.number().positive().max(1).default(0.55),
  /** PyTorch DDP gradient bucket (bytes): each bucket is one all_reduce. */
  gradientBucketBytes: z
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  training: TrainingTechniquesSchema.default(TRAINING_TECHNIQUE_DEFAULTS),
  stragglers: StragglerSchema.default({ jitterCv: 0.03, method: 'order-statistics', samples: 2000, seed: 1 }),
});
export type JobFileSpec = z.output<typeof JobSchema>;
