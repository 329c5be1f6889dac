/**
 * One matched collective as a row: start skew, true time, per-rank waits, last arriver, busbw and,
 * with a model, the prediction beside the true time. The shortest duration across ranks is the
 * collective's own time: a rank that started early spins in the kernel until the last one arrives.
 */
import { busbwGBps, isCollectiveOp, type CollectiveOp } from '../model/index.js';
import type { MatchedCollective, MatchedEntry } from './match.js';
import type { TraceCollectiveRow } from './types.js';
import type { TraceModel } from './model-types.js';

/** The op whose nccl-tests busbw factor applies: send and recv move bytes like sendrecv (factor 1). */
export function busbwOp(op: string): CollectiveOp | null {
  if (op === 'send' || op === 'recv') return 'sendrecv';
  return isCollectiveOp(op) ? op : null;
}

export interface GroupShape {
  size: number;
  nodes: number;
  gpusPerNode: number;
}

/**
 * The group's size and layout for the model: its stated size (else its member count), its ranks per
 * host among the traced ranks (the trace's ranks per host when it is only partly traced), and the
 * hosts that takes.
 */
export function groupShape(
  m: MatchedCollective,
  members: number,
  hostOf: Map<number, string>,
  tracedGpusPerNode: number,
): GroupShape {
  const stated = m.entries.find((e) => e.collective.groupSize !== null)?.collective.groupSize ?? null;
  const size = Math.max(1, stated ?? members);
  const perHost = new Map<string, number>();
  for (const e of m.entries)
    perHost.set(hostOf.get(e.rank) ?? '', (perHost.get(hostOf.get(e.rank) ?? '') ?? 0) + 1);
  const seenPerHost = Math.max(...perHost.values());
  const gpusPerNode = Math.max(
    1,
    Math.min(size, m.entries.length >= size ? seenPerHost : Math.max(seenPerHost, tracedGpusPerNode)),
  );
  return { size, nodes: Math.ceil(size / gpusPerNode), gpusPerNode };
}

export function collectiveRow(
  m: MatchedCollective,
  shape: GroupShape,
  model: TraceModel | undefined,
): TraceCollectiveRow {
  const entries = m.entries;
  const first = entries[0]!;
  let last = first;
  let earliest = first.startUs;
  for (const e of entries) {
    if (e.startUs > last.startUs) last = e;
    earliest = Math.min(earliest, e.startUs);
  }
  // A rank whose collective never finished (a flight-recorder entry still 'started' or 'scheduled',
  // duration NaN) has no duration to offer: the true time is the shortest finished one.
  const finished = entries.filter((e) => Number.isFinite(e.durUs));
  const trueTimeUs = finished.length > 0 ? Math.min(...finished.map((e) => e.durUs)) : null;
  const latest = last.startUs;
  const pick = <T>(get: (e: MatchedEntry) => T | null): T | null => {
    for (const e of entries) {
      const v = get(e);
      if (v !== null) return v;
    }
    return null;
  };
  const op = first.collective.op;
  const sizeBytes = pick((e) => e.collective.sizeBytes);
  const groupSize = pick((e) => e.collective.groupSize);
  const bwOp = busbwOp(op);
  const row: TraceCollectiveRow = {
    group: m.group,
    seq: m.seq,
    op,
    name: first.collective.name,
    step: pick((e) => e.collective.step),
    sizeBytes,
    groupSize,
    ranksSeen: entries.map((e) => e.rank),
    ranksMissing: m.missing,
    startSkewUs: latest - earliest,
    trueTimeUs,
    lastRank: last.rank,
    waitUs: entries.map((e) => latest - e.startUs),
    startsUs: entries.map((e) => e.startUs),
    dursUs: entries.map((e) => (Number.isFinite(e.durUs) ? e.durUs : null)),
    unfinishedRanks: entries.filter((e) => !Number.isFinite(e.durUs)).map((e) => e.rank),
    notStartedRanks: m.notStarted,
    busbwGBps:
      sizeBytes !== null && bwOp !== null && trueTimeUs !== null && trueTimeUs > 0
        ? busbwGBps(bwOp, shape.size, sizeBytes, trueTimeUs)
        : null,
    busbwIsBound: entries.length === 1,
  };
  if (model) {
    const predicted =
      sizeBytes === null ? null : model.predict(op, sizeBytes, shape.size, shape.nodes, shape.gpusPerNode);
    row.predictedUs = predicted;
    row.modelFraction =
      predicted !== null && trueTimeUs !== null && trueTimeUs > 0 ? predicted / trueTimeUs : null;
  }
  return row;
}
