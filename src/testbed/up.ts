/**
 * Build an emulated fabric on this machine: one network namespace per host and one for the
 * switch, each host's eth0 joined by a veth pair to a port of a Linux bridge in the switch, and
 * each switch port's egress (towards its host) shaped by htb to the port rate with a bfifo of
 * the given bytes as its only buffer, so that many-to-one traffic overflows it and the kernel
 * drops packets, as a shallow-buffer switch does. Faults (`loss`, `rate`) change one host's port
 * in both directions (port.ts). `up` holds the testbed's lock while it works, marks every
 * namespace it creates, and marks the testbed complete only at the end (state.ts); a failed or
 * interrupted `up` removes what it made.
 */
import { EnvironmentError, UsageError } from '../core/index.js';
import { removeTestbed } from './down.js';
import { listNamespaces, requireNamespaces, run, runQuietly } from './exec.js';
import { formatBitRate, portFaults, validateFaults, type Fault } from './faults.js';
import {
  MAX_BUFFER_BYTES,
  MAX_HOSTS,
  MAX_RATE_BPS,
  PREFIX_LENGTH,
  bridgePort,
  hostAddress,
  hostIndexes,
  hostNamespace,
  switchNamespace,
  switchPort,
  uplinkPort,
  validateName,
} from './names.js';
import { redirectIngress, shapeEgress } from './port.js';
import { acquireLock, markNamespace, readState, writeState, type TestbedState } from './state.js';

export interface TestbedSpec {
  name: string;
  hosts: number;
  /** Port rate in bits per second. */
  rateBps: number;
  /** Egress buffer per switch port in bytes. */
  bufferBytes: number;
  /** Faults on hosts' ports (`--fault`); none when absent. */
  faults?: Fault[];
}

export interface TestbedInfo extends TestbedSpec {
  faults: Fault[];
  switchNamespace: string;
  hostNamespaces: string[];
  addresses: string[];
}

/** Largest TCP segmentation burst handed to the emulated wire (about 5.8 KB at MTU 1500). */
export const GSO_SEGMENTS = 4;

/** Smallest rate tc's htb is given: 8 kbit/s, tc's own lower bound for a rate (tc-htb(8)). */
const MIN_RATE_BPS = 8000;
/** One full Ethernet frame (1500-byte MTU plus 14 bytes of header): a buffer must hold one. */
const MIN_BUFFER_BYTES = 1514;

export function validateSpec(spec: TestbedSpec): TestbedSpec & { faults: Fault[] } {
  validateName(spec.name);
  if (!Number.isInteger(spec.hosts) || spec.hosts < 1 || spec.hosts > MAX_HOSTS) throw new UsageError(`invalid value for --hosts: ${spec.hosts} (expected 1 to ${MAX_HOSTS})`);
  if (!(spec.rateBps >= MIN_RATE_BPS)) throw new UsageError(`invalid value for --rate: ${spec.rateBps} bit/s (expected at least 8kbit)`);
  if (!(spec.rateBps <= MAX_RATE_BPS)) throw new UsageError(`invalid value for --rate: ${formatBitRate(spec.rateBps)} (expected at most ${formatBitRate(MAX_RATE_BPS)}, the fastest Ethernet port)`);
  if (!Number.isInteger(spec.bufferBytes) || spec.bufferBytes < MIN_BUFFER_BYTES) throw new UsageError(`invalid value for --buffer: ${spec.bufferBytes} bytes (expected at least one ${MIN_BUFFER_BYTES}-byte frame)`);
  if (spec.bufferBytes > MAX_BUFFER_BYTES) throw new UsageError(`invalid value for --buffer: ${spec.bufferBytes} bytes (expected at most ${MAX_BUFFER_BYTES}, the largest bfifo limit tc takes)`);
  return { ...spec, faults: validateFaults(spec.faults ?? [], spec.hosts, spec.rateBps) };
}

async function ipIn(namespace: string, args: string[]): Promise<void> {
  await run('ip', ['-n', namespace, ...args]);
}

/** A new namespace, marked as this testbed's before anything else happens in it. */
async function addNamespace(namespace: string, name: string): Promise<void> {
  await run('ip', ['netns', 'add', namespace]);
  await markNamespace(namespace, name);
  await ipIn(namespace, ['link', 'set', 'lo', 'up']);
}

/** At most GSO_SEGMENTS frames per skb on a veth end (best effort: kernels that refuse it still get a testbed). */
async function limitGso(namespace: string, dev: string): Promise<void> {
  // At most GSO_SEGMENTS frames per skb instead of 64 KB GSO bursts, so the bfifo byte limit
  // holds many packets as a switch buffer does (1 would be exact but costs 3x the CPU: 308 vs
  // 841 Mb/s measured on 1 Gbit/s).
  await runQuietly('ip', ['-n', namespace, 'link', 'set', dev, 'gso_max_segs', String(GSO_SEGMENTS)]);
}

