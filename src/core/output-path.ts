/**
 * The one place output paths are checked and written (`--out`, `demo --out`, `report --out`,
 * `--junit`, `--db`). Commands check before any work, so a long run never loses its result to a bad
 * path, and write atomically: a temporary file beside the target, then rename. Every failure is one
 * line, `cannot write PATH: REASON`: exit 2 when the path is wrong as given (a folder where a file
 * goes, a parent that is a file, a missing folder for the database), exit 3 when the system refuses
 * (permission, read-only file system, /proc or /sys, no space). After a failure neither PATH nor a
 * temporary file exists, and a file already at PATH is unchanged.
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  renameSync,
  rmdirSync,
  rmSync,
  statfsSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { EnvironmentError, UsageError, type AifabricError } from './errors.js';

/** statfs f_type of the kernel's virtual file systems, from linux/magic.h (PROC_SUPER_MAGIC, SYSFS_MAGIC). */
const VIRTUAL_FILE_SYSTEMS: Record<number, string> = { 0x9fa0: '/proc', 0x62656572: '/sys' };

/** errno codes that mean the path as given is wrong (exit 2); all others are the system refusing (exit 3). */
const USAGE_CODES = new Set(['EISDIR', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP', 'EEXIST']);

const REASON_BY_CODE: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is a file, not a folder',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  ENOENT: 'no such file or folder',
};

function usageError(path: string, reason: string): AifabricError {
  return new UsageError(`cannot write ${path}: ${reason}`);
}

function systemError(path: string, reason: string, cause?: unknown): AifabricError {
  return new EnvironmentError(`cannot write ${path}: ${reason}`, cause === undefined ? undefined : { cause });
}

/** An errno from the file system while writing `path`, classed as the contract wants. */
export function outputPathError(path: string, error: unknown): AifabricError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const reason = REASON_BY_CODE[code] ?? (error instanceof Error ? error.message : String(error));
  return USAGE_CODES.has(code) ? usageError(path, reason) : systemError(path, reason, error);
}

function statOrUndefined(path: string, reportAs: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file sits higher on the path; the walk up finds it and names it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw outputPathError(reportAs, error);
  }
}

/** The kernel's virtual file systems take no new files, and mkdir there fails in ways that make Node's recursive mkdir loop. */
function refuseVirtualFileSystem(existing: string, reportAs: string): void {
  let type: number;
  try {
    type = statfsSync(existing).type;
  } catch {
    return;
  }
  const name = VIRTUAL_FILE_SYSTEMS[type];
  if (name !== undefined)
    throw systemError(reportAs, `${name} is the kernel's virtual file system and takes no output files`);
}

interface Ancestor {
  /** The deepest folder on the path that exists. */
  existing: string;
  /** Folders under it that must be created, outermost first. */
  missing: string[];
}

/** Walks up from `folder` to the first existing ancestor, which must be a folder. Bounded by the path's depth. */
function findExistingAncestor(folder: string, reportAs: string): Ancestor {
  const missing: string[] = [];
  let current = resolve(folder);
  for (;;) {
    const stats = statOrUndefined(current, reportAs);
    if (stats) {
      if (!stats.isDirectory()) throw usageError(reportAs, `${current} is a file, not a folder`);
      return { existing: current, missing: missing.reverse() };
    }
    const parent = dirname(current);
    if (parent === current) throw usageError(reportAs, 'no part of the path exists');
    missing.push(current);
    current = parent;
  }
}

function temporaryNameBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Creating (and removing) a file proves the folder takes files: permission, read-only mounts and immutable folders all show here. */
function probeWritable(folder: string, reportAs: string): void {
  const probe = join(folder, `.aifabric-probe.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    closeSync(openSync(probe, 'wx'));
  } catch (error) {
    throw outputPathError(reportAs, error);
  }
  rmSync(probe, { force: true });
}

export interface CheckOutputFileOptions {
  /** Missing parent folders are created at write time (default); false makes them an error (the database). */
  createParents?: boolean;
}

/**
 * Checks, without writing anything that stays, that `path` can be written as a file. Throws the
 * one-line error (exit 2 or 3) when it cannot. Returns the folders that would need creating.
 */
export function checkOutputFile(path: string, options: CheckOutputFileOptions = {}): string[] {
  if (path === '') throw usageError('""', 'empty path');
  const stats = statOrUndefined(path, path);
  if (stats) {
    if (stats.isDirectory()) throw usageError(path, 'it is a folder, not a file');
    if (!stats.isFile()) throw usageError(path, 'it exists and is not a regular file');
  }
  const ancestor = findExistingAncestor(dirname(resolve(path)), path);
  if (ancestor.missing.length > 0 && options.createParents === false) {
    throw usageError(path, `folder ${dirname(path)} does not exist`);
  }
  refuseVirtualFileSystem(ancestor.existing, path);
  probeWritable(ancestor.existing, path);
  return ancestor.missing;
}

/** Checks that `folder` is, or can be created as, a folder that takes files. */
export function checkOutputFolder(folder: string): void {
  if (folder === '') throw usageError('""', 'empty path');
  const stats = statOrUndefined(folder, folder);
  if (stats && !stats.isDirectory()) throw usageError(folder, 'it is a file, not a folder');
  const ancestor = findExistingAncestor(folder, folder);
  refuseVirtualFileSystem(ancestor.existing, folder);
  probeWritable(ancestor.existing, folder);
}

/** Creates the missing folders one by one (never Node's recursive mkdir); returns those it made, outermost first. */
function createFolders(missing: readonly string[], reportAs: string): string[] {
  const created: string[] = [];
  try {
    for (const folder of missing) {
      mkdirSync(folder);
      created.push(folder);
    }
  } catch (error) {
    removeFolders(created);
    throw outputPathError(reportAs, error);
  }
  return created;
}

/** Removes folders this process created, innermost first; a folder something else filled stays. */
export function removeFolders(created: readonly string[]): void {
  for (const folder of [...created].reverse()) {
    try {
      rmdirSync(folder);
    } catch {
      return;
    }
  }
}

/** Checks and creates `folder`; returns the folders made, for removal if the work then fails. */
export function prepareOutputFolder(folder: string): string[] {
  checkOutputFolder(folder);
  return createFolders(findExistingAncestor(folder, folder).missing, folder);
}

function writeAll(fd: number, contents: string | Uint8Array): void {
  const bytes = typeof contents === 'string' ? Buffer.from(contents, 'utf8') : contents;
  let offset = 0;
  while (offset < bytes.length) {
    const written = writeSync(fd, bytes, offset, bytes.length - offset);
    // writeSync returns at least one byte or throws; guard anyway so this loop is bounded.
    if (written <= 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
    offset += written;
  }
}

/** Writes `contents` to `path` atomically, after the same checks as checkOutputFile. */
export function writeOutputFile(
  path: string,
  contents: string | Uint8Array,
  options: CheckOutputFileOptions = {},
): void {
  const missing = checkOutputFile(path, options);
  const created = createFolders(missing, path);
  const temporary = temporaryNameBeside(path);
  try {
    const fd = openSync(temporary, 'wx', 0o644);
    try {
      writeAll(fd, contents);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    removeFolders(created);
    throw outputPathError(path, error);
  }
}
