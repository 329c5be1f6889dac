/**
 * nccl-tests parsing over a stream (a file, a pipe, a socket): constant memory in the noise, so
 * a 100 MB NCCL_DEBUG=INFO log parses without being read into one string.
 */
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { LineSplitter } from './line-splitter.js';
import { NcclTestsAccumulator, toParseResult, type AccumulatorOptions } from './nccl-tests-accumulator.js';
import { parseNcclTestsJson } from './nccl-tests-json.js';
import type { NcclTestsFacts } from './nccl-tests-types.js';
import type { ParseResult } from './types.js';

/** A -J report bigger than this is not a report nccl-tests wrote: stop rather than exhaust memory. */
const MAX_JSON_REPORT_BYTES = 256 * 1024 * 1024;

export async function parseNcclTestsStream(
  source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  options: AccumulatorOptions = {},
): Promise<ParseResult<NcclTestsFacts>> {
  const accumulator = new NcclTestsAccumulator(options);
  const splitter = new LineSplitter();
  const push = (line: string): void => accumulator.push(line);
  // The -J report is one JSON document: recognised by its first character and parsed whole.
  let mode: 'unknown' | 'text' | 'json' = 'unknown';
  const jsonChunks: string[] = [];
  let jsonBytes = 0;
  const decoder = new StringDecoder('utf8');
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (mode === 'unknown') {
      const trimmed = text.trimStart();
      if (trimmed !== '') mode = trimmed.startsWith('{') ? 'json' : 'text';
    }
    if (mode === 'json') {
      jsonBytes += text.length;
      if (jsonBytes > MAX_JSON_REPORT_BYTES) break;
      jsonChunks.push(text);
    } else {
      splitter.write(text, push);
    }
  }
  const rest = decoder.end();
  if (mode === 'json') return toParseResult(parseNcclTestsJson(jsonChunks.join('') + rest));
  if (rest !== '') splitter.write(rest, push);
  splitter.end(push);
  return toParseResult(accumulator.finish());
}

export async function parseNcclTestsFile(
  path: string,
  options: AccumulatorOptions = {},
): Promise<ParseResult<NcclTestsFacts>> {
  return parseNcclTestsStream(createReadStream(path, { highWaterMark: 1 << 20 }), options);
}
