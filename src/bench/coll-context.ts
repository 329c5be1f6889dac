/**
 * What every collective implementation receives: the data plane, who we are, the element type
 * and operator, and the views it reads and writes. Views follow nccl-tests' in-place layout
 * (common.cu startColl): in place, send = recv + sendInplaceOffset x rank and
 * recv = base + recvInplaceOffset x rank, so aliasing is exactly NCCL's.
 */
import { ELEMENT_BYTES, reduceInto, typedView } from './datatypes.js';
import type { Mesh } from './mesh.js';
import type { SimdArena } from './simd-reduce.js';
import type { DataType, ReduceOp } from './types.js';

export interface CollContext {
  mesh: Mesh;
  rank: number;
  nranks: number;
  dataType: DataType;
  redOp: ReduceOp;
  root: number;
  /** Elements passed to the collective (nccl-tests paramCount). */
  count: number;
  send: Uint8Array;
  recv: Uint8Array;
  inPlace: boolean;
  /** Accumulator and staging space, at least as large as the send buffer. */
  work: Uint8Array;
  /** Grow-only receive staging for reductions. */
  scratch: (bytes: number) => Uint8Array;
  /** Target bytes per pipelined slice. */
  sliceBytes: number;
  /** SIMD reductions over the memory the buffers live in, where available. */
  simd?: SimdArena | undefined;
  socketsPerPeer: number;
  /** all_reduce's schedule for this size (`--algo`, or auto's choice: collective.ts). */
  algo: AllReduceSchedule;
}

export type AllReduceSchedule = 'ring' | 'halving-doubling';

export const mod = (a: number, n: number): number => ((a % n) + n) % n;

export function elementBytes(ctx: CollContext): number {
  return ELEMENT_BYTES[ctx.dataType];
}

/** Byte view of elements [e0, e1) of `buffer`. */
export function elems(ctx: CollContext, buffer: Uint8Array, e0: number, e1: number): Uint8Array {
  const size = elementBytes(ctx);
  return buffer.subarray(e0 * size, e1 * size);
}

/**
 * dst = a OP b on byte views of equal length holding ctx.dataType elements: whole 16-byte vectors
 * with SIMD when the views live in the run's WebAssembly memory, the rest with the scalar loop.
 */
export function reduceBytes(ctx: CollContext, dst: Uint8Array, a: Uint8Array, b: Uint8Array): void {
  const done = ctx.simd ? ctx.simd.reduce(ctx.dataType, ctx.redOp, dst, a, b) : 0;
  if (done === dst.byteLength) return;
  const rest = (view: Uint8Array): Uint8Array => (done === 0 ? view : view.subarray(done));
  reduceInto(
    typedView(rest(dst), ctx.dataType),
    typedView(rest(a), ctx.dataType),
    typedView(rest(b), ctx.dataType),
    ctx.redOp,
  );
}

/**
 * How many slices a block of `elements` is cut into for pipelining: enough to keep every socket
 * busy and slices near sliceBytes, never more than there are elements.
 */
export function sliceCount(ctx: CollContext, elements: number): number {
  const bytes = elements * elementBytes(ctx);
  const wanted = Math.max(ctx.socketsPerPeer, Math.ceil(bytes / ctx.sliceBytes));
  return Math.max(1, Math.min(elements, wanted));
}

/** Element range of slice j of [start, start+length) cut into `slices` near-equal parts. */
export function sliceRange(start: number, length: number, j: number, slices: number): [number, number] {
  return [start + Math.floor((j * length) / slices), start + Math.floor(((j + 1) * length) / slices)];
}

/** Counts `total` completions: `done` resolves, and isDone() turns true, when count() has been called that often. */
export interface Completion {
  count: () => void;
  isDone: () => boolean;
  done: Promise<void>;
}

export function completion(total: number): Completion {
  let remaining = total;
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    resolve = r;
    if (remaining === 0) r();
  });
  return {
    count: () => {
      if (--remaining === 0) resolve();
    },
    isDone: () => remaining <= 0,
    done,
  };
}
