/** Evidence strings point at `file:line` and quote the value seen, so a reader can open the capture at the right place. */
import type { Capture } from './types.js';

export function evidenceAt(
  capture: Pick<Capture, 'source'>,
  line: number | null | undefined,
  value: string,
): string {
  return line ? `${capture.source}:${line} ${value}` : `${capture.source} ${value}`;
}

/** 1-based line of the first match in the capture's text; null when the text was not kept or nothing matches. */
export function findLine(capture: Pick<Capture, 'text'>, pattern: RegExp): number | null {
  if (capture.text === undefined) return null;
  const lines = capture.text.split('\n');
  const index = lines.findIndex((line) => pattern.test(line));
  return index === -1 ? null : index + 1;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
