/**
 * The paste normaliser over a stream, for streaming parsers: a plan made from the head of the
 * input, then each line normalised as it arrives. Lines the normaliser drops (prompts without a
 * command, elisions) come out empty, so the parser's line numbers stay the input's own.
 */
import { LineSplitter } from './line-splitter.js';
import { normaliseLine, type PastePlan } from './paste.js';
import type { TextSource } from './types.js';

export async function* normaliseStream(source: TextSource, plan: PastePlan): AsyncGenerator<string> {
  const splitter = new LineSplitter();
  const out: string[] = [];
  const onLine = (raw: string): void => {
    const line = normaliseLine(plan, raw);
    out.push(
      line.role === 'elision' || (line.role === 'prompt' && line.text === '') ? '\n' : `${line.text}\n`,
    );
  };
  for await (const chunk of source) {
    splitter.write(chunk, onLine);
    if (out.length > 0) yield out.splice(0).join('');
  }
  splitter.end(onLine);
  if (out.length > 0) yield out.splice(0).join('');
}
