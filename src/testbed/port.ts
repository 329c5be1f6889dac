/**
 * The tc side of a switch port. Every port's egress (towards its host) is an htb class at the port
 * rate with a bfifo of the buffer bytes as its only queue. A faulty host's port also carries its
 * faults, on the switch side and in both directions:
 *
 *   host eth0 ══ p{i} ─ pb{i} ─ u{i} egress [htb+bfifo, loss] ══ b{i} ─ br0
 *   host eth0 ←─ p{i} egress [htb+bfifo, loss] ─ pb{i} ─ u{i} ══ b{i} ─ br0
 *
 * Towards the host, loss and rate sit on p{i}'s egress as for any port. From the host, they cannot
 * sit on the host's own eth0: a qdisc drop there is returned to the sending socket, which retries it
 * at once, so it is local back-pressure, not network loss. Nor on p{i}'s ingress, which has no
 * queue to shape with. So p{i} and an extra veth u{i} are the two ports of a bridge pb{i}, and u{i}'s
 * peer b{i} is the port of br0: the host's frames leave by u{i}'s egress, and drops there happen in
 * the switch, after the host's transmit has succeeded, as on a lossy cable or a slow switch port.
 * (A tc mirred redirect from p{i}'s ingress to u{i}, as before 2026-12-04, kept each frame charged
 * to its sending socket, so TCP Small Queues held u{i}'s queue to about 1 ms of the sender's pacing
 * rate; hostport.ts addHop.) Loss is a `bpf` classifier (classic bytecode, see lossBytecode) that
 * steers its fraction of frames into an htb class whose bfifo holds 1 byte, so every frame sent
 * there is dropped and counted in that qdisc's `dropped`.
 */
import { run } from './exec.js';
import { lossBytecode } from './faults.js';

/** htb's per-class quantum; explicit so high rates do not trip the "quantum is big" clamp. */
const HTB_QUANTUM_BYTES = 60_000;
/** The drop class never sends (its bfifo holds nothing); its rate is the smallest tc takes. */
const DROP_CLASS_RATE = '8kbit';
/** One maximum Ethernet frame: the drop class's quantum, so htb does not warn that it is small. */
const DROP_CLASS_QUANTUM_BYTES = 1514;
/** A bfifo of 1 byte: any frame is larger, so every frame steered into it is dropped. */
const DROP_FIFO_BYTES = 1;

export const NORMAL_CLASS = '1:10';
export const DROP_CLASS = '1:20';
export const DROP_QDISC = '20:';

export interface PortShape {
  rateBps: number;
  bufferBytes: number;
  lossFraction?: number;
}

/** The egress of `dev` in namespace `ns`: htb at the rate, a bfifo buffer, and loss if asked. */
export async function shapeEgress(ns: string, dev: string, shape: PortShape): Promise<void> {
  const rate = `${Math.round(shape.rateBps)}bit`;
  await run('tc', ['-n', ns, 'qdisc', 'add', 'dev', dev, 'root', 'handle', '1:', 'htb', 'default', '10']);
  await run('tc', [
    '-n',
    ns,
    'class',
    'add',
    'dev',
    dev,
    'parent',
    '1:',
    'classid',
    NORMAL_CLASS,
    'htb',
    'rate',
    rate,
    'ceil',
    rate,
    'quantum',
    String(HTB_QUANTUM_BYTES),
  ]);
  await run('tc', [
    '-n',
    ns,
    'qdisc',
    'add',
    'dev',
    dev,
    'parent',
    NORMAL_CLASS,
    'handle',
    '10:',
    'bfifo',
    'limit',
    String(shape.bufferBytes),
  ]);
  if (shape.lossFraction === undefined) return;
  await run('tc', [
    '-n',
    ns,
    'class',
    'add',
    'dev',
    dev,
    'parent',
    '1:',
    'classid',
    DROP_CLASS,
    'htb',
    'rate',
    DROP_CLASS_RATE,
    'ceil',
    DROP_CLASS_RATE,
    'quantum',
    String(DROP_CLASS_QUANTUM_BYTES),
  ]);
  await run('tc', [
    '-n',
    ns,
    'qdisc',
    'add',
    'dev',
    dev,
    'parent',
    DROP_CLASS,
    'handle',
    DROP_QDISC,
    'bfifo',
    'limit',
    String(DROP_FIFO_BYTES),
  ]);
  await run('tc', [
    '-n',
    ns,
    'filter',
    'add',
    'dev',
    dev,
    'parent',
    '1:',
    'protocol',
    'all',
    'prio',
    '1',
    'bpf',
    'bytecode',
    lossBytecode(shape.lossFraction),
    'classid',
    DROP_CLASS,
  ]);
}

/** Removes the root qdisc of `dev` (and with it its classes, filters and loss), before a new shape. */
export async function clearEgress(ns: string, dev: string): Promise<void> {
  await run('tc', ['-n', ns, 'qdisc', 'del', 'dev', dev, 'root']);
}

/** Sets the MTU of each of `devs` in namespace `ns`. */
export async function setMtu(ns: string, devs: readonly string[], mtu: number): Promise<void> {
  for (const dev of devs) await run('ip', ['-n', ns, 'link', 'set', 'dev', dev, 'mtu', String(mtu)]);
}

/** One qdisc's line of `tc -s qdisc show`: its kind, handle and `dropped` counter. */
export interface QdiscDrops {
  kind: string;
  handle: string;
  dropped: number;
}

/**
 * The `dropped` counter of every qdisc in the output of `tc -s qdisc show` (each qdisc's line,
 * then its `Sent ... (dropped N, ...)` line).
 */
export function parseQdiscDrops(text: string): QdiscDrops[] {
  const out: QdiscDrops[] = [];
  for (const m of text.matchAll(/qdisc (\S+) (\S+) [^\n]*\n\s*Sent \d+ bytes \d+ pkt \(dropped (\d+)/g))
    out.push({ kind: m[1]!, handle: m[2]!, dropped: Number(m[3]) });
  return out;
}

/**
 * Frames a port's bfifos dropped, from `tc -s qdisc show` output: the port's buffer (10:) and its
 * loss class (20:) both count there. Only the bfifo lines: htb's own line repeats its children's.
 */
export const bfifoDrops = (text: string): number =>
  parseQdiscDrops(text).reduce((sum, q) => (q.kind === 'bfifo' ? sum + q.dropped : sum), 0);
