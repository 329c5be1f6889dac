/**
 * Prediction error against real nccl-tests logs, per size regime, and leave-one-cluster-out: the
 * fitted constants re-fitted without any log of the cluster being predicted. Pure: the caller reads
 * and parses the logs (bench/model-validation.mjs, test/model/calibration.test.ts).
 */
import type { CollectiveOp } from './busbw.js';
import { FITTED_PARAMETERS, type ModelConstants } from './fitted.js';

/** small: time at sizes up to 64 KiB; mid: busbw at 1 to 64 MiB; large: busbw at 256 MiB and up. */
export const REGIMES = ['small', 'mid', 'large'] as const;
export type Regime = (typeof REGIMES)[number];

const KiB = 1024;
const MiB = 1024 * KiB;

export function regimeOf(sizeBytes: number): Regime | null {
  if (sizeBytes > 0 && sizeBytes <= 64 * KiB) return 'small';
  if (sizeBytes >= MiB && sizeBytes <= 64 * MiB) return 'mid';
  if (sizeBytes >= 256 * MiB) return 'large';
  return null;
}

export interface MeasuredRow {
  sizeBytes: number;
  timeUs: number;
  busbwGBps: number;
}

export interface CorpusLog {
  file: string;
  /** One system: same GPU, NICs per node, fabric and node count. */
  cluster: string;
  op: CollectiveOp;
  rows: MeasuredRow[];
}

export interface Predicted {
  timeUs: number;
  busbwGBps: number;
}

/** Predicts one log's sizes with the given constants. */
export type LogPredictor<L extends CorpusLog> = (
  log: L,
  constants: ModelConstants,
) => (sizeBytes: number) => Predicted;

export type RegimeErrors = Record<Regime, number | null>;

/**
 * One log's error per regime: the mean over its sizes in that regime of |predicted/measured - 1|,
 * on time for small sizes and on busbw for mid and large; null where the log has no such size.
 */
export function logErrors(
  rows: readonly MeasuredRow[],
  predict: (sizeBytes: number) => Predicted,
): RegimeErrors {
  const sums: Record<Regime, { total: number; count: number }> = {
    small: { total: 0, count: 0 },
    mid: { total: 0, count: 0 },
    large: { total: 0, count: 0 },
  };
  for (const row of rows) {
    const regime = regimeOf(row.sizeBytes);
    if (!regime) continue;
    const measured = regime === 'small' ? row.timeUs : row.busbwGBps;
    if (!(measured > 0)) continue;
    const estimate = predict(row.sizeBytes);
    const predicted = regime === 'small' ? estimate.timeUs : estimate.busbwGBps;
    sums[regime].total += Math.abs(predicted / measured - 1);
    sums[regime].count += 1;
  }
  const out = { small: null, mid: null, large: null } as RegimeErrors;
  for (const regime of REGIMES)
    if (sums[regime].count > 0) out[regime] = sums[regime].total / sums[regime].count;
  return out;
}

export interface RegimeSummary {
  logs: number;
  mean: number;
  median: number;
  worst: { file: string; error: number } | null;
}

export function summarise(
  perLog: readonly { file: string; errors: RegimeErrors }[],
): Record<Regime, RegimeSummary> {
  const out = {} as Record<Regime, RegimeSummary>;
  for (const regime of REGIMES) {
    const values = perLog.flatMap((entry) => {
      const error = entry.errors[regime];
      return error === null ? [] : [{ file: entry.file, error }];
    });
    const sorted = values.map((value) => value.error).sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const at = (i: number): number => sorted[i] ?? 0;
    const median = sorted.length === 0 ? 0 : sorted.length % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
    const worst = values.reduce<{ file: string; error: number } | null>(
      (best, value) => (best === null || value.error > best.error ? value : best),
      null,
    );
    out[regime] = {
      logs: values.length,
      mean: values.length ? values.reduce((sum, value) => sum + value.error, 0) / values.length : 0,
      median,
      worst,
    };
  }
  return out;
}

