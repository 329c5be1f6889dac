/** Length of the union of intervals [starts[i], ends[i]): overlapping stretches count once. */
export function unionLength(starts: readonly number[], ends: readonly number[]): number {
  const n = Math.min(starts.length, ends.length);
  const order: number[] = [];
  for (let i = 0; i < n; i++) if (ends[i]! > starts[i]!) order.push(i);
  if (order.length === 0) return 0;
  order.sort((a, b) => starts[a]! - starts[b]!);
  let total = 0;
  let runStart = starts[order[0]!]!;
  let runEnd = runStart;
  for (const i of order) {
    const s = starts[i]!;
    const e = ends[i]!;
    if (s > runEnd) {
      total += runEnd - runStart;
      runStart = s;
      runEnd = e;
    } else if (e > runEnd) {
      runEnd = e;
    }
  }
  return total + (runEnd - runStart);
}
