/** A transformer model's shape: what sets its FLOPs, parameter count and the size of what it exchanges. */
import { z } from 'zod';
import { specObject } from './strict-object.js';

export const ModelSchema = specObject({
  id: z.string().min(1),
  name: z.string().min(1),
  layers: z.number().int().positive(),
  hidden: z.number().int().positive(),
  heads: z.number().int().positive(),
  /** Key/value heads (grouped-query attention); equal to heads for multi-head attention. */
  kvHeads: z.number().int().positive(),
  /** Hidden size of the feed-forward block (per expert for mixture-of-experts). */
  ffnHidden: z.number().int().positive(),
  /** Gated (SwiGLU) feed-forward has three matrices instead of two. */
  gatedFfn: z.boolean().default(true),
  vocab: z.number().int().positive(),
  experts: z.number().int().positive().default(1),
  expertsPerToken: z.number().int().positive().default(1),
  /** Input and output embeddings share weights. */
  tiedEmbeddings: z.boolean().default(false),
  sources: z.record(z.string(), z.string()).default({}),
});
export type ModelSpec = z.infer<typeof ModelSchema>;
