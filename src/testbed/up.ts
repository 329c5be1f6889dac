/**
 * Build an emulated fabric on this machine: one network namespace per host and one for the
 * switch, each host's eth0 joined by a veth pair to a port of a Linux bridge in the switch, and
 * each switch port's egress (towards its host) shaped by htb to the port rate with a bfifo of
 * the given bytes as its only buffer, so that many-to-one traffic overflows it and the kernel
 * drops packets, as a shallow-buffer switch does. With `leaves` above 1 the switch is two-tier:
 * hosts sit under leaf bridges joined to a spine bridge by uplinks shaped the same way at
 * `uplinkRateBps` (uplink.ts). Faults (`loss`, `rate`, `mtu`) change one host's port in both
 * directions (hostport.ts), `cpu` caps a host's processes (cgroup.ts), `uplink-rate` slows one
 * leaf's uplink. `up` holds the testbed's lock while it works, marks every namespace it creates,
 * and marks the testbed complete only at the end (state.ts); a failed or interrupted `up`
 * removes what it made.
 */
import { EnvironmentError, UsageError } from '../core/index.js';
import { removeTestbed } from './down.js';
import { listNamespaces, requireNamespaces, run } from './exec.js';
import { createCpuCgroup, cgroupName, findCpuController } from './cgroup.js';
import { formatBitRate, isHostFault, uplinkFault, validateFaults, type Fault } from './faults.js';
import { GSO_SEGMENTS, wireHostPort } from './hostport.js';
import {
  MAX_BUFFER_BYTES,
  MAX_HOSTS,
  MAX_RATE_BPS,
  PREFIX_LENGTH,
  SINGLE_BRIDGE,
  hostAddress,
  hostBridge,
  hostIndexes,
  hostNamespace,
  leafOf,
  switchNamespace,
  validateName,
} from './names.js';
import { acquireLock, markNamespace, readState, writeState, type TestbedState } from './state.js';
import { addBridge, addLeafBridges, wireUplink } from './uplink.js';

export { GSO_SEGMENTS };

export interface TestbedSpec {
  name: string;
  hosts: number;
  /** Port rate in bits per second. */
  rateBps: number;
  /** Egress buffer per switch port in bytes. */
  bufferBytes: number;
  /** Faults (`--fault`); none when absent. */
  faults?: Fault[];
  /** Leaf switches under a spine (`--leaves`); absent or 1: one switch. */
  leaves?: number;
  /** Each leaf's uplink rate in bits per second (`--uplink-rate`); needed when leaves > 1. */
  uplinkRateBps?: number;
  /** Test hook: fail just before making host N, so a test can see a failed `up` remove what it made. */
  failAtHost?: number;
}

export interface TestbedInfo extends TestbedSpec {
  faults: Fault[];
  leaves: number;
  /** The leaf of each host, by host index. */
  hostLeaves: number[];
  /** CPU cgroup folders of the `cpu` faults. */
  cgroups: string[];
  switchNamespace: string;
  hostNamespaces: string[];
  addresses: string[];
}

/** Smallest rate tc's htb is given: 8 kbit/s, tc's own lower bound for a rate (tc-htb(8)). */
const MIN_RATE_BPS = 8000;
/** One full Ethernet frame (1500-byte MTU plus 14 bytes of header): a buffer must hold one. */
const MIN_BUFFER_BYTES = 1514;

export type ValidSpec = TestbedSpec & { faults: Fault[]; leaves: number };

export function validateSpec(spec: TestbedSpec): ValidSpec {
  validateName(spec.name);
  if (!Number.isInteger(spec.hosts) || spec.hosts < 1 || spec.hosts > MAX_HOSTS)
    throw new UsageError(`invalid value for --hosts: ${spec.hosts} (expected 1 to ${MAX_HOSTS})`);
  if (!(spec.rateBps >= MIN_RATE_BPS))
    throw new UsageError(`invalid value for --rate: ${spec.rateBps} bit/s (expected at least 8kbit)`);
  if (!(spec.rateBps <= MAX_RATE_BPS))
    throw new UsageError(
      `invalid value for --rate: ${formatBitRate(spec.rateBps)} (expected at most ${formatBitRate(MAX_RATE_BPS)}, the fastest Ethernet port)`,
    );
  if (!Number.isInteger(spec.bufferBytes) || spec.bufferBytes < MIN_BUFFER_BYTES)
    throw new UsageError(
      `invalid value for --buffer: ${spec.bufferBytes} bytes (expected at least one ${MIN_BUFFER_BYTES}-byte frame)`,
    );
  if (spec.bufferBytes > MAX_BUFFER_BYTES)
    throw new UsageError(
      `invalid value for --buffer: ${spec.bufferBytes} bytes (expected at most ${MAX_BUFFER_BYTES}, the largest bfifo limit tc takes)`,
    );
  const leaves = spec.leaves ?? 1;
  if (!Number.isInteger(leaves) || leaves < 1 || leaves > spec.hosts)
    throw new UsageError(
      `invalid value for --leaves: ${leaves} (expected 1 to --hosts ${spec.hosts}: every leaf has at least one host)`,
    );
  if (leaves > 1 && spec.uplinkRateBps === undefined)
    throw new UsageError(
      `--leaves ${leaves} needs --uplink-rate RATE (the rate of each leaf's uplink to the spine, e.g. 50Mbps)`,
    );
  if (leaves === 1 && spec.uplinkRateBps !== undefined)
    throw new UsageError(
      'invalid value for --uplink-rate: a single-switch testbed has no uplinks (give --leaves 2 or more)',
    );
  if (spec.uplinkRateBps !== undefined) {
    if (!(spec.uplinkRateBps >= MIN_RATE_BPS))
      throw new UsageError(
        `invalid value for --uplink-rate: ${spec.uplinkRateBps} bit/s (expected at least 8kbit)`,
      );
    if (!(spec.uplinkRateBps <= MAX_RATE_BPS))
      throw new UsageError(
        `invalid value for --uplink-rate: ${formatBitRate(spec.uplinkRateBps)} (expected at most ${formatBitRate(MAX_RATE_BPS)})`,
      );
  }
  const faults = validateFaults(spec.faults ?? [], {
    hosts: spec.hosts,
    portRateBps: spec.rateBps,
    leaves,
    bufferBytes: spec.bufferBytes,
    ...(spec.uplinkRateBps !== undefined ? { uplinkRateBps: spec.uplinkRateBps } : {}),
  });
  return { ...spec, faults, leaves };
}

