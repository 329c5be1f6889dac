/**
 * `check --from DIR`: one host per subfolder (files in nested folders belong to that host), or the
 * folder itself as one host. Which one is decided by content, not names: when the top level holds a
 * capture that describes one machine (ibv_devinfo, topo, env, counters...), the folder is that host
 * and its subfolders are just its own sorting (counters/, logs/); otherwise the subfolders are hosts
 * and top-level files (a switch config, a job-wide nccl-tests log) form one more scope. Two or more
 * subfolders that each describe a machine are hosts whatever stray file sits beside them. Files are
 * recognised by content; what is not recognised or cannot be read (a FIFO, a dangling link) becomes a
 * note naming it, never an error and never a blocking read.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { EnvironmentError, InputError } from '../../core/errors.js';
import { parseFile } from '../../parse/index.js';
import type { Capture, CaptureKind, HostCaptures } from '../types.js';
import { recogniseText } from './recognise.js';

/** Above this a file is parsed by streaming (nccl-tests) and its text is not kept for line look-ups. */
const KEEP_TEXT_BYTES = 32 * 1024 * 1024;
/** Folders deeper than this under --from are not read (a capture tree is host/tool files; a deeper one is a mistake or a loop). */
const MAX_DEPTH = 8;
/** A capture this short whose first line reads like a shell or tool error is the error of a missing or failed tool. */
const FAILED_TOOL_MAX_BYTES = 2048;

/** Captures that can only describe one machine: their presence at the top level makes the folder a host. */
const HOST_KINDS: ReadonlySet<CaptureKind> = new Set([
  'ibv-devinfo',
  'rdma-link',
  'show-gids',
  'nvidia-smi-topo',
  'sysctl',
  'nccl-env',
  'ethtool',
  'virt',
  'dmi',
  'cpuinfo',
  'mlnx-qos',
]);
/**
 * Host kinds that describe the whole machine rather than one interface: a subfolder holding one is a
 * host of its own, where a subfolder of only counters (ethtool) or per-port QoS is a host's own sorting.
 */
const ANCHOR_KINDS: ReadonlySet<CaptureKind> = new Set([
  'ibv-devinfo',
  'rdma-link',
  'show-gids',
  'nvidia-smi-topo',
  'sysctl',
  'nccl-env',
  'virt',
  'dmi',
  'cpuinfo',
]);
/** Kernel pseudo-filesystems: their files report size 0, vanish while listed and never hold captures. */
const PSEUDO_FILESYSTEMS = ['/proc', '/sys', '/dev'];

export interface CollectedHosts {
  hosts: HostCaptures[];
  notes: string[];
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

function fileTypeName(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/**
 * Regular files under `dir`, symlinks to files included. Anything that cannot be read without
 * blocking or looping (a FIFO, a device, a dangling link, a link to a folder) becomes a note naming it.
 */
async function listFiles(dir: string, root: string, notes: string[], depth = 0): Promise<string[]> {
  if (depth > MAX_DEPTH) return [];
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    notes.push(`${relative(root, dir)}: cannot read this folder (${errorCode(error)}), skipped`);
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path, root, notes, depth + 1)));
    else if (entry.isFile()) files.push(path);
    else {
      const note = await nonRegularNote(path, root, entry.isSymbolicLink(), files);
      if (note) notes.push(note);
    }
  }
  return files;
}

/** A symlink to a regular file joins `files`; anything else is described for the notes. */
async function nonRegularNote(
  path: string,
  root: string,
  isLink: boolean,
  files: string[],
): Promise<string | null> {
  const source = relative(root, path);
  let target: Stats;
  try {
    target = await stat(path);
  } catch (error) {
    return isLink
      ? `${source}: a symlink to a missing file, skipped`
      : `${source}: cannot read (${errorCode(error)}), skipped`;
  }
  if (target.isFile()) {
    files.push(path);
    return null;
  }
  if (target.isDirectory()) return `${source}: a symlink to a folder, not followed`;
  return `${source}: ${fileTypeName(target)}, not a captured file, skipped`;
}

async function readCapture(path: string, root: string, notes: string[]): Promise<Capture | null> {
  const source = relative(root, path) || basename(path);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    notes.push(`${source}: cannot read (${errorCode(error)}), skipped`);
    return null;
  }
  if (size === 0) {
    notes.push(`${source}: empty file, skipped`);
    return null;
  }
  if (size > KEEP_TEXT_BYTES) {
    // Only nccl-tests logs grow this large; the streaming parser reads them without holding the text.
    try {
      const parsed = await parseFile(path, { kind: 'nccl-tests' });
      return {
        source,
        kind: 'nccl-tests',
        facts: parsed.facts as Capture<'nccl-tests'>['facts'],
        warnings: parsed.warnings,
      };
    } catch {
      notes.push(`${source}: ${size} bytes and not an nccl-tests log, skipped`);
      return null;
    }
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    notes.push(`${source}: cannot read (${errorCode(error)}), skipped`);
    return null;
  }
  const recognised = recogniseText(text);
  if (!recognised) {
    // A capture of a tool that was not installed or failed holds only its error: quote it.
    const firstLine = text.trim().split('\n')[0] ?? '';
    const failed =
      text.length < FAILED_TOOL_MAX_BYTES &&
      /command not found|not found|no such file|failed|permission denied|error/i.test(firstLine);
    notes.push(
      failed
        ? `${source}: the captured tool failed or was missing ("${firstLine.slice(0, 100)}"), skipped`
        : `${source}: not a recognised tool output, skipped`,
    );
    return null;
  }
  return { source, kind: recognised.kind, facts: recognised.facts, text, warnings: recognised.warnings };
}

