/** The trace room: per-rank trace facts matched across ranks, analysed, compared with the model. */
export { analyseTrace, type AnalyseOptions } from './analyse.js';
export { modelFor, gpuPresetForDevice, DEFAULT_TRACE_GPU, type TraceShape } from './model.js';
export type { TraceModel } from './model-types.js';
export { UNKNOWN_HOST } from './ranks.js';
export { BELOW_MODEL_FRACTION, STRAGGLER_LOST_SHARE } from './findings.js';
export type {
  TraceCollectiveRow,
  TraceIteration,
  TraceMetrics,
  TraceRankSummary,
  TraceStraggler,
} from './types.js';