/** The cgroup of each `cpu` fault, made and recorded in the state before it exists. */
export function addCpuCgroups(state: TestbedState, faults: readonly Fault[]): void {
  for (const fault of faults) {
    if (!isHostFault(fault) || fault.kind !== 'cpu') continue;
    const namespace = state.hostNamespaces[fault.host] ?? hostNamespace(state.name, fault.host);
    const controller = findCpuController();
    if (controller) {
      const path = `${controller.root}/${cgroupName(namespace)}`;
      state.cgroups = [...new Set([...(state.cgroups ?? []), path])];
      writeState(state);
    }
    createCpuCgroup(namespace, fault.value);
  }
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

async function build(spec: ValidSpec, state: TestbedState, interrupted: () => boolean): Promise<void> {
  const sw = state.switchNamespace;
  await addNamespace(sw, spec.name);
  if (spec.leaves > 1) await addLeafBridges(sw, spec.leaves);
  else await addBridge(sw, SINGLE_BRIDGE);
  for (let leaf = 0; leaf < spec.leaves && spec.leaves > 1; leaf++) {
    await wireUplink(sw, leaf, uplinkFault(spec.faults, leaf) ?? spec.uplinkRateBps!, spec.bufferBytes);
  }
  for (let index = 0; index < spec.hosts; index++) {
    if (interrupted()) throw new EnvironmentError('testbed up interrupted');
    if (spec.failAtHost === index)
      throw new EnvironmentError(`testbed up: injected failure at host ${index}`);
    const host = hostNamespace(spec.name, index);
    // Recorded before it is made: a kill between `ip netns add` and the marker leaves a namespace
    // that only the state names (see removeTestbed).
    state.hostNamespaces.push(host);
    state.addresses.push(hostAddress(index));
    writeState(state);
    await addNamespace(host, spec.name);
    await wireHostPort(
      host,
      sw,
      hostBridge(index, spec.hosts, spec.leaves),
      index,
      `${hostAddress(index)}/${PREFIX_LENGTH}`,
      spec,
      spec.faults,
    );
  }
  addCpuCgroups(state, spec.faults);
}

export async function testbedUp(input: TestbedSpec): Promise<TestbedInfo> {
  const spec = validateSpec(input);
  await requireNamespaces();
  if (spec.faults.some((fault) => isHostFault(fault) && fault.kind === 'cpu') && !findCpuController()) {
    throw new EnvironmentError(
      'the cpu fault needs a CPU cgroup controller (cgroup v2 with "cpu" in cgroup.controllers, or a cgroup v1 "cpu" mount); none is mounted',
    );
  }
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
      const what =
        previous && !previous.complete
          ? 'exists but is incomplete (an earlier `up` did not finish)'
          : 'already exists';
      throw new EnvironmentError(
        `testbed "${spec.name}" ${what}: remove it with \`aifabric testbed down --name ${spec.name}\``,
      );
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
      ...(spec.leaves > 1 ? { leaves: spec.leaves, uplinkRateBps: spec.uplinkRateBps! } : {}),
      hostLeaves: Array.from({ length: spec.hosts }, (_, index) => leafOf(index, spec.hosts, spec.leaves)),
      cgroups: [],
    };
    writeState(state);
    started = true;
    await build(spec, state, () => interrupted);
    if (interrupted) throw new EnvironmentError('testbed up interrupted');
    state.complete = true;
    writeState(state);
    return {
      ...spec,
      switchNamespace: state.switchNamespace,
      hostNamespaces: state.hostNamespaces,
      addresses: state.addresses,
      hostLeaves: state.hostLeaves ?? [],
      cgroups: state.cgroups ?? [],
    };
  } catch (error) {
    if (started) await removeTestbed(spec.name).catch(() => undefined);
    throw error instanceof EnvironmentError && interrupted
      ? new EnvironmentError(`testbed up interrupted; removed what it had made`)
      : error;
  } finally {
    release();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
