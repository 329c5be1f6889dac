/** The emulated multi-host fabric in network namespaces: the public surface of testbed/. */
export { testbedUp, validateSpec, type TestbedSpec, type TestbedInfo } from './up.js';
export { testbedDown, type DownResult } from './down.js';
export { testbedRun, type TestbedRunResult } from './run.js';
export { DEFAULT_TESTBED_NAME, hostAddress, hostNamespace, switchNamespace, TESTBED_MASTER_PORT } from './names.js';
export { listNamespaces } from './exec.js';
