/**
 * nccl-tests' definitions (src/all_reduce.cu and siblings, doc/PERFORMANCE.md): algbw = size / time,
 * busbw = algbw x factor, with the factor of the collective vocabulary (src/core/collectives.ts).
 */
import { busbwFactor, type CollectiveOp } from '../core/collectives.js';

export {
  COLLECTIVE_OPS,
  busbwFactor,
  elementCount,
  isCollectiveOp,
  type CollectiveOp,
} from '../core/collectives.js';

/** GB/s (1e9 bytes per second), as nccl-tests prints. */
export function algbwGBps(sizeBytes: number, timeUs: number): number {
  return timeUs > 0 ? sizeBytes / (timeUs * 1e-6) / 1e9 : 0;
}

export function busbwGBps(op: CollectiveOp, ranks: number, sizeBytes: number, timeUs: number): number {
  return algbwGBps(sizeBytes, timeUs) * busbwFactor(op, ranks);
}
