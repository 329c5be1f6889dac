/** One entry point per op name, so the runner and the tests call collectives the same way. */
import { allGather, allReduce, reduceScatter } from './ring-collectives.js';
import { broadcast, reduce } from './chain.js';
import { alltoall, sendrecv } from './pairwise.js';
import { mod, type CollContext } from './coll-context.js';
import type { BenchOp } from './types.js';

export const COLLECTIVES: Record<BenchOp, (ctx: CollContext) => Promise<void>> = {
  all_reduce: allReduce,
  all_gather: allGather,
  reduce_scatter: reduceScatter,
  broadcast,
  reduce,
  alltoall,
  sendrecv,
};

/** nccl-tests' executable name for the op, used in the header and footer lines. */
export function perfName(op: BenchOp): string {
  return `${op}_perf`;
}

/** Whom `rank` sends to and receives from: the ring's next and previous, or everyone for alltoall. */
export function neededPeers(op: BenchOp, rank: number, nranks: number): { sendTo: number[]; recvFrom: number[] } {
  if (nranks === 1) return { sendTo: [], recvFrom: [] };
  if (op === 'alltoall') {
    const others = [...Array(nranks).keys()].filter((r) => r !== rank);
    return { sendTo: others, recvFrom: others };
  }
  return { sendTo: [mod(rank + 1, nranks)], recvFrom: [mod(rank - 1, nranks)] };
}
