/**
 * all_reduce by recursive halving then recursive doubling (Rabenseifner's algorithm; Thakur,
 * Rabenseifner and Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA
 * 2005), for a power-of-two rank count. Reduce-scatter: at step k a rank exchanges half of the
 * block it still owns with the rank 2^(L-1-k) away and reduces the half it keeps, so after
 * L = log2(n) steps it owns the fully reduced chunk `rank`. All-gather: the same partners in the
 * reverse order swap whole blocks, received straight into place. The bytes per rank are the
 * ring's (2(n-1)/n x size) in 2 log2(n) dependent steps instead of 2(n-1), which is what Open MPI's
 * tuned component runs at mid sizes on a power-of-two communicator.
 *
 * Each step's block is cut into slices over the K sockets to the partner; a step ends when all
 * its slices have arrived (a partner pair never shares a socket with another step in flight).
 */
import { completion, elementBytes, elems, reduceBytes, sliceCount, sliceRange, type CollContext } from './coll-context.js';

export const isPowerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

/** The partners rank `rank` exchanges with, in reduce-scatter order (farthest first). */
export function halvingDoublingPartners(rank: number, nranks: number): number[] {
  const partners: number[] = [];
  for (let distance = nranks >> 1; distance >= 1; distance >>= 1) partners.push(rank ^ distance);
  return partners;
}

interface Step {
  partner: number;
  /** Chunks [lo, hi) this rank owns after the step (reduce-scatter) or before it (all-gather). */
  keep: [number, number];
  /** The partner's half: sent in reduce-scatter, received in all-gather. */
  give: [number, number];
}

function steps(rank: number, nranks: number): Step[] {
  const out: Step[] = [];
  let lo = 0;
  let hi = nranks;
  for (let distance = nranks >> 1; distance >= 1; distance >>= 1) {
    const mid = lo + (hi - lo) / 2;
    const lower = (rank & distance) === 0;
    const keep: [number, number] = lower ? [lo, mid] : [mid, hi];
    const give: [number, number] = lower ? [mid, hi] : [lo, mid];
    out.push({ partner: rank ^ distance, keep, give });
    [lo, hi] = keep;
  }
  return out;
}

export async function allReduceHalvingDoubling(ctx: CollContext): Promise<void> {
  const { mesh, rank, nranks, count, send, recv } = ctx;
  if (!isPowerOfTwo(nranks)) throw new Error(`internal: halving-doubling all_reduce on ${nranks} ranks`);
  const size = elementBytes(ctx);
  // Chunk c is [floor(c*count/n), floor((c+1)*count/n)), as the ring cuts it.
  const element = (c: number): number => Math.floor((c * count) / nranks);
  const span = ([c0, c1]: [number, number]): [number, number] => [element(c0), element(c1)];

  /** Send elements [s0, s1) of `from` to `peer` and receive [r0, r1) from it, slice by slice. */
  const exchange = async (peer: number, from: Uint8Array, [s0, s1]: [number, number], [r0, r1]: [number, number], onSlice: (e0: number, e1: number, incoming: Uint8Array | undefined) => Uint8Array | undefined): Promise<void> => {
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

  const plan = steps(rank, nranks);
  for (let k = 0; k < plan.length; k++) {
    const { partner, keep, give } = plan[k]!;
    // Step 0 reads our input; later steps our partial sums, which live in recv.
    const source = k === 0 ? send : recv;
    await exchange(partner, source, span(give), span(keep), (e0, e1, incoming) => {
      if (incoming) reduceBytes(ctx, elems(ctx, recv, e0, e1), elems(ctx, source, e0, e1), incoming);
      return undefined;
    });
  }
  for (let k = plan.length - 1; k >= 0; k--) {
    const { partner, keep, give } = plan[k]!;
    await exchange(partner, recv, span(keep), span(give), (e0, e1) => elems(ctx, recv, e0, e1));
  }
  await mesh.drained();
}
