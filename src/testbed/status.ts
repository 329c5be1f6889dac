/**
 * `testbed status`: what a testbed is, from its state (spec, leaves and the hosts under each,
 * faults, namespaces, whether its `up` finished), and which of its namespaces are still there.
 */
import { UsageError } from '../core/errors.js';
import { listNamespaces, requireNamespaces } from './exec.js';
import { validateName } from './names.js';
import { readState, type TestbedState } from './state.js';

export interface StatusResult {
  state: TestbedState;
  /** Namespaces the state names that are gone (a broken testbed). */
  missingNamespaces: string[];
}

export async function testbedStatus(nameInput: string): Promise<StatusResult> {
  const name = validateName(nameInput);
  await requireNamespaces();
  const state = readState(name);
  if (!state)
    throw new UsageError(
      `testbed "${name}" does not exist: create it with \`aifabric testbed up --name ${name} --hosts N ...\``,
    );
  const existing = new Set(await listNamespaces());
  return {
    state,
    missingNamespaces: [state.switchNamespace, ...state.hostNamespaces].filter((ns) => !existing.has(ns)),
  };
}