/**
 * Errors above this count as this much in the fit: a log the model cannot describe (a contended
 * shared fabric, a misconfigured host) must not drag the constants away from every other log.
 */
export const FIT_ERROR_CAP = 0.5;

/** The fit's objective: the mean over regimes of the mean over logs (each log once per regime) of the capped error. */
export function objective<L extends CorpusLog>(
  logs: readonly L[],
  predictor: LogPredictor<L>,
  constants: ModelConstants,
): number {
  const capped = (errors: RegimeErrors): RegimeErrors => ({
    small: errors.small === null ? null : Math.min(errors.small, FIT_ERROR_CAP),
    mid: errors.mid === null ? null : Math.min(errors.mid, FIT_ERROR_CAP),
    large: errors.large === null ? null : Math.min(errors.large, FIT_ERROR_CAP),
  });
  const summary = summarise(
    logs.map((log) => ({ file: log.file, errors: capped(logErrors(log.rows, predictor(log, constants))) })),
  );
  const present = REGIMES.filter((regime) => summary[regime].logs > 0);
  return present.length ? present.reduce((sum, regime) => sum + summary[regime].mean, 0) / present.length : 0;
}

/** Nelder-Mead restarts at most; each starts a fresh simplex around the best point found so far. */
const FIT_RESTARTS = 8;
/** A restart that gains less than this on the objective ends the fit. */
const FIT_MIN_GAIN = 1e-5;

/**
 * Re-fits every fitted constant (FITTED_PARAMETERS, each within its bounds) on the given logs:
 * Nelder-Mead on the logarithm of each value from `start`, deterministic, at most `evaluations` calls
 * a run, restarted from its own result while a run gains at least FIT_MIN_GAIN (one run stops where its
 * simplex has gone flat, which on this objective, capped and piecewise, is often short of the optimum).
 */
export function fitConstants<L extends CorpusLog>(
  logs: readonly L[],
  predictor: LogPredictor<L>,
  start: ModelConstants,
  evaluations = 600,
): ModelConstants {
  let best = start;
  let bestValue = objective(logs, predictor, start);
  for (let run = 0; run < FIT_RESTARTS; run++) {
    const next = nelderMead(logs, predictor, best, evaluations);
    const value = objective(logs, predictor, next);
    const gain = bestValue - value;
    if (gain > 0) {
      best = next;
      bestValue = value;
    }
    if (gain < FIT_MIN_GAIN) break;
  }
  return best;
}

function nelderMead<L extends CorpusLog>(
  logs: readonly L[],
  predictor: LogPredictor<L>,
  start: ModelConstants,
  evaluations: number,
): ModelConstants {
  const params = FITTED_PARAMETERS;
  const toConstants = (x: readonly number[]): ModelConstants => {
    const out = { ...start };
    params.forEach((param, i) => {
      out[param.key] = Math.min(param.max, Math.max(param.min, Math.exp(x[i] ?? 0)));
    });
    return out;
  };
  const f = (x: readonly number[]): number => objective(logs, predictor, toConstants(x));
  const n = params.length;
  const x0 = params.map((param) => Math.log(start[param.key]));
  interface Point {
    x: number[];
    fx: number;
  }
  let simplex: Point[] = [
    x0,
    ...params.map((_, i) => x0.map((value, j) => (i === j ? value + 0.3 : value))),
  ].map((x) => ({ x, fx: f(x) }));
  const at = (i: number): Point => simplex[i]!;
  let calls = simplex.length;
  while (calls < evaluations) {
    simplex.sort((a, b) => a.fx - b.fx);
    const best = at(0);
    const worst = at(n);
    if (worst.fx - best.fx < 1e-7) break;
    const centroid = x0.map(
      (_, j) => simplex.slice(0, n).reduce((sum, point) => sum + (point.x[j] ?? 0), 0) / n,
    );
    const along = (t: number): number[] => centroid.map((c, j) => c + t * ((worst.x[j] ?? 0) - c));
    const reflected = along(-1);
    const fr = f(reflected);
    calls += 1;
    if (fr < best.fx) {
      const expanded = along(-2);
      const fe = f(expanded);
      calls += 1;
      simplex[n] = fe < fr ? { x: expanded, fx: fe } : { x: reflected, fx: fr };
    } else if (fr < at(n - 1).fx) {
      simplex[n] = { x: reflected, fx: fr };
    } else {
      const contracted = along(0.5);
      const fc = f(contracted);
      calls += 1;
      if (fc < worst.fx) simplex[n] = { x: contracted, fx: fc };
      else {
        simplex = simplex.map((point, i) => {
          if (i === 0) return point;
          const x = point.x.map((value, j) => (best.x[j] ?? 0) + 0.5 * (value - (best.x[j] ?? 0)));
          return { x, fx: f(x) };
        });
        calls += n;
      }
    }
  }
  simplex.sort((a, b) => a.fx - b.fx);
  return toConstants(at(0).x);
}

