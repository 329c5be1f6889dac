/**
 * Line-level readers for perftest output. Each returns undefined for a line that is not of its
 * shape, so the assembler in perftest.ts can try them in turn. Formats follow perftest's
 * src/perftest_parameters.c (ctx_print_test_info) and src/perftest_resources.c (print_report_*).
 */
import type {
  PerftestBandwidthUnit,
  PerftestMeasure,
  PerftestQpAddress,
  PerftestVerb,
} from './perftest-types.js';

export interface PerftestTitle {
  title: string;
  verb: PerftestVerb | null;
  measure: PerftestMeasure;
  bidirectional: boolean;
}

// `RDMA_Write BW Test`, `Send Latency Test`, `RDMA_Write Post List BW Test`, `Atomic FETCH_AND_ADD Latency Test`.
const TITLE = /^\s*((RDMA_Write|RDMA_Read|Send|Atomic)\b[\w ]*?\b(BW|Latency) Test)\s*$/;

export function readTitle(line: string): PerftestTitle | undefined {
  const match = TITLE.exec(line);
  if (!match) return undefined;
  const verbWord = match[2];
  const verb: PerftestVerb | null =
    verbWord === 'RDMA_Write'
      ? 'write'
      : verbWord === 'RDMA_Read'
        ? 'read'
        : verbWord === 'Send'
          ? 'send'
          : 'atomic';
  const title = match[1] ?? '';
  return {
    title,
    verb,
    measure: match[3] === 'BW' ? 'bandwidth' : 'latency',
    bidirectional: title.includes('Bidirectional'),
  };
}

// Words before a colon that are not header keys although they look like one.
const NOT_HEADER_KEYS = new Set(['local address', 'remote address', 'gid', 'warning', 'connected']);

/**
 * The `Key : value` pairs of a header line; perftest prints one or two per line, padded with
 * spaces or tabs (`Dual-port       : OFF\t\tDevice         : mlx5_0`).
 */
export function readHeaderPairs(line: string): Array<[string, string]> {
  const spaced = line.replace(/\t/g, '  ');
  if (!/^\s{0,4}[A-Za-z]/.test(spaced)) return [];
  const pairs: Array<[string, string]> = [];
  // Sticky: every pair starts where the previous one ended, so a colon inside a value or a shell
  // prompt (`root@host:/dir#`) is never read as a key.
  const pattern = /\s*([A-Za-z][A-Za-z0-9_*.\- ]{0,30}?)\s*:\s*(\S+)/y;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < spaced.trimEnd().length && (match = pattern.exec(spaced)) !== null) {
    const key = (match[1] ?? '').trim();
    const value = match[2] ?? '';
    if (key.length === 0 || key.length > 24 || NOT_HEADER_KEYS.has(key.toLowerCase())) return [];
    pairs.push([key, value]);
  }
  return pattern.lastIndex >= spaced.trimEnd().length ? pairs : [];
}

/** perftest prints LID, QPN, PSN and RKey with %#x-style formats (LID 0 prints as `0000`). */
function hexField(fields: string, name: string): number | null {
  const match = new RegExp(`\\b${name}\\s+(0x[0-9a-fA-F]+|[0-9a-fA-F]+)\\b`).exec(fields);
  if (!match?.[1]) return null;
  const value = Number.parseInt(match[1].replace(/^0x/i, ''), 16);
  return Number.isFinite(value) ? value : null;
}

export function readAddress(line: string, lineNumber: number): PerftestQpAddress | undefined {
  const match = /^\s*(local|remote) address:\s*(.*)$/.exec(line);
  if (!match) return undefined;
  const fields = match[2] ?? '';
  const vaddr = /\bVAddr\s+(0x[0-9a-fA-F]+)/.exec(fields)?.[1] ?? null;
  return {
    side: match[1] === 'local' ? 'local' : 'remote',
    line: lineNumber,
    lid: hexField(fields, 'LID'),
    qpn: hexField(fields, 'QPN'),
    psn: hexField(fields, 'PSN'),
    rkey: hexField(fields, 'RKey'),
    vaddr,
    gid: null,
    gidIpv6: null,
  };
}

/** The `GID: 00:00:...:255:255:10:0:0:1` line (16 decimal bytes) that follows an address on RoCE. */
export function readGid(line: string): string | undefined {
  const match = /^\s*GID:\s*((?:\d{1,3}:){15}\d{1,3})\s*$/.exec(line);
  return match?.[1];
}

/** 16 decimal bytes to the usual IPv6 text form; IPv4-mapped GIDs (RoCE v2 over IPv4) as ::ffff:a.b.c.d. */
export function gidBytesToIpv6(gid: string): string | null {
  const bytes = gid.split(':').map((part) => Number.parseInt(part, 10));
  if (bytes.length !== 16 || bytes.some((b) => !Number.isInteger(b) || b < 0 || b > 255)) return null;
  const isMapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 255 && bytes[11] === 255;
  if (isMapped) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  return compressIpv6(groups);
}

function compressIpv6(groups: number[]): string {
  // RFC 5952: the longest run of two or more zero groups becomes `::`.
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < groups.length;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < groups.length && groups[j] === 0) j++;
    if (j - i > bestLength && j - i >= 2) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

export type LatencyColumn = 'tMinUs' | 'tMaxUs' | 'tTypicalUs' | 'tAvgUs' | 'tStdevUs' | 'p99Us' | 'p999Us';

export type TableHeader =
  | { measure: 'bandwidth'; unit: PerftestBandwidthUnit }
  | { measure: 'latency'; columns: LatencyColumn[] }
  | { measure: 'unsupported'; text: string };

/** `#bytes #iterations ...`: the columns decide how the rows below are read. */
export function readTableHeader(line: string): TableHeader | undefined {
  const match = /^\s*#bytes\s+#iterations\s+(.*)$/.exec(line);
  if (!match) return undefined;
  const rest = match[1] ?? '';
  if (/BW[ _]peak|BW[ _]average/.test(rest)) {
    return { measure: 'bandwidth', unit: rest.includes('Gb/sec') ? 'Gb/sec' : 'MB/sec' };
  }
  if (rest.includes('t_min')) {
    const columns: LatencyColumn[] = [];
    const known: Array<[RegExp, LatencyColumn]> = [
      [/t_min/, 'tMinUs'],
      [/t_max/, 'tMaxUs'],
      [/t_typical/, 'tTypicalUs'],
      [/t_avg/, 'tAvgUs'],
      [/t_stdev/, 'tStdevUs'],
      [/(^|\s)99% percentile/, 'p99Us'],
      [/99\.9% percentile/, 'p999Us'],
    ];
    for (const [pattern, column] of known) if (pattern.test(rest)) columns.push(column);
    return { measure: 'latency', columns };
  }
  return { measure: 'unsupported', text: rest.trim() };
}

/** Whitespace-separated numeric fields of a result row, or undefined when the line is not a row. */
export function readNumericRow(line: string): number[] | undefined {
  const trimmed = line.trim();
  if (!/^\d+(\s|$)/.test(trimmed)) return undefined;
  const tokens = trimmed.split(/\s+/);
  const values = tokens.map(Number);
  if (values.some((v) => !Number.isFinite(v))) return undefined;
  return values;
}

/** perftest's MB/sec is 2^20 bytes per second; its Gb/sec is 10^9 bits per second (perftest_resources.c format_factor). */
export function toGbps(value: number, unit: PerftestBandwidthUnit): number {
  return unit === 'Gb/sec' ? value : (value * 1048576 * 8) / 1e9;
}
