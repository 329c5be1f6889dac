/**
 * Clock alignment between hosts. A collective ends at nearly the same moment on every rank (none
 * can finish before the last one's data arrives), so for a collective seen on two hosts the
 * difference of their ranks' median end times is the clock offset plus a little noise; the median
 * of that difference over every shared collective is the estimate (robust to the odd outlier).
 * Ranks on one host share a clock and are never shifted against each other. The reference host is
 * the lowest rank's; a host sharing no collective with any aligned host keeps offset 0 (warned).
 */
import { median } from './intervals.js';
import type { MatchedCollective } from './match.js';

export interface ClockAlignment {
  /** Per host key: the shift added to its ranks' times (0 for the reference host). */
  offsetsUs: Record<string, number>;
  reference: string;
  /** How many collectives each host's estimate rests on. */
  samples: Record<string, number>;
  /** Hosts that shared no collective with the aligned ones. */
  unaligned: string[];
}

/** Median end time per host for one collective. */
function hostEnds(m: MatchedCollective): Map<string, number> {
  const ends = new Map<string, number[]>();
  for (const e of m.entries) {
    const list = ends.get(e.hostKey) ?? [];
    // An unfinished collective (NaN duration) has no end to align on.
    if (Number.isFinite(e.collective.durUs)) list.push(e.collective.startUs + e.collective.durUs);
    ends.set(e.hostKey, list);
  }
  return new Map([...ends].map(([host, list]) => [host, median(list)]));
}

export function estimateClockOffsets(
  matched: readonly MatchedCollective[],
  hosts: readonly string[],
  reference: string,
): ClockAlignment {
  const offsetsUs: Record<string, number> = { [reference]: 0 };
  const samples: Record<string, number> = { [reference]: 0 };
  const perCollective = matched.map(hostEnds).filter((ends) => ends.size > 1);
  const aligned = new Set([reference]);
  // Grow the aligned set one host at a time, each against every already-aligned host it shares collectives with.
  for (;;) {
    let best: { host: string; diffs: number[] } | null = null;
    for (const host of hosts) {
      if (aligned.has(host)) continue;
      const diffs: number[] = [];
      for (const ends of perCollective) {
        const own = ends.get(host);
        if (own === undefined) continue;
        const refs = [...aligned].filter((h) => ends.has(h)).map((h) => ends.get(h)! + offsetsUs[h]!);
        if (refs.length > 0) diffs.push(median(refs) - own);
      }
      if (diffs.length > 0 && (!best || diffs.length > best.diffs.length)) best = { host, diffs };
    }
    if (!best) break;
    offsetsUs[best.host] = median(best.diffs);
    samples[best.host] = best.diffs.length;
    aligned.add(best.host);
  }
  const unaligned = hosts.filter((h) => !aligned.has(h));
  for (const host of unaligned) {
    offsetsUs[host] = 0;
    samples[host] = 0;
  }
  return { offsetsUs, reference, samples, unaligned };
}

/** Shift every entry's start by its host's offset. */
export function applyClockOffsets(matched: MatchedCollective[], offsetsUs: Record<string, number>): void {
  for (const m of matched)
    for (const e of m.entries) e.startUs = e.collective.startUs + (offsetsUs[e.hostKey] ?? 0);
}
