/**
 * The stress matrix of bench tcp (issue 9): every op x element type x reduction (where the op
 * reduces) x 2..8 ranks, each launch sweeping sizes from an odd element count by an odd factor up
 * to 16 MiB, so that counts divide neither by the rank count nor by the 1 MiB slice. CI draws a
 * fixed-seed sample of launches; `npm run stress` runs them all.
 */
import { createRng } from '../../src/core/rng.js';
import {
  BENCH_OPS,
  DATA_TYPES,
  ELEMENT_BYTES,
  REDUCE_OPS,
  collCounts,
  sweepSizes,
  type BenchAlgo,
  type BenchOp,
  type DataType,
  type ReduceOp,
} from '../../src/bench/index.js';

export interface StressLaunch {
  op: BenchOp;
  dataType: DataType;
  redOp: ReduceOp;
  nranks: number;
  minBytes: number;
  maxBytes: number;
  stepFactor: number;
  /** Run the ranks in the namespace with 16 KiB socket buffers. */
  smallBuffers: boolean;
  /**
   * all_reduce's --algo: auto runs halving-doubling on 4 and 8 ranks, and on other counts from 3 only
   * where the ranks outnumber the host's cores, so from 3 ranks max forces the ring and, on counts
   * that are not a power of two, min forces halving-doubling with its fold, whatever the machine.
   */
  algo: BenchAlgo;
}

export const MAX_BYTES = 16 * 1024 * 1024;
const START_COUNTS = [1, 3, 7, 13, 1031, 4099];
const FACTORS = [2, 3, 4, 5];
const REDUCING: readonly BenchOp[] = ['all_reduce', 'reduce_scatter', 'reduce'];

function stressAlgo(op: BenchOp, nranks: number, redOp: string): BenchAlgo {
  if (op !== 'all_reduce' || nranks < 3) return 'auto';
  if (redOp === 'max') return 'ring';
  return redOp === 'min' && (nranks & (nranks - 1)) !== 0 ? 'halving-doubling' : 'auto';
}

/** Every (op, type, reduction, ranks) of the matrix, each with a drawn start size and factor. */
export function fullMatrix(seed: number): StressLaunch[] {
  const rng = createRng(seed);
  const pick = <T>(items: readonly T[]): T => items[rng.int(items.length)]!;
  const launches: StressLaunch[] = [];
  for (const op of BENCH_OPS) {
    for (const dataType of DATA_TYPES) {
      for (const redOp of REDUCING.includes(op) ? REDUCE_OPS : (['sum'] as const)) {
        for (let nranks = 2; nranks <= 8; nranks++) {
          // Gather/scatter/alltoall sizes are per-rank counts x ranks: start at 1 element per rank.
          const perRankOps = op === 'all_gather' || op === 'reduce_scatter' || op === 'alltoall';
          const startCount = pick(START_COUNTS) * (perRankOps ? nranks : 1);
          launches.push({
            op,
            dataType,
            redOp,
            nranks,
            minBytes: startCount * ELEMENT_BYTES[dataType],
            maxBytes: MAX_BYTES,
            stepFactor: pick(FACTORS),
            smallBuffers: launches.length % 2 === 1,
            algo: stressAlgo(op, nranks, redOp),
          });
        }
      }
    }
  }
  return launches;
}

/** A fixed-seed sample of launches holding at least `minRows` (op, type, reduction, size, ranks) rows. */
export function sampleMatrix(seed: number, minRows: number): StressLaunch[] {
  const all = fullMatrix(seed);
  const rng = createRng(seed + 1);
  const order = all.map((launch) => ({ launch, key: rng.next() }));
  order.sort((a, b) => a.key - b.key);
  const chosen: StressLaunch[] = [];
  let rows = 0;
  for (const { launch } of order) {
    if (rows >= minRows) break;
    chosen.push(launch);
    rows += rowsOf(launch).length;
  }
  return chosen;
}

/** The sizes a launch sweeps, with the element count per rank chunk for the divisibility tally. */
export function rowsOf(launch: StressLaunch): { sizeBytes: number; count: number; dividesRanks: boolean }[] {
  return sweepSizes(launch.minBytes, launch.maxBytes, launch.stepFactor).map((sizeBytes) => {
    const counts = collCounts(
      launch.op,
      Math.floor(sizeBytes / ELEMENT_BYTES[launch.dataType]),
      launch.nranks,
    );
    return { sizeBytes, count: counts.paramCount, dividesRanks: counts.paramCount % launch.nranks === 0 };
  });
}

/** bench tcp arguments for one launch. */
export function launchArgs(launch: StressLaunch): string[] {
  return [
    'bench',
    'tcp',
    '--np',
    String(launch.nranks),
    '--op',
    launch.op,
    '-d',
    launch.dataType,
    '-o',
    launch.redOp,
    '-b',
    String(launch.minBytes),
    '-e',
    String(launch.maxBytes),
    '-f',
    String(launch.stepFactor),
    // Untimed settling (settle.ts) only repeats what is checked here; it would triple the suite's time.
    '-n',
    '1',
    '-w',
    '0',
    '--settle',
    '0',
    '-c',
    '1',
    '-r',
    String(launch.nranks - 1),
    '--algo',
    launch.algo,
    '--timeout',
    '60',
    '--json',
  ];
}
