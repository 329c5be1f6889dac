/**
 * Remove everything of a testbed: processes still running in its namespaces, then the namespaces
 * (deleting a namespace deletes the veth ends, bridges and qdiscs inside it), the CPU cgroups of its
 * `cpu` faults (those its state names), then its state.
 * Only namespaces that aifabric made are touched (those that carry this testbed's marker, or that
 * the state of its unfinished `up` names): `NAME-h7` or `NAME-sw` made by someone else is left
 * alone and reported. Idempotent: a testbed that is partly or wholly gone is
 * not an error. `down` takes the testbed's lock, so it never races a running `up`.
 */
import type { Fault } from './faults.js';
import { findTestbedCgroups, removeCpuCgroup } from './cgroup.js';
import { listNamespaces, requireNamespaces, run, runQuietly } from './exec.js';
import { hostIndexes, hostNamespace, switchNamespace, validateName } from './names.js';
import { acquireLock, isMarked, readState, removeState } from './state.js';

export interface DownResult {
  name: string;
  removedNamespaces: string[];
  killedPids: number[];
  /** Namespaces named like this testbed's that aifabric did not make: left in place. */
  skippedNamespaces: string[];
  /** CPU cgroups of `cpu` faults removed. */
  removedCgroups: string[];
  /** The faults the testbed had (from its state), now gone with it. */
  faults: Fault[];
  /** Whether its `up` had finished; undefined when there was no state. */
  complete?: boolean;
}

async function killNamespacePids(namespace: string): Promise<number[]> {
  let pids: number[];
  try {
    const { stdout } = await run('ip', ['netns', 'pids', namespace]);
    pids = stdout
      .split(/\s+/)
      .filter((pid) => /^\d+$/.test(pid))
      .map(Number);
  } catch {
    return [];
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return pids;
}

/** The removal itself, for callers that hold the lock (`down`, and `up` cleaning up after itself). */
export async function removeTestbed(name: string): Promise<DownResult> {
  const state = readState(name);
  const existing = await listNamespaces();
  const named = new Set([
    ...hostIndexes(name, existing).map((index) => hostNamespace(name, index)),
    switchNamespace(name),
    ...(state ? [state.switchNamespace, ...state.hostNamespaces] : []),
  ]);
  const candidates = [...named].filter((ns) => existing.includes(ns));
  const mine: string[] = [];
  const skippedNamespaces: string[] = [];
  // Ours: marked by `up`; or named by the state of an `up` that did not finish (it may have been
  // killed between creating a namespace and marking it; it checked under the lock that none of
  // these names existed before it began).
  const listed = new Set(state && !state.complete ? [state.switchNamespace, ...state.hostNamespaces] : []);
  for (const namespace of candidates)
    (listed.has(namespace) || (await isMarked(namespace, name)) ? mine : skippedNamespaces).push(namespace);
  const killedPids: number[] = [];
  for (const namespace of mine) killedPids.push(...(await killNamespacePids(namespace)));
  const removedNamespaces: string[] = [];
  for (const namespace of mine)
    if (await runQuietly('ip', ['netns', 'delete', namespace])) removedNamespaces.push(namespace);
  const removedCgroups: string[] = [];
  let cgroupsLeft = false;
  for (const path of new Set([...(state?.cgroups ?? []), ...findTestbedCgroups(name)])) {
    if (await removeCpuCgroup(path)) removedCgroups.push(path);
    else cgroupsLeft = true;
  }
  if (removedNamespaces.length === mine.length && !cgroupsLeft) removeState(name);
  return {
    name,
    removedNamespaces,
    killedPids,
    skippedNamespaces,
    removedCgroups,
    faults: state?.faults ?? [],
    ...(state ? { complete: state.complete } : {}),
  };
}

export async function testbedDown(nameInput: string): Promise<DownResult> {
  const name = validateName(nameInput);
  await requireNamespaces();
  const release = acquireLock(name, 'testbed down');
  try {
    return await removeTestbed(name);
  } finally {
    release();
  }
}
