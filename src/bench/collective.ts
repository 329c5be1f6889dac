/** One entry point per op name, so the runner and the tests call collectives the same way. */
import { allGather, allReduce, reduceScatter } from './ring-collectives.js';
import { broadcast, reduce } from './chain.js';
import { alltoall, sendrecv } from './pairwise.js';
import { allReduceHalvingDoubling, halvingDoublingPartners, isPowerOfTwo } from './halving-doubling.js';
import { mod, type CollContext } from './coll-context.js';
import type { BenchAlgo, BenchOp } from './types.js';

export const COLLECTIVES: Record<BenchOp, (ctx: CollContext) => Promise<void>> = {
  all_reduce: (ctx) => (ctx.algo === 'halving-doubling' && ctx.nranks > 1 ? allReduceHalvingDoubling(ctx) : allReduce(ctx)),
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

/** Whether `--algo` may run on this job: halving-doubling needs a power-of-two rank count. */
export function algoProblem(algo: BenchAlgo, nranks: number): string | undefined {
  if (algo === 'halving-doubling' && !isPowerOfTwo(nranks)) return `--algo halving-doubling needs a power-of-two rank count (this job has ${nranks} ranks); use ring`;
  return undefined;
}

/**
 * Whom `rank` sends to and receives from: the ring's next and previous, everyone for alltoall,
 * and for all_reduce by halving-doubling its partners.
 */
export function neededPeers(op: BenchOp, rank: number, nranks: number, algo: BenchAlgo = 'ring'): { sendTo: number[]; recvFrom: number[] } {
  if (nranks === 1) return { sendTo: [], recvFrom: [] };
  if (op === 'alltoall') {
    const others = [...Array(nranks).keys()].filter((r) => r !== rank);
    return { sendTo: others, recvFrom: others };
  }
  const sendTo = new Set([mod(rank + 1, nranks)]);
  const recvFrom = new Set([mod(rank - 1, nranks)]);
  if (op === 'all_reduce' && algo === 'halving-doubling' && isPowerOfTwo(nranks)) {
    for (const partner of halvingDoublingPartners(rank, nranks)) {
      sendTo.add(partner);
      recvFrom.add(partner);
    }
  }
  return { sendTo: [...sendTo], recvFrom: [...recvFrom] };
}
