/**
 * Faults, given as `--fault TARGET:KIND=VALUE` (repeatable). On a host's port (TARGET is the
 * short host name `hK`): `loss=F` drops a random fraction F of the packets crossing the port, in
 * both directions; `rate=RATE` makes the port slower than `--rate`, in both directions;
 * `mtu=N` sets the MTU of the host's eth0 and of its switch-side peer; `cpu=F` caps every process
 * `testbed run` launches on the host at F cores (a CPU cgroup quota, cgroup.ts). On a leaf's
 * uplink (TARGET is `leafK`, only with `--leaves` above 1): `uplink-rate=RATE` makes that leaf's
 * uplink to the spine slower than `--uplink-rate`, in both directions. Parsing and validation
 * are pure; the commands that make them live in port.ts, uplink.ts and cgroup.ts.
 */
import { UsageError, parseRate } from '../core/index.js';
import { MAX_RATE_BPS } from './names.js';

export type HostFaultKind = 'loss' | 'rate' | 'mtu' | 'cpu';
export type LeafFaultKind = 'uplink-rate';
export type FaultKind = HostFaultKind | LeafFaultKind;
export const HOST_FAULT_KINDS: readonly HostFaultKind[] = ['loss', 'rate', 'mtu', 'cpu'];
export const LEAF_FAULT_KINDS: readonly LeafFaultKind[] = ['uplink-rate'];
export const FAULT_KINDS: readonly FaultKind[] = [...HOST_FAULT_KINDS, ...LEAF_FAULT_KINDS];

/** A fault on host K's port or processes. */
export interface HostFault {
  /** Host index K of `hK`. */
  host: number;
  kind: HostFaultKind;
  /** loss: the fraction in (0, 1); rate: bits per second; mtu: bytes; cpu: cores. */
  value: number;
  /** The `--fault` text as the user gave it, for messages. */
  given?: string;
}

/** A fault on leaf K's uplink to the spine. */
export interface LeafFault {
  /** Leaf index K of `leafK`. */
  leaf: number;
  kind: LeafFaultKind;
  /** uplink-rate: bits per second. */
  value: number;
  given?: string;
}

export type Fault = HostFault | LeafFault;

export const isHostFault = (fault: Fault): fault is HostFault => 'host' in fault;
export const isLeafFault = (fault: Fault): fault is LeafFault => 'leaf' in fault;

/** What one host's port gets from its faults (undefined: as the testbed's other ports). */
export interface PortFaults {
  lossFraction?: number;
  rateBps?: number;
}

/** What a testbed is, as far as its faults are concerned (validateFaults). */
export interface FaultContext {
  hosts: number;
  portRateBps: number;
  /** Leaf switches (1: a single switch, no uplinks). */
  leaves?: number;
  uplinkRateBps?: number;
  /** Egress buffer of the ports: an MTU above it would drop every full frame. */
  bufferBytes?: number;
}

/** MTU bounds: 576, the datagram every IPv4 host must accept (RFC 791), to 9000, the usual jumbo frame. */
export const MIN_MTU = 576;
export const MAX_MTU = 9000;
/** CPU cap bounds in cores: 0.01 is 1 ms per 100 ms period, the kernel's smallest CFS quota (kernel/sched/core.c min_cfs_quota_period). */
export const MIN_CPU_CORES = 0.01;
export const MAX_CPU_CORES = 1024;
/** Ethernet header bytes on top of the MTU: a port's buffer must hold one full frame. */
const ETHERNET_HEADER_BYTES = 14;

const USAGE =
  'expected HOST:KIND=VALUE, e.g. h1:loss=0.01, h2:rate=250Mbps, h3:mtu=1400, h4:cpu=0.25 or leaf1:uplink-rate=50Mbps';

function invalid(text: string, why: string): UsageError {
  return new UsageError(`invalid value for --fault: "${text}" (${why})`);
}

function parseRateValue(text: string, valueText: string): number {
  try {
    return parseRate(valueText);
  } catch {
    throw invalid(text, `rate "${valueText}" is not a rate such as 250Mbps, 1G or 1gbit`);
  }
}

