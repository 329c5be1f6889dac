/** One entry point per op name, so the runner and the tests call collectives the same way. */
import { allGather, allReduce, reduceScatter } from './ring-collectives.js';
import { broadcast, reduce } from './chain.js';
import { alltoall, sendrecv } from './pairwise.js';
import { allReduceHalvingDoubling, halvingDoublingPartners, isPowerOfTwo } from './halving-doubling.js';
import { mod, type AllReduceSchedule, type CollContext } from './coll-context.js';
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

/**
 * Largest all_reduce that `--algo auto` runs by halving-doubling, on 4, 8, 16... ranks; the ring
 * above it and on other rank counts. At 4 ranks on loopback halving-doubling reached 0.90-2.10 times
 * the ring's busbw at 1-16 MiB (two interleaved runs; docs/PERFORMANCE.md, run 8), while on a
 * loaded day the ring won at 32 and 64 MiB (run 7).
 */
export const HALVING_DOUBLING_MAX_BYTES = 16 << 20;

/** all_reduce's schedule for one size: what --algo forces, or auto's choice. */
export function allReduceSchedule(algo: BenchAlgo, nranks: number, bytes: number): AllReduceSchedule {
  if (algo !== 'auto') return algo;
  return nranks >= 4 && isPowerOfTwo(nranks) && bytes <= HALVING_DOUBLING_MAX_BYTES ? 'halving-doubling' : 'ring';
}

/** Whether `--algo` may run on this job: halving-doubling needs a power-of-two rank count. */
export function algoProblem(algo: BenchAlgo, nranks: number): string | undefined {
  if (algo === 'halving-doubling' && !isPowerOfTwo(nranks)) return `--algo halving-doubling needs a power-of-two rank count (this job has ${nranks} ranks); use ring or auto`;
  return undefined;
}

/**
 * Whom `rank` sends to and receives from: the ring's next and previous, everyone for alltoall,
 * and for all_reduce by halving-doubling (forced, or auto on 4, 8... ranks) its partners.
 */
export function neededPeers(op: BenchOp, rank: number, nranks: number, algo: BenchAlgo = 'auto'): { sendTo: number[]; recvFrom: number[] } {
  if (nranks === 1) return { sendTo: [], recvFrom: [] };
  if (op === 'alltoall') {
    const others = [...Array(nranks).keys()].filter((r) => r !== rank);
    return { sendTo: others, recvFrom: others };
  }
  const sendTo = new Set([mod(rank + 1, nranks)]);
  const recvFrom = new Set([mod(rank - 1, nranks)]);
  if (op === 'all_reduce' && algo !== 'ring' && isPowerOfTwo(nranks) && (algo === 'halving-doubling' || nranks >= 4)) {
    for (const partner of halvingDoublingPartners(rank, nranks)) {
      sendTo.add(partner);
      recvFrom.add(partner);
    }
  }
  return { sendTo: [...sendTo], recvFrom: [...recvFrom] };
}
