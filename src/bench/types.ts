/**
 * What `aifabric bench tcp` runs: every collective of the vocabulary (src/core/collectives.ts),
 * spelled as nccl-tests spells them so that flags (`-d float -o sum`) and table cells match, and
 * the element types and reduction operators it implements, a subset of nccl-tests' own (declared
 * in core, import-free, so that the CLI declares its flags without loading this room).
 */
import type { BENCH_ALGOS, BENCH_DATA_TYPES, BENCH_REDUCE_OPS, CollectiveOp } from '../core/collectives.js';

export {
  BENCH_OP_ORDER as BENCH_OPS,
  BENCH_DATA_TYPES as DATA_TYPES,
  BENCH_REDUCE_OPS as REDUCE_OPS,
  BENCH_ALGOS,
} from '../core/collectives.js';
export type BenchOp = CollectiveOp;

export type DataType = (typeof BENCH_DATA_TYPES)[number];

export type ReduceOp = (typeof BENCH_REDUCE_OPS)[number];

/** `--algo`: how all_reduce moves its bytes (the other ops always run their one schedule). */
export type BenchAlgo = (typeof BENCH_ALGOS)[number];

export type NumericArray = Float32Array | Float64Array | Int32Array;

/** What one rank needs to run a sweep; the same on every rank of a run. */
export interface BenchParams {
  op: BenchOp;
  minBytes: number;
  maxBytes: number;
  /** Multiplicative step (`-f`); nccl-tests' additive `-i` is not offered. */
  stepFactor: number;
  iters: number;
  warmupIters: number;
  /** Untimed time per cell before it is timed, at most SETTLE_ITERS iterations (settle.ts); 0 or absent: none. */
  settleMs?: number;
  /** `-c`: 1 checks every result element. */
  check: boolean;
  dataType: DataType;
  redOp: ReduceOp;
  root: number;
  /** TCP connections per peer (NCCL_NSOCKS_PERTHREAD analogue). */
  sockets: number;
  /** Seconds without progress before a rank gives up (exit 3). */
  timeoutS: number;
  /** all_reduce's algorithm (default auto: collective.ts allReduceSchedule). */
  algo?: BenchAlgo;
}

/** One table row: one message size, out-of-place and in-place. */
export interface BenchRow {
  op: BenchOp;
  sizeBytes: number;
  count: number;
  type: DataType;
  redop: string;
  root: number;
  outOfPlace: BenchCell;
  inPlace: BenchCell;
}

export interface BenchCell {
  timeUs: number;
  algbwGBps: number;
  busbwGBps: number;
  /** Mismatching elements summed over ranks; null when not checked (`-c 0`, printed N/A). */
  wrong: number | null;
  /** Untimed iterations run just before this cell was timed (`--settle`, settle.ts). */
  settleIterations: number;
}

export interface RankInfo {
  rank: number;
  host: string;
  pid: number;
  /** Address and port of this rank's data listener. */
  addr: string;
  port: number;
  /** Cores this rank's process may run on (os.availableParallelism()): tells auto whether co-located ranks crowd their host. */
  cores: number;
}
