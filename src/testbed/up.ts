/**
 * Build an emulated fabric on this machine: one network namespace per host and one for the
 * switch, each host's eth0 joined by a veth pair to a port of a Linux bridge in the switch, and
 * each switch port's egress (towards its host) shaped by htb to the port rate with a bfifo of
 * the given bytes as its only buffer, so that many-to-one traffic overflows it and the kernel
 * drops packets, as a shallow-buffer switch does. A failed or interrupted `up` removes what it made.
 */
import { EnvironmentError, UsageError } from '../core/errors.js';
import { testbedDown } from './down.js';
import { listNamespaces, requireNamespaces, run, runQuietly } from './exec.js';
import { MAX_HOSTS, PREFIX_LENGTH, hostAddress, hostIndexes, hostNamespace, switchNamespace, switchPort, validateName } from './names.js';

export interface TestbedSpec {
  name: string;
  hosts: number;
  /** Port rate in bits per second. */
  rateBps: number;
  /** Egress buffer per switch port in bytes. */
  bufferBytes: number;
}

export interface TestbedInfo extends TestbedSpec {
  switchNamespace: string;
  hostNamespaces: string[];
  addresses: string[];
}

/** Largest TCP segmentation burst handed to the emulated wire (about 5.8 KB at MTU 1500). */
export const GSO_SEGMENTS = 4;

/** htb's per-class quantum; explicit so high rates do not trip the "quantum is big" clamp. */
const HTB_QUANTUM_BYTES = 60_000;

export function validateSpec(spec: TestbedSpec): TestbedSpec {
  validateName(spec.name);
  if (!Number.isInteger(spec.hosts) || spec.hosts < 1 || spec.hosts > MAX_HOSTS) throw new UsageError(`invalid value for --hosts: ${spec.hosts} (expected 1 to ${MAX_HOSTS})`);
  if (!(spec.rateBps >= 8000)) throw new UsageError(`invalid value for --rate: ${spec.rateBps} bit/s (expected at least 8kbit)`);
  if (!Number.isInteger(spec.bufferBytes) || spec.bufferBytes < 1514) throw new UsageError(`invalid value for --buffer: ${spec.bufferBytes} bytes (expected at least one 1514-byte frame)`);
  return spec;
}

async function ipIn(namespace: string, args: string[]): Promise<void> {
  await run('ip', ['-n', namespace, ...args]);
}

async function build(spec: TestbedSpec, interrupted: () => boolean): Promise<TestbedInfo> {
  const sw = switchNamespace(spec.name);
  await run('ip', ['netns', 'add', sw]);
  await ipIn(sw, ['link', 'set', 'lo', 'up']);
  await ipIn(sw, ['link', 'add', 'br0', 'type', 'bridge']);
  await ipIn(sw, ['link', 'set', 'br0', 'up']);
  const hostNamespaces: string[] = [];
  const addresses: string[] = [];
  const rate = `${Math.round(spec.rateBps)}bit`;
  for (let index = 0; index < spec.hosts; index++) {
    if (interrupted()) throw new EnvironmentError('testbed up interrupted');
    // Test hook: fail half-way so tests can see a failed `up` remove what it made.
    if (process.env.AIFABRIC_TESTBED_FAIL_AT === String(index)) throw new EnvironmentError(`testbed up: injected failure at host ${index}`);
    const host = hostNamespace(spec.name, index);
    const port = switchPort(index);
    await run('ip', ['netns', 'add', host]);
    hostNamespaces.push(host);
    await ipIn(host, ['link', 'set', 'lo', 'up']);
    await ipIn(host, ['link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', port, 'netns', sw]);
    // At most GSO_SEGMENTS frames per skb instead of 64 KB GSO bursts, so the bfifo byte limit
    // holds many packets as a switch buffer does (1 would be exact but costs 3x the CPU: 308 vs
    // 841 Mb/s measured on 1 Gbit/s). Best effort: kernels that refuse it still get a testbed.
    await runQuietly('ip', ['-n', host, 'link', 'set', 'eth0', 'gso_max_segs', String(GSO_SEGMENTS)]);
    await runQuietly('ip', ['-n', sw, 'link', 'set', port, 'gso_max_segs', String(GSO_SEGMENTS)]);
    await ipIn(host, ['addr', 'add', `${hostAddress(index)}/${PREFIX_LENGTH}`, 'dev', 'eth0']);
    await ipIn(host, ['link', 'set', 'eth0', 'up']);
    await ipIn(sw, ['link', 'set', port, 'master', 'br0']);
    await ipIn(sw, ['link', 'set', port, 'up']);
    // Egress of the switch port towards host i: rate-limited by htb, buffered by bfifo only.
    await run('tc', ['-n', sw, 'qdisc', 'add', 'dev', port, 'root', 'handle', '1:', 'htb', 'default', '10']);
    await run('tc', ['-n', sw, 'class', 'add', 'dev', port, 'parent', '1:', 'classid', '1:10', 'htb', 'rate', rate, 'ceil', rate, 'quantum', String(HTB_QUANTUM_BYTES)]);
    await run('tc', ['-n', sw, 'qdisc', 'add', 'dev', port, 'parent', '1:10', 'handle', '10:', 'bfifo', 'limit', String(spec.bufferBytes)]);
    addresses.push(hostAddress(index));
  }
  return { ...spec, switchNamespace: sw, hostNamespaces, addresses };
}

export async function testbedUp(input: TestbedSpec): Promise<TestbedInfo> {
  const spec = validateSpec(input);
  await requireNamespaces();
  const existing = await listNamespaces();
  if (existing.includes(switchNamespace(spec.name)) || hostIndexes(spec.name, existing).length > 0) {
    throw new EnvironmentError(`testbed "${spec.name}" already exists: remove it with \`aifabric testbed down --name ${spec.name}\``);
  }
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const info = await build(spec, () => interrupted);
    if (interrupted) throw new EnvironmentError('testbed up interrupted');
    return info;
  } catch (error) {
    await testbedDown(spec.name).catch(() => undefined);
    throw error instanceof EnvironmentError && interrupted ? new EnvironmentError(`testbed up interrupted; removed what it had made`) : error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
