/**
 * Facts read out of a result envelope of any shape: its one-line description, its busbw curves, and
 * the defensive readers they are built with. Beside the envelope, below everything that reads results:
 * the store labels and diffs runs with them and the report draws them, so neither needs the other.
 */
export { describeRun } from './describe-run.js';
export { bandwidthCurves } from './bandwidth-curves.js';
export type { BandwidthCurve, BandwidthPoint, CurveSource } from './bandwidth-curves.js';
export { isRecord, asRecord, finite, text, records, normaliseOp } from './read.js';
export type { UnknownRecord } from './read.js';
