/**
 * Which rank each trace file is, and which ranks take part: every rank gets a number (the trace's,
 * else the next free one, with a warning), two files claiming one rank are an input error, and
 * ranks without GPU kernels are set aside (reported, not matched).
 */
import { InputError } from '../core/errors.js';
import type { TraceRankFacts } from '../parse/index.js';
import type { TraceRankSummary } from './types.js';

/** Ranks with no host in their trace count as one host of this name (one machine, one clock). */
export const UNKNOWN_HOST = '(no host)';

export interface RankedFacts {
  rank: number;
  /** The host key: the trace's host, or UNKNOWN_HOST. */
  hostKey: string;
  facts: TraceRankFacts;
}

export interface RankSet {
  /** Ranks with GPU kernels, ascending rank. */
  gpu: RankedFacts[];
  /** Ranks without GPU kernels (CPU-only traces), ascending rank. */
  nonGpu: RankedFacts[];
  summaries: TraceRankSummary[];
  warnings: string[];
}

export function rankTraces(traces: readonly TraceRankFacts[]): RankSet {
  const warnings: string[] = [];
  const byRank = new Map<number, TraceRankFacts>();
  for (const facts of traces) {
    if (facts.rank === null) continue;
    const other = byRank.get(facts.rank);
    if (other)
      throw new InputError(
        `${facts.file}: rank ${facts.rank} is also ${other.file} (expected one trace per rank)`,
      );
    byRank.set(facts.rank, facts);
  }
  let next = byRank.size === 0 ? 0 : Math.max(...byRank.keys()) + 1;
  const ranked: RankedFacts[] = [];
  for (const facts of traces) {
    let rank = facts.rank;
    if (rank === null) {
      rank = next++;
      warnings.push(`${facts.file}: no rank in the trace or its name; taken as rank ${rank}`);
    }
    ranked.push({ rank, hostKey: facts.host ?? UNKNOWN_HOST, facts });
  }
  ranked.sort((a, b) => a.rank - b.rank);
  const summaries = ranked.map(({ rank, facts }) => ({
    rank,
    file: facts.file,
    format: facts.format,
    host: facts.host,
    device: facts.device,
    hasGpu: facts.hasGpu,
    collectives: facts.collectives.length,
  }));
  // Nothing to match or time: every trace given is CPU-only (a profiler run without CUDA activity).
  if (ranked.length > 0 && ranked.every((r) => !r.facts.hasGpu)) {
    const files = ranked.map((r) => r.facts.file);
    throw new InputError(
      `${files.length === 1 ? files[0] : `${files.length} traces (${files[0]}, ...)`}: no GPU kernels (a CPU-only trace: record with ProfilerActivity.CUDA): nothing to analyse`,
    );
  }
  return {
    gpu: ranked.filter((r) => r.facts.hasGpu),
    nonGpu: ranked.filter((r) => !r.facts.hasGpu),
    summaries,
    warnings,
  };
}

/** The world size the traces state (the largest stated), or null. */
export function statedWorldSize(traces: readonly TraceRankFacts[]): number | null {
  let size: number | null = null;
  for (const facts of traces) if (facts.worldSize !== null) size = Math.max(size ?? 0, facts.worldSize);
  return size;
}
