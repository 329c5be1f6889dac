/**
 * Remove everything of a testbed: processes still running in its namespaces, then the namespaces
 * (deleting a namespace deletes the veth ends, bridge and qdiscs inside it). Idempotent: a
 * testbed that is partly or wholly gone is not an error.
 */
import { hostIndexes, hostNamespace, switchNamespace, validateName } from './names.js';
import { listNamespaces, requireNamespaces, run, runQuietly } from './exec.js';

export interface DownResult {
  name: string;
  removedNamespaces: string[];
  killedPids: number[];
}

async function killNamespacePids(namespace: string): Promise<number[]> {
  let pids: number[];
  try {
    const { stdout } = await run('ip', ['netns', 'pids', namespace]);
    pids = stdout.split(/\s+/).filter((pid) => /^\d+$/.test(pid)).map(Number);
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

export async function testbedDown(nameInput: string): Promise<DownResult> {
  const name = validateName(nameInput);
  await requireNamespaces();
  const existing = await listNamespaces();
  const mine = [...hostIndexes(name, existing).map((index) => hostNamespace(name, index)), switchNamespace(name)].filter((ns) => existing.includes(ns));
  const killedPids: number[] = [];
  for (const namespace of mine) killedPids.push(...(await killNamespacePids(namespace)));
  const removedNamespaces: string[] = [];
  for (const namespace of mine) if (await runQuietly('ip', ['netns', 'delete', namespace])) removedNamespaces.push(namespace);
  return { name, removedNamespaces, killedPids };
}
