/**
 * `check --from DIR`: one host per subfolder (files in nested folders belong to that host), or the
 * folder itself as one host. Which one is decided by content, not names: when the top level holds a
 * capture that describes one machine (ibv_devinfo, topo, env, counters...), the folder is that host
 * and its subfolders are just its own sorting (counters/, logs/); otherwise the subfolders are hosts
 * and top-level files (a switch config, a job-wide nccl-tests log) form one more scope. Files are
 * recognised by content; what is not recognised becomes a note, never an error.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { InputError } from '../../core/errors.js';
import { parseFile } from '../../parse/index.js';
import type { Capture, CaptureKind, HostCaptures } from '../types.js';
import { recogniseText } from './recognise.js';

/** Above this a file is parsed by streaming (nccl-tests) and its text is not kept for line look-ups. */
const KEEP_TEXT_BYTES = 32 * 1024 * 1024;

/** Captures that can only describe one machine: their presence at the top level makes the folder a host. */
const HOST_KINDS: ReadonlySet<CaptureKind> = new Set(['ibv-devinfo', 'rdma-link', 'show-gids', 'nvidia-smi-topo', 'sysctl', 'nccl-env', 'ethtool', 'virt', 'dmi', 'cpuinfo', 'mlnx-qos']);

export interface CollectedHosts {
  hosts: HostCaptures[];
  notes: string[];
}

async function listFiles(dir: string, depth = 0): Promise<string[]> {
  if (depth > 8) return [];
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path, depth + 1)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}

async function readCapture(path: string, root: string, notes: string[]): Promise<Capture | null> {
  const source = relative(root, path) || basename(path);
  const size = (await stat(path)).size;
  if (size === 0) {
    notes.push(`${source}: empty file, skipped`);
    return null;
  }
  if (size > KEEP_TEXT_BYTES) {
    // Only nccl-tests logs grow this large; the streaming parser reads them without holding the text.
    try {
      const parsed = await parseFile(path, { kind: 'nccl-tests' });
      return { source, kind: 'nccl-tests', facts: parsed.facts as Capture<'nccl-tests'>['facts'], warnings: parsed.warnings };
    } catch {
      notes.push(`${source}: ${size} bytes and not an nccl-tests log, skipped`);
      return null;
    }
  }
  const text = await readFile(path, 'utf8');
  const recognised = recogniseText(text);
  if (!recognised) {
    // A capture of a tool that was not installed or failed holds only its error: quote it.
    const firstLine = text.trim().split('\n')[0] ?? '';
    const failed = text.length < 2048 && /command not found|not found|no such file|failed|permission denied|error/i.test(firstLine);
    notes.push(failed ? `${source}: the captured tool failed or was missing ("${firstLine.slice(0, 100)}"), skipped` : `${source}: not a recognised tool output, skipped`);
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

export async function collectFromDir(dir: string): Promise<CollectedHosts> {
  const root = resolve(dir);
  let info;
  try {
    info = await stat(root);
  } catch {
    throw new InputError(`--from ${dir}: no such folder`);
  }
  if (!info.isDirectory()) throw new InputError(`--from ${dir}: not a folder (expected a folder of captured tool outputs)`);
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    throw new InputError(`--from ${dir}: cannot read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const visible = entries.filter((entry) => !entry.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name));
  const subfolders = visible.filter((entry) => entry.isDirectory());
  const topFiles = visible.filter((entry) => entry.isFile()).map((entry) => join(root, entry.name));
  const notes: string[] = [];
  const hosts: HostCaptures[] = [];
  const top = await hostFrom(basename(root), topFiles, root, notes);
  if (subfolders.length === 0 || top.captures.some((capture) => HOST_KINDS.has(capture.kind))) {
    for (const folder of subfolders) top.captures.push(...(await hostFrom(folder.name, await listFiles(join(root, folder.name)), root, notes)).captures);
    hosts.push(top);
  } else {
    for (const folder of subfolders) hosts.push(await hostFrom(folder.name, await listFiles(join(root, folder.name)), root, notes));
    if (top.captures.length > 0) hosts.push(top);
  }
  const withCaptures = hosts.filter((host) => host.captures.length > 0);
  if (withCaptures.length === 0) throw new InputError(`--from ${dir}: no recognised tool output in this folder (${notes.length} file(s) looked at)`);
  for (const host of hosts) if (host.captures.length === 0) notes.push(`${host.host}: no recognised tool output, host left out`);
  return { hosts: withCaptures, notes };
}
