/**
 * What aifabric knows about the testbeds it made, so that it never touches what it did not make:
 * - a state file `STATE_DIR/NAME.json` (spec, faults, namespaces, the leaf of each host, the CPU
 *   cgroups made for `cpu` faults, and `complete`, set only when `up` has finished: `run` refuses a
 *   half-built testbed);
 * - a lock file `STATE_DIR/NAME.lock` holding the pid of the `up` or `down` at work on NAME, so two
 *   of them never clobber each other; a lock whose process is gone is stale and is taken over;
 * - a marker in every namespace it creates (the alias of its `lo`), so `down` removes only those.
 * STATE_DIR is /run/aifabric/testbed (a tmpfs, like /run/netns where the namespaces live: both go
 * at reboot), or $AIFABRIC_TESTBED_STATE_DIR.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentError, writeFileAtomic } from '../core/index.js';
import type { Fault } from './faults.js';
import { run } from './exec.js';

export const DEFAULT_STATE_DIR = '/run/aifabric/testbed';

export function stateDir(): string {
  return process.env.AIFABRIC_TESTBED_STATE_DIR || DEFAULT_STATE_DIR;
}

export interface TestbedState {
  name: string;
  hosts: number;
  rateBps: number;
  bufferBytes: number;
  faults: Fault[];
  /** True only once `up` has built everything. */
  complete: boolean;
  upPid: number;
  createdAt: string;
  switchNamespace: string;
  hostNamespaces: string[];
  addresses: string[];
  /** Leaf switches: absent or 1 for a single switch (`br0`). */
  leaves?: number;
  /** Rate of each leaf's uplink to the spine, bits per second (only with leaves > 1). */
  uplinkRateBps?: number;
  /** The leaf of each host, by host index (`leafOf`): all 0 on a single switch. */
  hostLeaves?: number[];
  /** CPU cgroup folders made for `cpu` faults (cgroup.ts); recorded before they are made, removed by `down`. */
  cgroups?: string[];
}

const statePath = (name: string): string => join(stateDir(), `${name}.json`);
const lockPath = (name: string): string => join(stateDir(), `${name}.lock`);

function isState(value: unknown): value is TestbedState {
  if (typeof value !== 'object' || value === null) return false;
  const state = value as Partial<TestbedState>;
  return (
    typeof state.name === 'string' &&
    typeof state.complete === 'boolean' &&
    typeof state.hosts === 'number' &&
    Array.isArray(state.faults) &&
    Array.isArray(state.hostNamespaces)
  );
}

/** The state of testbed NAME; undefined when there is none (or it cannot be read as one). */
export function readState(name: string): TestbedState | undefined {
  let text: string;
  try {
    text = readFileSync(statePath(name), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isState(parsed) && parsed.name === name ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function writeState(state: TestbedState): void {
  try {
    writeFileAtomic(statePath(state.name), `${JSON.stringify(state, null, 2)}\n`);
  } catch (error) {
    throw new EnvironmentError(
      `cannot write ${statePath(state.name)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/**
 * Where Open MPI keeps the session directory of host NAMESPACE during `testbed mpirun`. The hosts
 * share one file system and one host name, so left to itself every daemon would use the same
 * `/tmp/ompi.HOSTNAME.UID/jf.N` and clobber the others' files (topology segment, PMIx stores, and the
 * whole folder when the first daemon to finish removes it). Removed with the state.
 */
export function mpiSessionBase(name: string, namespace: string): string {
  return join(stateDir(), `${name}.mpi`, namespace);
}

export function removeState(name: string): void {
  rmSync(join(stateDir(), `${name}.mpi`), { recursive: true, force: true });
  rmSync(statePath(name), { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is not ours to signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface LockHolder {
  pid: number;
  command: string;
}

function readLock(name: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockPath(name), 'utf8')) as Partial<LockHolder>;
    return typeof parsed.pid === 'number'
      ? { pid: parsed.pid, command: String(parsed.command ?? 'testbed') }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The live process holding NAME's lock, if any (a stale lock names a dead one: undefined). */
export function lockHolder(name: string): LockHolder | undefined {
  const holder = readLock(name);
  return holder && holder.pid !== process.pid && isAlive(holder.pid) ? holder : undefined;
}

/**
 * Takes NAME's lock for `command` (`testbed up`, `testbed down`) or fails with exit 3 naming the
 * holder. At most two attempts: the second only after removing a stale lock.
 */
export function acquireLock(name: string, command: string): () => void {
  try {
    mkdirSync(stateDir(), { recursive: true });
  } catch (error) {
    throw new EnvironmentError(
      `cannot create ${stateDir()}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  const path = lockPath(name);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new EnvironmentError(
          `cannot create ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        );
      const holder = readLock(name);
      if (holder && isAlive(holder.pid)) {
        throw new EnvironmentError(
          `testbed "${name}" is busy: \`aifabric ${holder.command}\` (pid ${holder.pid}) is at work on it (lock ${path})`,
        );
      }
      // Stale: its holder died (killed `up`). Take it over.
      rmSync(path, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, command }));
    } finally {
      closeSync(fd);
    }
    return () => {
      if (readLock(name)?.pid === process.pid) rmSync(path, { force: true });
    };
  }
  throw new EnvironmentError(`cannot take the lock ${path}: another process keeps taking it`);
}

/** The marker `up` leaves in each namespace it creates: the alias of the namespace's `lo`. */
export const markerFor = (name: string): string => `aifabric testbed ${name}`;

export async function markNamespace(namespace: string, name: string): Promise<void> {
  await run('ip', ['-n', namespace, 'link', 'set', 'dev', 'lo', 'alias', markerFor(name)]);
}

export async function isMarked(namespace: string, name: string): Promise<boolean> {
  try {
    const { stdout } = await run('ip', ['-n', namespace, 'link', 'show', 'dev', 'lo']);
    return stdout.split('\n').some((line) => line.trim() === `alias ${markerFor(name)}`);
  } catch {
    return false;
  }
}
