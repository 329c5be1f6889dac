/**
 * iperf3's human-readable output (client or server, TCP or UDP, -P streams with [SUM], -R).
 * Units follow iperf3 src/units.c: transfer in 1024-based Bytes/KBytes/MBytes/GBytes, rates in
 * 1000-based bits/Kbits/Mbits/Gbits per second.
 */
import type { Iperf3Facts, Iperf3Measurement, Iperf3Total } from './iperf3-types.js';
import type { ParseWarning } from './types.js';

const BYTE_FACTORS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
const BIT_FACTORS: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12 };

// [  5]   0.00-1.00   sec  1.40 GBytes  12.0 Gbits/sec  <rest>; --bidir adds a [TX-C]/[RX-S] tag.
const MEASUREMENT =
  /^\[\s*(\d+|SUM)\](?:\[[A-Z]{2}-[CS]\])?\s+(\d+(?:\.\d+)?)-\s*(\d+(?:\.\d+)?)\s+sec\s+(\d+(?:\.\d+)?)\s+([KMGT]?)Bytes\s+(\d+(?:\.\d+)?)\s+([KMGT]?)bits\/sec(.*)$/;
const CONNECTED =
  /^\[\s*(\d+)\]\s+local\s+(\S+)\s+port\s+(\d+)\s+connected\s+(?:to|with)\s+(\S+)\s+port\s+(\d+)/;
const SEPARATOR = /^- - - - - /;

export function bytesFrom(value: number, prefix: string): number {
  return value * (BYTE_FACTORS[prefix] ?? 1);
}

/** Reads the columns after the rate: Retr, Cwnd, Jitter, Lost/Total, datagrams, sender/receiver. */
function readTail(tail: string, measurement: Iperf3Measurement, countsDatagrams: boolean): void {
  let rest = tail.trim();
  const side = /\b(sender|receiver)\s*$/.exec(rest);
  if (side) {
    measurement.side = side[1] === 'sender' ? 'sender' : 'receiver';
    rest = rest.slice(0, side.index).trim();
  }
  if (/\(omitted\)/.test(rest)) {
    measurement.omitted = true;
    rest = rest.replace(/\(omitted\)/, '').trim();
  }
  const udp = /^(\d+(?:\.\d+)?)\s+ms\s+(\d+)\/(\d+)\s+\(([^)]*)\)/.exec(rest);
  if (udp) {
    measurement.jitterMs = Number(udp[1]);
    measurement.lostDatagrams = Number(udp[2]);
    measurement.totalDatagrams = Number(udp[3]);
    return;
  }
  const tcp = /^(\d+)(?:\s+(\d+(?:\.\d+)?)\s+([KMGT]?)Bytes)?$/.exec(rest);
  if (tcp) {
    // A lone integer is Retr on TCP lines but the datagram count on a UDP client's interval lines.
    if (tcp[2] === undefined && countsDatagrams) {
      measurement.totalDatagrams = Number(tcp[1]);
    } else {
      measurement.retransmits = Number(tcp[1]);
      if (tcp[2] !== undefined) measurement.cwndBytes = bytesFrom(Number(tcp[2]), tcp[3] ?? '');
    }
  }
}

function emptyTotal(): Iperf3Total {
  return {
    sentGbps: null,
    receivedGbps: null,
    retransmits: null,
    jitterMs: null,
    lostDatagrams: null,
    totalDatagrams: null,
    lossPercent: null,
  };
}

/** Totals from the [SUM] summary lines when there are several streams, else from the single stream's. */
export function totalFromSummaries(summaries: Iperf3Measurement[]): Iperf3Total {
  const total = emptyTotal();
  const sums = summaries.filter((m) => m.stream === 'sum');
  const chosen = sums.length > 0 ? sums : summaries.filter((m) => m.stream === summaries[0]?.stream);
  for (const m of chosen) {
    const side = m.side ?? (m.jitterMs !== null ? 'receiver' : null);
    if (side === 'sender') {
      total.sentGbps = m.rateGbps;
      if (m.retransmits !== null) total.retransmits = m.retransmits;
    } else if (side === 'receiver') {
      total.receivedGbps = m.rateGbps;
    }
    if (m.jitterMs !== null && (side === 'receiver' || total.jitterMs === null)) {
      total.jitterMs = m.jitterMs;
      total.lostDatagrams = m.lostDatagrams;
      total.totalDatagrams = m.totalDatagrams;
    }
  }
  if (total.lostDatagrams !== null && total.totalDatagrams) {
    total.lossPercent = (100 * total.lostDatagrams) / total.totalDatagrams;
  }
  return total;
}

