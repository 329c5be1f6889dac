/**
 * The collectives of a `trace` result (src/trace/types.ts TraceCollectiveRow) as the report's
 * charts read them: every field checked, since a stored or hand-edited envelope may lack any of
 * them, and one record per (collective, rank) with its wait and, when the engine wrote them, its
 * aligned start and duration.
 */
import type { ReportItem } from './report-item.js';
import { asRecord, finite, records, text } from '../../result/index.js';

export interface TraceRankCell {
  /** Position of the collective in the result's list, from 0. */
  index: number;
  group: string;
  seq: number;
  op: string;
  rank: number;
  waitUs: number;
  /** Aligned start and duration (microseconds), when the result carries them. */
  startUs?: number;
  durUs?: number;
}

export interface TraceCells {
  collectives: number;
  cells: TraceRankCell[];
}

const numbers = (value: unknown): (number | undefined)[] => (Array.isArray(value) ? value.map(finite) : []);

/** The result's per-rank cells for its first `limit` collectives (all of them when undefined). */
export function traceCells(item: ReportItem, limit?: number): TraceCells | undefined {
  if (item.envelope.kind !== 'trace') return undefined;
  const rows = records(asRecord(item.envelope.metrics).collectives);
  if (rows.length === 0) return undefined;
  const cells: TraceRankCell[] = [];
  rows.slice(0, limit ?? rows.length).forEach((row, index) => {
    const ranks = numbers(row.ranksSeen);
    const waits = numbers(row.waitUs);
    const starts = numbers(row.startsUs);
    const durations = numbers(row.dursUs);
    ranks.forEach((rank, position) => {
      const waitUs = waits[position];
      if (rank === undefined || waitUs === undefined) return;
      const cell: TraceRankCell = {
        index,
        group: text(row.group) ?? 'default',
        seq: finite(row.seq) ?? index,
        op: text(row.op) ?? 'unknown',
        rank,
        waitUs,
      };
      const startUs = starts[position];
      const durUs = durations[position];
      if (startUs !== undefined && durUs !== undefined) {
        cell.startUs = startUs;
        cell.durUs = durUs;
      }
      cells.push(cell);
    });
  });
  return { collectives: rows.length, cells };
}
