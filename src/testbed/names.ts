/**
 * What a testbed is called on the machine: namespaces NAME-h0..NAME-h{N-1} for hosts and NAME-sw
 * for the switch; inside them, each host's `eth0` is joined by a veth pair to port `p{i}` of
 * bridge `br0` in the switch. Host i has address 10.99.0.{i+1}/24; rank 0's host is the rendezvous.
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
    throw new UsageError(`invalid value for --name: "${name}" (expected 1 to 12 lower-case letters and digits, starting with a letter)`);
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
/** The short host name of `--fault HOST:...`. */
export const shortHostName = (index: number): string => `h${index}`;

/** The host indexes of testbed `name` among the namespaces listed by `ip netns list`. */
export function hostIndexes(name: string, namespaces: string[]): number[] {
  const pattern = new RegExp(`^${name}-h(\\d+)$`);
  return namespaces
    .map((ns) => pattern.exec(ns)?.[1])
    .filter((index): index is string => index !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}
