/**
 * Deterministic buffer contents for `-c 1`. Every rank can compute every other rank's input, so
 * each rank checks its own output without moving reference data. Values are small integers
 * (72 to 328 in magnitude, never 0), exact in float, double and int32, so sums over up to 50,000
 * ranks stay exact (below 2^24) whatever the reduction order: a mismatch is a transport or algorithm
 * bug, never rounding. The pattern has a prime period of 257 elements and 257 ranks, so blocks
 * of two ranks below 257 apart never look alike, and a misplaced block is caught unless it moved
 * by a multiple of 257 elements. Neighbouring elements differ (the pattern steps by 7 modulo
 * 257), so a slice shifted by one element is caught; and consecutive check rounds differ at
 * every element of every op (a round offset of +200 or -200, which shifts every sum, max and min
 * alike), so a buffer left over from the previous round is caught too.
 */
import { combine } from './datatypes.js';
import type { DataType, NumericArray, ReduceOp } from './types.js';

/** Inputs repeat every PERIOD elements (and ranks): a prime, so strides 7, 13 and 5 cycle through it. */
export const PERIOD = 257;
/** Above the pattern's half-range (128), so no value and no sum is ever 0 and rounds never agree. */
const ROUND_OFFSET = 200;

/** Input element `index` of `rank` in check round `seed`. */
export function inputValue(rank: number, index: number, seed: number): number {
  return (
    ((index * 7 + rank * 13 + seed * 5) % PERIOD) -
    (PERIOD - 1) / 2 +
    (seed % 2 === 0 ? ROUND_OFFSET : -ROUND_OFFSET)
  );
}

/** Fill `view` with rank's input elements firstIndex, firstIndex+1, ... */
export function fillInput(view: NumericArray, rank: number, seed: number, firstIndex = 0): void {
  for (let i = 0; i < view.length; i++) view[i] = inputValue(rank, firstIndex + i, seed);
}

/** The reduction over all ranks of input element `index`. */
export function reducedValue(
  index: number,
  nranks: number,
  op: ReduceOp,
  dataType: DataType,
  seed: number,
): number {
  let acc = inputValue(0, index, seed);
  for (let r = 1; r < nranks; r++) acc = combine(acc, inputValue(r, index, seed), op, dataType);
  return acc;
}
