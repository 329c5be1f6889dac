/**
 * The nccl-tests parser (all_reduce_perf, all_gather_perf, ... of NVIDIA/nccl-tests): text output
 * of every layout in use and the `-J` JSON report, to NcclTestsFacts. See nccl-tests-layout.ts for
 * the layouts and nccl-tests-accumulator.ts for the streaming core this wraps.
 */
import { NcclTestsAccumulator, toParseResult } from './nccl-tests-accumulator.js';
import { looksLikeNcclTestsJson, parseNcclTestsJson } from './nccl-tests-json.js';
import { parseNcclTestsStream } from './nccl-tests-stream.js';
import type { NcclTestsFacts } from './nccl-tests-types.js';
import type { Parser, ParseResult } from './types.js';

/** How much of the text detect() looks at: nccl-tests prints its header before NCCL's init logs. */
const DETECT_PREFIX_CHARS = 1 << 20;

// `#` optional throughout: output pasted into Markdown loses it.
const STRONG_MARKERS = [
  /#?\s*nccl-tests version \d/,
  /#?\s*Collective test (?:starting|concluded): \w+_perf/,
  /(?:^|[#:>\]])\s*nThread \d+ nGpus \d+ minBytes \d+/m,
  /(?:^|[#:>\]])\s*(?:size|bytes)\s+(?:count|N)\s+type\b.*\bbusbw\b/m,
];
const FOOTER_MARKERS = [
  /(?:^|[#:>\]])\s*Out of bounds values\s*:\s*\d+/m,
  /(?:^|[#:>\]])\s*Avg bus bandwidth\s*:\s*[\d.]/m,
];
/** A result row of any layout: size count type [redop] [root] then at least time algbw busbw. */
const ROW =
  /^\s*(?:\S+\s)?\s*\d+\s+\d+\s+[A-Za-z_]\w*\s+(?:[A-Za-z_]\w*\s+)?(?:-?\d+\s+)?[\d.]+(?:e[-+]\d+)?\s+[\d.]+\s+[\d.]+\s+(?:\d+|N\/A|[\d.]+e[-+]\d+)\s/m;

export function detectNcclTests(text: string): number {
  const head = text.length > DETECT_PREFIX_CHARS ? text.slice(0, DETECT_PREFIX_CHARS) : text;
  if (looksLikeNcclTestsJson(head)) return 0.95;
  if (STRONG_MARKERS.some((marker) => marker.test(head))) return 0.95;
  const footer = FOOTER_MARKERS.some((marker) => marker.test(head));
  const rows = head.split('\n', 4000).filter((line) => ROW.test(`${line} `)).length;
  if (footer && rows > 0) return 0.9;
  if (rows >= 2) return 0.7;
  if (footer) return 0.6;
  return 0;
}

/** Parse nccl-tests output (text of any layout, or the -J JSON report). Throws NotThisKindError on other text. */
export function parseNcclTests(text: string): ParseResult<NcclTestsFacts> {
  if (looksLikeNcclTestsJson(text)) return toParseResult(parseNcclTestsJson(text));
  const accumulator = new NcclTestsAccumulator();
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    // A final terminator does not start another line.
    if (start === text.length && start > 0) break;
    accumulator.push(text.slice(start, end));
    start = end + 1;
  }
  return toParseResult(accumulator.finish());
}

export const ncclTestsParser: Parser<NcclTestsFacts> = {
  kind: 'nccl-tests',
  description:
    'nccl-tests *_perf output (every layout since 2.0, MPI/Slurm prefixes, NCCL logs) and -J JSON reports',
  detect: detectNcclTests,
  parse: parseNcclTests,
  parseStream: (source) => parseNcclTestsStream(source),
};
