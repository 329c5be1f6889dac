/**
 * `accept --testbed NAME`: the hosts are the testbed's emulated hosts (named `NAME-hK`, as bench tcp
 * prints them), each run is `ip netns exec NAME-hK ...` (src/testbed execOnHost), and the
 * expectation comes from the testbed's own spec: its port rate and, with leaves, its uplink rate
 * (never from its faults, which are what acceptance has to find).
 */
import {
  completeTestbed,
  execOnHost,
  hostArgv,
  requireNamespaces,
  validateTestbedName,
} from '../testbed/index.js';
import type { AcceptExpectation, AcceptLauncher } from './engine.js';

export async function testbedLauncher(
  nameInput: string,
): Promise<{ launcher: AcceptLauncher; expectation: AcceptExpectation }> {
  const name = validateTestbedName(nameInput);
  await requireNamespaces();
  const state = await completeTestbed(name);
  const leaves = state.leaves ?? 1;
  const hosts = state.hostNamespaces.map((namespace, index) => ({
    name: namespace,
    address: state.addresses[index] ?? '',
    ...(leaves > 1 ? { leaf: `leaf${state.hostLeaves?.[index] ?? 0}` } : {}),
  }));
  const launcher: AcceptLauncher = {
    label: `testbed ${name}`,
    hosts,
    exec: (host, command, options) => execOnHost(state, host, command, options),
    reproduce: (host, command) => hostArgv(state, host, command),
  };
  const expectation: AcceptExpectation = {
    portRateBps: state.rateBps,
    ...(leaves > 1 && state.uplinkRateBps !== undefined ? { uplinkRateBps: state.uplinkRateBps } : {}),
  };
  return { launcher, expectation };
}
