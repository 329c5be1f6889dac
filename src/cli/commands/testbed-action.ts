/** The work behind `aifabric testbed up|run|down`, imported only when one of them runs. */
import { makeResult } from '../../core/envelope.js';
import { testbedDown, testbedRun, testbedUp } from '../../testbed/index.js';
import { emitResult } from '../emit.js';

export async function testbedUpCommand(options: { hosts: number; rate: number; buffer: number; name: string; json?: true }): Promise<void> {
  const info = await testbedUp({ name: options.name, hosts: options.hosts, rateBps: options.rate, bufferBytes: options.buffer });
  const result = makeResult('testbed.up', { name: info.name, hosts: info.hosts, rateBps: info.rateBps, bufferBytes: info.bufferBytes }, {
    switchNamespace: info.switchNamespace,
    hostNamespaces: info.hostNamespaces,
    addresses: info.addresses,
  });
  await emitResult(result, { ...(options.json ? { json: true } : {}) }, () =>
    [
      `testbed ${info.name}: ${info.hosts} hosts (${info.hostNamespaces[0]}..${info.hostNamespaces[info.hostNamespaces.length - 1]}) on switch ${info.switchNamespace}`,
      `  ports: ${info.rateBps / 1e9} Gbit/s, ${info.bufferBytes} bytes of egress buffer (htb + bfifo)`,
      `  addresses: ${info.addresses[0]}..${info.addresses[info.addresses.length - 1]}/24, rendezvous ${info.addresses[0]}:29500`,
      `  next: aifabric testbed run --name ${info.name} -- COMMAND ...   then: aifabric testbed down --name ${info.name}`,
      '',
    ].join('\n'),
  );
}

export async function testbedRunCommand(name: string, command: string[]): Promise<number> {
  const result = await testbedRun(name, command);
  if (result.exitCode !== 0) {
    const failed = result.hosts.map((code, rank) => [rank, code] as const).filter(([, code]) => code !== 0);
    process.stderr.write(`aifabric: testbed run: ${failed.map(([rank, code]) => `host ${rank} exited ${code}`).join(', ')}\n`);
  }
  return result.exitCode;
}

export async function testbedDownCommand(options: { name: string; json?: true }): Promise<void> {
  const down = await testbedDown(options.name);
  const result = makeResult('testbed.down', { name: down.name }, { removedNamespaces: down.removedNamespaces, killedPids: down.killedPids });
  await emitResult(result, { ...(options.json ? { json: true } : {}) }, () =>
    down.removedNamespaces.length === 0
      ? `testbed ${down.name}: nothing to remove\n`
      : `testbed ${down.name}: removed ${down.removedNamespaces.length} namespaces${down.killedPids.length ? `, killed ${down.killedPids.length} processes` : ''}\n`,
  );
}
