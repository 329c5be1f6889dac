/**
 * Parse a file on disk: detect its kind from its first MiB when none is given, then parse it,
 * streaming where the kind's parser can (nccl-tests logs run to hundreds of MB). Failures are
 * InputErrors naming the file, which the CLI turns into one line and exit 2.
 */
import { open, readFile } from 'node:fs/promises';
import { InputError } from '../core/errors.js';
import { parseNcclTestsFile } from './nccl-tests-stream.js';
import { detectKind, findParser, knownKinds } from './registry.js';
import { NotThisKindError, type ParserKind, type ParseWarning } from './types.js';

/** Enough for every tool's header: nccl-tests prints its own before NCCL's init log. */
const DETECT_HEAD_BYTES = 1 << 20;

export interface ParsedFile {
  file: string;
  kind: ParserKind;
  facts: unknown;
  warnings: ParseWarning[];
}

/** Parsers that read a stream line by line instead of one string. */
const streamingParsers: Partial<Record<ParserKind, (path: string) => Promise<{ facts: unknown; warnings: ParseWarning[] }>>> = {
  'nccl-tests': parseNcclTestsFile,
};

function describeIoError(file: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : error instanceof Error ? error.message : String(error);
  return new InputError(`${file}: cannot read (${reason})`);
}

async function readHead(file: string): Promise<string> {
  try {
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(DETECT_HEAD_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, DETECT_HEAD_BYTES, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw describeIoError(file, error);
  }
}

function firstContentLine(text: string): { line: number; excerpt: string } {
  const lines = text.split('\n', 2000);
  const index = lines.findIndex((line) => line.trim() !== '');
  if (index === -1) return { line: 1, excerpt: 'empty file' };
  return { line: index + 1, excerpt: JSON.stringify(lines[index]!.trim().slice(0, 60)) };
}

export async function parseFile(file: string, options: { kind?: ParserKind } = {}): Promise<ParsedFile> {
  const head = await readHead(file);
  const kind = options.kind ?? detectKind(head)?.kind;
  if (!kind) {
    const { line, excerpt } = firstContentLine(head);
    throw new InputError(`${file}: not a recognised tool output (line ${line}: ${excerpt}); known kinds: ${knownKinds().join(', ')}`);
  }
  const parser = findParser(kind);
  if (!parser) throw new InputError(`${file}: no parser for kind "${kind}" (known kinds: ${knownKinds().join(', ')})`);
  try {
    const streaming = streamingParsers[kind];
    if (streaming) {
      const result = await streaming(file);
      return { file, kind, facts: result.facts, warnings: result.warnings };
    }
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw describeIoError(file, error);
    }
    const result = parser.parse(text);
    return { file, kind, facts: result.facts, warnings: result.warnings };
  } catch (error) {
    if (error instanceof NotThisKindError) throw new InputError(`${file}: ${error.message}`);
    if (error instanceof Error && 'code' in error && typeof (error as NodeJS.ErrnoException).syscall === 'string') throw describeIoError(file, error);
    throw error;
  }
}
