/**
 * How nccl-tests turns a message size into element counts and bandwidths, per collective
 * (nccl-tests src/*.cu GetCollByteCount and GetBw; common.cu setupArgs and TimeTest):
 * the printed size is max(send, recv) bytes, the printed count is the per-call parameter count,
 * algbw = bytes moved per rank / time, busbw = algbw x the factor (GB = 1e9 bytes). The counts and
 * the factor are the collective vocabulary's (src/core/collectives.ts); the sweep is the bench's.
 */
export {
  algBytes,
  busbwFactor,
  collCounts,
  usesRedOp,
  usesRoot,
  type CollCounts,
} from '../core/collectives.js';

/** The message sizes of a sweep: min, min*f, ... up to max (nccl-tests TimeTest loop). */
export function sweepSizes(minBytes: number, maxBytes: number, stepFactor: number): number[] {
  const sizes: number[] = [];
  if (stepFactor <= 1) return [minBytes];
  for (let size = minBytes; size <= maxBytes; size *= stepFactor) {
    sizes.push(size);
    if (size === 0) break;
  }
  return sizes;
}
