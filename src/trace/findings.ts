/**
 * The trace's findings: stragglers (warn), collectives far below the model (error, one per op, size
 * and group with a count), collectives that never finished (error: a hang), ranks missing or
 * without GPU (warn), clock alignment (info).
 */
import type { Finding } from '../core/envelope.js';
import { makeFinding } from '../core/rules.js';
import type { TraceCollectiveRow, TraceStraggler } from './types.js';

/** Below this fraction of the model's prediction a collective is an error (issue 12). */
export const BELOW_MODEL_FRACTION = 0.5;
/** A straggler is named when it accounts for at least this share of all the time lost to waiting. */
export const STRAGGLER_LOST_SHARE = 0.2;
/** At most this many straggler findings. */
export const MAX_STRAGGLER_FINDINGS = 3;

const us = (v: number): string => `${v.toFixed(1)} us`;

export function stragglerFindings(stragglers: readonly TraceStraggler[], matchedCount: number): Finding[] {
  const totalLost = stragglers.reduce((a, s) => a + s.lostUs, 0);
  if (totalLost <= 0) return [];
  return stragglers
    .filter((s) => s.lostUs >= STRAGGLER_LOST_SHARE * totalLost)
    .slice(0, MAX_STRAGGLER_FINDINGS)
    .map((s) =>
      makeFinding('trace.straggler', {
        severity: 'warn',
        message: `rank ${s.rank} arrived last at ${s.lastCount} of ${matchedCount} matched collectives; the other ranks lost ${us(s.lostUs)} waiting for it; cause: ${s.cause === 'compute' ? 'compute before the collective (a slow GPU, a data loader)' : 'the collective itself (a late launch, a slow link or NIC)'}`,
        rank: s.rank,
        lastCount: s.lastCount,
        lostUs: s.lostUs,
        cause: s.cause,
        remediation:
          s.cause === 'compute'
            ? `profile rank ${s.rank}'s compute and input pipeline before its collectives`
            : `check rank ${s.rank}'s host, NIC and links (aifabric check)`,
      }),
    );
}

export function belowModelFindings(rows: readonly TraceCollectiveRow[], fabric: string): Finding[] {
  const groups = new Map<string, { rows: TraceCollectiveRow[]; bound: boolean }>();
  for (const row of rows) {
    if (
      row.modelFraction === null ||
      row.modelFraction === undefined ||
      row.modelFraction >= BELOW_MODEL_FRACTION
    )
      continue;
    const key = `${row.op}\u0000${row.sizeBytes}\u0000${row.group}\u0000${row.busbwIsBound}`;
    const g = groups.get(key) ?? { rows: [], bound: row.busbwIsBound };
    g.rows.push(row);
    groups.set(key, g);
  }
  const out: Finding[] = [];
  for (const { rows: list, bound } of groups.values()) {
    const first = list[0]!;
    const fractions = list.map((r) => r.modelFraction!);
    const worst = Math.min(...fractions);
    const best = Math.max(...fractions);
    out.push(
      makeFinding('trace.below-model', {
        // One traced rank: its duration includes waiting for the others, so a low fraction is only a hint.
        severity: bound ? 'warn' : 'error',
        message: `${list.length} x ${first.op} of ${first.sizeBytes} bytes in group ${first.group} ran at ${pct(worst)}${list.length > 1 ? `-${pct(best)}` : ''} of what ${fabric} should give (${us(first.predictedUs!)} predicted, ${us(first.trueTimeUs ?? Number.NaN)} true time)${bound ? '; one rank traced, so the time includes its wait' : ''}`,
        op: first.op,
        sizeBytes: first.sizeBytes,
        group: first.group,
        count: list.length,
        minFraction: worst,
        maxFraction: best,
        predictedUs: first.predictedUs,
      }),
    );
  }
  return out;
}

/**
 * A hang, as a flight-recorder dump taken at a timeout shows it: per group, the first collective
 * still running on some rank, the ranks stuck in it and the ranks of the group that never reached it
 * (the usual culprits: the others wait for them).
 */
export function unfinishedFindings(rows: readonly TraceCollectiveRow[]): Finding[] {
  const firstPerGroup = new Map<string, TraceCollectiveRow>();
  for (const row of rows)
    if (row.unfinishedRanks.length > 0 && !firstPerGroup.has(row.group)) firstPerGroup.set(row.group, row);
  return [...firstPerGroup.values()].map((row) => {
    const behind = [...row.notStartedRanks, ...row.ranksMissing].sort((a, b) => a - b);
    const queued = row.notStartedRanks.length > 0 ? ` (queued on ${rankList(row.notStartedRanks)})` : '';
    const absent =
      behind.length > 0
        ? `; rank${behind.length > 1 ? 's' : ''} ${rankList(behind)} never started it${queued}`
        : '';
    return makeFinding('trace.unfinished', {
      severity: 'error',
      message: `${row.op} #${row.seq} of group ${row.group} never finished on rank${row.unfinishedRanks.length > 1 ? 's' : ''} ${rankList(row.unfinishedRanks)}${absent} (a hang: the ranks in it wait for the others)`,
      group: row.group,
      seq: row.seq,
      op: row.op,
      unfinishedRanks: row.unfinishedRanks,
      neverStarted: behind,
      remediation:
        behind.length > 0
          ? `look at what rank ${behind[0]} was doing before it (its stack in the dump, its host)`
          : 'check the links between the stuck ranks (aifabric check)',
    });
  });
}

const pct = (f: number): string => `${Math.round(f * 100)}%`;

export function rankMissingFinding(message: string, evidence?: string): Finding {
  return makeFinding('trace.rank-missing', {
    severity: 'warn',
    message,
    ...(evidence !== undefined ? { evidence } : {}),
  });
}

export function clockAlignedFinding(offsetsUs: Record<string, number>, reference: string): Finding {
  const shifted = Object.entries(offsetsUs).filter(([host]) => host !== reference);
  return makeFinding('trace.clock-aligned', {
    severity: 'info',
    message: `clocks aligned to host ${reference} from collective end times: ${shifted.map(([h, o]) => `${h} ${o >= 0 ? '+' : ''}${o.toFixed(1)} us`).join(', ')}; skews and waits are after alignment`,
    offsetsUs,
  });
}

/** "0-3, 5, 7": a compact list of rank numbers. */
export function rankList(ranks: readonly number[]): string {
  const sorted = [...ranks].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1]! === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  return parts.join(', ');
}
