/**
 * What a testbed is called on the machine: namespaces NAME-h0..NAME-h{N-1} for hosts and NAME-sw
 * for the switch; inside them, each host's `eth0` is joined by a veth pair to port `p{i}` of
 * bridge `br0` in the switch. Host i has address 10.99.0.{i+1}/24; rank 0's host is the rendezvous.
 * A two-tier testbed (`--leaves L`, L > 1) has no `br0`: the switch namespace holds one bridge per
 * leaf (`leaf0`..) and a `spine` bridge, each leaf joined to the spine by a veth pair `up{k}` (a
 * port of leaf k; its egress carries traffic up to the spine) and `dn{k}` (a port of the spine; its
 * egress carries traffic down to leaf k). Hosts sit under the leaves contiguously (leafOf).
 */
import { UsageError } from '../core/errors.js';

export const DEFAULT_TESTBED_NAME = 'aifab';
export const SUBNET_PREFIX = '10.99.0.';
export const PREFIX_LENGTH = 24;
export const MAX_HOSTS = 250;
export const TESTBED_MASTER_PORT = 29500;
/** Fastest port a testbed emulates: 800 Gb/s, the fastest Ethernet rate standardised (IEEE 802.3df-2024). */
export const MAX_RATE_BPS = 800e9;
/** Largest bfifo buffer: tc's `limit` is a 32-bit byte count (struct tc_fifo_qopt, linux/pkt_sched.h). */
export const MAX_BUFFER_BYTES = 2 ** 32 - 1;

export function validateName(name: string): string {
  // Short and plain: it becomes part of namespace names and is matched by pattern on `down`.
  if (!/^[a-z][a-z0-9]{0,11}$/.test(name)) {
    throw new UsageError(
      `invalid value for --name: "${name}" (expected 1 to 12 lower-case letters and digits, starting with a letter)`,
    );
  }
  return name;
}

export const hostNamespace = (name: string, index: number): string => `${name}-h${index}`;
export const switchNamespace = (name: string): string => `${name}-sw`;
export const hostAddress = (index: number): string => `${SUBNET_PREFIX}${index + 1}`;
export const switchPort = (index: number): string => `p${index}`;
/** A faulty host's extra hop in the switch: `u{i}` carries its traffic into the bridge through its peer `b{i}`. */
export const uplinkPort = (index: number): string => `u${index}`;
export const bridgePort = (index: number): string => `b${index}`;
/** The two-port bridge that joins a faulty host's port `p{i}` to its extra hop `u{i}`. */
export const portBridge = (index: number): string => `pb${index}`;
/** The short host name of `--fault HOST:...`. */
export const shortHostName = (index: number): string => `h${index}`;

/** Bridge names inside the switch namespace. */
export const SINGLE_BRIDGE = 'br0';
export const SPINE_BRIDGE = 'spine';
export const leafBridge = (leaf: number): string => `leaf${leaf}`;
/** Leaf k's end of its uplink (egress: leaf k to the spine) and the spine's end (egress: spine to leaf k). */
export const leafUplinkPort = (leaf: number): string => `up${leaf}`;
export const spineDownlinkPort = (leaf: number): string => `dn${leaf}`;
/** A leaf's uplink as the rest of aifabric names it (culprit ids): `leaf1-uplink`. */
export const uplinkName = (leaf: number): string => `leaf${leaf}-uplink`;

/**
 * The leaf of host `index` when `hosts` hosts sit under `leaves` leaves, contiguously and as evenly
 * as they divide: 12 hosts under 3 leaves put h0..h3 under leaf0, h4..h7 under leaf1, h8..h11 under leaf2.
 */
export function leafOf(index: number, hosts: number, leaves: number): number {
  return leaves <= 1 ? 0 : Math.floor((index * leaves) / hosts);
}

/** The bridge host `index`'s port joins. */
export const hostBridge = (index: number, hosts: number, leaves: number): string =>
  leaves <= 1 ? SINGLE_BRIDGE : leafBridge(leafOf(index, hosts, leaves));

/** The host indexes of testbed `name` among the namespaces listed by `ip netns list`. */
export function hostIndexes(name: string, namespaces: string[]): number[] {
  const pattern = new RegExp(`^${name}-h(\\d+)$`);
  return namespaces
    .map((ns) => pattern.exec(ns)?.[1])
    .filter((index): index is string => index !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}
