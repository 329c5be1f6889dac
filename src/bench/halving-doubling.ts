/**
 * all_reduce by recursive halving then recursive doubling (Rabenseifner's algorithm; Thakur,
 * Rabenseifner and Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA
 * 2005). Reduce-scatter: at step k a rank exchanges half of the block it still owns with the rank
 * 2^(L-1-k) away and reduces the half it keeps, so after L = log2(n) steps it owns the fully
 * reduced chunk `rank`. All-gather: the same partners in the reverse order swap whole blocks,
 * received straight into place. The bytes per rank are the ring's (2(n-1)/n x size) in 2 log2(n)
 * dependent steps instead of 2(n-1), which is what Open MPI's tuned component runs at mid sizes.
 *
 * On a rank count that is not a power of two (p = 2^L + r) the paper's fold comes first: of the
 * first 2r ranks each even one sends its whole input to the odd one after it, which reduces it
 * into its own and takes part in the 2^L-rank schedule while the even one waits, then receives the
 * result from it (MPICH's allreduce reduce_scatter_allgather; Open MPI's coll_base_allreduce
 * redscat_allgather does the same).
 *
 * Each step's block is cut into slices over the K sockets to the partner; a step ends when all
 * its slices have arrived (a partner pair never shares a socket with another step in flight).
 */
import {
  completion,
  elementBytes,
  elems,
  reduceBytes,
  sliceCount,
  sliceRange,
  type CollContext,
} from './coll-context.js';

export const isPowerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

/** How a rank count splits for the fold: the largest power of two in it and the r ranks beyond. */
export function foldShape(nranks: number): { pow2: number; extra: number } {
  let pow2 = 1;
  while (pow2 * 2 <= nranks) pow2 *= 2;
  return { pow2, extra: nranks - pow2 };
}

/**
 * The rank's place in the power-of-two schedule (its "new rank"), or its fold partner when it
 * is one of the even ranks below 2r that hand their data over and wait.
 */
export function foldRole(
  rank: number,
  nranks: number,
): { active: true; newRank: number; foldedFrom?: number } | { active: false; foldsInto: number } {
  const { extra } = foldShape(nranks);
  if (rank < 2 * extra)
    return rank % 2 === 0
      ? { active: false, foldsInto: rank + 1 }
      : { active: true, newRank: rank >> 1, foldedFrom: rank - 1 };
  return { active: true, newRank: rank - extra };
}

/** The real rank that holds place `newRank` of the power-of-two schedule. */
function realRank(newRank: number, nranks: number): number {
  const { extra } = foldShape(nranks);
  return newRank < extra ? 2 * newRank + 1 : newRank + extra;
}

/** The ranks `rank` exchanges with: its fold partner, then its partners in reduce-scatter order (farthest first). */
export function halvingDoublingPartners(rank: number, nranks: number): number[] {
  const role = foldRole(rank, nranks);
  if (!role.active) return [role.foldsInto];
  const { pow2 } = foldShape(nranks);
  const partners: number[] = role.foldedFrom === undefined ? [] : [role.foldedFrom];
  for (let distance = pow2 >> 1; distance >= 1; distance >>= 1)
    partners.push(realRank(role.newRank ^ distance, nranks));
  return partners;
}

interface Step {
  partner: number;
  /** Chunks [lo, hi) this rank owns after the step (reduce-scatter) or before it (all-gather). */
  keep: [number, number];
  /** The partner's half: sent in reduce-scatter, received in all-gather. */
  give: [number, number];
}

function steps(newRank: number, pow2: number, nranks: number): Step[] {
  const out: Step[] = [];
  let lo = 0;
  let hi = pow2;
  for (let distance = pow2 >> 1; distance >= 1; distance >>= 1) {
    const mid = lo + (hi - lo) / 2;
    const lower = (newRank & distance) === 0;
    const keep: [number, number] = lower ? [lo, mid] : [mid, hi];
    const give: [number, number] = lower ? [mid, hi] : [lo, mid];
    out.push({ partner: realRank(newRank ^ distance, nranks), keep, give });
    [lo, hi] = keep;
  }
  return out;
}

