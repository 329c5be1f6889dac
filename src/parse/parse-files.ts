/**
 * `parseFiles`: the engine behind `aifabric parse`. Reads each file in argument order (sequential:
 * streaming parsers keep memory flat, and failures come out in order) and returns the `parse`
 * envelope. A file that cannot be read or recognised lands in `metrics.failed`; when none at all
 * could be read it throws the InputError instead, as there is nothing to return.
 */
import { makeResult, type ResultEnvelope } from '../core/envelope.js';
import { InputError, UsageError } from '../core/errors.js';
import type { NcclTestsFacts, NcclTestsTest } from './nccl-tests-types.js';
import { parseFileAll, type ParsedFile } from './parse-file.js';
import { findParser, knownKinds } from './registry.js';
import type { ParserKind } from './types.js';

export interface ParseMetrics {
  /** One entry per file read, or per host of a multi-host paste (with `host`). */
  files: ParsedFile[];
  /** Files that could not be read or recognised, with the reason; the command then exits 2. */
  failed?: { file: string; message: string }[];
  /** The nccl-tests runs, directly, when exactly one nccl-tests file was given. */
  tests?: NcclTestsTest[];
}

export type ParseFilesResult = ResultEnvelope<ParseMetrics>;

export interface ParseFilesOptions {
  /** Parse every file as this kind (any name `findParser` knows) instead of detecting it. */
  kind?: string;
}

/** `file`, or `file (host h)` for one host's part of a multi-host paste. */
export function parsedFileLabel(parsed: ParsedFile): string {
  return parsed.host === undefined ? parsed.file : `${parsed.file} (host ${parsed.host})`;
}

export async function parseFiles(
  files: readonly string[],
  options: ParseFilesOptions = {},
): Promise<ParseFilesResult> {
  let kind: ParserKind | undefined;
  if (options.kind !== undefined) {
    const parser = findParser(options.kind);
    if (!parser)
      throw new UsageError(
        `invalid value for --kind: "${options.kind}" (expected one of ${knownKinds().join(', ')})`,
      );
    kind = parser.kind;
  }
  const parsed: ParsedFile[] = [];
  const failed: { file: string; message: string }[] = [];
  for (const file of files) {
    try {
      parsed.push(...(await parseFileAll(file, kind ? { kind } : {})));
    } catch (error) {
      if (error instanceof InputError) failed.push({ file, message: error.message });
      else throw error;
    }
  }
  if (parsed.length === 0)
    throw new InputError(failed.map((failure) => failure.message).join('\naifabric: '));
  const metrics: ParseMetrics = { files: parsed };
  if (failed.length > 0) metrics.failed = failed;
  const only = parsed[0];
  if (parsed.length === 1 && only?.kind === 'nccl-tests')
    metrics.tests = (only.facts as NcclTestsFacts).tests;
  const warnings = parsed.flatMap((file) =>
    file.warnings.map(
      (w) => `${parsedFileLabel(file)}${w.line === undefined ? '' : `:${w.line}`}: ${w.message}`,
    ),
  );
  return makeResult('parse', { files: [...files], kind: kind ?? null }, metrics, { warnings });
}
