/**
 * One host's port: the veth pair from the host's eth0 to switch port p{i}, the port's shape, the
 * extra hop u{i} => b{i} of a port with loss or rate faults (port.ts), and its MTU fault. Used by
 * `up` to wire each host and by `testbed fault` to change a running one.
 */
import { run, runQuietly } from './exec.js';
import { hostFault, portFaults, type Fault } from './faults.js';
import { bridgePort, portBridge, switchPort, uplinkPort } from './names.js';
import { clearEgress, setMtu, shapeEgress, type PortShape } from './port.js';

/** Largest TCP segmentation burst handed to the emulated wire (about 5.8 KB at MTU 1500). */
export const GSO_SEGMENTS = 4;

async function ipIn(namespace: string, args: string[]): Promise<void> {
  await run('ip', ['-n', namespace, ...args]);
}

/** At most GSO_SEGMENTS frames per skb on a veth end (best effort: kernels that refuse it still get a testbed). */
export async function limitGso(namespace: string, dev: string): Promise<void> {
  // At most GSO_SEGMENTS frames per skb instead of 64 KB GSO bursts, so the bfifo byte limit
  // holds many packets as a switch buffer does (1 would be exact but costs 3x the CPU: 308 vs
  // 841 Mb/s measured on 1 Gbit/s).
  await runQuietly('ip', ['-n', namespace, 'link', 'set', dev, 'gso_max_segs', String(GSO_SEGMENTS)]);
}

export interface PortSpec {
  rateBps: number;
  bufferBytes: number;
}

function portShape(spec: PortSpec, faults: readonly Fault[], index: number): PortShape {
  const mine = portFaults(faults, index);
  return {
    rateBps: mine?.rateBps ?? spec.rateBps,
    bufferBytes: spec.bufferBytes,
    ...(mine?.lossFraction !== undefined ? { lossFraction: mine.lossFraction } : {}),
  };
}

/**
 * The extra hop of a faulty port: p{i} and u{i} are the two ports of a bridge pb{i}, and u{i}'s peer
 * b{i} is a port of `bridge`, so the host's traffic leaves through u{i}'s shaped egress. A bridge,
 * not a tc mirred redirect: a redirected frame keeps its sending socket (skb->sk), so the host's TCP
 * Small Queues limit (net/ipv4/tcp_output.c tcp_small_queue_check: about 1 ms of the socket's pacing
 * rate) held u{i}'s queue to about 190 KB on a 200 Mbit/s port, as if the queue were in the host;
 * a bridged frame is charged to no socket there, as in a switch (docs/bench.md, faults).
 */
async function addHop(sw: string, bridge: string, index: number, shape: PortShape): Promise<void> {
  const port = switchPort(index);
  const uplink = uplinkPort(index);
  const bridged = bridgePort(index);
  const joint = portBridge(index);
  await ipIn(sw, ['link', 'add', joint, 'type', 'bridge']);
  await ipIn(sw, ['link', 'add', uplink, 'type', 'veth', 'peer', 'name', bridged]);
  await limitGso(sw, uplink);
  await limitGso(sw, bridged);
  await shapeEgress(sw, uplink, shape);
  await ipIn(sw, ['link', 'set', bridged, 'master', bridge]);
  await ipIn(sw, ['link', 'set', port, 'master', joint]);
  await ipIn(sw, ['link', 'set', uplink, 'master', joint]);
  for (const dev of [joint, bridged, uplink, port]) await ipIn(sw, ['link', 'set', dev, 'up']);
}

async function applyMtu(host: string, sw: string, index: number, faults: readonly Fault[]): Promise<void> {
  const mtu = hostFault(faults, index, 'mtu');
  if (mtu === undefined) return;
  const hop = portFaults(faults, index) !== undefined;
  await setMtu(host, ['eth0'], mtu);
  await setMtu(sw, [switchPort(index), ...(hop ? [uplinkPort(index), bridgePort(index)] : [])], mtu);
}

/**
 * Wires host `index` (namespace `host`, already made) to `bridge` in the switch: eth0 with
 * `address`, the port's shape towards the host, and its faults.
 */
export async function wireHostPort(
  host: string,
  sw: string,
  bridge: string,
  index: number,
  address: string,
  spec: PortSpec,
  faults: readonly Fault[],
): Promise<void> {
  const port = switchPort(index);
  await ipIn(host, ['link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', port, 'netns', sw]);
  await limitGso(host, 'eth0');
  await limitGso(sw, port);
  await ipIn(host, ['addr', 'add', address, 'dev', 'eth0']);
  await ipIn(host, ['link', 'set', 'eth0', 'up']);
  const shape = portShape(spec, faults, index);
  // Egress of the switch port towards host i: rate-limited by htb, buffered by bfifo only.
  await shapeEgress(sw, port, shape);
  if (portFaults(faults, index) === undefined) {
    await ipIn(sw, ['link', 'set', port, 'master', bridge]);
    await ipIn(sw, ['link', 'set', port, 'up']);
  } else await addHop(sw, bridge, index, shape);
  await applyMtu(host, sw, index, faults);
}

/**
 * Gives running host `index` its port faults `after` (all of them, old and new), where `before`
 * were the ones it had: the port and its hop are shaped anew, a hop is added if the port had none.
 */
export async function refaultHostPort(
  host: string,
  sw: string,
  bridge: string,
  index: number,
  spec: PortSpec,
  before: readonly Fault[],
  after: readonly Fault[],
): Promise<void> {
  const port = switchPort(index);
  const hadHop = portFaults(before, index) !== undefined;
  const needsHop = portFaults(after, index) !== undefined;
  const shape = portShape(spec, after, index);
  if (JSON.stringify(portFaults(before, index)) !== JSON.stringify(portFaults(after, index))) {
    await clearEgress(sw, port);
    await shapeEgress(sw, port, shape);
    if (hadHop) {
      await clearEgress(sw, uplinkPort(index));
      await shapeEgress(sw, uplinkPort(index), shape);
    } else if (needsHop) {
      await ipIn(sw, ['link', 'set', port, 'nomaster']);
      await addHop(sw, bridge, index, shape);
    }
  }
  await applyMtu(host, sw, index, after);
}
