/** One entry point per op name, so the runner and the tests call collectives the same way. */
import { allGather, allReduce, reduceScatter } from './ring-collectives.js';
import { broadcast, reduce } from './chain.js';
import { alltoall, sendrecv } from './pairwise.js';
import { allReduceHalvingDoubling, halvingDoublingPartners, isPowerOfTwo } from './halving-doubling.js';
import { mod, type AllReduceSchedule, type CollContext } from './coll-context.js';
import type { BenchAlgo, BenchOp, RankInfo } from './types.js';

export const COLLECTIVES: Record<BenchOp, (ctx: CollContext) => Promise<void>> = {
  all_reduce: (ctx) =>
    ctx.algo === 'halving-doubling' && ctx.nranks > 1 ? allReduceHalvingDoubling(ctx) : allReduce(ctx),
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
 * Largest all_reduce that `--algo auto` runs by halving-doubling; the ring above it. On 4 ranks on
 * loopback halving-doubling reached 0.90-2.10 times the ring's busbw at 1-16 MiB (two interleaved
 * runs; docs/PERFORMANCE.md, run 8), while on a loaded day the ring won at 32 and 64 MiB (run 7).
 */
export const HALVING_DOUBLING_MAX_BYTES = 16 << 20;

/**
 * Whether some host runs more of the job's ranks than it has cores (each rank reports its
 * os.availableParallelism() at the rendezvous; every rank sees the same table, so every rank
 * decides alike).
 */
export function hostsCrowded(peers: readonly Pick<RankInfo, 'host' | 'cores'>[]): boolean {
  const byHost = new Map<string, { ranks: number; cores: number }>();
  for (const peer of peers) {
    const seen = byHost.get(peer.host) ?? { ranks: 0, cores: Number.POSITIVE_INFINITY };
    byHost.set(peer.host, {
      ranks: seen.ranks + 1,
      cores: Math.min(seen.cores, peer.cores ?? Number.POSITIVE_INFINITY),
    });
  }
  return [...byHost.values()].some(({ ranks, cores }) => ranks > cores);
}

/** Whether auto may run halving-doubling on this job at some size (see allReduceSchedule). */
function autoHalvingDoubling(nranks: number, crowded: boolean): boolean {
  return nranks >= 4 && isPowerOfTwo(nranks) ? true : nranks >= 3 && crowded;
}

/**
 * all_reduce's schedule for one size: what --algo forces, or auto's choice. Auto runs
 * halving-doubling up to HALVING_DOUBLING_MAX_BYTES on 4, 8, 16... ranks, where it moves the
 * ring's bytes in fewer steps. On other counts of 3 or more it does so only where ranks crowd their
 * host's cores: the fold that makes the count a power of two sends the whole buffer to a partner
 * and back, so its busiest link carries about 3 times the buffer against the ring's 2(n-1)/n, which
 * loses where links are the limit (one rank a host), but keeps only 2^L ranks busy at once, which
 * wins where the ranks share too few cores (3 ranks on 2 cores: 1.1-2.5 times the ring at 1-16 MiB,
 * docs/PERFORMANCE.md run 11).
 */
export function allReduceSchedule(
  algo: BenchAlgo,
  nranks: number,
  bytes: number,
  crowded = false,
): AllReduceSchedule {
  if (algo !== 'auto') return algo;
  return autoHalvingDoubling(nranks, crowded) && bytes <= HALVING_DOUBLING_MAX_BYTES
    ? 'halving-doubling'
    : 'ring';
}

/**
 * Whom `rank` sends to and receives from: the ring's next and previous, everyone for alltoall,
 * and for all_reduce by halving-doubling (forced, or auto's choice) its partners.
 */
export function neededPeers(
  op: BenchOp,
  rank: number,
  nranks: number,
  algo: BenchAlgo = 'auto',
  crowded = false,
): { sendTo: number[]; recvFrom: number[] } {
  if (nranks === 1) return { sendTo: [], recvFrom: [] };
  if (op === 'alltoall') {
    const others = [...Array(nranks).keys()].filter((r) => r !== rank);
    return { sendTo: others, recvFrom: others };
  }
  const sendTo = new Set([mod(rank + 1, nranks)]);
  const recvFrom = new Set([mod(rank - 1, nranks)]);
  if (
    op === 'all_reduce' &&
    (algo === 'halving-doubling' || (algo === 'auto' && autoHalvingDoubling(nranks, crowded)))
  ) {
    for (const partner of halvingDoublingPartners(rank, nranks)) {
      sendTo.add(partner);
      recvFrom.add(partner);
    }
  }
  return { sendTo: [...sendTo], recvFrom: [...recvFrom] };
}
