/**
 * The uplinks of a two-tier testbed: leaf k's bridge `leaf{k}` joined to the `spine` bridge by the
 * veth pair up{k} (a port of leaf k) and dn{k} (a port of the spine). Both ends' egress is shaped
 * like a host's port (htb at the uplink rate, a bfifo of the port buffer): up{k}'s egress carries
 * leaf k's traffic to the spine, dn{k}'s carries the spine's to leaf k, so an uplink is limited in
 * both directions and traffic between hosts under one leaf never crosses it.
 */
import { run } from './exec.js';
import { limitGso } from './hostport.js';
import { SPINE_BRIDGE, leafBridge, leafUplinkPort, spineDownlinkPort } from './names.js';
import { clearEgress, shapeEgress } from './port.js';

async function ipIn(namespace: string, args: string[]): Promise<void> {
  await run('ip', ['-n', namespace, ...args]);
}

export async function addBridge(sw: string, bridge: string): Promise<void> {
  await ipIn(sw, ['link', 'add', bridge, 'type', 'bridge']);
  await ipIn(sw, ['link', 'set', bridge, 'up']);
}

/** The spine and the leaf bridges (no uplinks yet: wireUplink). */
export async function addLeafBridges(sw: string, leaves: number): Promise<void> {
  await addBridge(sw, SPINE_BRIDGE);
  for (let leaf = 0; leaf < leaves; leaf++) await addBridge(sw, leafBridge(leaf));
}

/** Leaf `leaf`'s uplink to the spine at `rateBps` each way, with `bufferBytes` of buffer at each end. */
export async function wireUplink(
  sw: string,
  leaf: number,
  rateBps: number,
  bufferBytes: number,
): Promise<void> {
  const up = leafUplinkPort(leaf);
  const down = spineDownlinkPort(leaf);
  await ipIn(sw, ['link', 'add', up, 'type', 'veth', 'peer', 'name', down]);
  await limitGso(sw, up);
  await limitGso(sw, down);
  for (const dev of [up, down]) await shapeEgress(sw, dev, { rateBps, bufferBytes });
  await ipIn(sw, ['link', 'set', up, 'master', leafBridge(leaf)]);
  await ipIn(sw, ['link', 'set', down, 'master', SPINE_BRIDGE]);
  for (const dev of [up, down]) await ipIn(sw, ['link', 'set', dev, 'up']);
}

/** A running uplink shaped anew at `rateBps` (an `uplink-rate` fault added by `testbed fault`). */
export async function reshapeUplink(
  sw: string,
  leaf: number,
  rateBps: number,
  bufferBytes: number,
): Promise<void> {
  for (const dev of [leafUplinkPort(leaf), spineDownlinkPort(leaf)]) {
    await clearEgress(sw, dev);
    await shapeEgress(sw, dev, { rateBps, bufferBytes });
  }
}
