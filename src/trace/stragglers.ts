/**
 * The straggler ranking: which rank arrives last at matched collectives, how often, how much time
 * the others lose waiting for it, and where its lateness sits. Lateness at one collective is the
 * last arriver's start minus the median rank's start; it sits in compute when the last arriver's
 * preceding compute ended later than the median rank's by at least half that lateness (a slow GPU,
 * a data loader), else in the collective itself (a late launch, a slow link or NIC). A rank's cause
 * is the one behind most of the time lost to it (weighted by lost time rather than counted, so a
 * few sub-microsecond jitter wins do not outvote one large delay).
 */
import { lastEndAtOrBefore, median } from './intervals.js';
import type { MatchedCollective } from './match.js';
import type { RankBusy } from './iterations.js';
import type { TraceCollectiveRow, TraceStraggler } from './types.js';

export interface LateArrival {
  rank: number;
  lostUs: number;
  latenessUs: number;
  /** Its preceding compute ended this much later than the median rank's (null when unknown). */
  computeLateUs: number | null;
  cause: 'compute' | 'collective';
}

/** Null when the collective has fewer than two ranks or no skew (nobody was last). */
export function lateArrival(
  m: MatchedCollective,
  row: TraceCollectiveRow,
  busy: ReadonlyMap<number, RankBusy>,
): LateArrival | null {
  if (m.entries.length < 2 || row.startSkewUs <= 0) return null;
  const latest = m.entries.find((e) => e.rank === row.lastRank);
  if (!latest) return null;
  const latenessUs = latest.startUs - median(m.entries.map((e) => e.startUs));
  const computeEnds = new Map<number, number>();
  for (const e of m.entries) {
    const b = busy.get(e.rank);
    if (!b) continue;
    const end = lastEndAtOrBefore(b.compute, e.collective.startUs);
    if (end !== null) computeEnds.set(e.rank, end + b.offsetUs);
  }
  const own = computeEnds.get(row.lastRank);
  const computeLateUs =
    own === undefined || computeEnds.size < 2 ? null : own - median([...computeEnds.values()]);
  const cause =
    computeLateUs !== null && latenessUs > 0 && computeLateUs >= latenessUs / 2 ? 'compute' : 'collective';
  return {
    rank: row.lastRank,
    lostUs: row.waitUs.reduce((a, b) => a + b, 0),
    latenessUs,
    computeLateUs,
    cause,
  };
}

export function rankStragglers(arrivals: readonly LateArrival[]): TraceStraggler[] {
  const byRank = new Map<number, { lastCount: number; lostUs: number; compute: number }>();
  for (const a of arrivals) {
    const s = byRank.get(a.rank) ?? { lastCount: 0, lostUs: 0, compute: 0 };
    s.lastCount += 1;
    s.lostUs += a.lostUs;
    if (a.cause === 'compute') s.compute += a.lostUs;
    byRank.set(a.rank, s);
  }
  return [...byRank]
    .map(([rank, s]) => ({
      rank,
      lastCount: s.lastCount,
      lostUs: s.lostUs,
      cause: s.compute * 2 > s.lostUs ? ('compute' as const) : ('collective' as const),
    }))
    .sort((a, b) => b.lostUs - a.lostUs || b.lastCount - a.lastCount || a.rank - b.rank);
}
