/**
 * Bus-bandwidth curves (busbw against message size) from every kind of result that has one:
 * `collective` (the model's prediction), `bench.tcp` (measured over kernel TCP) and `parse`
 * (nccl-tests output captured on a real cluster). Measured results report out-of-place busbw, as
 * nccl-tests' summary line does, falling back to in-place or a flat busbwGBps.
 */
import { normaliseKind, type ResultEnvelope } from '../core/envelope.js';
import { asRecord, finite, normaliseOp, records, text, type UnknownRecord } from './read.js';

export type CurveSource = 'predicted' | 'measured';

export interface BandwidthPoint {
  sizeBytes: number;
  busbwGBps: number;
}

export interface BandwidthCurve {
  /** The collective, normalised (`all_reduce`), or `unknown op`; curves are compared only within one. */
  op: string;
  /** What tells this line apart inside its run: the fabric, the captured file, the test. */
  name: string;
  source: CurveSource;
  points: BandwidthPoint[];
}

function measuredBusbw(row: UnknownRecord): number | undefined {
  return (
    finite(asRecord(row.outOfPlace).busbwGBps) ??
    finite(asRecord(row.inPlace).busbwGBps) ??
    finite(row.busbwGBps)
  );
}

function toPoints(
  rows: UnknownRecord[],
  busbw: (row: UnknownRecord) => number | undefined,
): BandwidthPoint[] {
  const points: BandwidthPoint[] = [];
  for (const row of rows) {
    const sizeBytes = finite(row.sizeBytes);
    const value = busbw(row);
    // A log axis cannot place a zero-byte message; nccl-tests prints such rows for some ops.
    if (sizeBytes === undefined || sizeBytes <= 0 || value === undefined) continue;
    points.push({ sizeBytes, busbwGBps: value });
  }
  return points.sort((a, b) => a.sizeBytes - b.sizeBytes);
}

function collectiveCurves(envelope: ResultEnvelope<unknown>): BandwidthCurve[] {
  const inputs = asRecord(envelope.inputs);
  const points = toPoints(records(asRecord(envelope.metrics).rows), (row) => finite(row.busbwGBps));
  const fabric = text(inputs.fabric) ?? text(asRecord(inputs.fabric).name) ?? 'model';
  const op = normaliseOp(text(inputs.op)) ?? 'unknown op';
  return points.length > 0 ? [{ op, name: fabric, source: 'predicted', points }] : [];
}

function benchCurves(envelope: ResultEnvelope<unknown>): BandwidthCurve[] {
  const inputs = asRecord(envelope.inputs);
  const metrics = asRecord(envelope.metrics);
  const points = toPoints(records(metrics.rows), measuredBusbw);
  const op = normaliseOp(text(inputs.op) ?? text(metrics.op)) ?? 'unknown op';
  const ranks = finite(inputs.nranks) ?? finite(metrics.nranks);
  const name = text(inputs.fabric) ?? (ranks !== undefined ? `kernel TCP, ${ranks} ranks` : 'kernel TCP');
  return points.length > 0 ? [{ op, name, source: 'measured', points }] : [];
}

/** Captures are usually named after the binary (`all_reduce_perf.log`); used only when the log does not say. */
function opFromFileName(name: string): string | undefined {
  return /all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|sendrecv|reduce/i.exec(name)?.[0];
}

function parseCurves(envelope: ResultEnvelope<unknown>): BandwidthCurve[] {
  const curves: BandwidthCurve[] = [];
  const files = records(asRecord(envelope.metrics).files);
  files.forEach((file, fileIndex) => {
    const fileName = text(file.path) ?? text(file.file) ?? text(file.name) ?? `file ${fileIndex + 1}`;
    const baseName = fileName.split(/[\\/]/).pop() ?? fileName;
    const tests = records(asRecord(file.facts).tests);
    tests.forEach((test, testIndex) => {
      const points = toPoints(records(test.rows), measuredBusbw);
      if (points.length === 0) return;
      const op =
        normaliseOp(
          text(test.op) ??
            text(test.name) ??
            text(test.collective) ??
            text(test.binary) ??
            opFromFileName(baseName),
        ) ?? 'unknown op';
      curves.push({
        op,
        name: tests.length > 1 ? `${baseName} #${testIndex + 1}` : baseName,
        source: 'measured',
        points,
      });
    });
  });
  return curves;
}

/** Every busbw curve in one result; empty for results that have none. */
export function bandwidthCurves(envelope: ResultEnvelope<unknown>): BandwidthCurve[] {
  // Either separator: `aifabric bench tcp` says bench.tcp; bench-tcp and bench are accepted for results saved by others.
  switch (normaliseKind(envelope.kind)) {
    case 'collective':
      return collectiveCurves(envelope);
    case 'bench.tcp':
    case 'bench':
      return benchCurves(envelope);
    case 'parse':
      return parseCurves(envelope);
    default:
      return [];
  }
}
