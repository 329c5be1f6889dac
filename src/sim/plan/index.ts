/** The workload plan: a scenario's workloads resolved once, consumed by the packet and fluid engines. */
export { chunkBytesOf, planWorkloads, permutationTargets, stepsPerIteration } from './workload-plan.js';
export type {
  PlannedCollective,
  PlannedConnection,
  PlannedFlows,
  PlannedIncast,
  PlannedWorkload,
  TransportKind,
  WorkloadPlan,
} from './workload-plan.js';
