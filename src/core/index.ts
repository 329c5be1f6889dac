export * from './errors.js';
export * from './units.js';
export * from './rng.js';
export * from './stats.js';
export * from './envelope.js';
export * from './rules.js';
export * from './atomic-write.js';
export { readInputFile, DEFAULT_MAX_INPUT_BYTES, type ReadInputOptions } from './read-input.js';
export { checkOutputFile, checkOutputFolder, prepareOutputFolder, removeFolders, writeOutputFile, outputPathError, type CheckOutputFileOptions } from './output-path.js';
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
