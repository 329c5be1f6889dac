/**
 * Pipelined broadcast and reduce along the ring (NCCL's ring broadcast/reduce, a chain that
 * starts at the root for broadcast and ends at it for reduce). The message is cut into slices;
 * a rank forwards slice j as soon as it has it, so all links carry data at once and the time
 * approaches size/bandwidth plus (n-1) slice latencies. Slice j travels on socket j mod K.
 */
import {
  completion,
  elementBytes,
  elems,
  mod,
  reduceBytes,
  sliceCount,
  sliceRange,
  type CollContext,
} from './coll-context.js';

export async function broadcast(ctx: CollContext): Promise<void> {
  const { mesh, rank, nranks, root, count, send, recv } = ctx;
  if (nranks === 1) {
    if (!ctx.inPlace) recv.set(elems(ctx, send, 0, count));
    return;
  }
  const position = mod(rank - root, nranks);
  const next = mod(rank + 1, nranks);
  const prev = mod(rank - 1, nranks);
  const slices = sliceCount(ctx, count);
  const forwards = position < nranks - 1;
  if (position === 0) {
    // The root sends from its input and fills its own output while the bytes are on the wire.
    for (let j = 0; j < slices; j++) {
      const [e0, e1] = sliceRange(0, count, j, slices);
      mesh.sendLink(next, j).send(elems(ctx, send, e0, e1));
    }
    if (!ctx.inPlace) await mesh.guard(copyInSteps(ctx, slices));
  } else {
    const finished = completion(slices);
    for (let j = 0; j < slices; j++) {
      const [e0, e1] = sliceRange(0, count, j, slices);
      const view = elems(ctx, recv, e0, e1);
      mesh.recvLink(prev, j).recv(view, () => {
        if (forwards) mesh.sendLink(next, j).send(view);
        finished.count();
      });
    }
    await mesh.until(finished);
  }
  await mesh.drained();
}

/**
 * Root's out-of-place copy, one slice per turn of the event loop, so socket writes keep being
 * serviced in between (one 64 MB memcpy would stall them for tens of milliseconds); in poll mode
 * a pass over the connections after each slice does that.
 */
function copyInSteps(ctx: CollContext, slices: number): Promise<void> {
  return new Promise((resolve) => {
    let j = 0;
    const step = (): void => {
      if (j === slices) {
        resolve();
        return;
      }
      const [e0, e1] = sliceRange(0, ctx.count, j++, slices);
      elems(ctx, ctx.recv, e0, e1).set(elems(ctx, ctx.send, e0, e1));
      ctx.mesh.poke();
      setImmediate(step);
    };
    step();
  });
}

export async function reduce(ctx: CollContext): Promise<void> {
  const { mesh, rank, nranks, root, count, send, recv, work } = ctx;
  if (nranks === 1) {
    if (!ctx.inPlace) recv.set(elems(ctx, send, 0, count));
    return;
  }
  // Position 0 is the rank after the root; the root is last and keeps the result.
  const position = mod(rank - root - 1, nranks);
  const next = mod(rank + 1, nranks);
  const prev = mod(rank - 1, nranks);
  const slices = sliceCount(ctx, count);
  if (position === 0) {
    for (let j = 0; j < slices; j++) {
      const [e0, e1] = sliceRange(0, count, j, slices);
      mesh.sendLink(next, j).send(elems(ctx, send, e0, e1));
    }
  } else {
    const isRoot = rank === root;
    const slotBytes = Math.ceil(count / slices) * elementBytes(ctx);
    const scratch = ctx.scratch(slotBytes * slices);
    const finished = completion(slices);
    for (let j = 0; j < slices; j++) {
      const [e0, e1] = sliceRange(0, count, j, slices);
      const incoming = scratch.subarray(j * slotBytes, j * slotBytes + (e1 - e0) * elementBytes(ctx));
      mesh.recvLink(prev, j).recv(incoming, () => {
        // Non-roots accumulate in `work` so a user's receive buffer is left alone, as in NCCL.
        const dst = elems(ctx, isRoot ? recv : work, e0, e1);
        reduceBytes(ctx, dst, elems(ctx, send, e0, e1), incoming);
        if (!isRoot) mesh.sendLink(next, j).send(dst);
        finished.count();
      });
    }
    await mesh.until(finished);
  }
  await mesh.drained();
}