/** Facts before anything is read: the starting point of both the text and the -J parser. */
export function emptyIperf3Facts(format: Iperf3Facts['format']): Iperf3Facts {
  return {
    format,
    role: null,
    protocol: null,
    reverse: false,
    version: null,
    streams: [],
    intervals: [],
    summaries: [],
    total: emptyTotal(),
    complete: false,
    errors: [],
  };
}

export function parseIperf3Text(text: string): {
  facts: Iperf3Facts;
  warnings: ParseWarning[];
  recognised: boolean;
} {
  const warnings: ParseWarning[] = [];
  const facts = emptyIperf3Facts('text');
  let recognised = false;
  let inSummary = false;
  let sawUdpColumns = false;
  // Whether the current `[ ID]` header announced `Total Datagrams` (a UDP client's intervals).
  let udpClientIntervals = false;
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const lineNumber = index + 1;
    if (/^Connecting to host \S+, port \d+/.test(line)) {
      facts.role = 'client';
      recognised = true;
      inSummary = false;
      return;
    }
    if (/^Server listening on \d+/.test(line) || /^Accepted connection from \S+, port \d+/.test(line)) {
      facts.role = 'server';
      recognised = true;
      if (/^Server listening/.test(line)) inSummary = false;
      return;
    }
    if (/^Reverse mode, remote host \S+ is sending/.test(line)) {
      facts.reverse = true;
      return;
    }
    if (/^iperf Done\./.test(line)) {
      facts.complete = true;
      recognised = true;
      return;
    }
    if (/^iperf3?: /.test(line)) {
      facts.errors.push(line.trim());
      warnings.push({ line: lineNumber, message: `iperf3 says: ${line.trim()}` });
      return;
    }
    if (/^\[ ID\] Interval\s+Transfer/.test(line)) {
      recognised = true;
      udpClientIntervals = /(?<!\/)Total Datagrams/.test(line);
      if (/Jitter|Datagrams/.test(line)) sawUdpColumns = true;
      return;
    }
    if (SEPARATOR.test(line)) {
      inSummary = true;
      return;
    }
    const connected = CONNECTED.exec(line);
    if (connected) {
      recognised = true;
      facts.streams.push({
        id: Number(connected[1]),
        localHost: connected[2] ?? null,
        localPort: Number(connected[3]),
        remoteHost: connected[4] ?? null,
        remotePort: Number(connected[5]),
      });
      return;
    }
    const match = MEASUREMENT.exec(line);
    if (match) {
      recognised = true;
      const measurement: Iperf3Measurement = {
        stream: match[1] === 'SUM' ? 'sum' : Number(match[1]),
        startS: Number(match[2]),
        endS: Number(match[3]),
        transferBytes: bytesFrom(Number(match[4]), match[5] ?? ''),
        rateGbps: (Number(match[6]) * (BIT_FACTORS[match[7] ?? ''] ?? 1)) / 1e9,
        retransmits: null,
        cwndBytes: null,
        jitterMs: null,
        lostDatagrams: null,
        totalDatagrams: null,
        side: null,
        omitted: false,
      };
      readTail(match[8] ?? '', measurement, udpClientIntervals && !inSummary);
      // sender/receiver lines are summaries even when the separator line was cut away.
      if (inSummary || measurement.side !== null) facts.summaries.push(measurement);
      else facts.intervals.push(measurement);
      return;
    }
    if (/^\[\s*(\d+|SUM)\]\s+\d/.test(line)) {
      warnings.push({ line: lineNumber, message: 'measurement line cut short or not understood; skipped' });
    }
  });
  const sawUdpFigures = [...facts.intervals, ...facts.summaries].some(
    (m) => m.jitterMs !== null || m.totalDatagrams !== null,
  );
  if (sawUdpColumns || sawUdpFigures) facts.protocol = 'udp';
  else if (facts.intervals.length > 0 || facts.summaries.length > 0) facts.protocol = 'tcp';
  facts.total = totalFromSummaries(facts.summaries);
  return { facts, warnings, recognised };
}
