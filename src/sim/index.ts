/**
 * The fabric simulator. Packet mode: a discrete-event simulation in integer picoseconds of hosts,
 * links, output-queued switches (shared buffer, ECN, PFC) and transports (TCP, RoCE v2 with
 * DCQCN). Fluid mode (src/sim/fluid): flow-level max-min fair sharing for large collectives.
 */
export { buildTopology, connectionEcmpHash, mixHash } from './topo/index.js';
export type {
  FatTreeSpec,
  LeafSpineSpec,
  RailSpec,
  StarSpec,
  TopoLink,
  TopoNode,
  Topology,
  TopologySpec,
} from './topo/index.js';
export { EventQueue, PS_PER_NS, PS_PER_S, PS_PER_US } from './engine/index.js';
export { scenarioSchema, type Scenario, type ScenarioWorkload } from './scenario-schema.js';
export { loadScenario, parseScenario, validateScenario, headroomBounds, topologySpecOf } from './scenario.js';
export { runScenario, type RunScenarioOptions, type SimMode } from './run.js';
export { runPacket, type PacketRun } from './packet-run.js';
export { planWorkloads } from './plan/index.js';
export type {
  PlannedCollective,
  PlannedConnection,
  PlannedFlows,
  PlannedIncast,
  PlannedWorkload,
  WorkloadPlan,
} from './plan/index.js';
export type { SimFlowOutcome, SimMetrics, SimPortMetrics, SimStatus, SimWorkloadMetrics } from './metrics.js';
export { pfcHeadroomBoundBytes, defaultPfcResponseDelayNs } from './net/headroom.js';
export { roceWireBytes, tcpWireBytes } from './net/wire.js';
export { canonicalJson, fingerprintPayload, simFingerprint, FINGERPRINT_EXCLUDED } from './fingerprint.js';
export {
  estimateWork,
  heapLimitBytes,
  WORK_LIMITS,
  type WorkEstimate,
  type WorkMode,
} from './work-estimate.js';
import * as fluid from './fluid/index.js';
/** The flow-level engine (max-min fair sharing), for callers that build flows themselves. */
export { fluid };
