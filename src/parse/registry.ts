/**
 * Every parser aifabric knows, and the two ways to use them: sniff the kind of a text
 * (`detectKind`) or parse it as a named kind (`parseAs`). Parser files register here with
 * one import and one array entry each.
 */
import { ncclTestsParser } from './nccl-tests.js';
import { perftestParser } from './perftest.js';
import { iperf3Parser } from './iperf3.js';
import { ibvDevinfoParser } from './ibv-devinfo.js';
import { rdmaLinkParser } from './rdma-link.js';
import { showGidsParser } from './show-gids.js';
import { nvidiaSmiTopoParser } from './nvidia-smi-topo.js';
import { sysctlParser } from './sysctl.js';
import { ncclEnvParser } from './nccl-env.js';
import { ethtoolParser } from './ethtool.js';
import { NotThisKindError, type Parser, type ParserKind, type ParseResult } from './types.js';

export const parsers: Parser[] = [
  ncclTestsParser,
  perftestParser,
  iperf3Parser,
  ibvDevinfoParser,
  rdmaLinkParser,
  showGidsParser,
  nvidiaSmiTopoParser,
  sysctlParser,
  ncclEnvParser,
  ethtoolParser,
];

/** Below this confidence a text is not considered to be of any kind. */
export const DETECT_THRESHOLD = 0.5;

export interface DetectedKind {
  kind: ParserKind;
  confidence: number;
}

export function findParser(kind: string): Parser | undefined {
  return parsers.find((parser) => parser.kind === kind);
}

export function knownKinds(): ParserKind[] {
  return parsers.map((parser) => parser.kind);
}

/** The most confident parser's kind, or undefined when none reaches DETECT_THRESHOLD. */
export function detectKind(text: string): DetectedKind | undefined {
  let best: DetectedKind | undefined;
  for (const parser of parsers) {
    let confidence: number;
    try {
      confidence = parser.detect(text);
    } catch {
      // A sniffer that throws is a bug in that parser; it must not stop detection of the others.
      confidence = 0;
    }
    if (confidence >= DETECT_THRESHOLD && (!best || confidence > best.confidence)) {
      best = { kind: parser.kind, confidence };
    }
  }
  return best;
}

/** Parse as the given kind; throws NotThisKindError when the text is not of that kind. */
export function parseAs(kind: ParserKind, text: string): ParseResult<unknown> {
  const parser = findParser(kind);
  if (!parser) throw new NotThisKindError(kind, 1, 'no parser registered for this kind');
  return parser.parse(text);
}
