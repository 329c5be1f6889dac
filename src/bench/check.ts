/**
 * `-c 1`: deterministic inputs per op and the element-by-element comparison of each rank's result
 * against what the collective must produce (as nccl-tests' CheckData, counting wrong elements).
 * Receive buffers are first filled with a sentinel so that an element never written is caught too.
 */
import { typedView } from './datatypes.js';
import { inputValue, PERIOD, reducedValue } from './fill.js';
import type { CollContext } from './coll-context.js';
import type { BenchOp, NumericArray } from './types.js';

const SENTINEL = 123456;

function view(ctx: CollContext, bytes: Uint8Array, elements: number): NumericArray {
  return typedView(bytes, ctx.dataType, 0, elements);
}

/** Elements each rank sends, for an op with paramCount `count`. */
function sendElements(op: BenchOp, count: number, nranks: number): number {
  return op === 'reduce_scatter' || op === 'alltoall' ? count * nranks : count;
}

/** Elements each rank receives. */
function recvElements(op: BenchOp, count: number, nranks: number): number {
  return op === 'all_gather' || op === 'alltoall' ? count * nranks : count;
}

/** Fill inputs for check round `seed`; `recvBase` is the whole receive allocation (sentinel). */
export function fillForCheck(op: BenchOp, ctx: CollContext, recvBase: Uint8Array, seed: number): void {
  const { rank, nranks, count } = ctx;
  typedView(recvBase, ctx.dataType).fill(SENTINEL);
  // Broadcast's input is the root's alone: filling it on other ranks too would, in place (send is
  // recv there), pre-write the expected result and hide a receive that never delivered its bytes.
  if (op === 'broadcast' && rank !== ctx.root) return;
  const input = view(ctx, ctx.send, sendElements(op, count, nranks));
  for (let i = 0; i < input.length; i++) input[i] = inputValue(rank, i, seed);
}

/** Mismatching elements of this rank's result. */
export function countWrong(op: BenchOp, ctx: CollContext, seed: number): number {
  const { rank, nranks, count, redOp, dataType, root } = ctx;
  if (op === 'reduce' && rank !== root) return 0;
  const out = view(ctx, ctx.recv, recvElements(op, count, nranks));
  // Inputs repeat every PERIOD elements, so reductions are tabulated once per residue.
  const reduced = Array.from({ length: PERIOD }, (_, k) => reducedValue(k, nranks, redOp, dataType, seed));
  let expected: (i: number) => number;
  switch (op) {
    case 'all_reduce':
    case 'reduce':
      expected = (i) => reduced[i % PERIOD]!;
      break;
    case 'reduce_scatter':
      expected = (i) => reduced[(rank * count + i) % PERIOD]!;
      break;
    case 'all_gather':
      expected = (i) => inputValue(Math.floor(i / count), i % count, seed);
      break;
    case 'broadcast':
      expected = (i) => inputValue(root, i, seed);
      break;
    case 'alltoall':
      expected = (i) => inputValue(Math.floor(i / count), rank * count + (i % count), seed);
      break;
    case 'sendrecv':
      expected = (i) => inputValue((rank - 1 + nranks) % nranks, i, seed);
      break;
  }
  let wrong = 0;
  for (let i = 0; i < out.length; i++) if (out[i] !== expected(i)) wrong++;
  return wrong;
}

/** The damage a test can ask for (AIFABRIC_BENCH_CORRUPT=RANK[:KIND]) so that `-c 1` must catch it. */
export const DAMAGE_KINDS = ['add', 'flip', 'shift', 'stale', 'unwritten'] as const;
export type DamageKind = (typeof DAMAGE_KINDS)[number];

/** Elements a damage of this kind touches (the middle quarter of the result for slices). */
function damagedRange(length: number, kind: DamageKind): [number, number] {
  if (kind === 'add' || kind === 'flip') return [Math.floor(length / 2), Math.floor(length / 2) + 1];
  return [
    Math.floor((3 * length) / 8),
    Math.max(Math.floor((3 * length) / 8) + 1, Math.floor((5 * length) / 8)),
  ];
}

/** What the result buffer holds now: before the fill for 'stale', after it for 'unwritten'. */
export function snapshotResult(op: BenchOp, ctx: CollContext): NumericArray {
  return view(ctx, ctx.recv, recvElements(op, ctx.count, ctx.nranks)).slice();
}

/**
 * Test hook: damage this rank's result as a transport bug would. 'add' adds 1000 to one element,
 * 'flip' flips the lowest bit of one element's first byte, 'shift' moves a slice one element
 * along (out[i] = out[i + 1]), 'stale' puts back a slice of the previous iteration's result,
 * 'unwritten' puts back what a slice held just before the collective (a receive that completed
 * without delivering its bytes).
 * Returns the number of elements damaged.
 */
export function damageResult(
  op: BenchOp,
  ctx: CollContext,
  kind: DamageKind,
  previous: NumericArray | undefined,
): number {
  const out = view(ctx, ctx.recv, recvElements(op, ctx.count, ctx.nranks));
  if (out.length === 0) return 0;
  const [start, end] = damagedRange(out.length, kind);
  switch (kind) {
    case 'add':
      out[start] = out[start]! + 1000;
      break;
    case 'flip': {
      const bytes = new Uint8Array(
        out.buffer,
        out.byteOffset + start * out.BYTES_PER_ELEMENT,
        out.BYTES_PER_ELEMENT,
      );
      bytes[0] = bytes[0]! ^ 1;
      break;
    }
    case 'shift':
      if (end >= out.length) return 0;
      out.copyWithin(start, start + 1, end + 1);
      break;
    case 'stale':
    case 'unwritten':
      if (!previous) return 0;
      out.set(previous.subarray(start, end), start);
      break;
  }
  return end - start;
}

/** Parse AIFABRIC_BENCH_CORRUPT: `RANK` (kind 'add') or `RANK:KIND`. */
export function parseDamage(text: string | undefined): { rank: number; kind: DamageKind } | undefined {
  const match = /^(\d+)(?::([a-z]+))?$/.exec(text?.trim() ?? '');
  if (!match) return undefined;
  const kind = (match[2] ?? 'add') as DamageKind;
  return DAMAGE_KINDS.includes(kind) ? { rank: Number(match[1]), kind } : undefined;
}
