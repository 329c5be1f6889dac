/** Real collectives over kernel TCP: the public surface of bench/. */
export {
  BENCH_OPS,
  DATA_TYPES,
  REDUCE_OPS,
  BENCH_ALGOS,
  type BenchAlgo,
  type BenchOp,
  type DataType,
  type ReduceOp,
  type NumericArray,
  type BenchParams,
  type BenchRow,
  type BenchCell,
  type RankInfo,
} from './types.js';
export { allReduceSchedule, HALVING_DOUBLING_MAX_BYTES } from './collective.js';
export { ELEMENT_BYTES, reduceInto, typedView } from './datatypes.js';
export { busbwFactor, collCounts, algBytes, sweepSizes } from './sizes.js';
export { detectLaunch, parseHostPort, DEFAULT_MASTER_PORT, type LaunchIdentity } from './launch-env.js';
export { interfaceAddress } from './interfaces.js';
export { parseProgressMode, PROGRESS_MODES, type ProgressMode } from './data-socket.js';
export { runBenchRank, type RankRunOptions, type RankRunResult } from './runner.js';
export { parseDamage, DAMAGE_KINDS, type DamageKind } from './check.js';
export { formatHeader, formatRow, formatFooter, floatStr, formatG } from './format.js';
export { launchLocal, combinedExitCode, freeLoopbackPort, type LocalLaunchResult } from './local-launch.js';
export { benchResult, type BenchTcpMetrics } from './result.js';
