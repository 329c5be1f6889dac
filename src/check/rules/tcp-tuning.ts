/**
 * Family `tcp` (NCCL over sockets):
 * - tcp.sockets: NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD opens enough streams per peer to
 *   fill the line (one stream is limited by one core); above NCCL's cap of 64 NCCL lowers the
 *   sockets per thread itself (src/transport/net_socket.cc, MAX_SOCKETS), so the setting is not what runs.
 * - tcp.buffers: the kernel's socket buffer limits hold twice the bandwidth-delay product (Linux
 *   gives half of the buffer to the window at the default tcp_adv_win_scale).
 */
import { makeFinding } from '../../core/rules.js';
import { evidenceAt } from '../evidence.js';
import { hostNccl } from '../host-facts.js';
import {
  capturesOf,
  type Capture,
  type CheckContext,
  type CheckFinding,
  type HostCaptures,
  type RuleFamily,
  type RuleOutput,
} from '../types.js';
import type { FabricSpec } from '../../spec/index.js';

/** NCCL src/transport/net_socket.cc: MAX_SOCKETS; above it NCCL sets NCCL_NSOCKS_PERTHREAD to 64 / threads. */
export const MAX_SOCKETS_PER_PEER = 64;

function checkSockets(host: HostCaptures, fabric: FabricSpec): CheckFinding[] {
  const nccl = hostNccl(host);
  const env = capturesOf(host, 'nccl-env')[0];
  if (!env || !fabric.tcp) return [];
  const threads = nccl.settings?.socketNthreads ?? 1;
  const perThread = nccl.settings?.nsocksPerthread ?? 1;
  // What NCCL actually opens: it trims sockets per thread to fit its cap.
  const streams =
    threads * perThread > MAX_SOCKETS_PER_PEER
      ? threads * Math.floor(MAX_SOCKETS_PER_PEER / threads)
      : threads * perThread;
  const needed = Math.ceil(fabric.lineRateGbps / fabric.tcp.perStreamGbps);
  const threadsVar = nccl.variables.get('NCCL_SOCKET_NTHREADS');
  const socksVar = nccl.variables.get('NCCL_NSOCKS_PERTHREAD');
  const shown = `NCCL_SOCKET_NTHREADS=${threadsVar?.value ?? '(default 1)'} x NCCL_NSOCKS_PERTHREAD=${socksVar?.value ?? '(default 1)'}`;
  const where = threadsVar ?? socksVar;
  const evidence = where ? evidenceAt(where.capture, where.line, shown) : `${env.source} ${shown}`;
  const base = { family: 'tcp' as const, host: host.host, evidence, streams, neededStreams: needed };
  if (threads < 1 || perThread < 1) {
    // NCCL env docs: NCCL_SOCKET_NTHREADS accepts 1 to 16, NCCL_NSOCKS_PERTHREAD at least 1; no count of sockets is below 1.
    const bad =
      threads < 1
        ? `NCCL_SOCKET_NTHREADS=${threadsVar?.value ?? threads}`
        : `NCCL_NSOCKS_PERTHREAD=${socksVar?.value ?? perThread}`;
    const badVar = threads < 1 ? threadsVar : socksVar;
    return [
      makeFinding('tcp.sockets', {
        ...base,
        streams: null,
        severity: 'error',
        evidence: badVar ? evidenceAt(badVar.capture, badVar.line, bad) : evidence,
        message: `${bad} is out of range: NCCL accepts 1 to 16 threads and at least 1 socket per thread`,
        remediation: `Set NCCL_SOCKET_NTHREADS (1 to 16) and NCCL_NSOCKS_PERTHREAD (1 or more) so their product is at least ${needed}, at most ${MAX_SOCKETS_PER_PEER}.`,
      }),
    ];
  }
  const unsetNote =
    threadsVar || socksVar
      ? ''
      : ' (unset: NCCL opens 1 x 1 except on AWS and GCP NICs, where it picks 2 x 8 and 4 x 1)';
  if (threads * perThread > MAX_SOCKETS_PER_PEER) {
    return [
      makeFinding('tcp.sockets', {
        ...base,
        severity: 'warn',
        message: `${threads * perThread} sockets per peer is over NCCL's cap of ${MAX_SOCKETS_PER_PEER}: NCCL lowers NCCL_NSOCKS_PERTHREAD to ${Math.floor(MAX_SOCKETS_PER_PEER / threads)} and opens ${streams}`,
        remediation: `Set a product of at most ${MAX_SOCKETS_PER_PEER} so the configuration says what runs, e.g. NCCL_SOCKET_NTHREADS=4 NCCL_NSOCKS_PERTHREAD=${Math.min(16, Math.max(1, Math.ceil(needed / 4)))}.`,
      }),
    ];
  }
  if (streams < needed) {
    return [
      makeFinding('tcp.sockets', {
        ...base,
        severity: 'warn',
        message: `${streams} socket(s) per peer at about ${fabric.tcp.perStreamGbps} Gb/s each cannot fill ${fabric.lineRateGbps} Gb/s; about ${needed} are needed${unsetNote}`,
        remediation: `Raise NCCL_SOCKET_NTHREADS and NCCL_NSOCKS_PERTHREAD so their product is at least ${needed} (for example 4 x ${Math.ceil(needed / 4)}).`,
      }),
    ];
  }
  return [
    makeFinding('tcp.sockets', {
      ...base,
      severity: 'pass',
      message: `${streams} socket(s) per peer, enough for ${fabric.lineRateGbps} Gb/s`,
    }),
  ];
}

