/** Small hand-built TraceRankFacts for the engine's exact tests. */
import type { TraceCollective, TraceRankFacts } from '../../src/parse/trace-types.js';

export function collective(
  seq: number,
  startUs: number,
  durUs: number,
  extra: Partial<TraceCollective> = {},
): TraceCollective {
  return {
    seq,
    group: 'default',
    groupDesc: null,
    groupRanks: null,
    groupSize: null,
    op: 'all_reduce',
    name: 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)',
    startUs,
    durUs,
    sizeBytes: null,
    dtype: null,
    algo: null,
    proto: null,
    step: null,
    ...extra,
  };
}

export function rankFacts(
  rank: number | null,
  collectives: TraceCollective[],
  extra: Partial<TraceRankFacts> = {},
): TraceRankFacts {
  return {
    format: 'kineto',
    file: `rank${rank ?? 'x'}.json`,
    rank,
    rankSource: rank === null ? null : 'distributedInfo',
    worldSize: null,
    host: null,
    device: null,
    hasGpu: true,
    ncclVersion: null,
    collectives,
    steps: [],
    computeBusy: [],
    counts: { events: 0, kernels: 0, ncclKernels: collectives.length },
    ...extra,
  };
}
