/**
 * Ring collectives as dependent chunk transfers (Patarasuk & Yuan 2009; NCCL's ring):
 * the buffer is cut into R chunks; at every step each rank sends one chunk of S/R bytes to its
 * ring successor. all_reduce = reduce-scatter (R-1 steps) then all-gather (R-1 steps): 2(R-1)
 * steps, so a ring of identical uncongested hops takes 2(R-1)/R x S/B + 2(R-1) x latency; with
 * one slower hop (the network between NVLink nodes) it streams at that hop's rate instead.
 *
 * Flow (step s, rank r) has index s*R + r and waits for two flows of step s-1:
 *   (s-1, r-1): the chunk it forwards (or reduces into) must have arrived from its predecessor;
 *   (s-1, r):   its own previous send on the same connection must have left (last byte sent, not
 *               arrived): a connection streams its messages back to back, as NCCL's does with
 *               several buffer slots in flight, so a slow hop's latency is paid once, not per step.
 * Nothing is stored per flow: a 4,096-rank all_reduce has 33.5 million chunks.
 */
import type { FluidWorkload } from '../types.js';
import {
  RankPlacement,
  type BuiltWorkload,
  type CollectiveFabric,
  type CollectiveInput,
} from './placement.js';

export interface RingStepsOptions {
  ranks: number;
  steps: number;
  chunkBytes: number;
  /** Path r (rank r to its successor) is pathLinkIds[pathOffsets[r] .. pathOffsets[r + 1]). */
  pathOffsets: Int32Array;
  pathLinkIds: Int32Array;
  latencyNsByPath: Float64Array;
}

export class RingStepsWorkload implements FluidWorkload {
  readonly flowCount: number;
  readonly maxDependencies = 2;
  readonly maxDependents = 1;
  readonly ranks: number;
  readonly steps: number;
  readonly chunkBytes: number;
  readonly pathOffsets: Int32Array;
  readonly pathLinkIds: Int32Array;
  private readonly latencyNsByPath: Float64Array;

  constructor(o: RingStepsOptions) {
    this.ranks = o.ranks;
    this.steps = o.steps;
    this.chunkBytes = o.chunkBytes;
    this.pathOffsets = o.pathOffsets;
    this.pathLinkIds = o.pathLinkIds;
    this.latencyNsByPath = o.latencyNsByPath;
    this.flowCount = o.ranks * o.steps;
  }

  flowIdOf(flow: number): number {
    return flow;
  }
  /** Path r is rank r's connection to its successor. */
  pathOf(flow: number): number {
    return flow % this.ranks;
  }
  sizeBytesOf(): number {
    return this.chunkBytes;
  }
  latencyNsOf(flow: number): number {
    return this.latencyNsByPath[flow % this.ranks]!;
  }
  startTimeNsOf(): number {
    return 0;
  }
  dependencyCountOf(flow: number): number {
    return flow < this.ranks ? 0 : 2;
  }
  /** (s+1, r+1) waits for this chunk to arrive. */
  dependentsOf(flow: number, out: Int32Array): number {
    const next = flow + this.ranks; // (s+1, r)
    if (next >= this.flowCount) return 0;
    out[0] = (flow % this.ranks) + 1 === this.ranks ? next + 1 - this.ranks : next + 1;
    return 1;
  }
  /** (s+1, r), the next message on this connection, waits for this one's last byte to leave. */
  sentDependentsOf(flow: number, out: Int32Array): number {
    const next = flow + this.ranks;
    if (next >= this.flowCount) return 0;
    out[0] = next;
    return 1;
  }
}

function buildRing(
  fabric: CollectiveFabric,
  collective: CollectiveInput,
  stepsFor: (ranks: number) => number,
): BuiltWorkload<RingStepsWorkload> {
  const placement = new RankPlacement(fabric, collective);
  const ranks = placement.ranks;
  // A single rank has no ring: no paths, no steps.
  if (ranks > 1) for (let rank = 0; rank < ranks; rank++) placement.intern(rank, (rank + 1) % ranks);
  const { pathOffsets, pathLinkIds, latencyNsByPath } = placement.paths();
  const steps = ranks > 1 ? stepsFor(ranks) : 0;
  const workload = new RingStepsWorkload({
    ranks,
    steps,
    chunkBytes: collective.sizeBytes / ranks,
    pathOffsets,
    pathLinkIds,
    latencyNsByPath,
  });
  return { links: placement.links, workload };
}

/** Ring all_reduce of `sizeBytes` per rank: 2(R-1) steps of S/R. */
export function buildRingAllReduce(
  fabric: CollectiveFabric,
  collective: CollectiveInput,
): BuiltWorkload<RingStepsWorkload> {
  return buildRing(fabric, collective, (ranks) => 2 * (ranks - 1));
}

/** Ring all_gather to an output of `sizeBytes` per rank: R-1 steps of S/R. */
export function buildRingAllGather(
  fabric: CollectiveFabric,
  collective: CollectiveInput,
): BuiltWorkload<RingStepsWorkload> {
  return buildRing(fabric, collective, (ranks) => ranks - 1);
}

/** Ring reduce_scatter of an input of `sizeBytes` per rank: R-1 steps of S/R. */
export function buildRingReduceScatter(
  fabric: CollectiveFabric,
  collective: CollectiveInput,
): BuiltWorkload<RingStepsWorkload> {
  return buildRing(fabric, collective, (ranks) => ranks - 1);
}