function checkBuffers(host: HostCaptures, capture: Capture<'sysctl'>, fabric: FabricSpec): CheckFinding[] {
  if (!fabric.tcp) return [];
  const bdpBytes = (fabric.lineRateGbps * 1e9 * fabric.tcp.rttUs * 1e-6) / 8;
  const need = 2 * bdpBytes;
  const network = capture.facts.network;
  const lineOf = (key: string): number | null =>
    capture.facts.entries.find((entry) => entry.key === key)?.line ?? null;
  const values: { key: string; value: number | null; severity: 'warn' | 'info' }[] = [
    { key: 'net.ipv4.tcp_rmem', value: network.tcpRmem?.maxBytes ?? null, severity: 'warn' },
    { key: 'net.ipv4.tcp_wmem', value: network.tcpWmem?.maxBytes ?? null, severity: 'warn' },
    // core.*mem_max only caps buffers that applications set explicitly (SO_RCVBUF / SO_SNDBUF).
    { key: 'net.core.rmem_max', value: network.coreRmemMaxBytes, severity: 'info' },
    { key: 'net.core.wmem_max', value: network.coreWmemMaxBytes, severity: 'info' },
  ];
  const known = values.filter((entry) => entry.value !== null);
  if (known.length === 0) return [];
  const small = known.filter((entry) => entry.value! < need);
  const bdpText = `2 x BDP = 2 x ${fabric.lineRateGbps} Gb/s x ${fabric.tcp.rttUs.toFixed(1)} us = ${Math.round(need)} B`;
  const base = { family: 'tcp' as const, host: host.host, bdpBytes };
  if (small.length > 0) {
    const severity = small.some((entry) => entry.severity === 'warn') ? 'warn' : 'info';
    return [
      makeFinding('tcp.buffers', {
        ...base,
        severity,
        message: `socket buffer limits below ${bdpText}: ${small.map((entry) => `${entry.key} max ${entry.value}`).join(', ')}`,
        evidence: evidenceAt(capture, lineOf(small[0]!.key), `${small[0]!.key} max ${small[0]!.value}`),
        remediation: `Raise the limits to at least ${Math.ceil(need)} B (sysctl -w net.ipv4.tcp_rmem="4096 131072 ${Math.max(Math.ceil(need), 6291456)}", the same for tcp_wmem, net.core.rmem_max/wmem_max) and persist them in /etc/sysctl.d.`,
      }),
    ];
  }
  return [
    makeFinding('tcp.buffers', {
      ...base,
      severity: 'pass',
      message: `socket buffer limits hold ${bdpText}`,
      evidence: evidenceAt(capture, lineOf(known[0]!.key), `${known[0]!.key} max ${known[0]!.value}`),
    }),
  ];
}

function run(context: CheckContext): RuleOutput {
  const findings: CheckFinding[] = [];
  const notes: string[] = [];
  const fabric = context.fabric;
  if (!fabric || fabric.transport !== 'tcp') {
    // On a known RDMA fabric the socket checks simply do not apply; say so only when the fabric is unknown.
    if (
      !fabric &&
      context.hosts.some(
        (host) => capturesOf(host, 'sysctl').length + capturesOf(host, 'nccl-env').length > 0,
      )
    )
      notes.push(
        'tcp: no fabric declared; socket and buffer checks skipped (pass --fabric tcp-100g or similar)',
      );
    return { findings, notes };
  }
  for (const host of context.hosts) {
    findings.push(...checkSockets(host, fabric));
    for (const capture of capturesOf(host, 'sysctl')) findings.push(...checkBuffers(host, capture, fabric));
  }
  return { findings, notes };
}

export const tcpRules: RuleFamily = { id: 'tcp', title: 'TCP sockets and buffers', run };
