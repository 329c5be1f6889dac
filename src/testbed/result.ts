/**
 * The envelopes of `aifabric testbed up|fault|status|down`, from what each call returned: the
 * command only renders them. (`testbed incast` builds its own in incast.ts; `run` has no envelope,
 * its exit code is the hosts' own.)
 */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import type { DownResult } from './down.js';
import type { FaultResult } from './fault.js';
import { formatFault, type Fault } from './faults.js';
import type { TestbedState } from './state.js';
import type { StatusResult } from './status.js';
import type { TestbedInfo } from './up.js';

export interface TestbedUpMetrics {
  switchNamespace: string;
  hostNamespaces: string[];
  addresses: string[];
  faults: Fault[];
  leaves: number;
  hostLeaves: number[];
  cgroups?: string[];
}

export type TestbedFaultMetrics = Omit<FaultResult, 'name'>;

export type TestbedStatusMetrics = TestbedState & { leaves: number; missingNamespaces: string[] };

export type TestbedDownMetrics = Omit<DownResult, 'name'>;

export function testbedUpResult(info: TestbedInfo): ResultEnvelope<TestbedUpMetrics> {
  return makeResult(
    'testbed.up',
    {
      name: info.name,
      hosts: info.hosts,
      rateBps: info.rateBps,
      bufferBytes: info.bufferBytes,
      faults: info.faults.map(formatFault),
      ...(info.leaves > 1 ? { leaves: info.leaves, uplinkRateBps: info.uplinkRateBps } : {}),
    },
    {
      switchNamespace: info.switchNamespace,
      hostNamespaces: info.hostNamespaces,
      addresses: info.addresses,
      faults: info.faults,
      leaves: info.leaves,
      hostLeaves: info.hostLeaves,
      ...(info.cgroups.length ? { cgroups: info.cgroups } : {}),
    },
  );
}

export function testbedFaultResult(outcome: FaultResult): ResultEnvelope<TestbedFaultMetrics> {
  return makeResult(
    'testbed.fault',
    { name: outcome.name, faults: outcome.added.map(formatFault) },
    { added: outcome.added, faults: outcome.faults },
  );
}

export function testbedStatusResult({
  state,
  missingNamespaces,
}: StatusResult): ResultEnvelope<TestbedStatusMetrics> {
  return makeResult(
    'testbed.status',
    { name: state.name },
    { ...state, leaves: state.leaves ?? 1, missingNamespaces },
  );
}

export function testbedDownResult(down: DownResult): ResultEnvelope<TestbedDownMetrics> {
  return makeResult(
    'testbed.down',
    { name: down.name },
    {
      removedNamespaces: down.removedNamespaces,
      killedPids: down.killedPids,
      skippedNamespaces: down.skippedNamespaces,
      removedCgroups: down.removedCgroups,
      faults: down.faults,
      ...(down.complete !== undefined ? { complete: down.complete } : {}),
    },
  );
}
