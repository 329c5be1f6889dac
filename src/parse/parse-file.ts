/**
 * Parse a file on disk: detect its kind from its first MiB when none is given, then parse it,
 * streaming where the kind's parser can (nccl-tests logs run to hundreds of MB). Pastes are read
 * through the paste normaliser, and a paste with several pdsh/clush hosts gives one result per host.
 * Only regular files are read (a FIFO would block, /dev/zero never ends), and kinds read whole are
 * capped in size. Failures are InputErrors naming the file, which the CLI turns into one line and exit 2.
 */
import { constants, createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { InputError } from '../core/errors.js';
import { isIdentityPlan, planPaste } from './paste.js';
import { normaliseStream } from './paste-stream.js';
import { detectKind, findRawParser, knownKinds, parsePasteAs } from './registry.js';
import { isCompressedOrArchive, parseTraceFile } from './trace-files.js';
import { NotThisKindError, type ParserKind, type ParseWarning } from './types.js';

/** Enough for every tool's header: nccl-tests prints its own before NCCL's init log. */
const DETECT_HEAD_BYTES = 1 << 20;
/**
 * Kinds without a streaming parser are read whole; their real outputs are kilobytes (the largest
 * fixture is under 1 MB), so 64 MiB is far above any capture and far below what exhausts memory.
 */
export const MAX_WHOLE_READ_BYTES = 64 * 1024 * 1024;
/** Read in 1 MiB steps: few syscalls, and a read stops soon past the cap. */
const READ_CHUNK_BYTES = 1 << 20;

export interface ParsedFile {
  file: string;
  kind: ParserKind;
  /** The pdsh/clush host prefix of this part of the paste; absent when the file had none. */
  host?: string;
  facts: unknown;
  warnings: ParseWarning[];
}

function describeIoError(file: string, error: unknown): InputError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'is a directory'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'ENOTDIR'
            ? 'a part of the path is not a directory'
            : error instanceof Error
              ? error.message
              : String(error);
  return new InputError(`${file}: cannot read (${reason})`);
}

/** Open for reading without blocking (a FIFO with no writer would), then refuse what is not a regular file. */
async function openRegular(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw describeIoError(file, error);
  }
  const stats = await handle.stat();
  if (stats.isFile()) return handle;
  await handle.close();
  const what = stats.isDirectory()
    ? 'is a directory'
    : stats.isFIFO()
      ? 'a FIFO, not a regular file'
      : stats.isSocket()
        ? 'a socket, not a regular file'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device, not a regular file'
          : 'not a regular file';
  throw new InputError(`${file}: cannot read (${what})`);
}

async function readAtMost(
  handle: FileHandle,
  file: string,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    // Files under /proc report size 0: the cap holds on what is read, not on stat.
    while (total <= maxBytes) {
      const buffer = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return { text: Buffer.concat(chunks, total).toString('utf8'), complete: true };
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
  } catch (error) {
    throw describeIoError(file, error);
  }
  return { text: Buffer.concat(chunks, Math.min(total, maxBytes)).toString('utf8'), complete: false };
}

function firstContentLine(text: string): { line: number; excerpt: string } {
  const lines = text.split('\n', 2000);
  const index = lines.findIndex((line) => line.trim() !== '');
  if (index === -1) return { line: 1, excerpt: 'empty file' };
  return { line: index + 1, excerpt: JSON.stringify(lines[index]!.trim().slice(0, 60)) };
}

/** Every result the file holds: one, or one per host of a multi-host paste. */
export async function parseFileAll(
  file: string,
  options: { kind?: ParserKind; maxBytes?: number } = {},
): Promise<ParsedFile[]> {
  const maxBytes = options.maxBytes ?? MAX_WHOLE_READ_BYTES;
  const handle = await openRegular(file);
  // gzip and tar are binary: only the trace reader reads them (it sniffs the bytes itself).
  if (
    (options.kind === undefined || options.kind === 'pytorch-trace') &&
    (await isCompressedOrArchive(file))
  ) {
    await handle.close();
    return parseTraceFile(file);
  }
  let head: { text: string; complete: boolean };
  try {
    head = await readAtMost(handle, file, DETECT_HEAD_BYTES);
  } finally {
    await handle.close();
  }
  const kind = options.kind ?? detectKind(head.text)?.kind;
  if (!kind) {
    const { line, excerpt } = firstContentLine(head.text);
    throw new InputError(
      `${file}: not a recognised tool output (line ${line}: ${excerpt}); known kinds: ${knownKinds().join(', ')}`,
    );
  }
  const parser = findRawParser(kind);
  if (!parser)
    throw new InputError(`${file}: no parser for kind "${kind}" (known kinds: ${knownKinds().join(', ')})`);
  // Traces stream through their own reader (no paste normaliser, no size cap, the rank rule applied).
  if (kind === 'pytorch-trace') return parseTraceFile(file);
  try {
    const plan = planPaste(head.text.split('\n'));
    if (!head.complete && parser.parseStream && !plan.byHost) {
      // Too big to hold: the streaming form, with the paste normaliser line by line when the head needs it.
      const source = createReadStream(file, { highWaterMark: READ_CHUNK_BYTES });
      const result = await parser.parseStream(isIdentityPlan(plan) ? source : normaliseStream(source, plan));
      return [{ file, kind, facts: result.facts, warnings: result.warnings }];
    }
    let text = head.text;
    if (!head.complete) {
      const whole = await openRegular(file);
      try {
        const read = await readAtMost(whole, file, maxBytes);
        if (!read.complete)
          throw new InputError(
            `${file}: cannot read (larger than ${maxBytes / (1024 * 1024)} MiB, the limit for ${kind} files)`,
          );
        text = read.text;
      } finally {
        await whole.close();
      }
    }
    return parsePasteAs(kind, text).map((result) => ({
      file,
      kind,
      ...(result.host === null ? {} : { host: result.host }),
      facts: result.facts,
      warnings: result.warnings,
    }));
  } catch (error) {
    if (error instanceof NotThisKindError) throw new InputError(`${file}: ${error.message}`);
    if (
      error instanceof Error &&
      'code' in error &&
      typeof (error as NodeJS.ErrnoException).syscall === 'string'
    )
      throw describeIoError(file, error);
    throw error;
  }
}

/** The file's first result (the first host's, for a multi-host paste). */
export async function parseFile(
  file: string,
  options: { kind?: ParserKind; maxBytes?: number } = {},
): Promise<ParsedFile> {
  const [first] = await parseFileAll(file, options);
  return first!;
}
