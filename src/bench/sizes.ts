/**
 * How nccl-tests turns a message size into element counts and bandwidths, per collective
 * (nccl-tests src/*.cu GetCollByteCount and GetBw; common.cu setupArgs and TimeTest):
 * the printed size is max(send, recv) bytes, the printed count is the per-call parameter count,
 * algbw = bytes moved per rank / time, busbw = algbw x the factor below (GB = 1e9 bytes).
 */
import type { BenchOp } from './types.js';

export interface CollCounts {
  /** Elements each rank sends from its send buffer. */
  sendCount: number;
  /** Elements each rank ends up with in its receive buffer. */
  recvCount: number;
  /** The count passed to the collective (the table's count column). */
  paramCount: number;
  /** In-place: send buffer = recv buffer + sendInplaceOffset * rank (elements). */
  sendInplaceOffset: number;
  /** In-place: recv buffer = base + recvInplaceOffset * rank (elements). */
  recvInplaceOffset: number;
}

export function collCounts(op: BenchOp, count: number, nranks: number): CollCounts {
  const perRank = Math.floor(count / nranks);
  switch (op) {
    case 'all_reduce':
    case 'broadcast':
    case 'reduce':
    case 'sendrecv':
      return { sendCount: count, recvCount: count, paramCount: count, sendInplaceOffset: 0, recvInplaceOffset: 0 };
    case 'all_gather':
      return { sendCount: perRank, recvCount: perRank * nranks, paramCount: perRank, sendInplaceOffset: perRank, recvInplaceOffset: 0 };
    case 'reduce_scatter':
      return { sendCount: perRank * nranks, recvCount: perRank, paramCount: perRank, sendInplaceOffset: 0, recvInplaceOffset: perRank };
    case 'alltoall':
      return { sendCount: perRank * nranks, recvCount: perRank * nranks, paramCount: perRank, sendInplaceOffset: 0, recvInplaceOffset: 0 };
  }
}

/** busbw / algbw, exactly as nccl-tests (all_reduce 2(n-1)/n; gather/scatter/alltoall (n-1)/n; others 1). */
export function busBwFactor(op: BenchOp, nranks: number): number {
  switch (op) {
    case 'all_reduce':
      return (2 * (nranks - 1)) / nranks;
    case 'all_gather':
    case 'reduce_scatter':
    case 'alltoall':
      return (nranks - 1) / nranks;
    case 'broadcast':
    case 'reduce':
    case 'sendrecv':
      return 1;
  }
}

/** Bytes that define algbw: paramCount x elementBytes, times nranks for the gather/scatter family. */
export function algBytes(op: BenchOp, paramCount: number, elementBytes: number, nranks: number): number {
  const base = paramCount * elementBytes;
  return op === 'all_gather' || op === 'reduce_scatter' || op === 'alltoall' ? base * nranks : base;
}

/** Whether the op uses the reduction operator (redop column shows it) or not ("none"). */
export function usesRedOp(op: BenchOp): boolean {
  return op === 'all_reduce' || op === 'reduce_scatter' || op === 'reduce';
}

/** Whether the op has a root (root column shows it) or not (-1). */
export function usesRoot(op: BenchOp): boolean {
  return op === 'broadcast' || op === 'reduce';
}

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
