/**
 * A scenario's workloads resolved once, for both engines: who sends to whom (ranks, senders, the
 * seeded permutation), how much (chunk size, steps), when (start, compute) and over which
 * connections, in the order both engines open them, so connection k gets the same ECMP hash
 * (topo's connectionEcmpHash(k, seed)) in packet and fluid mode. Packet mode turns each entry into
 * a workload object (workload/), fluid mode into flows with dependencies (fluid-plan-flows.ts);
 * neither reads the scenario's workloads itself. Times stay in seconds, as the scenario gives
 * them: each engine converts to its own unit (packet ps, fluid ns).
 */
import { createRng } from '../../core/rng.js';
import type { Scenario, SimCollectiveKind } from '../scenario-schema.js';

export type TransportKind = 'tcp' | 'roce';

/** One point-to-point connection, src host to dst host. */
export interface PlannedConnection {
  src: number;
  dst: number;
}

interface PlannedBase {
  /** Position in the scenario's workloads. */
  index: number;
  name: string;
  transport: TransportKind;
  startS: number;
  /** Connections in the order the workload opens them; its first is the run's `firstConnection`. */
  connections: PlannedConnection[];
  firstConnection: number;
}

/** Synchronised-read incast: each round every sender returns one block; a round waits for the previous. */
export interface PlannedIncast extends PlannedBase {
  kind: 'incast';
  receiver: number;
  senders: number[];
  blockBytes: number;
  rounds: number;
  /** Seconds between one sender's start of its block and the next's, in a random order per round; 0: all at once. */
  startGapS: number;
  /** Per round (cycled): each sender's start offset in seconds, handed out in a random order; null: startGapS. */
  startOffsetsS: number[][] | null;
}

/** One flow, or a permutation (host i sends to targets[i], a seeded derangement). */
export interface PlannedFlows extends PlannedBase {
  kind: 'flow' | 'permutation';
  flows: { src: number; dst: number; sizeBytes: number }[];
}

/** Ring all_reduce / all_gather (rank r sends to rank r+1) or alltoall, over `iterations` with compute. */
export interface PlannedCollective extends PlannedBase {
  kind: SimCollectiveKind;
  /** Host of each rank. */
  ranks: number[];
  /** Per-rank buffer, as nccl-tests' size. */
  sizeBytes: number;
  /** Bytes per transfer: S/N rounded up to a whole byte (at least 1). */
  chunkBytes: number;
  /** Transfers per rank per iteration: 2(N-1) for all_reduce, N-1 for all_gather and alltoall. */
  steps: number;
  /** Ring collectives: slices per step (the scenario's `slice`), each a transfer of its own; 1 without. */
  slices: number;
  iterations: number;
  /** Compute phase before each iteration: mean, and the standard deviation of its normal jitter (packet mode only). */
  computeMeanS: number;
  computeJitterS: number;
}

export type PlannedWorkload = PlannedIncast | PlannedFlows | PlannedCollective;

export interface WorkloadPlan {
  seed: number;
  hostCount: number;
  workloads: PlannedWorkload[];
  /** Every workload's connections, in order: index k is connection k of the run. */
  connections: PlannedConnection[];
}

/** Scenario workloads -> plan. The permutation's derangement is drawn from the seed, as packet mode always has. */
export function planWorkloads(scenario: Scenario, hostCount: number, seed: number): WorkloadPlan {
  const rng = createRng(seed ^ 0x5bd1e995);
  const connections: PlannedConnection[] = [];
  const workloads = scenario.workloads.map((w, index): PlannedWorkload => {
    const base = {
      index,
      name: w.name ?? `${w.kind}#${index}`,
      transport: w.transport ?? scenario.transport.kind,
      startS: w.start,
      firstConnection: connections.length,
    };
    const open = (pairs: PlannedConnection[]): PlannedConnection[] => {
      connections.push(...pairs);
      return pairs;
    };
    switch (w.kind) {
      case 'incast': {
        const senders =
          typeof w.senders === 'number'
            ? Array.from({ length: w.senders }, (_, j) => (w.receiver + 1 + j) % hostCount)
            : w.senders;
        const pairs = open(senders.map((src) => ({ src, dst: w.receiver })));
        return {
          ...base,
          kind: 'incast',
          connections: pairs,
          receiver: w.receiver,
          senders,
          blockBytes: w.blockSize,
          rounds: w.rounds,
          startGapS: w.startGap,
          startOffsetsS: w.startOffsets ?? null,
        };
      }
      case 'flow': {
        const flows = [{ src: w.src, dst: w.dst, sizeBytes: w.size }];
        return {
          ...base,
          kind: 'flow',
          connections: open(flows.map(({ src, dst }) => ({ src, dst }))),
          flows,
        };
      }
      case 'permutation': {
        const flows = permutationTargets(hostCount, () => rng.next()).map((dst, src) => ({
          src,
          dst,
          sizeBytes: w.size,
        }));
        return {
          ...base,
          kind: 'permutation',
          connections: open(flows.map(({ src, dst }) => ({ src, dst }))),
          flows,
        };
      }
      default: {
        const ranks =
          w.ranks === undefined
            ? Array.from({ length: hostCount }, (_, j) => j)
            : typeof w.ranks === 'number'
              ? Array.from({ length: w.ranks }, (_, j) => j)
              : w.ranks;
        const n = ranks.length;
        const pairs: PlannedConnection[] = [];
        if (w.kind === 'alltoall') {
          ranks.forEach((src, r) => ranks.forEach((dst, d) => d !== r && pairs.push({ src, dst })));
        } else {
          ranks.forEach((src, r) => pairs.push({ src, dst: ranks[(r + 1) % n]! }));
        }
        return {
          ...base,
          kind: w.kind,
          connections: open(pairs),
          ranks,
          sizeBytes: w.size,
          chunkBytes: chunkBytesOf(w.size, n),
          steps: stepsPerIteration(w.kind, n),
          slices:
            w.slice === undefined || w.kind === 'alltoall'
              ? 1
              : Math.max(1, Math.ceil(chunkBytesOf(w.size, n) / w.slice)),
          iterations: w.iterations,
          computeMeanS: w.compute?.mean ?? 0,
          computeJitterS: w.compute?.jitter ?? 0,
        };
      }
    }
  });
  return { seed, hostCount, workloads, connections };
}

/** Transfers per rank per iteration: ring all_reduce 2(N-1) (reduce-scatter, then all-gather), all_gather and alltoall N-1. */
export function stepsPerIteration(kind: PlannedCollective['kind'], ranks: number): number {
  return kind === 'allreduce' ? 2 * (ranks - 1) : ranks - 1;
}

/** Bytes per transfer of a collective of `sizeBytes` per rank: S/N rounded up to a whole byte, at least 1. */
export function chunkBytesOf(sizeBytes: number, ranks: number): number {
  return Math.max(1, Math.ceil(sizeBytes / Math.max(1, ranks)));
}

/** A seeded random derangement: host i sends to perm[i] != i (Fisher-Yates until no fixed point). */
export function permutationTargets(hosts: number, random: () => number): number[] {
  for (;;) {
    const perm = Array.from({ length: hosts }, (_, i) => i);
    for (let i = hosts - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      const t = perm[i]!;
      perm[i] = perm[j]!;
      perm[j] = t;
    }
    if (perm.every((target, i) => target !== i)) return perm;
  }
}
