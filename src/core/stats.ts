/** Small statistics helpers shared by the model, the simulator and the checks. */

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : sum(values) / values.length;
}

/** Quantile with linear interpolation between closest ranks (type 7, as numpy's default). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] ?? Number.NaN;
  const high = sorted[upper] ?? Number.NaN;
  return low + (high - low) * (position - lower);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Median absolute deviation, scaled by 1.4826 so it estimates sigma for normal data. */
export function medianAbsoluteDeviation(values: readonly number[]): number {
  const center = median(values);
  return 1.4826 * median(values.map((value) => Math.abs(value - center)));
}

/** Robust z-score of each value (Iglewicz and Hoaglin): (x - median) / MAD. */
export function robustZScores(values: readonly number[]): number[] {
  const center = median(values);
  const spread = medianAbsoluteDeviation(values);
  return values.map((value) => (spread === 0 ? 0 : (value - center) / spread));
}
