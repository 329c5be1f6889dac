/**
 * Recognise a captured text by content, whatever its file name, through the parse registry: every
 * kind check reads (the switch and host-identity kinds included) is a registered parser, and the
 * registry's parsers read pasted captures (prompts, prefixes, indentation) as well as clean ones.
 */
import { detectKind, parseAs, NotThisKindError, type ParseWarning } from '../../parse/index.js';
import type { CaptureFactsByKind, CaptureKind } from '../types.js';

export interface Recognised {
  kind: CaptureKind;
  facts: CaptureFactsByKind[CaptureKind];
  warnings: ParseWarning[];
}

/** The parsed text, or null when no kind recognises it. Never throws on content. */
export function recogniseText(text: string, kind?: CaptureKind): Recognised | null {
  const found = kind ?? detectKind(text)?.kind;
  // Profiler traces are `aifabric trace`'s input, not a capture check reads.
  if (found === undefined || found === 'pytorch-trace') return null;
  const detected: CaptureKind = found;
  try {
    const result = parseAs(detected, text);
    return {
      kind: detected,
      facts: result.facts as CaptureFactsByKind[CaptureKind],
      warnings: result.warnings,
    };
  } catch (error) {
    if (error instanceof NotThisKindError) return null;
    throw error;
  }
}
