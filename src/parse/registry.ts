/**
 * Every parser aifabric knows, and the ways to use them: sniff the kind of a text (`detectKind`),
 * parse it as a named kind (`parseAs`), or parse a paste into one result per host (`parsePasteAs`).
 * Parser files register here with one import and one array entry each; the registry hands out each
 * parser wrapped by the paste normaliser, so detection and parsing both read text as people paste it.
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
import { mlnxQosParser } from './mlnx-qos.js';
import { sonicConfigDbParser } from './sonic-config-db.js';
import { virtParser } from './virt.js';
import { dmiParser } from './dmi.js';
import { cpuinfoParser } from './cpuinfo.js';
import { kinetoTraceParser } from './kineto-parser.js';
import { detectPasteAll, parsePaste, pasteTolerant, type PasteParseResult } from './paste-parse.js';
import { NotThisKindError, type Parser, type ParserKind, type ParseResult } from './types.js';

/** The parsers as written: they read a tool's output as the tool printed it. */
export const rawParsers: Parser[] = [
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
  mlnxQosParser,
  sonicConfigDbParser,
  virtParser,
  dmiParser,
  cpuinfoParser,
  kinetoTraceParser,
];

/** The same parsers reading pastes (prompts, prefixes, indentation, elisions, CRLF, colour removed). */
export const parsers: Parser[] = rawParsers.map((parser) => pasteTolerant(parser));

/** Below this confidence a text is not considered to be of any kind. */
export const DETECT_THRESHOLD = 0.5;

export interface DetectedKind {
  kind: ParserKind;
  confidence: number;
}

export function findParser(kind: string): Parser | undefined {
  return parsers.find((parser) => parser.kind === kind);
}

/** The parser as written, without the paste normaliser (streaming readers normalise line by line). */
export function findRawParser(kind: string): Parser | undefined {
  return rawParsers.find((parser) => parser.kind === kind);
}

export function knownKinds(): ParserKind[] {
  return parsers.map((parser) => parser.kind);
}

/** The most confident parser's kind, or undefined when none reaches DETECT_THRESHOLD. */
export function detectKind(text: string): DetectedKind | undefined {
  let best: DetectedKind | undefined;
  let confidences: number[];
  try {
    confidences = detectPasteAll(rawParsers.map(safeDetector), text);
  } catch {
    return undefined;
  }
  rawParsers.forEach((parser, index) => {
    const confidence = confidences[index] ?? 0;
    if (confidence >= DETECT_THRESHOLD && (!best || confidence > best.confidence))
      best = { kind: parser.kind, confidence };
  });
  return best;
}

/** A sniffer that throws is a bug in that parser; it must not stop detection of the others. */
function safeDetector(parser: Parser): Parser {
  return {
    ...parser,
    detect: (text) => {
      try {
        return parser.detect(text);
      } catch {
        return 0;
      }
    },
  };
}

/** Parse as the given kind; throws NotThisKindError when the text is not of that kind. */
export function parseAs(kind: ParserKind, text: string): ParseResult<unknown> {
  const parser = findParser(kind);
  if (!parser) throw new NotThisKindError(kind, 1, 'no parser registered for this kind');
  return parser.parse(text);
}

/** Parse a paste as the given kind, or as the detected kind: one result per pdsh/clush host. */
export function parsePasteAs(kind: ParserKind | undefined, text: string): PasteParseResult[] {
  const chosen = kind ?? detectKind(text)?.kind;
  const parser = chosen === undefined ? undefined : findRawParser(chosen);
  if (!parser) throw new NotThisKindError(chosen ?? 'nccl-tests', 1, 'no parser registered for this kind');
  return parsePaste(parser, text);
}
