/**
 * `testbed run -- COMMAND ...`: the same command in every host namespace at once, each with
 * RANK, WORLD_SIZE, LOCAL_RANK=0, MASTER_ADDR (host 0's address) and MASTER_PORT set, as a
 * launcher would on N real hosts (and AIFABRIC_TESTBED_HOST, AIFABRIC_TESTBED_FAULTS). A host with a
 * `cpu` fault runs its command inside that fault's CPU cgroup (cgroup.ts joinCgroup). Only a
 * complete testbed made by `up` is run on. The run fails if any host's command fails; Ctrl-C reaches all
 * of them, and none outlives the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EnvironmentError, UsageError } from '../core/errors.js';
import { listNamespaces, requireNamespaces } from './exec.js';
import { joinCgroup } from './cgroup.js';
import { formatFault, hostFault, type Fault } from './faults.js';
import { TESTBED_MASTER_PORT, hostAddress, hostIndexes, validateName } from './names.js';
import { lockHolder, readState, stateDir, type TestbedState } from './state.js';

export interface TestbedRunResult {
  exitCode: number;
  /** Exit code or signal per host. */
  hosts: (number | string)[];
  /** The testbed's faults, from its state. */
  faults: Fault[];
  /** True when the commands outlived `timeoutS` and were killed. */
  timedOut: boolean;
}

/** The testbed to run on: complete, made by aifabric, and with every namespace still there. */
export async function completeTestbed(name: string): Promise<TestbedState> {
  const state = readState(name);
  const existing = await listNamespaces();
  const remove = `remove it with \`aifabric testbed down --name ${name}\``;
  if (!state) {
    if (hostIndexes(name, existing).length === 0)
      throw new EnvironmentError(
        `testbed "${name}" does not exist: create it with \`aifabric testbed up --name ${name} --hosts N ...\``,
      );
    throw new EnvironmentError(
      `testbed "${name}" was not made by \`aifabric testbed up\` (no state in ${stateDir()}): ${remove}, then run up`,
    );
  }
  if (!state.complete) {
    const holder = lockHolder(name);
    if (holder)
      throw new EnvironmentError(
        `testbed "${name}" is incomplete: \`aifabric ${holder.command}\` (pid ${holder.pid}) is still building it`,
      );
    throw new EnvironmentError(
      `testbed "${name}" is incomplete: its \`up\` (pid ${state.upPid}) did not finish; ${remove} and run up again`,
    );
  }
  const missing = [state.switchNamespace, ...state.hostNamespaces].find((ns) => !existing.includes(ns));
  if (missing !== undefined)
    throw new EnvironmentError(
      `testbed "${name}" is broken: namespace ${missing} is gone; ${remove} and run up again`,
    );
  return state;
}

/** After Ctrl-C, how long commands get to finish before they are killed. */
const KILL_GRACE_MS = 5_000;

export async function testbedRun(
  nameInput: string,
  command: string[],
  options: { timeoutS?: number } = {},
): Promise<TestbedRunResult> {
  const name = validateName(nameInput);
  if (options.timeoutS !== undefined && !(options.timeoutS > 0))
    throw new UsageError(`invalid value for --timeout: ${options.timeoutS} s (expected above 0)`);
  if (command.length === 0)
    throw new UsageError(
      'testbed run: no command given (usage: aifabric testbed run [--name NAME] -- COMMAND ...)',
    );
  await requireNamespaces();
  const state = await completeTestbed(name);
  const hosts = state.hostNamespaces;
  const children: ChildProcess[] = [];
  const results: (number | string)[] = new Array<number | string>(hosts.length).fill(-1);
  const killAll = (signal: NodeJS.Signals): void => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  let graceTimer: NodeJS.Timeout | undefined;
  // Ctrl-C (or TERM) ends the run as it ends any command: 128 + the signal, whatever the hosts' commands return.
  let interrupted: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => (): void => {
    interrupted ??= signal === 'SIGINT' ? 130 : 143;
    killAll(signal);
    graceTimer ??= setTimeout(() => killAll('SIGKILL'), KILL_GRACE_MS);
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  let timedOut = false;
  const deadline = options.timeoutS
    ? setTimeout(() => {
        timedOut = true;
        killAll('SIGKILL');
      }, options.timeoutS * 1000)
    : undefined;
  try {
    await Promise.all(
      hosts.map(
        (namespace, rank) =>
          new Promise<void>((resolve) => {
            const env = {
              ...process.env,
              RANK: String(rank),
              WORLD_SIZE: String(hosts.length),
              LOCAL_RANK: '0',
              MASTER_ADDR: state.addresses[0] ?? hostAddress(0),
              MASTER_PORT: String(TESTBED_MASTER_PORT),
              AIFABRIC_TESTBED_HOST: namespace,
              // The testbed's faults, as `up` was given them (canonical form), for tools that report them.
              AIFABRIC_TESTBED_FAULTS: state.faults.map(formatFault).join(','),
            };
            const argv = ['ip', 'netns', 'exec', namespace, ...command];
            const cgroup =
              hostFault(state.faults, rank, 'cpu') !== undefined
                ? state.cgroups?.find((path) => path.endsWith(`/aifabric-${namespace}`))
                : undefined;
            const [program, ...args] = cgroup ? joinCgroup(cgroup, argv) : argv;
            const child = spawn(program!, args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
            children.push(child);
            child.on('error', (error) => {
              results[rank] = `error: ${error.message}`;
              resolve();
            });
            child.on('exit', (code, signal) => {
              results[rank] = code ?? signal ?? -1;
              resolve();
            });
          }),
      ),
    );
  } finally {
    if (deadline) clearTimeout(deadline);
    if (graceTimer) clearTimeout(graceTimer);
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  const failed = results.find((code) => code !== 0);
  const exitCode =
    interrupted ?? (failed === undefined ? 0 : typeof failed === 'number' && failed > 0 ? failed : 3);
  return { exitCode, hosts: results, faults: state.faults, timedOut };
}
