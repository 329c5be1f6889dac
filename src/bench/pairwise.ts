/**
 * alltoall (pairwise exchange: at step k a rank sends block r+k to rank r+k and receives block
 * r-k from rank r-k; all steps are posted at once over the full mesh so every link is busy) and
 * sendrecv (each rank sends to the next and receives from the previous, as nccl-tests'
 * sendrecv_perf). In place, the input is staged in `work` first: NCCL allows send == recv here,
 * and a received block must not overwrite data not yet sent. Nothing is forwarded, so there is
 * nothing to pipeline: a block is cut only to spread it over the K sockets, and each part is one
 * large receive the kernel copies straight into place.
 */

const unsliced = (ctx: CollContext, count: number): number =>
  sliceCount({ ...ctx, sliceBytes: Infinity }, count);
import { completion, elems, mod, sliceCount, sliceRange, type CollContext } from './coll-context.js';

export async function alltoall(ctx: CollContext): Promise<void> {
  const { mesh, rank, nranks, count } = ctx;
  const source = ctx.inPlace ? ctx.work : ctx.send;
  if (ctx.inPlace) source.set(elems(ctx, ctx.recv, 0, count * nranks));
  if (!ctx.inPlace)
    elems(ctx, ctx.recv, rank * count, (rank + 1) * count).set(
      elems(ctx, source, rank * count, (rank + 1) * count),
    );
  if (nranks === 1) return;
  const slices = unsliced(ctx, count);
  const finished = completion(slices * (nranks - 1));
  for (let k = 1; k < nranks; k++) {
    const from = mod(rank - k, nranks);
    for (let j = 0; j < slices; j++) {
      const [e0, e1] = sliceRange(from * count, count, j, slices);
      mesh.recvLink(from, j).recv(elems(ctx, ctx.recv, e0, e1), finished.count);
    }
  }
  for (let k = 1; k < nranks; k++) {
    const to = mod(rank + k, nranks);
    for (let j = 0; j < slices; j++) {
      const [e0, e1] = sliceRange(to * count, count, j, slices);
      mesh.sendLink(to, j).send(elems(ctx, source, e0, e1));
    }
  }
  await mesh.until(finished);
  await mesh.drained();
}

export async function sendrecv(ctx: CollContext): Promise<void> {
  const { mesh, rank, nranks, count } = ctx;
  const source = ctx.inPlace ? ctx.work : ctx.send;
  if (ctx.inPlace) source.set(elems(ctx, ctx.recv, 0, count));
  if (nranks === 1) {
    if (!ctx.inPlace) ctx.recv.set(elems(ctx, source, 0, count));
    return;
  }
  const next = mod(rank + 1, nranks);
  const prev = mod(rank - 1, nranks);
  const slices = unsliced(ctx, count);
  const finished = completion(slices);
  for (let j = 0; j < slices; j++) {
    const [e0, e1] = sliceRange(0, count, j, slices);
    mesh.recvLink(prev, j).recv(elems(ctx, ctx.recv, e0, e1), finished.count);
  }
  for (let j = 0; j < slices; j++) {
    const [e0, e1] = sliceRange(0, count, j, slices);
    mesh.sendLink(next, j).send(elems(ctx, source, e0, e1));
  }
  await mesh.until(finished);
  await mesh.drained();
}
