/** The work behind `aifabric testbed up|run|down`, imported only when one of them runs. */
import { makeResult } from '../../core/envelope.js';
import { formatBitRate, formatFault, parseFault, testbedDown, testbedRun, testbedUp, type Fault } from '../../testbed/index.js';
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
  return faults.map((fault) => (fault.kind === 'loss' ? `h${fault.host} loses ${fault.value * 100}% of packets` : `h${fault.host} at ${formatBitRate(fault.value)}`)).join(', ');
}

export async function testbedUpCommand(options: { hosts: number; rate: number; buffer: number; name: string; fault: string[] } & StoreFlags): Promise<void> {
  const faults = options.fault.map(parseFault);
  const info = await testbedUp({ name: options.name, hosts: options.hosts, rateBps: options.rate, bufferBytes: options.buffer, faults });
  const result = makeResult(
    'testbed.up',
    { name: info.name, hosts: info.hosts, rateBps: info.rateBps, bufferBytes: info.bufferBytes, faults: info.faults.map(formatFault) },
    {
      switchNamespace: info.switchNamespace,
      hostNamespaces: info.hostNamespaces,
      addresses: info.addresses,
      faults: info.faults,
    },
  );
  await emitResult(result, emitOptions(options), () =>
    [
      `testbed ${info.name}: ${info.hosts} hosts (${info.hostNamespaces[0]}..${info.hostNamespaces[info.hostNamespaces.length - 1]}) on switch ${info.switchNamespace}`,
      `  ports: ${formatBitRate(info.rateBps)}, ${info.bufferBytes} bytes of egress buffer (htb + bfifo)`,
      ...(info.faults.length ? [`  faults (both directions, switch side): ${describeFaults(info.faults)}`] : []),
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

export async function testbedDownCommand(options: { name: string } & StoreFlags): Promise<void> {
  const down = await testbedDown(options.name);
  const result = makeResult('testbed.down', { name: down.name }, {
    removedNamespaces: down.removedNamespaces,
    killedPids: down.killedPids,
    skippedNamespaces: down.skippedNamespaces,
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
