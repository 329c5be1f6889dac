/**
 * Compact number columns for the Kineto reader (a trace of GBs holds millions of kernels and
 * launches: 8 bytes each in a typed array, not an object each), and the union of busy intervals.
 */

export class NumberColumn {
  private data = new Float64Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = value;
  }

  get(index: number): number {
    return this.data[index]!;
  }

  /** The values, as a copy the caller may sort. */
  copy(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * The union of intervals [starts[k], ends[k]] as sorted, merged [start0, end0, start1, end1, ...].
 * The union depends only on the multisets of starts and of ends, so each is sorted on its own (a
 * typed-array sort, no pairs) and swept: a start at or before the next end opens or extends a run,
 * touching intervals merge.
 */
export function unionOfIntervals(startColumn: NumberColumn, endColumn: NumberColumn): number[] {
  const starts = startColumn.copy().sort();
  const ends = endColumn.copy().sort();
  const n = starts.length;
  const merged: number[] = [];
  let active = 0;
  let runStart = 0;
  let i = 0;
  let j = 0;
  while (i < n) {
    if (starts[i]! <= ends[j]!) {
      if (active === 0) runStart = starts[i]!;
      active++;
      i++;
    } else {
      active--;
      if (active === 0) merged.push(runStart, ends[j]!);
      j++;
    }
  }
  if (n > 0) merged.push(runStart, ends[n - 1]!);
  return merged;
}
