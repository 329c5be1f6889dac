/**
 * Fluid mode: flow-level simulation with max-min fair sharing, for collectives over thousands of
 * GPUs where a packet simulation would take hours. Flows have no packets, queues or congestion
 * control: each gets its max-min fair share of every link it crosses, recomputed whenever flows
 * start or end. What it shows is how link sharing (ECMP collisions, oversubscription,
 * dependencies between steps) stretches completion time; not incast, drops or PFC.
 */
import { buildDenseNetwork, indexLinks } from './dense-network.js';
import { runFluidEngine } from './engine.js';
import { FlowTableWorkload } from './flow-table.js';
import type { FluidInput, FluidOptions, FluidResult } from './types.js';

export type {
  FluidFlow,
  FluidFlowTiming,
  FluidInput,
  FluidLink,
  FluidOptions,
  FluidResult,
  FluidWorkload,
  PathFn,
} from './types.js';
export { FlowTableWorkload } from './flow-table.js';
export type { CollectiveFabric, CollectiveInput } from './workloads/placement.js';
export {
  buildRingAllReduce,
  buildRingAllGather,
  buildRingReduceScatter,
  RingStepsWorkload,
  type RingStepsOptions,
} from './workloads/ring.js';
export {
  buildAllToAll,
  buildPermutation,
  IndependentFlowsWorkload,
  type IndependentFlowsOptions,
} from './workloads/pairwise.js';
export {
  buildHierarchicalAllReduce,
  HierarchicalAllReduceWorkload,
  type HierarchicalAllReduceOptions,
} from './workloads/hierarchical.js';
export { workloadToFlows } from './workloads/expand.js';
export type { BuiltWorkload } from './workloads/placement.js';
export type { PermutationInput } from './workloads/pairwise.js';
export { fabricFromTopology } from './topology-fabric.js';
export type { NodeModel, RoutedTopology } from './topology-fabric.js';

/**
 * Runs a workload to completion. Throws InputError (exit 2) for an unknown link id, a
 * non-positive capacity, a negative size or time, or a dependency cycle.
 */
export function simulateFluid(input: FluidInput, options: FluidOptions = {}): FluidResult {
  const workload =
    'workload' in input ? input.workload : new FlowTableWorkload(input.flows, indexLinks(input.links));
  return runFluidEngine(buildDenseNetwork(input.links, workload), workload, options);
}