export async function allReduceHalvingDoubling(ctx: CollContext): Promise<void> {
  const { mesh, rank, nranks, count, send, recv } = ctx;
  const { pow2 } = foldShape(nranks);
  const size = elementBytes(ctx);
  // Chunk c of the 2^L-rank schedule is [floor(c*count/2^L), floor((c+1)*count/2^L)), as the ring cuts it.
  const element = (c: number): number => Math.floor((c * count) / pow2);
  const span = ([c0, c1]: [number, number]): [number, number] => [element(c0), element(c1)];
  const whole: [number, number] = [0, count];
  const none: [number, number] = [0, 0];

  /** Send elements [s0, s1) of `from` to `peer` and receive [r0, r1) from it, slice by slice. */
  const exchange = async (
    peer: number,
    from: Uint8Array,
    [s0, s1]: [number, number],
    [r0, r1]: [number, number],
    onSlice: (e0: number, e1: number, incoming: Uint8Array | undefined) => Uint8Array | undefined,
  ): Promise<void> => {
    const sendSlices = s1 > s0 ? sliceCount(ctx, s1 - s0) : 0;
    const recvSlices = r1 > r0 ? sliceCount(ctx, r1 - r0) : 0;
    for (let j = 0; j < sendSlices; j++) {
      const [e0, e1] = sliceRange(s0, s1 - s0, j, sendSlices);
      mesh.sendLink(peer, j).send(elems(ctx, from, e0, e1));
    }
    if (recvSlices === 0) return;
    const finished = completion(recvSlices);
    const scratch = ctx.scratch((r1 - r0) * size);
    for (let j = 0; j < recvSlices; j++) {
      const [e0, e1] = sliceRange(r0, r1 - r0, j, recvSlices);
      const staged = scratch.subarray((e0 - r0) * size, (e1 - r0) * size);
      const target = onSlice(e0, e1, undefined) ?? staged;
      mesh.recvLink(peer, j).recv(target, () => {
        if (target === staged) onSlice(e0, e1, staged);
        finished.count();
      });
    }
    await mesh.until(finished);
  };
  /** Reduce incoming slices into recv against `source`; receive nothing straight into place. */
  const reducing =
    (source: Uint8Array) =>
    (e0: number, e1: number, incoming: Uint8Array | undefined): undefined => {
      if (incoming) reduceBytes(ctx, elems(ctx, recv, e0, e1), elems(ctx, source, e0, e1), incoming);
      return undefined;
    };
  const intoPlace = (e0: number, e1: number): Uint8Array => elems(ctx, recv, e0, e1);

  const role = foldRole(rank, nranks);
  if (!role.active) {
    // Hand the whole input to the odd rank after us; the result comes back whole, straight into place.
    await exchange(role.foldsInto, send, whole, none, () => undefined);
    await exchange(role.foldsInto, send, none, whole, intoPlace);
    await mesh.drained();
    return;
  }
  // Our input, or after taking in the even rank's input, our partial sums in recv.
  let source = send;
  if (role.foldedFrom !== undefined) {
    await exchange(role.foldedFrom, send, none, whole, reducing(send));
    source = recv;
  }
  const plan = steps(role.newRank, pow2, nranks);
  for (let k = 0; k < plan.length; k++) {
    const { partner, keep, give } = plan[k]!;
    // Step 0 reads our input (or the folded sums); later steps our partial sums, which live in recv.
    const from = k === 0 ? source : recv;
    await exchange(partner, from, span(give), span(keep), reducing(from));
  }
  for (let k = plan.length - 1; k >= 0; k--) {
    const { partner, keep, give } = plan[k]!;
    await exchange(partner, recv, span(keep), span(give), intoPlace);
  }
  if (role.foldedFrom !== undefined) await exchange(role.foldedFrom, recv, whole, none, () => undefined);
  await mesh.drained();
}
