/**
 * The ring engine behind all_reduce, reduce_scatter and all_gather (NCCL's ring algorithm,
 * src/device/all_reduce.h runRing). At step u a rank sends chunk sendChunk(u) to the next rank
 * and receives chunk sendChunk(u+1) from the previous one. Each chunk is cut into slices that
 * move independently: as soon as slice j of step u arrives (and is reduced), slice j of step u+1
 * is sent on, so a large message flows through the ring as a pipeline. Slice j always travels on
 * socket j mod K, which keeps every socket's byte stream in the same (step, slice) order at both
 * ends without headers.
 */
import { completion, elementBytes, mod, sliceCount, sliceRange, type CollContext } from './coll-context.js';

export interface RingSchedule {
  steps: number;
  /** Chunk sent at step u (the chunk received at step u is sendChunk(u + 1)). */
  sendChunk: (u: number) => number;
  /** Element range [start, end) of chunk c. */
  chunkRange: (c: number) => [number, number];
  /** Bytes to send for elements [e0, e1) of chunk c at step u. */
  sendView: (u: number, c: number, e0: number, e1: number) => Uint8Array;
  /** Where received elements of chunk c at step u go directly, or undefined to reduce them. */
  recvDirect: (u: number, c: number, e0: number, e1: number) => Uint8Array | undefined;
  /** Combine received elements (staged in `incoming`) into their destination. */
  reduce: (u: number, c: number, e0: number, e1: number, incoming: Uint8Array) => void;
}

export async function runRing(ctx: CollContext, schedule: RingSchedule): Promise<void> {
  const { mesh, rank, nranks } = ctx;
  if (schedule.steps === 0) return;
  const next = mod(rank + 1, nranks);
  const prev = mod(rank - 1, nranks);
  let maxChunk = 0;
  let minChunk = Infinity;
  for (let c = 0; c < nranks; c++) {
    const [s, e] = schedule.chunkRange(c);
    maxChunk = Math.max(maxChunk, e - s);
    minChunk = Math.min(minChunk, e - s);
  }
  // No slice may be empty in one chunk and not in another: an empty receive completes at once,
  // out of its socket's FIFO order, and would reorder the sends it triggers. So cap the slice
  // count by the shortest chunk (one slice when some chunk is empty: a single chain keeps order).
  const slices = Math.max(1, Math.min(minChunk, sliceCount(ctx, maxChunk)));
  const slotBytes = Math.ceil(maxChunk / slices) * elementBytes(ctx);
  const scratch = ctx.scratch(slotBytes * slices);
  const finished = completion(slices);

  const sendSlice = (u: number, j: number): void => {
    const c = schedule.sendChunk(u);
    const [start, end] = schedule.chunkRange(c);
    const [e0, e1] = sliceRange(start, end - start, j, slices);
    mesh.sendLink(next, j).send(schedule.sendView(u, c, e0, e1));
  };

  const postRecv = (u: number, j: number): void => {
    const c = schedule.sendChunk(u + 1);
    const [start, end] = schedule.chunkRange(c);
    const [e0, e1] = sliceRange(start, end - start, j, slices);
    const direct = schedule.recvDirect(u, c, e0, e1);
    const target = direct ?? scratch.subarray(j * slotBytes, j * slotBytes + (e1 - e0) * elementBytes(ctx));
    mesh.recvLink(prev, j).recv(target, () => {
      if (!direct) schedule.reduce(u, c, e0, e1, target);
      if (u + 1 < schedule.steps) {
        sendSlice(u + 1, j);
        postRecv(u + 1, j);
      } else finished.count();
    });
  };

  // Sends of step 0 go first: a posted receive may complete at once (its bytes arrived early)
  // and send step 1 of that slice, which must not overtake step 0 on the socket.
  for (let j = 0; j < slices; j++) sendSlice(0, j);
  for (let j = 0; j < slices; j++) postRecv(0, j);
  await ctx.mesh.until(finished);
  await mesh.drained();
}
