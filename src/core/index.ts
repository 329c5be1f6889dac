export * from './errors.js';
export * from './units.js';
export * from './rng.js';
export * from './stats.js';
export * from './envelope.js';
export * from './atomic-write.js';
export { readInputFile, DEFAULT_MAX_INPUT_BYTES, type ReadInputOptions } from './read-input.js';
export { checkOutputFile, checkOutputFolder, prepareOutputFolder, removeFolders, writeOutputFile, outputPathError, type CheckOutputFileOptions } from './output-path.js';
export { refuseNewCapturedRuns, runCaptured, signalCapturedRuns, type CapturedRun } from './run-captured.js';
