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
  gradientBucketBytes: z.number().int().positive().default(25 * 1024 * 1024),
  stragglers: StragglerSchema.default({ jitterCv: 0.03, method: 'order-statistics', samples: 2000, seed: 1 }),
});
export type JobFileSpec = z.output<typeof JobSchema>;
