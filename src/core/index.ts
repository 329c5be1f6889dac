/**
 * The core room, importable by every room: errors, units, seeded random numbers, statistics, the
 * result envelope, the rule table, the collective vocabulary, the limits and versions, safe file I/O.
 */
export {
  AifabricError,
  UsageError,
  InputError,
  EnvironmentError,
  isAifabricError,
  type ErrorCode,
} from './errors.js';
export {
  parseSize,
  parseRate,
  parseDuration,
  formatSize,
  formatBytes,
  formatRate,
  formatDuration,
} from './units.js';
export { createRng, type Rng } from './rng.js';
export { sum, mean, quantile, median, medianAbsoluteDeviation, robustZScores } from './stats.js';
export {
  SCHEMA_VERSION,
  normaliseKind,
  sameKind,
  makeResult,
  type Severity,
  type Finding,
  type Series,
  type ResultEnvelope,
  type EnvelopeExtras,
} from './envelope.js';
export {
  RULES,
  ruleById,
  makeFinding,
  type Rule,
  type RuleId,
  type FamilyOf,
  type FindingFields,
} from './rules.js';
export { writeFileAtomic } from './atomic-write.js';
export { VERSION, TOOL_NAME } from './version.js';
export { MAX_NODES, MAX_GPUS_PER_NODE, MAX_NICS_PER_NODE } from './limits.js';
export { DEFAULT_NCCL_VERSION, NCCL_VERSION_FORM, isNcclVersion } from './nccl-version.js';
export { readInputFile, DEFAULT_MAX_INPUT_BYTES, type ReadInputOptions } from './read-input.js';
export {
  checkOutputFile,
  checkOutputFolder,
  prepareOutputFolder,
  removeFolders,
  writeOutputFile,
  outputPathError,
  type CheckOutputFileOptions,
} from './output-path.js';
export { refuseNewCapturedRuns, runCaptured, signalCapturedRuns, type CapturedRun } from './run-captured.js';
export {
  COLLECTIVE_OPS,
  BENCH_OP_ORDER,
  COMPACT_OP_NAMES,
  TRACE_OPS,
  isCollectiveOp,
  collectiveOpOf,
  opOfCompactName,
  busbwFactor,
  countsPerRank,
  elementCount,
  collCounts,
  algBytes,
  usesRedOp,
  usesRoot,
  REDUCTION_OPS,
  DATA_TYPE_NAMES,
  dataTypeBytes,
  ALGORITHM_IDS,
  ALGORITHM_CHOICES,
  PROTOCOLS,
  PROTOCOL_IDS,
  PROTOCOL_CHOICES,
  protocolOfId,
  type CollectiveOp,
  type CompactOpName,
  type TraceOp,
  type CollCounts,
  type ReductionOp,
  type DataTypeName,
  type NcclAlgorithm,
  type AlgorithmChoice,
  type NcclProtocol,
  type ProtocolId,
  type ProtocolChoice,
} from './collectives.js';
