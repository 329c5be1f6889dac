/**
 * One ring all_reduce or all_gather, alone in its scenario, once and without compute, on the
 * fluid engine's arithmetic ring (no per-chunk objects), so 4,096 ranks (33.5 million chunk
 * transfers for an all_reduce) fit in memory. Same plan, same dependencies (RingStepsWorkload: a
 * chunk waits for its predecessor's previous chunk to arrive and its own connection's previous
 * chunk to be sent, as fluid-plan-flows.ts's explicit ring), same chunk size and same ECMP paths as
 * the explicit flows: a test holds the two equal on a shape both run.
 */
import { buildRingAllGather, buildRingAllReduce, simulateFluid, type FluidOptions } from './fluid/index.js';
import type { FluidNetwork } from './fluid-network.js';
import { fluidMetrics, type SimMetrics } from './metrics.js';
import type { WorkloadPlan } from './plan/index.js';
import type { Topology } from './topo/index.js';

/**
 * For a plan that work-estimate's fluidRingFastPath accepts (it decides, from the scenario alone, so
 * the memory estimate knows too); undefined for any other plan, which then runs as explicit flows.
 */
export function runLargeRing(
  plan: WorkloadPlan,
  topology: Topology,
  network: FluidNetwork,
  engine: Pick<FluidOptions, 'timeQuantumNs' | 'onProgress'> = {},
): SimMetrics | undefined {
  const w = plan.workloads[0];
  if (plan.workloads.length !== 1 || !w || (w.kind !== 'allreduce' && w.kind !== 'allgather'))
    return undefined;
  const ranks = w.ranks.length;
  // Rank r's ring connection is the plan's connection r (the ring is the only workload), and the
  // ring interns its paths in rank order, so the hash it passes is connectionEcmpHash(r, seed).
  const fabric = {
    links: network.links,
    path: (src: number, dst: number, hash: number) => topology.route(w.ranks[src]!, w.ranks[dst]!, hash),
    networkLatencyNs: network.latencyOf,
    hashSeed: plan.seed,
  };
  const build = w.kind === 'allreduce' ? buildRingAllReduce : buildRingAllGather;
  // Whole chunks, as the plan (and packet mode) cut them: S/N rounded up to a byte.
  const built = build(fabric, { ranks, sizeBytes: w.chunkBytes * ranks });
  const result = simulateFluid(built, { ...engine, recordFlows: false });
  const us = result.completionTimeNs / 1e3;
  const goodputGbps = us > 0 ? (result.totalBytes * 8) / (us * 1e3) : 0;
  return fluidMetrics(result, result.totalBytes, result.completionTimeNs, [
    { name: w.name, kind: w.kind, flows: result.flowCount, completionTimeUs: us, goodputGbps },
  ]);
}
