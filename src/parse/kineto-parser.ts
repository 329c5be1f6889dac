/**
 * The `pytorch-trace` parser kind: a Kineto (PyTorch profiler) Chrome trace to one rank's
 * TraceRankFacts, through the registry like every tool output. Text given whole is scanned as one
 * chunk; `parseStream` takes chunks, so a trace of GBs never becomes one string. Files (.json.gz,
 * .tar.gz of ranks, file-name ranks) go through trace-files.ts, which parse-file.ts calls.
 */
import { KinetoTraceReader } from './kineto-reader.js';
import type { TraceRankFacts } from './trace-types.js';
import { NotThisKindError, type ParseResult, type Parser, type TextSource } from './types.js';

const DETECT_PREFIX_CHARS = 1 << 20;

/** Kineto writes these top-level keys; a head with `"traceEvents"`, or the other two, is a trace. */
export function detectKinetoTrace(text: string): number {
  const head = text.slice(0, DETECT_PREFIX_CHARS);
  if (
    !head
      .replace(/^\uFEFF/, '')
      .trimStart()
      .startsWith('{')
  )
    return 0;
  if (head.includes('"traceEvents"')) return 0.95;
  if (
    head.includes('"schemaVersion"') &&
    (head.includes('"deviceProperties"') || head.includes('"distributedInfo"'))
  )
    return 0.9;
  return 0;
}

function toResult(reader: KinetoTraceReader, text: () => string): ParseResult<TraceRankFacts> {
  const outcome = reader.finish();
  if (!outcome.isTrace) throw NotThisKindError.atFirstLine('pytorch-trace', text());
  const warnings = outcome.warnings.map((message) => ({ message }));
  if (outcome.facts.rank === null)
    warnings.push({
      message: outcome.hasDistributedInfo
        ? 'distributedInfo has no rank'
        : 'no distributedInfo: the rank is unknown',
    });
  return { kind: 'pytorch-trace', facts: outcome.facts, warnings };
}

export function parseKinetoTrace(text: string): ParseResult<TraceRankFacts> {
  const reader = new KinetoTraceReader('-');
  reader.push(Buffer.from(text, 'utf8'));
  return toResult(reader, () => text);
}

export async function parseKinetoTraceStream(source: TextSource): Promise<ParseResult<TraceRankFacts>> {
  const reader = new KinetoTraceReader('-');
  let head = '';
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (head.length < 4096) head += bytes.toString('utf8', 0, 4096);
    reader.push(bytes);
    if (reader.done) break;
  }
  return toResult(reader, () => head);
}

export const kinetoTraceParser: Parser<TraceRankFacts> = {
  kind: 'pytorch-trace',
  description:
    'PyTorch profiler (Kineto) trace JSON: NCCL collectives, profiler steps and busy time of one rank',
  detect: detectKinetoTrace,
  parse: parseKinetoTrace,
  parseStream: parseKinetoTraceStream,
};
