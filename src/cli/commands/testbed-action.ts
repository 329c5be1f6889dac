/** The work behind `aifabric testbed up|run|fault|status|down`, imported only when one of them runs. */
import { makeResult } from '../../core/envelope.js';
import {
  describeFault,
  formatBitRate,
  formatFault,
  parseFault,
  testbedDown,
  testbedFault,
  testbedRun,
  testbedStatus,
  testbedUp,
  type Fault,
  type TestbedState,
} from '../../testbed/index.js';
import { emitResult } from '../emit.js';

interface StoreFlags {
  json?: true;
  save?: true;
  db?: string;
}

const emitOptions = (options: StoreFlags) => ({
  ...(options.json ? { json: true } : {}),
  ...(options.save ? { save: true } : {}),
  ...(options.db !== undefined ? { db: options.db } : {}),
});

function describeFaults(faults: readonly Fault[]): string {
  return faults.map(describeFault).join(', ');
}

/** The faults line of `up`, `fault` and `status`: empty when there are none. */
function faultLines(faults: readonly Fault[]): string[] {
  return faults.length ? [`  faults (both directions, switch side): ${describeFaults(faults)}`] : [];
}

/** `  leaves: leaf0 h0-h3, leaf1 h4-h7 ...; uplinks 50 Mbit/s each way` for a two-tier testbed. */
function leafLines(leaves: number, hostLeaves: readonly number[], uplinkRateBps: number | undefined): string[] {
  if (leaves <= 1) return [];
  const ranges = Array.from({ length: leaves }, (_, leaf) => {
    const hosts = hostLeaves.map((owner, index) => [owner, index] as const).filter(([owner]) => owner === leaf).map(([, index]) => index);
    const first = hosts[0];
    const last = hosts[hosts.length - 1];
    return `leaf${leaf} ${first === last ? `h${first}` : `h${first}-h${last}`}`;
  });
  return [`  leaves: ${ranges.join(', ')}; uplinks to the spine at ${formatBitRate(uplinkRateBps ?? 0)} each way (htb + bfifo)`];
}

export async function testbedUpCommand(
  options: { hosts: number; rate: number; buffer: number; name: string; fault: string[]; leaves?: number; uplinkRate?: number } & StoreFlags,
): Promise<void> {
  const faults = options.fault.map(parseFault);
  const info = await testbedUp({
    name: options.name,
    hosts: options.hosts,
    rateBps: options.rate,
    bufferBytes: options.buffer,
    faults,
    ...(options.leaves !== undefined ? { leaves: options.leaves } : {}),
    ...(options.uplinkRate !== undefined ? { uplinkRateBps: options.uplinkRate } : {}),
  });
  const result = makeResult(
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
  await emitResult(result, emitOptions(options), () =>
    [
      `testbed ${info.name}: ${info.hosts} hosts (${info.hostNamespaces[0]}..${info.hostNamespaces[info.hostNamespaces.length - 1]}) on switch ${info.switchNamespace}`,
      `  ports: ${formatBitRate(info.rateBps)}, ${info.bufferBytes} bytes of egress buffer (htb + bfifo)`,
      ...leafLines(info.leaves, info.hostLeaves, info.uplinkRateBps),
      ...faultLines(info.faults),
      `  addresses: ${info.addresses[0]}..${info.addresses[info.addresses.length - 1]}/24, rendezvous ${info.addresses[0]}:29500`,
      `  next: aifabric testbed run --name ${info.name} -- COMMAND ...   then: aifabric testbed down --name ${info.name}`,
      '',
    ].join('\n'),
  );
}

export async function testbedRunCommand(name: string, command: string[], options: { timeout?: number } = {}): Promise<number> {
  const result = await testbedRun(name, command, options.timeout !== undefined ? { timeoutS: options.timeout } : {});
  if (result.timedOut) {
    process.stderr.write(`aifabric: testbed run: timed out after ${options.timeout} s (--timeout); killed what still ran\n`);
    return 3;
  }
  if (result.exitCode !== 0) {
    const failed = result.hosts.map((code, rank) => [rank, code] as const).filter(([, code]) => code !== 0);
    process.stderr.write(`aifabric: testbed run: ${failed.map(([rank, code]) => `host ${rank} exited ${code}`).join(', ')}\n`);
  }
  return result.exitCode;
}

export async function testbedFaultCommand(options: { name: string; fault: string[] } & StoreFlags): Promise<void> {
  const faults = options.fault.map(parseFault);
  const outcome = await testbedFault(options.name, faults);
  const result = makeResult('testbed.fault', { name: outcome.name, faults: outcome.added.map(formatFault) }, { added: outcome.added, faults: outcome.faults });
  await emitResult(result, emitOptions(options), () =>
    [`testbed ${outcome.name}: added ${describeFaults(outcome.added)}`, ...faultLines(outcome.faults), ''].join('\n'),
  );
}

function statusText(state: TestbedState, missing: readonly string[]): string {
  const hosts = state.hostNamespaces;
  return [
    `testbed ${state.name}: ${state.hosts} hosts (${hosts[0]}..${hosts[hosts.length - 1]}) on switch ${state.switchNamespace}${state.complete ? '' : ' (incomplete: its `up` did not finish)'}`,
    `  ports: ${formatBitRate(state.rateBps)}, ${state.bufferBytes} bytes of egress buffer (htb + bfifo)`,
    ...leafLines(state.leaves ?? 1, state.hostLeaves ?? [], state.uplinkRateBps),
    ...faultLines(state.faults),
    ...(missing.length ? [`  missing namespaces: ${missing.join(', ')} (remove it with \`aifabric testbed down --name ${state.name}\`)`] : []),
    '',
  ].join('\n');
}

export async function testbedStatusCommand(options: { name: string; json?: true }): Promise<void> {
  const { state, missingNamespaces } = await testbedStatus(options.name);
  const result = makeResult('testbed.status', { name: state.name }, { ...state, leaves: state.leaves ?? 1, missingNamespaces });
  await emitResult(result, options.json ? { json: true } : {}, () => statusText(state, missingNamespaces));
}

export async function testbedDownCommand(options: { name: string } & StoreFlags): Promise<void> {
  const down = await testbedDown(options.name);
  const result = makeResult('testbed.down', { name: down.name }, {
    removedNamespaces: down.removedNamespaces,
    killedPids: down.killedPids,
    skippedNamespaces: down.skippedNamespaces,
    removedCgroups: down.removedCgroups,
    faults: down.faults,
    ...(down.complete !== undefined ? { complete: down.complete } : {}),
  });
  const skipped = down.skippedNamespaces.length ? ` (left ${down.skippedNamespaces.join(', ')}: not made by aifabric testbed up)` : '';
  await emitResult(result, emitOptions(options), () =>
    down.removedNamespaces.length === 0
      ? `testbed ${down.name}: nothing to remove${skipped}\n`
      : `testbed ${down.name}: removed ${down.removedNamespaces.length} namespaces${down.killedPids.length ? `, killed ${down.killedPids.length} processes` : ''}${down.complete === false ? ' (an incomplete testbed)' : ''}${skipped}\n`,
  );
}
