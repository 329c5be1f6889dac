/**
 * Every parser, made to read pastes: the text goes through the paste normaliser (paste.ts), each
 * segment (one per pdsh/clush host) is parsed, and line numbers in warnings and facts are mapped
 * back to the paste's own lines. The paste's last line gets a second look: a line wrapped by a
 * terminal or a mail client is joined back when that reads better, and a last line without a line
 * end (the paste may have been cut there) earns a warning naming it.
 */
import { normalisePaste, segmentText, type PasteLine, type PasteSegment } from './paste.js';
import { NotThisKindError, type Parser, type ParseResult, type ParseWarning } from './types.js';

/** How much of a text detection normalises: enough for every tool's header (as parse-file reads). */
const DETECT_HEAD_CHARS = 1 << 20;
/** Above this the last-line checks (two more parses) are skipped: big inputs are files, not pastes. */
const LAST_LINE_CHECK_MAX_CHARS = 8 << 20;
const EXCERPT_CHARS = 40;

export interface PasteParseResult<F = unknown> extends ParseResult<F> {
  /** The pdsh/clush host prefix the segment carried; null when the paste had none. */
  host: string | null;
}

/** Keys of facts that hold a 1-based line of the input. */
function isLineKey(key: string): boolean {
  return key === 'line' || key.endsWith('Line');
}

/** Map every line number in the facts (keys `line`, `...Line`) from segment lines to paste lines. */
function remapFacts(value: unknown, map: (line: number) => number): unknown {
  if (Array.isArray(value)) return value.map((item) => remapFacts(item, map));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] =
      isLineKey(key) && typeof item === 'number' && Number.isInteger(item) && item >= 1
        ? map(item)
        : remapFacts(item, map);
  }
  return out;
}

function lineMapper(lines: readonly PasteLine[]): (line: number) => number {
  return (line) => lines[line - 1]?.line ?? lines.at(-1)?.line ?? line;
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return JSON.stringify(trimmed.length > EXCERPT_CHARS ? `${trimmed.slice(0, EXCERPT_CHARS)}...` : trimmed);
}

function tryParse<F>(parser: Parser<F>, segment: PasteSegment, lines: PasteLine[]): ParseResult<F> | null {
  try {
    return parser.parse(segmentText({ ...segment, lines }));
  } catch (error) {
    if (error instanceof NotThisKindError) return null;
    throw error;
  }
}

/** How many facts a result holds: its non-null numbers, strings and booleans. */
function factCount(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + factCount(item), 0);
  if (typeof value === 'object')
    return Object.values(value as Record<string, unknown>).reduce(
      (sum: number, item) => sum + factCount(item),
      0,
    );
  return 1;
}

function sameFacts(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Index (in lines) of the last non-blank line, or -1. */
function lastContentIndex(lines: readonly PasteLine[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]!.text.trim() !== '') return i;
  return -1;
}

interface Read<F> {
  result: ParseResult<F>;
  lines: PasteLine[];
  extra: ParseWarning[];
}

/** The second look at the last line: join a wrapped one, warn about one that may be cut. */
function checkLastLine<F>(parser: Parser<F>, segment: PasteSegment, first: ParseResult<F>): Read<F> {
  const read: Read<F> = { result: first, lines: segment.lines, extra: [] };
  const last = lastContentIndex(segment.lines);
  if (last < 0) return read;
  const lastLine = segment.lines[last]!;
  const warnedAt = (result: ParseResult<F>, index: number): boolean =>
    result.warnings.some((warning) => warning.line === index + 1);
  const terminated = segment.endsWithNewline || last < segment.lines.length - 1;
  const lastWarned = warnedAt(first, last);
  const without = tryParse(parser, segment, segment.lines.slice(0, last));
  const unread = without !== null && sameFacts(without.facts, first.facts);
  const previous = last > 0 ? segment.lines[last - 1]! : undefined;
  // A wrap leaves a head that reads as nothing (`export NC`) or a tail that does (`CL_IB_HCA=...`): either side unread or warned.
  // The head is blanked, not removed, so the lines after it keep their numbers.
  const previousWarned = previous !== undefined && warnedAt(first, last - 1);
  const previousUnread =
    previous !== undefined &&
    !unread &&
    !lastWarned &&
    !previousWarned &&
    sameFacts(
      tryParse(
        parser,
        segment,
        segment.lines.map((line, index) => (index === last - 1 ? { text: '', line: line.line } : line)),
      )?.facts,
      first.facts,
    );
  // A bare `#` (nccl-tests closes its table with one, and puts one before `# Collective test concluded`) is a
  // whole line, neither the head nor the tail of a wrapped one.
  const commentLine = lastLine.text.trim() === '#' || previous?.text.trim() === '#';
  if (
    previous &&
    !commentLine &&
    previous.text.trim() !== '' &&
    (unread || lastWarned || previousWarned || previousUnread)
  ) {
    const joinedLines = [
      ...segment.lines.slice(0, last - 1),
      { text: previous.text + lastLine.text, line: previous.line },
      ...segment.lines.slice(last + 1),
    ];
    const joined = tryParse(parser, segment, joinedLines);
    if (joined !== null) {
      // Joined only when it reads better: a cut-looking line completed, or facts the two lines apart do not give.
      const completes =
        previousWarned &&
        joined.warnings.length < first.warnings.length &&
        factCount(joined.facts) >= factCount(first.facts);
      const adds =
        (unread || previousUnread) &&
        joined.warnings.length <= first.warnings.length &&
        factCount(joined.facts) > factCount(first.facts);
      if (completes || adds) {
        return {
          result: joined,
          lines: joinedLines,
          extra: [
            {
              line: lastLine.line,
              message: `lines ${previous.line}-${lastLine.line} read as one: the last line looked wrapped (${excerpt(lastLine.text)})`,
            },
          ],
        };
      }
      if ((unread || previousUnread) && !lastWarned && !sameFacts(joined.facts, first.facts)) {
        read.extra.push({
          line: lastLine.line,
          message: `lines ${previous.line}-${lastLine.line} may be one line wrapped in two; read apart (${excerpt(lastLine.text)})`,
        });
        return read;
      }
    }
  }
  if (!terminated && !lastWarned) {
    const message = unread
      ? `the last line was not read (cut short?): ${excerpt(lastLine.text)}`
      : `the last line has no line end: if the paste was cut there, its values may be incomplete (${excerpt(lastLine.text)})`;
    read.extra.push({ line: lastLine.line, message });
  }
  return read;
}

