/**
 * Comparing two results of the same kind. For bandwidth curves the question people ask is "did it
 * get slower anywhere?": every message size where busbw fell by more than 5% is a regression. For
 * everything else, every numeric metric that changed, with its relative change, matched by the
 * row's identity (fabric, sizeBytes, nodes...) rather than by array position.
 */
import { InputError } from '../core/errors.js';
import type { Finding, ResultEnvelope } from '../core/envelope.js';
import { makeFinding } from '../core/rules.js';
import { bandwidthCurves, type BandwidthCurve } from '../result/index.js';
import { sameKind } from './result-kinds.js';

/** busbw falling by more than this fraction at one size is a regression (nccl-tests run-to-run noise is ~1-3%). */
export const BUSBW_REGRESSION_THRESHOLD = 0.05;

export interface BusbwComparison {
  op: string;
  curveA: string;
  curveB: string;
  sizeBytes: number;
  aBusbwGBps: number;
  bBusbwGBps: number;
  /** (b - a) / a * 100; negative when B is slower. */
  changePercent: number;
  regression: boolean;
}

export interface MetricChange {
  path: string;
  a: number;
  b: number;
  /** null when a is 0 (no relative change is defined). */
  changePercent: number | null;
}

export interface ResultDiff {
  kind: string;
  thresholdPercent: number;
  busbw: BusbwComparison[];
  regressions: BusbwComparison[];
  changes: MetricChange[];
  unchangedMetrics: number;
}

const IDENTITY_KEYS = ['fabric', 'sizeBytes', 'nodes', 'senders', 'name', 'id', 'path', 'op'];
const MAX_DEPTH = 6;

/** Numeric leaves by a stable path: `rows[fabric=roce-v2].stepTimeMs`. */
function flattenNumbers(value: unknown, path: string, out: Map<string, number>, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) out.set(path, value);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      let key = String(index);
      if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
        const record = item as Record<string, unknown>;
        const identity = IDENTITY_KEYS.find(
          (name) => typeof record[name] === 'string' || typeof record[name] === 'number',
        );
        if (identity !== undefined) key = `${identity}=${String(record[identity])}`;
      }
      flattenNumbers(item, `${path}[${key}]`, out, depth + 1);
    });
    return;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      flattenNumbers(child, path === '' ? key : `${path}.${key}`, out, depth + 1);
    }
  }
}

/** Pairs curves of the same op by name; a lone curve on each side pairs with the other whatever the names. */
function pairCurves(
  curvesA: BandwidthCurve[],
  curvesB: BandwidthCurve[],
): [BandwidthCurve, BandwidthCurve][] {
  const pairs: [BandwidthCurve, BandwidthCurve][] = [];
  const ops = new Set(curvesA.map((curve) => curve.op));
  for (const op of ops) {
    const sideA = curvesA.filter((curve) => curve.op === op);
    const sideB = curvesB.filter((curve) => curve.op === op);
    const named = sideA.flatMap((curveA) => {
      const match = sideB.find((curveB) => curveB.name === curveA.name);
      return match ? [[curveA, match] as [BandwidthCurve, BandwidthCurve]] : [];
    });
    if (named.length > 0) pairs.push(...named);
    else if (sideA.length === 1 && sideB.length === 1 && sideA[0] && sideB[0])
      pairs.push([sideA[0], sideB[0]]);
  }
  return pairs;
}

function compareCurves(curveA: BandwidthCurve, curveB: BandwidthCurve): BusbwComparison[] {
  const bySize = new Map(curveB.points.map((point) => [point.sizeBytes, point.busbwGBps]));
  const comparisons: BusbwComparison[] = [];
  for (const point of curveA.points) {
    const other = bySize.get(point.sizeBytes);
    if (other === undefined || point.busbwGBps <= 0) continue;
    const change = (other - point.busbwGBps) / point.busbwGBps;
    comparisons.push({
      op: curveA.op,
      curveA: curveA.name,
      curveB: curveB.name,
      sizeBytes: point.sizeBytes,
      aBusbwGBps: point.busbwGBps,
      bBusbwGBps: other,
      changePercent: change * 100,
      regression: change < -BUSBW_REGRESSION_THRESHOLD,
    });
  }
  return comparisons;
}

function describeCurves(curves: BandwidthCurve[]): string {
  if (curves.length === 0) return 'no busbw curve';
  return curves
    .map((curve) => {
      const sizes = curve.points.map((point) => point.sizeBytes);
      return sizes.length === 0
        ? `${curve.op} with no sizes`
        : `${curve.op} ${Math.min(...sizes)} to ${Math.max(...sizes)} B`;
    })
    .join(', ');
}

export function diffResults(a: ResultEnvelope<unknown>, b: ResultEnvelope<unknown>): ResultDiff {
  if (!sameKind(a.kind, b.kind)) {
    throw new InputError(
      `cannot diff a ${a.kind} result with a ${b.kind} result: diff compares two results of the same kind`,
    );
  }
  const curvesA = bandwidthCurves(a);
  const curvesB = bandwidthCurves(b);
  const busbw = pairCurves(curvesA, curvesB).flatMap(([curveA, curveB]) => compareCurves(curveA, curveB));
  // Bandwidth results with no op and size in common compare nothing: saying "no regression" would be a wrong answer.
  if ((curvesA.length > 0 || curvesB.length > 0) && busbw.length === 0) {
    throw new InputError(
      `cannot diff these ${a.kind} results: no op and message size is in both (first: ${describeCurves(curvesA)}; second: ${describeCurves(curvesB)})`,
    );
  }
  const numbersA = new Map<string, number>();
  const numbersB = new Map<string, number>();
  flattenNumbers(a.metrics, '', numbersA);
  flattenNumbers(b.metrics, '', numbersB);
  if (busbw.length === 0 && ![...numbersA.keys()].some((path) => numbersB.has(path))) {
    throw new InputError(
      `cannot diff these ${a.kind} results: they share no numeric metric (${numbersA.size} and ${numbersB.size} metric(s), none at the same place)`,
    );
  }
  const changes: MetricChange[] = [];
  let unchangedMetrics = 0;
  for (const [path, valueA] of numbersA) {
    const valueB = numbersB.get(path);
    if (valueB === undefined) continue;
    if (valueA === valueB) {
      unchangedMetrics += 1;
      continue;
    }
    changes.push({
      path,
      a: valueA,
      b: valueB,
      changePercent: valueA === 0 ? null : ((valueB - valueA) / Math.abs(valueA)) * 100,
    });
  }
  return {
    kind: a.kind,
    thresholdPercent: BUSBW_REGRESSION_THRESHOLD * 100,
    busbw,
    regressions: busbw.filter((comparison) => comparison.regression),
    changes,
    unchangedMetrics,
  };
}

/** One `busbw-regression` error per message size where busbw fell past the threshold: the findings of `runs diff`. */
export function regressionFindings(diff: ResultDiff): Finding[] {
  return diff.regressions.map((entry) =>
    makeFinding('busbw-regression', {
      severity: 'error',
      message: `${entry.op} busbw fell ${Math.abs(entry.changePercent).toFixed(1)}% at ${entry.sizeBytes} bytes (${entry.aBusbwGBps} -> ${entry.bBusbwGBps} GB/s)`,
      sizeBytes: entry.sizeBytes,
    }),
  );
}
