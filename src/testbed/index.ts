/** The emulated multi-host fabric in network namespaces: the public surface of testbed/. */
export { testbedUp, validateSpec, type TestbedSpec, type TestbedInfo } from './up.js';
export { testbedDown, type DownResult } from './down.js';
export { testbedRun, type TestbedRunResult } from './run.js';
export { DEFAULT_TESTBED_NAME, MAX_BUFFER_BYTES, MAX_RATE_BPS, hostAddress, hostNamespace, switchNamespace, TESTBED_MASTER_PORT } from './names.js';
export { FAULT_KINDS, formatBitRate, formatFault, parseFault, validateFaults, type Fault, type FaultKind } from './faults.js';
export { readState, stateDir, type TestbedState } from './state.js';
export { listNamespaces } from './exec.js';