async function hostFrom(name: string, files: string[], root: string, notes: string[]): Promise<HostCaptures> {
  const captures: Capture[] = [];
  for (const file of files) {
    const capture = await readCapture(file, root, notes);
    if (capture) captures.push(capture);
  }
  return { host: name, captures };
}

function pseudoFilesystemOf(path: string): string | null {
  return PSEUDO_FILESYSTEMS.find((prefix) => path === prefix || path.startsWith(`${prefix}/`)) ?? null;
}

/**
 * Whether the top level is one host (its subfolders its own sorting) or the subfolders are hosts.
 * A stray file at the top (a generator script that quotes captures) must not turn a tree of host
 * folders into one host: two or more subfolders that each describe a machine are hosts, and so is a
 * single one when the top level holds nothing machine-wide of its own.
 */
function topLevelIsHost(top: HostCaptures, subHosts: HostCaptures[]): boolean {
  if (subHosts.length === 0) return true;
  if (!top.captures.some((capture) => HOST_KINDS.has(capture.kind))) return false;
  const hostLike = subHosts.filter((host) =>
    host.captures.some((capture) => ANCHOR_KINDS.has(capture.kind)),
  ).length;
  if (hostLike === 0) return true;
  return hostLike < 2 && top.captures.some((capture) => ANCHOR_KINDS.has(capture.kind));
}

export async function collectFromDir(dir: string): Promise<CollectedHosts> {
  const root = resolve(dir);
  let real: string;
  let info;
  try {
    real = await realpath(root);
    info = await stat(real);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new InputError(`--from ${dir}: no such folder`);
    throw new EnvironmentError(`--from ${dir}: cannot read (${code})`);
  }
  const pseudo = pseudoFilesystemOf(real);
  if (pseudo)
    throw new InputError(
      `--from ${dir}: a kernel pseudo-filesystem (${pseudo}), not a folder of captured tool outputs`,
    );
  if (!info.isDirectory())
    throw new InputError(`--from ${dir}: not a folder (expected a folder of captured tool outputs)`);
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    throw new EnvironmentError(`--from ${dir}: cannot read (${errorCode(error)})`);
  }
  const visible = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name));
  const subfolders = visible.filter((entry) => entry.isDirectory());
  const notes: string[] = [];
  const topFiles: string[] = [];
  for (const entry of visible) {
    if (entry.isDirectory()) continue;
    const path = join(root, entry.name);
    if (entry.isFile()) topFiles.push(path);
    else {
      const note = await nonRegularNote(path, root, entry.isSymbolicLink(), topFiles);
      if (note) notes.push(note);
    }
  }
  const top = await hostFrom(basename(root), topFiles, root, notes);
  const subHosts: HostCaptures[] = [];
  for (const folder of subfolders)
    subHosts.push(
      await hostFrom(folder.name, await listFiles(join(root, folder.name), root, notes), root, notes),
    );
  const hosts: HostCaptures[] = [];
  if (topLevelIsHost(top, subHosts)) {
    for (const host of subHosts) top.captures.push(...host.captures);
    hosts.push(top);
  } else {
    hosts.push(...subHosts);
    // Beside host folders, a capture that describes one machine belongs to no host: it is a stray
    // (a script quoting a capture, a copy), so it is named and left out rather than guessed at.
    const stray = top.captures.filter((capture) => HOST_KINDS.has(capture.kind));
    for (const capture of stray)
      notes.push(
        `${capture.source}: reads as ${capture.kind} output but sits beside the host folders (a host's captures go in its folder), ignored`,
      );
    top.captures = top.captures.filter((capture) => !HOST_KINDS.has(capture.kind));
    if (top.captures.length > 0) hosts.push(top);
  }
  const withCaptures = hosts.filter((host) => host.captures.length > 0);
  if (withCaptures.length === 0)
    throw new InputError(
      `--from ${dir}: no recognised tool output in this folder (${notes.length} file(s) looked at)`,
    );
  for (const host of hosts)
    if (host.captures.length === 0) notes.push(`${host.host}: no recognised tool output, host left out`);
  return { hosts: withCaptures, notes };
}
