/**
 * all_reduce (ring reduce-scatter then ring all-gather, 2(n-1) steps), reduce_scatter and
 * all_gather (n-1 steps each) as schedules for the ring engine. No step copies a whole buffer:
 * the first step sends straight from the input, reductions write straight into their
 * destination, and gathered chunks are received straight into place.
 */
import { elems, mod, reduceBytes, type CollContext } from './coll-context.js';
import { runRing } from './ring.js';

export async function allReduce(ctx: CollContext): Promise<void> {
  const { rank, nranks, count, send, recv } = ctx;
  if (nranks === 1) {
    if (!ctx.inPlace) recv.set(elems(ctx, send, 0, count));
    return;
  }
  // Chunk boundaries need not divide evenly: chunk c is [floor(c*count/n), floor((c+1)*count/n)).
  const chunkRange = (c: number): [number, number] => [
    Math.floor((c * count) / nranks),
    Math.floor(((c + 1) * count) / nranks),
  ];
  const reduceSteps = nranks - 1;
  await runRing(ctx, {
    steps: 2 * (nranks - 1),
    sendChunk: (u) => mod(rank - u, nranks),
    chunkRange,
    // Step 0 sends our own input; later steps forward what we just reduced or received.
    sendView: (u, _c, e0, e1) => elems(ctx, u === 0 ? send : recv, e0, e1),
    recvDirect: (u, _c, e0, e1) => (u < reduceSteps ? undefined : elems(ctx, recv, e0, e1)),
    reduce: (_u, _c, e0, e1, incoming) =>
      reduceBytes(ctx, elems(ctx, recv, e0, e1), elems(ctx, send, e0, e1), incoming),
  });
}

export async function reduceScatter(ctx: CollContext): Promise<void> {
  const { rank, nranks, count, send, recv, work } = ctx;
  if (nranks === 1) {
    if (!ctx.inPlace) recv.set(elems(ctx, send, 0, count));
    return;
  }
  const last = nranks - 2;
  // Partial sums travel through `work`; the final step (chunk = our own rank) lands in recv.
  await runRing(ctx, {
    steps: nranks - 1,
    sendChunk: (u) => mod(rank - u - 1, nranks),
    chunkRange: (c) => [c * count, (c + 1) * count],
    sendView: (u, _c, e0, e1) => elems(ctx, u === 0 ? send : work, e0, e1),
    recvDirect: () => undefined,
    reduce: (u, c, e0, e1, incoming) => {
      const dst = u === last ? elems(ctx, recv, e0 - c * count, e1 - c * count) : elems(ctx, work, e0, e1);
      reduceBytes(ctx, dst, elems(ctx, send, e0, e1), incoming);
    },
  });
}

export async function allGather(ctx: CollContext): Promise<void> {
  const { rank, nranks, count, send, recv } = ctx;
  if (!ctx.inPlace) elems(ctx, recv, rank * count, (rank + 1) * count).set(elems(ctx, send, 0, count));
  if (nranks === 1) return;
  await runRing(ctx, {
    steps: nranks - 1,
    sendChunk: (u) => mod(rank - u, nranks),
    chunkRange: (c) => [c * count, (c + 1) * count],
    sendView: (_u, _c, e0, e1) => elems(ctx, recv, e0, e1),
    recvDirect: (_u, _c, e0, e1) => elems(ctx, recv, e0, e1),
    reduce: () => undefined,
  });
}
