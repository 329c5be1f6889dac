/** iperf3 output, text or `-J` JSON: per-stream and total rates in Gbps, retransmits, UDP loss. */
import { parseIperf3Json } from './iperf3-json.js';
import { parseIperf3Text } from './iperf3-text.js';
import type { Iperf3Facts } from './iperf3-types.js';
import { NotThisKindError, type ParseResult, type Parser } from './types.js';

export type {
  Iperf3Protocol,
  Iperf3Role,
  Iperf3Side,
  Iperf3Stream,
  Iperf3Measurement,
  Iperf3Total,
  Iperf3Facts,
} from './iperf3-types.js';

const DETECT_PREFIX_CHARS = 64 * 1024;

function looksLikeJson(text: string): boolean {
  return text.trimStart().startsWith('{');
}

function detectIperf3(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (looksLikeJson(head)) {
    // Keys only iperf3 writes together; a truncated document still has them near its start.
    const keys = [
      '"test_start"',
      '"bits_per_second"',
      '"sum_sent"',
      '"intervals"',
      '"connecting_to"',
      '"tcp_mss_default"',
    ];
    const found = keys.filter((key) => head.includes(key)).length;
    return found >= 2 ? 0.95 : 0;
  }
  if (/^\[ ID\] Interval\s+Transfer\s+(Bitrate|Bandwidth)/m.test(head)) return 0.95;
  if (/^\[\s*(\d+|SUM)\]\s+\d+\.\d+-\s*\d+\.\d+\s+sec\s+\S+\s+\w*Bytes\s/m.test(head)) return 0.9;
  if (/^iperf Done\.$/m.test(head)) return 0.9;
  if (/^(Connecting to host \S+, port \d+|Server listening on \d+)/m.test(head)) return 0.7;
  return 0;
}

export function parseIperf3(text: string): ParseResult<Iperf3Facts> {
  if (looksLikeJson(text)) {
    if (detectIperf3(text) === 0) throw new NotThisKindError('iperf3', 1, text.trimStart().slice(0, 60));
    const { facts, warnings } = parseIperf3Json(text);
    return { kind: 'iperf3', facts, warnings };
  }
  const { facts, warnings, recognised } = parseIperf3Text(text);
  if (!recognised) {
    const lines = text.split(/\r?\n/);
    const firstIndex = lines.findIndex((line) => line.trim().length > 0);
    throw new NotThisKindError('iperf3', firstIndex + 1, lines[firstIndex] ?? '');
  }
  return { kind: 'iperf3', facts, warnings };
}

export const iperf3Parser: Parser<Iperf3Facts> = {
  kind: 'iperf3',
  description: 'iperf3 text or -J JSON: per-stream and total Gbps, retransmits, UDP jitter and loss',
  detect: detectIperf3,
  parse: parseIperf3,
};