async function build(spec: TestbedSpec & { faults: Fault[] }, state: TestbedState, interrupted: () => boolean): Promise<void> {
  const sw = state.switchNamespace;
  await addNamespace(sw, spec.name);
  await ipIn(sw, ['link', 'add', 'br0', 'type', 'bridge']);
  await ipIn(sw, ['link', 'set', 'br0', 'up']);
  for (let index = 0; index < spec.hosts; index++) {
    if (interrupted()) throw new EnvironmentError('testbed up interrupted');
    // Test hook: fail half-way so tests can see a failed `up` remove what it made.
    if (process.env.AIFABRIC_TESTBED_FAIL_AT === String(index)) throw new EnvironmentError(`testbed up: injected failure at host ${index}`);
    const host = hostNamespace(spec.name, index);
    const port = switchPort(index);
    // Recorded before it is made: a kill between `ip netns add` and the marker leaves a namespace
    // that only the state names (see removeTestbed).
    state.hostNamespaces.push(host);
    state.addresses.push(hostAddress(index));
    writeState(state);
    await addNamespace(host, spec.name);
    await ipIn(host, ['link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', port, 'netns', sw]);
    await limitGso(host, 'eth0');
    await limitGso(sw, port);
    await ipIn(host, ['addr', 'add', `${hostAddress(index)}/${PREFIX_LENGTH}`, 'dev', 'eth0']);
    await ipIn(host, ['link', 'set', 'eth0', 'up']);
    const faults = portFaults(spec.faults, index);
    const shape = { rateBps: faults?.rateBps ?? spec.rateBps, bufferBytes: spec.bufferBytes, ...(faults?.lossFraction !== undefined ? { lossFraction: faults.lossFraction } : {}) };
    // Egress of the switch port towards host i: rate-limited by htb, buffered by bfifo only.
    await shapeEgress(sw, port, shape);
    if (!faults) {
      await ipIn(sw, ['link', 'set', port, 'master', 'br0']);
      await ipIn(sw, ['link', 'set', port, 'up']);
      continue;
    }
    // A faulty port gets the extra hop u{i} => b{i} for the direction from the host (port.ts).
    const uplink = uplinkPort(index);
    const bridged = bridgePort(index);
    await ipIn(sw, ['link', 'add', uplink, 'type', 'veth', 'peer', 'name', bridged]);
    await limitGso(sw, uplink);
    await limitGso(sw, bridged);
    await shapeEgress(sw, uplink, shape);
    await ipIn(sw, ['link', 'set', bridged, 'master', 'br0']);
    for (const dev of [bridged, uplink, port]) await ipIn(sw, ['link', 'set', dev, 'up']);
    await redirectIngress(sw, port, uplink);
    await redirectIngress(sw, uplink, port);
  }
}

export async function testbedUp(input: TestbedSpec): Promise<TestbedInfo> {
  const spec = validateSpec(input);
  await requireNamespaces();
  const release = acquireLock(spec.name, 'testbed up');
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let started = false;
  try {
    const existing = await listNamespaces();
    if (existing.includes(switchNamespace(spec.name)) || hostIndexes(spec.name, existing).length > 0) {
      const previous = readState(spec.name);
      const what = previous && !previous.complete ? 'exists but is incomplete (an earlier `up` did not finish)' : 'already exists';
      throw new EnvironmentError(`testbed "${spec.name}" ${what}: remove it with \`aifabric testbed down --name ${spec.name}\``);
    }
    const state: TestbedState = {
      name: spec.name,
      hosts: spec.hosts,
      rateBps: spec.rateBps,
      bufferBytes: spec.bufferBytes,
      faults: spec.faults,
      complete: false,
      upPid: process.pid,
      createdAt: new Date().toISOString(),
      switchNamespace: switchNamespace(spec.name),
      hostNamespaces: [],
      addresses: [],
    };
    writeState(state);
    started = true;
    await build(spec, state, () => interrupted);
    if (interrupted) throw new EnvironmentError('testbed up interrupted');
    state.complete = true;
    writeState(state);
    return { ...spec, switchNamespace: state.switchNamespace, hostNamespaces: state.hostNamespaces, addresses: state.addresses };
  } catch (error) {
    if (started) await removeTestbed(spec.name).catch(() => undefined);
    throw error instanceof EnvironmentError && interrupted ? new EnvironmentError(`testbed up interrupted; removed what it had made`) : error;
  } finally {
    release();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