/** The syntax of one `--fault`; the ranges that need the testbed's spec: validateFaults. */
export function parseFault(text: string): Fault {
  const match = /^\s*([^:\s]+):([^=\s]+)=(\S+)\s*$/.exec(text);
  if (!match) throw invalid(text, USAGE);
  const [, targetText, kindText, valueText] = match as unknown as [string, string, string, string];
  const leaf = /^leaf(\d{1,3})$/.exec(targetText);
  if (leaf) {
    if (!(LEAF_FAULT_KINDS as readonly string[]).includes(kindText))
      throw invalid(text, `unknown kind "${kindText}" for a leaf: expected ${LEAF_FAULT_KINDS.join(', ')}`);
    return {
      leaf: Number(leaf[1]),
      kind: 'uplink-rate',
      value: parseRateValue(text, valueText),
      given: text,
    };
  }
  const host = /^h(\d{1,3})$/.exec(targetText);
  if (!host)
    throw invalid(
      text,
      `unknown host "${targetText}": hosts are named h0, h1, ..., leaves leaf0, leaf1, ...`,
    );
  if (!(HOST_FAULT_KINDS as readonly string[]).includes(kindText))
    throw invalid(
      text,
      `unknown kind "${kindText}": expected one of ${HOST_FAULT_KINDS.join(', ')} (or leafK:uplink-rate=RATE)`,
    );
  const kind = kindText as HostFaultKind;
  const index = Number(host[1]);
  if (kind === 'loss') {
    const fraction = Number(valueText);
    if (!(fraction > 0 && fraction < 1))
      throw invalid(text, `loss must be a fraction above 0 and below 1, e.g. 0.01 for 1%`);
    return { host: index, kind, value: fraction, given: text };
  }
  if (kind === 'mtu') {
    const mtu = /^\d+$/.test(valueText) ? Number(valueText) : Number.NaN;
    if (!(mtu >= MIN_MTU && mtu <= MAX_MTU))
      throw invalid(text, `mtu must be a whole number of bytes from ${MIN_MTU} to ${MAX_MTU}, e.g. 1400`);
    return { host: index, kind, value: mtu, given: text };
  }
  if (kind === 'cpu') {
    const cores = /^\d*\.?\d+$/.test(valueText) ? Number(valueText) : Number.NaN;
    if (!(cores >= MIN_CPU_CORES && cores <= MAX_CPU_CORES))
      throw invalid(
        text,
        `cpu must be a number of cores from ${MIN_CPU_CORES} to ${MAX_CPU_CORES}, e.g. 0.25`,
      );
    return { host: index, kind, value: cores, given: text };
  }
  return { host: index, kind, value: parseRateValue(text, valueText), given: text };
}

function checkRate(text: string, rateBps: number, boundBps: number, flag: string, what: string): void {
  if (!(rateBps >= 8000)) throw invalid(text, 'rate must be at least 8kbit');
  if (rateBps > boundBps)
    throw invalid(
      text,
      `rate ${formatBitRate(rateBps)} is above ${flag} ${formatBitRate(boundBps)}: a fault can only slow ${what}`,
    );
  if (rateBps > MAX_RATE_BPS) throw invalid(text, `rate above ${formatBitRate(MAX_RATE_BPS)}`);
}

const targetName = (fault: Fault): string => (isHostFault(fault) ? `h${fault.host}` : `leaf${fault.leaf}`);

/**
 * Checks the faults against the testbed they are for; returns them sorted: hosts' by host, then
 * kind, then leaves' by leaf. The legacy form `validateFaults(faults, hosts, portRateBps)` still works.
 */
export function validateFaults(
  faults: readonly Fault[],
  contextOrHosts: FaultContext | number,
  portRateBps?: number,
): Fault[] {
  const context: FaultContext =
    typeof contextOrHosts === 'number'
      ? { hosts: contextOrHosts, portRateBps: portRateBps ?? MAX_RATE_BPS }
      : contextOrHosts;
  const { hosts, leaves = 1 } = context;
  const seen = new Set<string>();
  for (const fault of faults) {
    const text = fault.given ?? formatFault(fault);
    const key = `${targetName(fault)}:${fault.kind}`;
    if (isLeafFault(fault)) {
      if (leaves <= 1) throw invalid(text, 'a leaf fault needs a two-tier testbed (--leaves 2 or more)');
      if (fault.leaf >= leaves)
        throw invalid(
          text,
          `unknown leaf leaf${fault.leaf}: a ${leaves}-leaf testbed has leaf0..leaf${leaves - 1}`,
        );
      checkRate(text, fault.value, context.uplinkRateBps ?? MAX_RATE_BPS, '--uplink-rate', 'an uplink');
    } else {
      if (fault.host >= hosts)
        throw invalid(text, `unknown host h${fault.host}: a ${hosts}-host testbed has h0..h${hosts - 1}`);
      if (fault.kind === 'loss' && !(fault.value > 0 && fault.value < 1))
        throw invalid(text, 'loss must be a fraction above 0 and below 1');
      if (fault.kind === 'rate') checkRate(text, fault.value, context.portRateBps, '--rate', 'a port');
      if (fault.kind === 'mtu') {
        if (!(Number.isInteger(fault.value) && fault.value >= MIN_MTU && fault.value <= MAX_MTU))
          throw invalid(text, `mtu must be ${MIN_MTU} to ${MAX_MTU} bytes`);
        if (context.bufferBytes !== undefined && fault.value + ETHERNET_HEADER_BYTES > context.bufferBytes) {
          throw invalid(
            text,
            `a ${fault.value + ETHERNET_HEADER_BYTES}-byte frame does not fit in --buffer ${context.bufferBytes} bytes`,
          );
        }
      }
      if (fault.kind === 'cpu' && !(fault.value >= MIN_CPU_CORES && fault.value <= MAX_CPU_CORES))
        throw invalid(text, `cpu must be ${MIN_CPU_CORES} to ${MAX_CPU_CORES} cores`);
    }
    if (seen.has(key)) throw invalid(text, `${targetName(fault)} has ${fault.kind} given twice`);
    seen.add(key);
  }
  return sortFaults(faults);
}

