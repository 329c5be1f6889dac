/**
 * `testbed run -- COMMAND ...`: the same command in every host namespace at once, each with
 * RANK, WORLD_SIZE, LOCAL_RANK=0, MASTER_ADDR (host 0's address) and MASTER_PORT set, as a
 * launcher would on N real hosts. The run fails if any host's command fails; Ctrl-C reaches all
 * of them, and none outlives the run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EnvironmentError, UsageError } from '../core/errors.js';
import { listNamespaces, requireNamespaces } from './exec.js';
import { TESTBED_MASTER_PORT, hostAddress, hostIndexes, hostNamespace, validateName } from './names.js';

export interface TestbedRunResult {
  exitCode: number;
  /** Exit code or signal per host. */
  hosts: (number | string)[];
}

/** After Ctrl-C, how long commands get to finish before they are killed. */
const KILL_GRACE_MS = 5_000;

export async function testbedRun(nameInput: string, command: string[], options: { timeoutS?: number } = {}): Promise<TestbedRunResult> {
  const name = validateName(nameInput);
  if (command.length === 0) throw new UsageError('testbed run: no command given (usage: aifabric testbed run [--name NAME] -- COMMAND ...)');
  await requireNamespaces();
  const hosts = hostIndexes(name, await listNamespaces());
  if (hosts.length === 0) throw new EnvironmentError(`testbed "${name}" does not exist: create it with \`aifabric testbed up --name ${name} --hosts N ...\``);
  const children: ChildProcess[] = [];
  const results: (number | string)[] = new Array<number | string>(hosts.length).fill(-1);
  const killAll = (signal: NodeJS.Signals): void => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  let graceTimer: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => (): void => {
    killAll(signal);
    graceTimer ??= setTimeout(() => killAll('SIGKILL'), KILL_GRACE_MS);
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const deadline = options.timeoutS ? setTimeout(() => killAll('SIGKILL'), options.timeoutS * 1000) : undefined;
  try {
    await Promise.all(
      hosts.map(
        (index, rank) =>
          new Promise<void>((resolve) => {
            const env = {
              ...process.env,
              RANK: String(rank),
              WORLD_SIZE: String(hosts.length),
              LOCAL_RANK: '0',
              MASTER_ADDR: hostAddress(hosts[0]!),
              MASTER_PORT: String(TESTBED_MASTER_PORT),
              AIFABRIC_TESTBED_HOST: hostNamespace(name, index),
            };
            const child = spawn('ip', ['netns', 'exec', hostNamespace(name, index), ...command], { env, stdio: ['ignore', 'inherit', 'inherit'] });
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
  return { exitCode: failed === undefined ? 0 : typeof failed === 'number' && failed > 0 ? failed : 3, hosts: results };
}
