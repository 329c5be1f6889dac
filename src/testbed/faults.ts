/**
 * Faults on one host's port, given as `--fault HOST:KIND=VALUE` (repeatable; HOST is the short
 * host name `hK`): `loss=F` drops a random fraction F of the packets crossing the port, in both
 * directions; `rate=RATE` makes the port slower than `--rate`, in both directions. Parsing and
 * validation are pure; the tc commands that make them live in port.ts.
 */
import { UsageError, parseRate } from '../core/index.js';
import { MAX_RATE_BPS } from './names.js';

export type FaultKind = 'loss' | 'rate';
export const FAULT_KINDS: readonly FaultKind[] = ['loss', 'rate'];

export interface Fault {
  /** Host index K of `hK`. */
  host: number;
  kind: FaultKind;
  /** loss: the fraction in (0, 1); rate: bits per second. */
  value: number;
  /** The `--fault` text as the user gave it, for messages. */
  given?: string;
}

/** What one host's port gets from its faults (undefined: as the testbed's other ports). */
export interface PortFaults {
  lossFraction?: number;
  rateBps?: number;
}

const USAGE = 'expected HOST:KIND=VALUE, e.g. h1:loss=0.01 or h2:rate=250Mbps';

function invalid(text: string, why: string): UsageError {
  return new UsageError(`invalid value for --fault: "${text}" (${why})`);
}

/** The syntax of one `--fault`; the host range and the rate bound need the spec: validateFaults. */
export function parseFault(text: string): Fault {
  const match = /^\s*([^:\s]+):([^=\s]+)=(\S+)\s*$/.exec(text);
  if (!match) throw invalid(text, USAGE);
  const [, hostText, kindText, valueText] = match as unknown as [string, string, string, string];
  const host = /^h(\d{1,3})$/.exec(hostText);
  if (!host) throw invalid(text, `unknown host "${hostText}": hosts are named h0, h1, ...`);
  if (!(FAULT_KINDS as readonly string[]).includes(kindText)) throw invalid(text, `unknown kind "${kindText}": expected one of ${FAULT_KINDS.join(', ')}`);
  const kind = kindText as FaultKind;
  if (kind === 'loss') {
    const fraction = Number(valueText);
    if (!(fraction > 0 && fraction < 1)) throw invalid(text, `loss must be a fraction above 0 and below 1, e.g. 0.01 for 1%`);
    return { host: Number(host[1]), kind, value: fraction, given: text };
  }
  let rateBps: number;
  try {
    rateBps = parseRate(valueText);
  } catch {
    throw invalid(text, `rate "${valueText}" is not a rate such as 250Mbps, 1G or 1gbit`);
  }
  return { host: Number(host[1]), kind, value: rateBps, given: text };
}

/** Checks the faults against the testbed they are for; returns them sorted by host, then kind. */
export function validateFaults(faults: readonly Fault[], hosts: number, portRateBps: number): Fault[] {
  const seen = new Set<string>();
  for (const fault of faults) {
    const text = fault.given ?? formatFault(fault);
    if (fault.host >= hosts) throw invalid(text, `unknown host h${fault.host}: a ${hosts}-host testbed has h0..h${hosts - 1}`);
    const key = `${fault.host}:${fault.kind}`;
    if (seen.has(key)) throw invalid(text, `h${fault.host} has ${fault.kind} given twice`);
    seen.add(key);
    if (fault.kind === 'loss' && !(fault.value > 0 && fault.value < 1)) throw invalid(text, 'loss must be a fraction above 0 and below 1');
    if (fault.kind === 'rate') {
      if (!(fault.value >= 8000)) throw invalid(text, 'rate must be at least 8kbit');
      if (fault.value > portRateBps) throw invalid(text, `rate ${formatBitRate(fault.value)} is above --rate ${formatBitRate(portRateBps)}: a fault can only slow a port`);
      if (fault.value > MAX_RATE_BPS) throw invalid(text, `rate above ${formatBitRate(MAX_RATE_BPS)}`);
    }
  }
  return [...faults].sort((a, b) => a.host - b.host || a.kind.localeCompare(b.kind));
}

/** A rate for people: 250 Mbit/s, 1 Gbit/s. */
export function formatBitRate(bps: number): string {
  const [unit, scale] = bps >= 1e9 ? ['Gbit/s', 1e9] : bps >= 1e6 ? ['Mbit/s', 1e6] : ['kbit/s', 1e3];
  return `${Number((bps / scale).toPrecision(6))} ${unit}`;
}

export function formatFault(fault: Fault): string {
  return `h${fault.host}:${fault.kind}=${fault.kind === 'rate' ? `${Math.round(fault.value)}bit` : fault.value}`;
}

export function portFaults(faults: readonly Fault[], host: number): PortFaults | undefined {
  const mine = faults.filter((fault) => fault.host === host);
  if (mine.length === 0) return undefined;
  const loss = mine.find((fault) => fault.kind === 'loss');
  const rate = mine.find((fault) => fault.kind === 'rate');
  return { ...(loss ? { lossFraction: loss.value } : {}), ...(rate ? { rateBps: rate.value } : {}) };
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
  if (!(fraction > 0 && fraction < 1)) throw new UsageError(`loss fraction ${fraction} is not between 0 and 1`);
  const threshold = Math.min(2 ** 32 - 1, Math.max(1, Math.round(fraction * 2 ** 32)));
  const program: [number, number, number, number][] = [
    [BPF_LD_W_ABS, 0, 0, SKF_AD_RANDOM_K],
    [BPF_JMP_JGE_K, 0, 1, threshold],
    [BPF_RET_K, 0, 0, RET_NO_MATCH],
    [BPF_RET_K, 0, 0, RET_MATCH],
  ];
  return `${program.length},${program.map((instruction) => instruction.join(' ')).join(',')}`;
}
