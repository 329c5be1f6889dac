/**
 * Busy-time arithmetic on flat interval lists [start0, end0, start1, end1, ...] (microseconds),
 * the layout `TraceRankFacts.computeBusy` uses: merge, clip to a window, subtract, measure.
 */

/** Sorted, non-overlapping union of the given intervals (touching ones merge). */
export function mergeIntervals(flat: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const start = flat[i]!;
    const end = flat[i + 1]!;
    if (end > start) pairs.push([start, end]);
  }
  pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: number[] = [];
  for (const [start, end] of pairs) {
    const last = out.length - 1;
    if (last > 0 && start <= out[last]!) out[last] = Math.max(out[last]!, end);
    else out.push(start, end);
  }
  return out;
}

/** The part of a merged list inside [from, to]. */
export function clipIntervals(merged: readonly number[], from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < merged.length; i += 2) {
    const start = Math.max(merged[i]!, from);
    const end = Math.min(merged[i + 1]!, to);
    if (end > start) out.push(start, end);
  }
  return out;
}

/** Merged `a` minus merged `b`: time in a and not in b. */
export function subtractIntervals(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let j = 0;
  for (let i = 0; i + 1 < a.length; i += 2) {
    let start = a[i]!;
    const end = a[i + 1]!;
    while (j + 1 < b.length && b[j + 1]! <= start) j += 2;
    let k = j;
    while (k + 1 < b.length && b[k]! < end) {
      const bStart = b[k]!;
      const bEnd = b[k + 1]!;
      if (bStart > start) out.push(start, bStart);
      start = Math.max(start, bEnd);
      if (start >= end) break;
      k += 2;
    }
    if (start < end) out.push(start, end);
  }
  return out;
}

/** Total length of a merged list. */
export function intervalLength(merged: readonly number[]): number {
  let total = 0;
  for (let i = 0; i + 1 < merged.length; i += 2) total += merged[i + 1]! - merged[i]!;
  return total;
}

/**
 * When compute last ran before moment `t`: the end of the last interval ending at or before t, or
 * t itself when an interval is still running at t; null when none started before t. Binary search.
 */
export function lastEndAtOrBefore(merged: readonly number[], t: number): number | null {
  // Find the last interval whose start is before t.
  let lo = 0;
  let hi = merged.length / 2 - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (merged[2 * mid]! < t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return null;
  const end = merged[2 * found + 1]!;
  return end <= t ? end : t;
}

/** Median of a non-empty list (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
