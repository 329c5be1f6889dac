/**
 * Collectives made of independent point-to-point transfers that all start at once: alltoall
 * (every rank sends S/R to each other rank, as nccl-tests' alltoall of size S) and permutation
 * traffic (every rank sends S to one other rank, the classic fabric stress pattern).
 */
import { InputError } from '../../../core/errors.js';
import { createRng } from '../../../core/rng.js';
import { permutationTargets } from '../../plan/index.js';
import type { FluidWorkload } from '../types.js';
import {
  RankPlacement,
  type BuiltWorkload,
  type CollectiveFabric,
  type CollectiveInput,
} from './placement.js';

/** Flow f runs alone on path f; no dependencies; everything starts at time 0. */
export interface IndependentFlowsOptions {
  flowSizeBytes: number;
  /** Path f (flow f's) is pathLinkIds[pathOffsets[f] .. pathOffsets[f + 1]). */
  pathOffsets: Int32Array;
  pathLinkIds: Int32Array;
  latencyNsByPath: Float64Array;
  /** Source and destination rank of each flow, for reports. */
  srcRank: Int32Array;
  dstRank: Int32Array;
}

export class IndependentFlowsWorkload implements FluidWorkload {
  readonly flowCount: number;
  readonly maxDependencies = 0;
  readonly maxDependents = 0;
  readonly flowSizeBytes: number;
  readonly pathOffsets: Int32Array;
  readonly pathLinkIds: Int32Array;
  private readonly latencyNsByPath: Float64Array;
  /** Source and destination rank of each flow, for reports. */
  readonly srcRank: Int32Array;
  readonly dstRank: Int32Array;

  constructor(o: IndependentFlowsOptions) {
    this.flowSizeBytes = o.flowSizeBytes;
    this.pathOffsets = o.pathOffsets;
    this.pathLinkIds = o.pathLinkIds;
    this.latencyNsByPath = o.latencyNsByPath;
    this.srcRank = o.srcRank;
    this.dstRank = o.dstRank;
    this.flowCount = o.latencyNsByPath.length;
  }

  flowIdOf(flow: number): number {
    return flow;
  }
  pathOf(flow: number): number {
    return flow;
  }
  sizeBytesOf(): number {
    return this.flowSizeBytes;
  }
  latencyNsOf(flow: number): number {
    return this.latencyNsByPath[flow]!;
  }
  startTimeNsOf(): number {
    return 0;
  }
  dependencyCountOf(): number {
    return 0;
  }
  dependentsOf(): number {
    return 0;
  }
  sentDependentsOf(): number {
    return 0;
  }
}

function buildPairs(
  placement: RankPlacement,
  pairs: [number, number][],
  flowSizeBytes: number,
): BuiltWorkload<IndependentFlowsWorkload> {
  for (const [src, dst] of pairs) placement.intern(src, dst);
  const { pathOffsets, pathLinkIds, latencyNsByPath } = placement.paths();
  const srcRank = Int32Array.from(pairs, ([src]) => src);
  const dstRank = Int32Array.from(pairs, ([, dst]) => dst);
  const workload = new IndependentFlowsWorkload({
    flowSizeBytes,
    pathOffsets,
    pathLinkIds,
    latencyNsByPath,
    srcRank,
    dstRank,
  });
  return { links: placement.links, workload };
}

/** Alltoall: R(R-1) flows of S/R, flow index src*(R-1) + k in order of destination. */
export function buildAllToAll(
  fabric: CollectiveFabric,
  collective: CollectiveInput,
): BuiltWorkload<IndependentFlowsWorkload> {
  const placement = new RankPlacement(fabric, collective);
  const ranks = placement.ranks;
  const pairs: [number, number][] = [];
  for (let src = 0; src < ranks; src++) {
    for (let dst = 0; dst < ranks; dst++) if (dst !== src) pairs.push([src, dst]);
  }
  return buildPairs(placement, pairs, collective.sizeBytes / ranks);
}

export interface PermutationInput extends CollectiveInput {
  /** Destination of each rank; a seeded random derangement when absent. */
  permutation?: readonly number[];
  seed?: number;
}

/** Permutation traffic: rank r sends S to permutation[r]; ranks mapped to themselves send nothing. */
export function buildPermutation(
  fabric: CollectiveFabric,
  input: PermutationInput,
): BuiltWorkload<IndependentFlowsWorkload> {
  const placement = new RankPlacement(fabric, input);
  const ranks = placement.ranks;
  const permutation = input.permutation ?? derangement(ranks, input.seed ?? 1);
  if (permutation.length !== ranks)
    throw new InputError(`permutation: ${permutation.length} entries for ${ranks} ranks`);
  const seen = new Uint8Array(ranks);
  permutation.forEach((dst, src) => {
    if (!Number.isInteger(dst) || dst < 0 || dst >= ranks)
      throw new InputError(`permutation[${src}]: ${dst} is not a rank`);
    if (seen[dst]) throw new InputError(`permutation[${src}]: rank ${dst} is the destination twice`);
    seen[dst] = 1;
  });
  const pairs: [number, number][] = [];
  permutation.forEach((dst, src) => {
    if (dst !== src) pairs.push([src, dst]);
  });
  return buildPairs(placement, pairs, input.sizeBytes);
}

/** The scenario plan's seeded derangement (one rank alone maps to itself). */
function derangement(ranks: number, seed: number): number[] {
  if (ranks < 2) return Array.from({ length: ranks }, (_, i) => i);
  const rng = createRng(seed);
  return permutationTargets(ranks, () => rng.next());
}
