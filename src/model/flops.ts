/**
 * Parameter counts and training FLOPs of a decoder-only transformer.
 * Model FLOPs per token (PaLM, Chowdhery et al. 2022, appendix B): 6 N + 12 L H Q T, with N the
 * active matmul parameters (including the output projection), L layers, H heads, Q head dimension,
 * T sequence length. Training = forward (1/3) + backward (2/3).
 */
import type { ModelSpec } from '../spec/index.js';

export interface ParameterCounts {
  /** Attention and norms, replicated per layer and shared by every token. */
  attentionPerLayer: number;
  /** One expert's feed-forward block (the whole block for dense models). */
  ffnPerExpert: number;
  /** Every expert of one layer plus the router. */
  ffnPerLayer: number;
  embedding: number;
  outputProjection: number;
  total: number;
  /** Parameters one token's forward pass multiplies through (top-k experts only). */
  activeMatmul: number;
  /** Parameters in experts (sharded by expert parallelism). */
  expertTotal: number;
}

export function headDim(model: ModelSpec): number {
  return model.hidden / model.heads;
}

export function parameterCounts(model: ModelSpec): ParameterCounts {
  const h = model.hidden;
  const kvWidth = model.kvHeads * headDim(model);
  // Q and O are h x h; K and V are h x (kv heads x head dim) with grouped-query attention.
  const attentionPerLayer = 2 * h * h + 2 * h * kvWidth + 2 * h; // + two norm weight vectors
  const ffnPerExpert = (model.gatedFfn ? 3 : 2) * h * model.ffnHidden;
  const router = model.experts > 1 ? h * model.experts : 0;
  const ffnPerLayer = ffnPerExpert * model.experts + router;
  const embedding = model.vocab * h;
  const outputProjection = model.tiedEmbeddings ? 0 : model.vocab * h;
  const total = model.layers * (attentionPerLayer + ffnPerLayer) + embedding + outputProjection + h;
  const activeMatmul =
    model.layers * (attentionPerLayer + ffnPerExpert * model.expertsPerToken + router) + model.vocab * h;
  return {
    attentionPerLayer,
    ffnPerExpert,
    ffnPerLayer,
    embedding,
    outputProjection,
    total,
    activeMatmul,
    expertTotal: model.experts > 1 ? model.layers * ffnPerExpert * model.experts : 0,
  };
}

/** Training FLOPs per token: 6 N_active + 12 L H Q T (PaLM appendix B). */
export function trainingFlopsPerToken(model: ModelSpec, sequenceLength: number): number {
  const counts = parameterCounts(model);
  return 6 * counts.activeMatmul + 12 * model.layers * model.heads * headDim(model) * sequenceLength;
}

export const BYTES_PER_ELEMENT = { bf16: 2, fp16: 2, fp8: 1, fp32: 4 } as const;

export type ActivationRecompute = 'none' | 'selective' | 'full';

/**
 * FLOPs per token that activation recomputation adds in backward (hardware FLOPs, not model FLOPs):
 * full recompute runs every layer's forward again, `2 (N_active - V h) + 4 L H Q T` (the output
 * projection is not recomputed: Narayanan et al. 2021, eq. 3, counts 4 passes for the layers and 3 for
 * the logits); selective recomputes only the attention core, `4 L H Q T` (Korthikanti et al. 2022, section 5).
 */
export function recomputeFlopsPerToken(
  model: ModelSpec,
  sequenceLength: number,
  mode: ActivationRecompute,
): number {
  const attentionCore = 4 * model.layers * model.heads * headDim(model) * sequenceLength;
  if (mode === 'selective') return attentionCore;
  if (mode === 'full')
    return 2 * (parameterCounts(model).activeMatmul - model.vocab * model.hidden) + attentionCore;
  return 0;
}

/** How one GPU holds a layer's activations: its share of the sequence and of the layer. */
export interface ActivationSplit {
  /** Sequences per micro-batch. */
  microBatch: number;
  sequenceLength: number;
  tp: number;
  cp: number;
  sequenceParallel: boolean;
  /** Fused attention (FlashAttention) keeps no score matrices. */
  flashAttention: boolean;
}

/**
 * Bytes one layer stores for backward per micro-batch on one GPU, 16-bit activations and 1-byte dropout
 * masks (Korthikanti et al. 2022, section 4.1: `s b h (34 + 5 a s / h)` for multi-head attention and a
 * 4h MLP; `s b h (10 + 24 / t + 5 a s / (h t))` with tensor parallelism, everything over t with sequence
 * parallelism). The 10 that tensor parallelism replicates: the two layer norms' inputs (4), the attention's
 * and the MLP's inputs (2 + 2), the two dropout masks (2). Split by TP: Q, K, V and the projection's input
 * (4 + 4 kv/a with grouped-query attention), the MLP's inner activations (4 f/h; 6 f/h gated; times the
 * experts a token visits) and, unfused, the scores, their softmax and its dropout (5 a s / h).
 * With context parallelism a GPU holds s/cp of the queries against all s keys.
 */
export function storedActivationBytesPerLayer(model: ModelSpec, split: ActivationSplit): number {
  const h = model.hidden;
  const localTokens = (split.sequenceLength / split.cp) * split.microBatch;
  const replicated = 10 / (split.sequenceParallel ? split.tp : 1);
  const attention = 4 + (4 * model.kvHeads) / model.heads;
  const mlp = ((model.gatedFfn ? 6 : 4) * model.ffnHidden * model.expertsPerToken) / h;
  const scores = split.flashAttention ? 0 : (5 * model.heads * split.sequenceLength) / h;
  return localTokens * h * (replicated + (attention + mlp + scores) / split.tp);
}
