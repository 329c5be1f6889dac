/**
 * `testbed fault --fault SPEC...`: adds faults to a running, complete testbed, with the checks
 * `up` makes (against the testbed's own spec, and against the faults it already has: one of each
 * kind per host or leaf). The new faults join the testbed's state, so `run` sees them and `down`
 * removes them. A `cpu` fault also moves the processes already running on its host into the cap.
 */
import { EnvironmentError, UsageError } from '../core/errors.js';
import { findCpuController, moveIntoCgroup } from './cgroup.js';
import { requireNamespaces, run } from './exec.js';
import { isHostFault, sortFaults, uplinkFault, validateFaults, type Fault } from './faults.js';
import { refaultHostPort } from './hostport.js';
import { hostBridge, validateName } from './names.js';
import { completeTestbed } from './run.js';
import { acquireLock, writeState, type TestbedState } from './state.js';
import { addCpuCgroups } from './up.js';
import { reshapeUplink } from './uplink.js';

export interface FaultResult {
  name: string;
  /** The faults this call added, in canonical order. */
  added: Fault[];
  /** Every fault the testbed now has. */
  faults: Fault[];
}

async function namespacePids(namespace: string): Promise<number[]> {
  try {
    const { stdout } = await run('ip', ['netns', 'pids', namespace]);
    return stdout
      .split(/\s+/)
      .filter((pid) => /^\d+$/.test(pid))
      .map(Number);
  } catch {
    return [];
  }
}

async function apply(
  state: TestbedState,
  before: readonly Fault[],
  after: readonly Fault[],
  added: readonly Fault[],
): Promise<void> {
  const leaves = state.leaves ?? 1;
  const spec = { rateBps: state.rateBps, bufferBytes: state.bufferBytes };
  const portHosts = new Set(
    added
      .filter((fault) => isHostFault(fault) && fault.kind !== 'cpu')
      .map((fault) => (isHostFault(fault) ? fault.host : -1)),
  );
  for (const index of portHosts) {
    await refaultHostPort(
      state.hostNamespaces[index]!,
      state.switchNamespace,
      hostBridge(index, state.hosts, leaves),
      index,
      spec,
      before,
      after,
    );
  }
  for (const fault of added) {
    if (isHostFault(fault) && fault.kind === 'cpu') {
      addCpuCgroups(state, [fault]);
      const namespace = state.hostNamespaces[fault.host]!;
      const path = state.cgroups?.find((folder) => folder.endsWith(`/aifabric-${namespace}`));
      if (path) moveIntoCgroup(path, await namespacePids(namespace));
    } else if (!isHostFault(fault))
      await reshapeUplink(
        state.switchNamespace,
        fault.leaf,
        uplinkFault(after, fault.leaf)!,
        state.bufferBytes,
      );
  }
}

export async function testbedFault(nameInput: string, faults: readonly Fault[]): Promise<FaultResult> {
  const name = validateName(nameInput);
  if (faults.length === 0)
    throw new UsageError(
      'testbed fault: no --fault given (usage: aifabric testbed fault [--name NAME] --fault SPEC ...)',
    );
  await requireNamespaces();
  const release = acquireLock(name, 'testbed fault');
  try {
    const state = await completeTestbed(name);
    const before = state.faults;
    const leaves = state.leaves ?? 1;
    const after = validateFaults([...before, ...faults], {
      hosts: state.hosts,
      portRateBps: state.rateBps,
      leaves,
      bufferBytes: state.bufferBytes,
      ...(state.uplinkRateBps !== undefined ? { uplinkRateBps: state.uplinkRateBps } : {}),
    });
    if (faults.some((fault) => isHostFault(fault) && fault.kind === 'cpu') && !findCpuController()) {
      throw new EnvironmentError(
        'the cpu fault needs a CPU cgroup controller (cgroup v2 with "cpu" in cgroup.controllers, or a cgroup v1 "cpu" mount); none is mounted',
      );
    }
    // Recorded first: if applying fails half-way, `down` still removes every cgroup the state names.
    state.faults = after;
    writeState(state);
    await apply(state, before, after, faults);
    return { name, added: sortFaults(faults), faults: after };
  } finally {
    release();
  }
}
