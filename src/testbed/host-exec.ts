/**
 * One command on one emulated host, as a launcher would start it on a real one: `ip netns exec
 * NAME-hK ...` (inside the host's CPU cgroup when it has a `cpu` fault), an argument array and never
 * a shell string, its own process group so a timeout or Ctrl-C kills everything it started, and
 * its output captured. Used by `aifabric accept --testbed` for each run it makes.
 */
import { runCaptured, type CapturedRun } from '../core/index.js';
import { joinCgroup } from './cgroup.js';
import { hostFault } from './faults.js';
import type { TestbedState } from './state.js';

export type HostExecResult = CapturedRun;

/** The argv that runs `command` on host `index` of the testbed (what `reproduce` shows). */
export function hostArgv(state: TestbedState, index: number, command: readonly string[]): string[] {
  const namespace = state.hostNamespaces[index];
  if (namespace === undefined) throw new Error(`internal: testbed ${state.name} has no host ${index}`);
  return ['ip', 'netns', 'exec', namespace, ...command];
}

export function execOnHost(
  state: TestbedState,
  index: number,
  command: readonly string[],
  options: { timeoutS: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<HostExecResult> {
  const argv = hostArgv(state, index, command);
  const namespace = state.hostNamespaces[index]!;
  const cgroup =
    hostFault(state.faults, index, 'cpu') !== undefined
      ? state.cgroups?.find((path) => path.endsWith(`/aifabric-${namespace}`))
      : undefined;
  return runCaptured(cgroup ? joinCgroup(cgroup, argv) : argv, {
    ...options,
    env: { ...options.env, AIFABRIC_TESTBED_HOST: namespace },
  });
}
