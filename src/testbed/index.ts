/** The emulated multi-host fabric in network namespaces: the public surface of testbed/. */
export { testbedUp, validateSpec, type TestbedSpec, type TestbedInfo } from './up.js';
export { testbedDown, type DownResult } from './down.js';
export { completeTestbed, testbedRun, type TestbedRunResult } from './run.js';
export { execOnHost, hostArgv, type HostExecResult } from './host-exec.js';
export { mpirunArgv, testbedMpirun, type MpirunOptions } from './mpirun.js';
export { testbedFault, type FaultResult } from './fault.js';
export { testbedStatus, type StatusResult } from './status.js';
export {
  DEFAULT_TESTBED_NAME,
  MAX_BUFFER_BYTES,
  MAX_RATE_BPS,
  hostAddress,
  hostNamespace,
  leafOf,
  switchNamespace,
  uplinkName,
  validateName as validateTestbedName,
  TESTBED_MASTER_PORT,
} from './names.js';
export {
  FAULT_KINDS,
  describeFault,
  formatBitRate,
  formatFault,
  isHostFault,
  isLeafFault,
  parseFault,
  validateFaults,
  type Fault,
  type FaultKind,
  type HostFault,
  type LeafFault,
} from './faults.js';
export { readState, stateDir, type TestbedState } from './state.js';
export { bfifoDrops, parseQdiscDrops, type QdiscDrops } from './port.js';
export { listNamespaces, requireNamespaces } from './exec.js';
export { createCpuCgroup, findCpuController, type CpuController } from './cgroup.js';
export {
  INCAST_CCS,
  INCAST_TARGET,
  SINGLE_SENDER_MIN_FRACTION,
  testbedIncast,
  type IncastMetrics,
  type IncastOptions,
  tcpCounters,
  type IncastRow,
  type IncastRun,
  type TcpCounters,
  type IncastSpec,
} from './incast.js';
export {
  incastScenario,
  incastSimSettings,
  simulateIncastRow,
  testbedRingScenario,
  testbedTcpSettings,
  SIM_SEEDS,
  type IncastCc,
  type IncastSimSettings,
  type TestbedTcpSettings,
} from './incast-sim.js';
export { testbedUpResult, testbedFaultResult, testbedStatusResult, testbedDownResult } from './result.js';
export type {
  TestbedUpMetrics,
  TestbedFaultMetrics,
  TestbedStatusMetrics,
  TestbedDownMetrics,
} from './result.js';
