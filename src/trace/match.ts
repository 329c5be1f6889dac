/**
 * Matching collectives across ranks by process group and sequence number (`group`, `seq`), never by
 * kernel name: NCCL renamed its kernels between versions and a fused group's kernel is named after
 * its first operation only (shared/data/traces/SOURCES.md). The expected members of a group are the
 * ranks its trace names (`groupRanks`), else every traced GPU rank that has the group at all, and
 * for the default group every traced GPU rank.
 */
import type { TraceCollective } from '../parse/index.js';
import type { RankedFacts } from './ranks.js';

export interface MatchedEntry {
  rank: number;
  hostKey: string;
  collective: TraceCollective;
  /** Start on the reference clock (the rank's own start plus its host's offset, once aligned). */
  startUs: number;
  durUs: number;
}

export interface MatchedCollective {
  group: string;
  seq: number;
  /** One entry per rank that has it, ascending rank. */
  entries: MatchedEntry[];
  /** Members of the group (see the header) that lack it, ascending (none for a send or recv: only its peer takes part). */
  missing: number[];
  /** Ranks whose flight recorder had it queued but not started when the dump was taken, ascending. */
  notStarted: number[];
}

export interface GroupMembers {
  group: string;
  /** Ranks the group should hold. */
  members: number[];
  /** True when the members come from the trace's own `groupRanks`. */
  named: boolean;
}

export function groupMembers(ranks: readonly RankedFacts[]): Map<string, GroupMembers> {
  const groups = new Map<string, { named: Set<number> | null; having: Set<number> }>();
  for (const { rank, facts } of ranks) {
    for (const c of facts.collectives) {
      let g = groups.get(c.group);
      if (!g) groups.set(c.group, (g = { named: null, having: new Set() }));
      g.having.add(rank);
      if (c.groupRanks) {
        g.named ??= new Set();
        for (const r of c.groupRanks) g.named.add(r);
      }
    }
  }
  const all = ranks.map((r) => r.rank);
  const out = new Map<string, GroupMembers>();
  for (const [group, g] of groups) {
    const members = g.named ? [...g.named] : group === 'default' ? all : [...g.having];
    out.set(group, { group, members: members.sort((a, b) => a - b), named: g.named !== null });
  }
  return out;
}

/** send and recv: the ops whose sequence numbers are the group's point-to-point ones. */
export const isPointToPoint = (op: string): boolean => op === 'send' || op === 'recv';

export function matchCollectives(
  ranks: readonly RankedFacts[],
  members: Map<string, GroupMembers>,
): MatchedCollective[] {
  const byKey = new Map<string, MatchedCollective>();
  for (const { rank, hostKey, facts } of ranks) {
    for (const collective of facts.collectives) {
      // Point-to-point sends and receives count in a sequence of their own (the flight recorder's
      // p2p_seq_id beside collective_seq_id, ProcessGroupNCCL.cpp), so they key apart from collectives.
      const key = `${collective.group}\u0000${isPointToPoint(collective.op) ? 'p2p' : 'coll'}\u0000${collective.seq}`;
      let m = byKey.get(key);
      if (!m)
        byKey.set(
          key,
          (m = { group: collective.group, seq: collective.seq, entries: [], missing: [], notStarted: [] }),
        );
      // A rank listing one (group, seq) twice keeps its first: the key is meant to be unique per rank.
      if (m.entries.some((e) => e.rank === rank) || m.notStarted.includes(rank)) continue;
      // Queued but never started (its start time is only when it was enqueued): not an arrival.
      if (collective.state === 'scheduled') m.notStarted.push(rank);
      else
        m.entries.push({ rank, hostKey, collective, startUs: collective.startUs, durUs: collective.durUs });
    }
  }
  // A collective no rank started has no arrivals to compare; its ranks are still told apart as queued.
  const out = [...byKey.values()].filter((m) => m.entries.length > 0);
  for (const m of out) {
    m.entries.sort((a, b) => a.rank - b.rank);
    m.notStarted.sort((a, b) => a - b);
    const seen = new Set([...m.entries.map((e) => e.rank), ...m.notStarted]);
    const pointToPoint = isPointToPoint(m.entries[0]?.collective.op ?? '');
    m.missing = pointToPoint ? [] : (members.get(m.group)?.members ?? []).filter((r) => !seen.has(r));
  }
  return out;
}

/** In time order of the earliest (aligned) start, then group and seq: the order a reader follows the run in. */
export function sortByTime(matched: MatchedCollective[]): MatchedCollective[] {
  const earliest = (m: MatchedCollective): number => Math.min(...m.entries.map((e) => e.startUs));
  return matched.sort((a, b) => earliest(a) - earliest(b) || a.group.localeCompare(b.group) || a.seq - b.seq);
}