export interface ValidationLogResult {
  file: string;
  cluster: string;
  op: CollectiveOp;
  /** With the shipped constants (fitted on every log). */
  errors: RegimeErrors;
  /** With the constants re-fitted without this log's cluster. */
  heldOut: RegimeErrors;
}

export interface ValidationResult {
  logs: ValidationLogResult[];
  clusters: number;
  inSample: Record<Regime, RegimeSummary>;
  leaveOneClusterOut: Record<Regime, RegimeSummary>;
  /** Per held-out cluster: the constants fitted without it. */
  refits: { cluster: string; constants: ModelConstants }[];
}

/** Errors with `constants` on every log, and leave-one-cluster-out errors with constants re-fitted per cluster. */
export function validateModel<L extends CorpusLog>(
  logs: readonly L[],
  predictor: LogPredictor<L>,
  constants: ModelConstants,
  evaluations = 600,
): ValidationResult {
  const clusters = [...new Set(logs.map((log) => log.cluster))];
  const heldOut = new Map<string, RegimeErrors>();
  const refits: ValidationResult['refits'] = [];
  for (const cluster of clusters) {
    const training = logs.filter((log) => log.cluster !== cluster);
    const fitted = fitConstants(training, predictor, constants, evaluations);
    refits.push({ cluster, constants: fitted });
    for (const log of logs.filter((entry) => entry.cluster === cluster))
      heldOut.set(log.file, logErrors(log.rows, predictor(log, fitted)));
  }
  const results = logs.map((log) => ({
    file: log.file,
    cluster: log.cluster,
    op: log.op,
    errors: logErrors(log.rows, predictor(log, constants)),
    heldOut: heldOut.get(log.file)!,
  }));
  return {
    logs: results,
    clusters: clusters.length,
    inSample: summarise(results.map((entry) => ({ file: entry.file, errors: entry.errors }))),
    leaveOneClusterOut: summarise(results.map((entry) => ({ file: entry.file, errors: entry.heldOut }))),
    refits,
  };
}

/** The per-log error table of docs/models.md, as bench/model-validation.mjs prints it and the calibration test reads it. */
export const LOG_TABLE_HEADER =
  '| log | op | small (time) | mid (busbw) | large (busbw) | held out: small | mid | large |';

/** A log's name in the tables: its corpus file without the `nccl-tests/` folder. */
export const shortLogName = (file: string): string => file.replace(/^(shared:)?nccl-tests\//, '');

/** An error as a table cell: percent, one decimal; blank where the log has no size of that regime. */
export const percentCell = (error: number | null | undefined): string =>
  error === null || error === undefined ? '' : `${(error * 100).toFixed(1)}%`;

/** One row of the per-log table: in sample small, mid, large, then held out the same. */
export function logTableRow(log: ValidationLogResult): string {
  const cells = [...REGIMES.map((r) => log.errors[r]), ...REGIMES.map((r) => log.heldOut[r])].map(
    percentCell,
  );
  return `| ${shortLogName(log.file)} | ${log.op} | ${cells.join(' | ')} |`;
}