function parseSegment<F>(parser: Parser<F>, segment: PasteSegment, checkLast: boolean): PasteParseResult<F> {
  const text = segmentText(segment);
  const first = parser.parse(text);
  const read = checkLast
    ? checkLastLine(parser, segment, first)
    : { result: first, lines: segment.lines, extra: [] };
  const map = lineMapper(read.lines);
  const identity = !segment.changed && read.lines === segment.lines;
  const warnings = [
    ...segment.warnings,
    ...read.result.warnings.map((warning) =>
      warning.line === undefined || identity ? warning : { ...warning, line: map(warning.line) },
    ),
    ...read.extra,
  ];
  const facts = identity ? read.result.facts : (remapFacts(read.result.facts, map) as F);
  return { kind: read.result.kind, facts, warnings, host: segment.host };
}

function bestConfidence(parser: Parser, text: string, segments: readonly PasteSegment[]): number {
  let best = 0;
  for (const segment of segments) {
    const confidence = parser.detect(segment.changed ? segmentText(segment) : text);
    if (confidence > best) best = confidence;
  }
  return best;
}

/**
 * The normalisation this parser reads best: with the uniform indentation removed, or kept (a tool
 * that indents its own lines, grepped).
 */
function segmentsFor(parser: Parser, text: string): { segments: PasteSegment[]; confidence: number } {
  const head = text.length > DETECT_HEAD_CHARS ? text.slice(0, DETECT_HEAD_CHARS) : text;
  const kept = normalisePaste(head, { keepIndent: true });
  const dedented = normalisePaste(head);
  const keptConfidence = bestConfidence(parser, head, kept);
  const dedentedConfidence = dedented.some(
    (segment, index) => segmentText(segment) !== segmentText(kept[index] ?? segment),
  )
    ? bestConfidence(parser, head, dedented)
    : keptConfidence;
  // Dedented wins ties: tools print from the first column; kept wins only where it reads better (grepped ethtool counters).
  const keepIndent = keptConfidence > dedentedConfidence;
  const confidence = Math.max(keptConfidence, dedentedConfidence);
  if (head === text) return { segments: keepIndent ? kept : dedented, confidence };
  return { segments: normalisePaste(text, { keepIndent }), confidence };
}

/** Confidence of every parser at once: the two normalisations of the head are made once, not per parser. */
export function detectPasteAll(parsers: readonly Parser[], text: string): number[] {
  const head = text.length > DETECT_HEAD_CHARS ? text.slice(0, DETECT_HEAD_CHARS) : text;
  const kept = normalisePaste(head, { keepIndent: true });
  const dedented = normalisePaste(head);
  const differs = dedented.some(
    (segment, index) => segmentText(segment) !== segmentText(kept[index] ?? segment),
  );
  return parsers.map((parser) =>
    Math.max(bestConfidence(parser, head, kept), differs ? bestConfidence(parser, head, dedented) : 0),
  );
}

/** Detect on the normalised head of the text: the most confident segment wins. */
export function detectPaste(parser: Parser, text: string): number {
  return segmentsFor(parser, text.length > DETECT_HEAD_CHARS ? text.slice(0, DETECT_HEAD_CHARS) : text)
    .confidence;
}

/** One result per host segment; throws NotThisKindError when no segment is of the parser's kind. */
export function parsePaste<F>(parser: Parser<F>, text: string): PasteParseResult<F>[] {
  const { segments } = segmentsFor(parser, text);
  const checkLast = text.length <= LAST_LINE_CHECK_MAX_CHARS;
  const results: PasteParseResult<F>[] = [];
  let refusal: NotThisKindError | undefined;
  for (const segment of segments) {
    try {
      results.push(parseSegment(parser, segment, checkLast));
    } catch (error) {
      if (!(error instanceof NotThisKindError)) throw error;
      refusal ??= error;
    }
  }
  if (results.length === 0) throw refusal ?? new NotThisKindError(parser.kind, 1, 'empty');
  return results;
}

/** A parser that reads pastes: detection and parsing through the normaliser; multi-host pastes give the first host and a warning. */
export function pasteTolerant<F>(parser: Parser<F>): Parser<F> {
  return {
    ...parser,
    detect: (text) => detectPaste(parser, text),
    parse: (text) => {
      const [first, ...others] = parsePaste(parser, text);
      const { host, ...result } = first!;
      if (others.length === 0) return result;
      const hosts = [host, ...others.map((other) => other.host)].join(', ');
      return {
        ...result,
        warnings: [
          {
            message: `the paste holds ${others.length + 1} hosts (${hosts}); these facts are ${host ?? 'the first'}'s`,
          },
          ...result.warnings,
        ],
      };
    },
  };
}
