/**
 * The `cpu=F` fault: a CPU cgroup per capped host, `aifabric-NAME-hK`, whose CFS quota is F cores,
 * so a busy host cannot take more than its share of the cores that every emulated host shares.
 * cgroup v2 (a `cgroup2` mount whose cgroup.controllers lists `cpu`): `cpu.max` is "QUOTA PERIOD";
 * cgroup v1 (a `cgroup` mount with the `cpu` option): `cpu.cfs_period_us` and `cpu.cfs_quota_us`
 * (https://docs.kernel.org/admin-guide/cgroup-v2.html "cpu.max";
 * https://docs.kernel.org/scheduler/sched-bwc.html). `up` (or `testbed fault`) creates it, `testbed
 * run` starts each of the host's commands inside it (joinCgroup), `down` removes it.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentError } from '../core/errors.js';

/** The CFS period: 100 ms, the kernel's default (sched-bwc.html). */
export const CFS_PERIOD_US = 100_000;
/** The kernel's smallest quota: 1 ms (kernel/sched/core.c, min_cfs_quota_period). */
const MIN_QUOTA_US = 1000;

export interface CpuController {
  version: 1 | 2;
  /** The mount point of the hierarchy holding the cpu controller. */
  root: string;
}

/** Where the cpu controller is mounted, from /proc/mounts; undefined when there is none. */
export function findCpuController(mounts = readMounts()): CpuController | undefined {
  const lines = mounts.split('\n').map((line) => line.split(' '));
  for (const [, mountPoint, type] of lines) {
    if (type !== 'cgroup2' || mountPoint === undefined) continue;
    try {
      if (readFileSync(join(mountPoint, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu'))
        return { version: 2, root: mountPoint };
    } catch {
      // Not readable: not ours to use.
    }
  }
  for (const [, mountPoint, type, options] of lines) {
    if (type === 'cgroup' && mountPoint !== undefined && (options ?? '').split(',').includes('cpu'))
      return { version: 1, root: mountPoint };
  }
  return undefined;
}

function readMounts(): string {
  try {
    return readFileSync('/proc/mounts', 'utf8');
  } catch {
    return '';
  }
}

export const cgroupName = (namespace: string): string => `aifabric-${namespace}`;

/** The CFS quota in microseconds per CFS_PERIOD_US for F cores. */
export const quotaMicros = (cores: number): number =>
  Math.max(MIN_QUOTA_US, Math.round(cores * CFS_PERIOD_US));

function write(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new EnvironmentError(
      `cannot write "${text}" to ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

/** Creates (or updates) the cgroup of `namespace` with a quota of `cores`; returns its folder. */
export function createCpuCgroup(namespace: string, cores: number): string {
  const controller = findCpuController();
  if (!controller)
    throw new EnvironmentError(
      'the cpu fault needs a CPU cgroup controller (cgroup v2 with "cpu" in cgroup.controllers, or a cgroup v1 "cpu" mount); none is mounted',
    );
  const path = join(controller.root, cgroupName(namespace));
  if (controller.version === 2) {
    // Children get the cpu controller only when their parent's subtree_control enables it.
    try {
      if (!readFileSync(join(controller.root, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('cpu'))
        writeFileSync(join(controller.root, 'cgroup.subtree_control'), '+cpu');
    } catch (error) {
      throw new EnvironmentError(
        `cannot enable the cpu controller in ${controller.root}/cgroup.subtree_control: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      );
    }
  }
  try {
    mkdirSync(path, { recursive: true });
  } catch (error) {
    throw new EnvironmentError(
      `cannot create cgroup ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  const quota = quotaMicros(cores);
  if (controller.version === 2) write(join(path, 'cpu.max'), `${quota} ${CFS_PERIOD_US}`);
  else {
    write(join(path, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
    write(join(path, 'cpu.cfs_quota_us'), String(quota));
  }
  return path;
}

/**
 * The cgroups of testbed `name` found on the machine (named `aifabric-NAME-hK` under the cpu
 * controller's root): what `down` removes even when the state that recorded them is gone.
 */
export function findTestbedCgroups(name: string): string[] {
  const controller = findCpuController();
  if (!controller) return [];
  const pattern = new RegExp(`^${cgroupName(`${name}-h`)}\\d+$`);
  try {
    return readdirSync(controller.root)
      .filter((entry) => pattern.test(entry))
      .map((entry) => join(controller.root, entry));
  } catch {
    return [];
  }
}

/** Moves `pids` into the cgroup at `path` (processes already running on a host that gets a cap). */
export function moveIntoCgroup(path: string, pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      writeFileSync(join(path, 'cgroup.procs'), String(pid));
    } catch {
      // Gone meanwhile.
    }
  }
}

/**
 * Removes the cgroup at `path` (only one named by cgroupName: it is aifabric's). Its processes
 * should be dead by now (down kills them first); any still listed are moved to the parent first.
 * Returns whether it is gone.
 */
export async function removeCpuCgroup(path: string): Promise<boolean> {
  if (!/\/aifabric-[a-z0-9]+-h\d+$/.test(path)) return false;
  for (let attempt = 0; attempt < 20; attempt++) {
    if (!existsSync(path)) return true;
    try {
      rmdirSync(path);
      return true;
    } catch {
      // EBUSY: a process is still in it (a zombie being reaped, or one that escaped the kill).
      try {
        const pids = readFileSync(join(path, 'cgroup.procs'), 'utf8')
          .split('\n')
          .filter((pid) => /^\d+$/.test(pid))
          .map(Number);
        moveIntoCgroup(join(path, '..'), pids);
      } catch {
        // Already gone.
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return !existsSync(path);
}

/**
 * `command` started inside the cgroup at `path`: a shell writes its own pid into cgroup.procs and
 * then execs the command (same pid, so every process it starts is in the cgroup from its first
 * instruction). The path and the command are arguments of the shell, never parsed by it.
 */
export function joinCgroup(path: string, command: readonly string[]): string[] {
  return ['sh', '-c', 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"', 'sh', path, ...command];
}
