/**
 * The sender's SACK scoreboard (RFC 2018 blocks, RFC 6675 loss recovery): byte ranges above
 * snd_una the receiver holds, kept sorted and merged. A hole is deemed lost once at least
 * DupThresh x SMSS bytes above it are SACKed (RFC 6675 IsLost, counted in bytes).
 */
export const SACK_BLOCKS = 3;

/**
 * In a list of sorted, disjoint [start, end) pairs (flat: start, end, start, end...), the index
 * (even) of the first pair that ends after `x` (or at `x` too, with `orAt`), or ranges.length.
 * The ends ascend, so a binary search finds it: a recovering flow holds about 30 ranges on the
 * 432-host permutation, most of them below the point asked about.
 */
export function firstEnding(ranges: readonly number[], x: number, orAt: boolean): number {
  let lo = 0;
  let hi = ranges.length >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const end = ranges[2 * mid + 1]!;
    if (end < x || (end === x && !orAt)) lo = mid + 1;
    else hi = mid;
  }
  return 2 * lo;
}

/**
 * Files [start, end) into sorted, disjoint ranges (flat, as for firstEnding), merged with every range
 * it touches; returns the bytes it adds that no range held before.
 */
export function insertRange(ranges: number[], start: number, end: number): number {
  const i = firstEnding(ranges, start, true);
  let j = i;
  let held = 0;
  while (j < ranges.length && ranges[j]! <= end) {
    start = Math.min(start, ranges[j]!);
    end = Math.max(end, ranges[j + 1]!);
    held += ranges[j + 1]! - ranges[j]!;
    j += 2;
  }
  ranges.splice(i, j - i, start, end);
  return end - start - held;
}

export class SackScoreboard {
  /** Sorted, disjoint [start, end) pairs, all above snd_una. */
  private readonly ranges: number[] = [];
  bytes = 0;

  clear(): void {
    this.ranges.length = 0;
    this.bytes = 0;
  }

  /** Forget what snd_una has passed. */
  prune(una: number): void {
    const r = this.ranges;
    while (r.length > 0 && r[0]! < una) {
      const end = r[1]!;
      if (end <= una) {
        this.bytes -= end - r[0]!;
        r.splice(0, 2);
      } else {
        this.bytes -= una - r[0]!;
        r[0] = una;
      }
    }
  }

  add(start: number, end: number, una: number): void {
    if (end <= una || end <= start) return;
    this.bytes += insertRange(this.ranges, Math.max(start, una), end);
  }

  /** Highest SACKed byte (exclusive end), or `una` when nothing is SACKed. */
  highest(una: number): number {
    const r = this.ranges;
    return r.length > 0 ? r[r.length - 1]! : una;
  }

  /** Bytes below this point sit under at least `threshold` SACKed bytes: holes there are lost. */
  lostBelow(una: number, threshold: number): number {
    const r = this.ranges;
    let above = 0;
    for (let i = r.length - 2; i >= 0; i -= 2) {
      above += r[i + 1]! - r[i]!;
      if (above >= threshold) return r[i]!;
    }
    return una;
  }

  /** SACKed bytes inside [from, to). */
  sackedBetween(from: number, to: number): number {
    const r = this.ranges;
    let total = 0;
    for (let i = firstEnding(r, from, false); i < r.length && r[i]! < to; i += 2) {
      const s = Math.max(from, r[i]!);
      const e = Math.min(to, r[i + 1]!);
      if (e > s) total += e - s;
    }
    return total;
  }

  /** First byte at or after `from` and below `limit` that is not SACKed, or -1; `holeEnd` is set. */
  holeEnd = 0;
  nextHole(from: number, limit: number): number {
    const r = this.ranges;
    let x = from;
    for (let i = firstEnding(r, from, false); i < r.length && x < limit; i += 2) {
      const s = r[i]!;
      const e = r[i + 1]!;
      if (s > x) {
        this.holeEnd = Math.min(s, limit);
        return x;
      }
      x = e;
    }
    if (x < limit) {
      this.holeEnd = limit;
      return x;
    }
    return -1;
  }
}
