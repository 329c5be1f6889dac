/**
 * Deterministic buffer contents for `-c 1`. Every rank can compute every other rank's input, so
 * each rank checks its own output without moving reference data. Values are small integers
 * (at most 24 in magnitude), exact in float, double and int32, so sums over up to thousands of
 * ranks stay exact whatever the reduction order: a mismatch is a transport or algorithm bug,
 * never rounding. Neighbouring elements differ (the pattern steps by 7 modulo 17), so a slice
 * shifted by one element is caught; and consecutive check rounds differ at every element of
 * every op (a round offset of +16 or -16, which shifts every sum, max and min alike), so a
 * buffer left over from the previous round is caught too.
 */
import { combine } from './datatypes.js';
import type { DataType, NumericArray, ReduceOp } from './types.js';

/** Input element `index` of `rank` in check round `seed`. */
export function inputValue(rank: number, index: number, seed: number): number {
  return ((index * 7 + rank * 13 + seed * 5) % 17) - 8 + (seed % 2 === 0 ? 16 : -16);
}

/** Fill `view` with rank's input elements firstIndex, firstIndex+1, ... */
export function fillInput(view: NumericArray, rank: number, seed: number, firstIndex = 0): void {
  for (let i = 0; i < view.length; i++) view[i] = inputValue(rank, firstIndex + i, seed);
}

/** The reduction over all ranks of input element `index`. */
export function reducedValue(index: number, nranks: number, op: ReduceOp, dataType: DataType, seed: number): number {
  let acc = inputValue(0, index, seed);
  for (let r = 1; r < nranks; r++) acc = combine(acc, inputValue(r, index, seed), op, dataType);
  return acc;
}

/** Count elements of `view` that differ from expected(i). */
export function countMismatches(view: NumericArray, expected: (i: number) => number): number {
  let wrong = 0;
  for (let i = 0; i < view.length; i++) if (view[i] !== expected(i)) wrong++;
  return wrong;
}
