/**
 * Time series from a result's `series`: queue occupancy ({timeUs, queueBytes}) and PFC pause
 * activity ({timeUs, pausedPorts} or {timeUs, pauseFrames}). Long simulations record 10^5+ points;
 * each series is thinned to a bounded count keeping every bucket's minimum and maximum, so the
 * peaks that matter (a full buffer, a pause storm) survive and the SVG stays small.
 */
import type { Series } from '../../core/envelope.js';
import { finite } from '../../result/index.js';

export interface TimelinePoint {
  timeUs: number;
  value: number;
}

export interface Timeline {
  name: string;
  field: string;
  points: TimelinePoint[];
}

export const MAX_POINTS_PER_SERIES = 1200;

export function thinMinMax(points: TimelinePoint[], maxPoints = MAX_POINTS_PER_SERIES): TimelinePoint[] {
  if (points.length <= maxPoints) return points;
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const size = points.length / buckets;
  const kept: TimelinePoint[] = [];
  for (let bucket = 0; bucket < buckets; bucket += 1) {
    const slice = points.slice(Math.floor(bucket * size), Math.floor((bucket + 1) * size));
    if (slice.length === 0) continue;
    let low = slice[0]!;
    let high = low;
    for (const point of slice) {
      if (point.value < low.value) low = point;
      if (point.value > high.value) high = point;
    }
    // Keep the pair in time order so the line does not double back.
    if (low === high) kept.push(low);
    else kept.push(...(low.timeUs <= high.timeUs ? [low, high] : [high, low]));
  }
  return kept;
}

/** Picks the value field of one series, or undefined when the series is not of this chart's kind. */
export type FieldPicker = (series: Series, firstPoint: Series['points'][number]) => string | undefined;

/** Accepts a series when its first point with a value carries one of `fields`, and, for `namedFields`, when its name matches too. */
export function pickField(
  fields: readonly string[],
  namedFields: readonly [RegExp, string][] = [],
): FieldPicker {
  return (series, point) =>
    fields.find((name) => finite(point[name]) !== undefined) ??
    namedFields.find(
      ([pattern, name]) => pattern.test(series.name) && finite(point[name]) !== undefined,
    )?.[1];
}

/** Time series chosen by `pick`, sorted by time and thinned. */
export function timelines(series: readonly Series[] | undefined, pick: FieldPicker): Timeline[] {
  const found: Timeline[] = [];
  for (const entry of series ?? []) {
    const first = entry.points.find((point) => finite(point.timeUs) !== undefined);
    const field = first ? pick(entry, first) : undefined;
    if (field === undefined) continue;
    const points: TimelinePoint[] = [];
    for (const point of entry.points) {
      const timeUs = finite(point.timeUs);
      const value = finite(point[field]);
      if (timeUs !== undefined && value !== undefined) points.push({ timeUs, value });
    }
    points.sort((a, b) => a.timeUs - b.timeUs);
    if (points.length > 0) found.push({ name: entry.name, field, points: thinMinMax(points) });
  }
  return found;
}

/** The `limit` series with the highest peaks, dropping those that stay at zero; and how many were left out. */
export function busiest(found: Timeline[], limit: number): { shown: Timeline[]; omitted: number } {
  const peak = (timeline: Timeline) => Math.max(...timeline.points.map((point) => point.value));
  const active = found.filter((timeline) => peak(timeline) > 0).sort((a, b) => peak(b) - peak(a));
  const shown = active.slice(0, limit);
  return {
    shown: found.filter((timeline) => shown.includes(timeline)),
    omitted: found.length - shown.length,
  };
}

/** Sums series point by point in time: 64 ports' paused fractions become "ports paused" on one line. */
export function sumByTime(found: readonly Timeline[]): TimelinePoint[] {
  const totals = new Map<number, number>();
  for (const timeline of found)
    for (const point of timeline.points)
      totals.set(point.timeUs, (totals.get(point.timeUs) ?? 0) + point.value);
  return [...totals.entries()]
    .map(([timeUs, value]) => ({ timeUs, value }))
    .sort((a, b) => a.timeUs - b.timeUs);
}