export function sortFaults(faults: readonly Fault[]): Fault[] {
  const order = (fault: Fault): [number, number] => (isHostFault(fault) ? [0, fault.host] : [1, fault.leaf]);
  return [...faults].sort((a, b) => {
    const [ta, ia] = order(a);
    const [tb, ib] = order(b);
    return ta - tb || ia - ib || a.kind.localeCompare(b.kind);
  });
}

/** A rate for people: 250 Mbit/s, 1 Gbit/s. */
export function formatBitRate(bps: number): string {
  const [unit, scale] = bps >= 1e9 ? ['Gbit/s', 1e9] : bps >= 1e6 ? ['Mbit/s', 1e6] : ['kbit/s', 1e3];
  return `${Number((bps / scale).toPrecision(6))} ${unit}`;
}

/** The canonical `--fault` form: h1:loss=0.01, h2:rate=250000000bit, h3:mtu=1400, h4:cpu=0.25, leaf1:uplink-rate=50000000bit. */
export function formatFault(fault: Fault): string {
  const isRate = fault.kind === 'rate' || fault.kind === 'uplink-rate';
  return `${targetName(fault)}:${fault.kind}=${isRate ? `${Math.round(fault.value)}bit` : fault.value}`;
}

/** One fault for people: "h1 loses 1% of packets", "leaf1 uplink at 50 Mbit/s". */
export function describeFault(fault: Fault): string {
  if (isLeafFault(fault)) return `leaf${fault.leaf} uplink at ${formatBitRate(fault.value)}`;
  if (fault.kind === 'loss')
    return `h${fault.host} loses ${Number((fault.value * 100).toPrecision(6))}% of packets`;
  if (fault.kind === 'rate') return `h${fault.host} at ${formatBitRate(fault.value)}`;
  if (fault.kind === 'mtu') return `h${fault.host} MTU ${fault.value}`;
  return `h${fault.host} capped at ${fault.value} cores`;
}

/** The loss and rate of host `host`'s port (the faults that need the extra hop of port.ts). */
export function portFaults(faults: readonly Fault[], host: number): PortFaults | undefined {
  const mine = faults.filter((fault): fault is HostFault => isHostFault(fault) && fault.host === host);
  const loss = mine.find((fault) => fault.kind === 'loss');
  const rate = mine.find((fault) => fault.kind === 'rate');
  if (!loss && !rate) return undefined;
  return { ...(loss ? { lossFraction: loss.value } : {}), ...(rate ? { rateBps: rate.value } : {}) };
}

/** The value of host `host`'s fault of `kind`, if it has one. */
export function hostFault(faults: readonly Fault[], host: number, kind: 'mtu' | 'cpu'): number | undefined {
  return faults.find(
    (fault): fault is HostFault => isHostFault(fault) && fault.host === host && fault.kind === kind,
  )?.value;
}

/** The rate of leaf `leaf`'s uplink fault, if it has one. */
export function uplinkFault(faults: readonly Fault[], leaf: number): number | undefined {
  return faults.find((fault): fault is LeafFault => isLeafFault(fault) && fault.leaf === leaf)?.value;
}

/** Classic BPF opcodes (linux/filter.h, linux/bpf_common.h). */
const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JGE_K = 0x35;
const BPF_RET_K = 0x06;
/** `ld #rand`: the ancillary load SKF_AD_OFF + SKF_AD_RANDOM = -4096 + 56 (linux/filter.h), as an unsigned 32-bit k. */
const SKF_AD_RANDOM_K = 2 ** 32 - 4096 + 56;
/** cls_bpf: a return of -1 selects the filter's own classid, 0 means no match (net/sched/cls_bpf.c). */
const RET_MATCH = 2 ** 32 - 1;
const RET_NO_MATCH = 0;

/**
 * The classic BPF program that matches a random `fraction` of packets, in tc's `bytecode` form
 * (`N,op jt jf k,...`): load a fresh 32-bit random number, and match when it is below
 * fraction * 2^32 (unsigned compare).
 *   ld #rand; jge #T, 0, 1; ret #0; ret #-1
 */
export function lossBytecode(fraction: number): string {
  if (!(fraction > 0 && fraction < 1))
    throw new UsageError(`loss fraction ${fraction} is not between 0 and 1`);
  const threshold = Math.min(2 ** 32 - 1, Math.max(1, Math.round(fraction * 2 ** 32)));
  const program: [number, number, number, number][] = [
    [BPF_LD_W_ABS, 0, 0, SKF_AD_RANDOM_K],
    [BPF_JMP_JGE_K, 0, 1, threshold],
    [BPF_RET_K, 0, 0, RET_NO_MATCH],
    [BPF_RET_K, 0, 0, RET_MATCH],
  ];
  return `${program.length},${program.map((instruction) => instruction.join(' ')).join(',')}`;
}
