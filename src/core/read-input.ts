/**
 * Read a user-named input file (job, scenario, cluster, capture) without the ways that hang or
 * exhaust memory: a FIFO, a socket or a device such as /dev/zero is refused before any byte is read,
 * and a regular file larger than `maxBytes` is refused instead of being read whole.
 * Every failure is one InputError (exit 2) that names the file.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { InputError } from './errors.js';

/**
 * Default cap: 64 MiB. A spec file is a few KiB and the largest capture fixture we hold is under
 * 1 MB; anything bigger goes through a streaming parser, which does not use this helper.
 */
export const DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024;

/** Read in 1 MiB steps: large enough to be few syscalls, small enough to stop soon past the cap. */
const READ_CHUNK_BYTES = 1024 * 1024;

export interface ReadInputOptions {
  /** Refuse files longer than this many bytes (default DEFAULT_MAX_INPUT_BYTES). */
  maxBytes?: number;
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function describeOpenError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    default:
      return error.code ?? error.message;
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Read a whole regular file as UTF-8, refusing anything that could block or grow without bound. */
export function readInputFile(path: string, options: ReadInputOptions = {}): string {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_INPUT_BYTES;
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer would otherwise block here, before fstat can refuse it.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new InputError(`${path}: cannot read file (${describeOpenError(error as NodeJS.ErrnoException)})`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw new InputError(`${path}: cannot read file (${kindOf(stats)}, expected a regular file)`);
    if (stats.size > maxBytes) {
      throw new InputError(
        `${path}: cannot read file (${formatBytes(stats.size)} is larger than the limit of ${formatBytes(maxBytes)})`,
      );
    }
    // Files under /proc report size 0, so the cap is enforced on what is read, not on stat alone.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total));
      let count: number;
      try {
        count = readSync(fd, chunk, 0, chunk.length, null);
      } catch (error) {
        throw new InputError(
          `${path}: cannot read file (${describeOpenError(error as NodeJS.ErrnoException)})`,
        );
      }
      if (count === 0) break;
      chunks.push(chunk.subarray(0, count));
      total += count;
      if (total > maxBytes)
        throw new InputError(`${path}: cannot read file (larger than the limit of ${formatBytes(maxBytes)})`);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
