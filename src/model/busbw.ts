/**
 * nccl-tests' definitions (src/all_reduce.cu and siblings, doc/PERFORMANCE.md): algbw = size / time,
 * busbw = algbw x factor, with the flat-ring factor whatever algorithm ran.
 */
export const COLLECTIVE_OPS = ['all_reduce', 'all_gather', 'reduce_scatter', 'alltoall', 'broadcast', 'reduce', 'sendrecv'] as const;
export type CollectiveOp = (typeof COLLECTIVE_OPS)[number];

export function busbwFactor(op: CollectiveOp, ranks: number): number {
  if (ranks <= 1) return op === 'all_reduce' || op === 'all_gather' || op === 'reduce_scatter' || op === 'alltoall' ? 0 : 1;
  switch (op) {
    case 'all_reduce':
      return (2 * (ranks - 1)) / ranks;
    case 'all_gather':
    case 'reduce_scatter':
    case 'alltoall':
      return (ranks - 1) / ranks;
    case 'broadcast':
    case 'reduce':
    case 'sendrecv':
      return 1;
  }
}

/** GB/s (1e9 bytes per second), as nccl-tests prints. */
export function algbwGBps(sizeBytes: number, timeUs: number): number {
  return timeUs > 0 ? sizeBytes / (timeUs * 1e-6) / 1e9 : 0;
}

export function busbwGBps(op: CollectiveOp, ranks: number, sizeBytes: number, timeUs: number): number {
  return algbwGBps(sizeBytes, timeUs) * busbwFactor(op, ranks);
}

/** Element count nccl-tests prints: all_gather and reduce_scatter count per rank; the rest the whole buffer. */
export function elementCount(op: CollectiveOp, sizeBytes: number, ranks: number, typeBytes: number): number {
  const elements = Math.floor(sizeBytes / typeBytes);
  if (op === 'all_gather' || op === 'reduce_scatter' || op === 'alltoall') return Math.floor(elements / Math.max(1, ranks));
  return elements;
}

export function isCollectiveOp(value: string): value is CollectiveOp {
  return (COLLECTIVE_OPS as readonly string[]).includes(value);
}
