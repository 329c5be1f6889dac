/**
 * The `trace` result: collectives matched across ranks, per-iteration step terms, stragglers.
 * Times are microseconds after clock alignment (metrics.clockOffsetsUs says what was shifted).
 */
import type { TraceRankFacts } from '../parse/index.js';

export interface TraceRankSummary {
  rank: number;
  file: string;
  format: TraceRankFacts['format'];
  host: string | null;
  device: string | null;
  hasGpu: boolean;
  collectives: number;
}

export interface TraceCollectiveRow {
  /** Process-group name, or "default". */
  group: string;
  seq: number;
  /** The project's op id, or NCCL's name where none fits. */
  op: string;
  /** The kernel or profiling name on the lowest rank seen. */
  name: string;
  step: number | null;
  sizeBytes: number | null;
  groupSize: number | null;
  /** Ranks whose trace holds this collective, ascending. */
  ranksSeen: number[];
  /** Ranks of the group (when the trace names them, or every traced rank of a default group) that lack it. */
  ranksMissing: number[];
  /** Latest start minus earliest start. */
  startSkewUs: number;
  /** The shortest duration across ranks that finished it: the others include waiting for the last arriver; null when none finished. */
  trueTimeUs: number | null;
  /** The rank that started last. */
  lastRank: number;
  /** Per rank of ranksSeen (same order): latest start minus its start. */
  waitUs: number[];
  /**
   * Per rank of ranksSeen (same order): its start after clock alignment and its duration
   * (microseconds; null for a rank whose collective never finished); the report draws its
   * per-rank timeline from them.
   */
  startsUs: number[];
  dursUs: (number | null)[];
  /** Ranks whose collective was still running when the trace ended (a flight-recorder dump of a hang). */
  unfinishedRanks: number[];
  /** Ranks that had it queued but never started it (flight recorder: state scheduled); not in ranksSeen. */
  notStartedRanks: number[];
  /** From the true time, the size and the group (nccl-tests' busbw factor); null without a size. */
  busbwGBps: number | null;
  /** True when only one rank is seen: its duration includes its wait, so busbw is a lower bound. */
  busbwIsBound: boolean;
  /** With --job or --fabric: the model's time for this op, size and group, and trueTime / predicted. */
  predictedUs?: number | null;
  modelFraction?: number | null;
}

export interface TraceIteration {
  step: number;
  /** Ranks with this step. */
  ranks: number[];
  /** Per rank (same order): step window length, union of non-NCCL kernel busy time, NCCL time with no compute beside it, NCCL busy time. */
  stepUs: number[];
  computeUs: number[];
  exposedCommUs: number[];
  commUs: number[];
  /** The step-time model's terms: max over ranks of T_compute and of T_comm, and the longest step. */
  maxComputeUs: number;
  maxCommUs: number;
  maxStepUs: number;
  /** With --job: `aifabric plan`'s step time for the job on the fabric. */
  predictedStepUs?: number | null;
}

export interface TraceStraggler {
  rank: number;
  /** How many matched collectives (seen on at least two ranks) this rank arrived last at. */
  lastCount: number;
  /** Time the other ranks of those collectives spent waiting for it (sum over collectives of the sum of their waits). */
  lostUs: number;
  /**
   * Where the lateness sits: 'compute' when, at the collectives behind most of lostUs, its preceding
   * compute ended later than the median rank's by at least half its lateness (slow GPU, data loader);
   * 'collective' otherwise (a slow link or NIC).
   */
  cause: 'compute' | 'collective';
}

export interface TraceMetrics {
  ranks: TraceRankSummary[];
  worldSize: number | null;
  nodes: number;
  gpusPerNode: number;
  /** Per host: the shift added to its ranks' times (0 for the reference host). */
  clockOffsetsUs: Record<string, number>;
  /** True when some host was shifted (skews and waits are then after alignment). */
  clockAligned: boolean;
  collectives: TraceCollectiveRow[];
  iterations: TraceIteration[];
  /** Most harmful first (lostUs, then lastCount). */
  stragglers: TraceStraggler[];
}
