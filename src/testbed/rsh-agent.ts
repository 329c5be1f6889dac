/**
 * The rsh agent of `testbed mpirun` (mpirun.ts), run by Open MPI as `node rsh-agent.js NAME HOST
 * COMMAND...` to start its daemon on HOST: HOST is a testbed address (10.99.0.K+1) or a host name
 * (NAME-hK, hK). COMMAND is the remote shell command line Open MPI builds, as it would hand it to ssh,
 * so it is run by `sh -c` in that host's namespace, inside the host's CPU cgroup when it has a `cpu`
 * fault. Exit: the command's; 2 for a host that is not in the testbed; 3 when the testbed is not there.
 */
import { spawn } from 'node:child_process';
import { hostFault } from './faults.js';
import { hostAddress } from './names.js';
import { joinCgroup } from './cgroup.js';
import { daemonEnv } from './mpirun.js';
import { readState, type TestbedState } from './state.js';

function hostIndex(state: TestbedState, host: string): number {
  const byAddress = state.hostNamespaces.findIndex(
    (_, index) => (state.addresses[index] ?? hostAddress(index)) === host,
  );
  if (byAddress >= 0) return byAddress;
  const byName = state.hostNamespaces.indexOf(host);
  if (byName >= 0) return byName;
  const short = /^h(\d+)$/.exec(host);
  return short ? (Number(short[1]) < state.hostNamespaces.length ? Number(short[1]) : -1) : -1;
}

function main(argv: string[]): void {
  const [name, host, ...command] = argv;
  const fail = (code: number, message: string): void => {
    process.stderr.write(`aifabric testbed rsh agent: ${message}\n`);
    process.exitCode = code;
  };
  if (name === undefined || host === undefined || command.length === 0)
    return fail(2, 'usage: rsh-agent.js NAME HOST COMMAND...');
  const state = readState(name);
  if (!state) return fail(3, `testbed "${name}" does not exist`);
  const index = hostIndex(state, host);
  if (index < 0)
    return fail(
      2,
      `host "${host}" is not in testbed "${name}" (its hosts: ${state.hostNamespaces.join(', ')})`,
    );
  const namespace = state.hostNamespaces[index]!;
  const inner = ['ip', 'netns', 'exec', namespace, 'sh', '-c', command.join(' ')];
  const cgroup =
    hostFault(state.faults, index, 'cpu') !== undefined
      ? state.cgroups?.find((path) => path.endsWith(`/aifabric-${namespace}`))
      : undefined;
  const [program, ...args] = cgroup ? joinCgroup(cgroup, inner) : inner;
  const child = spawn(program!, args, {
    env: daemonEnv(name, namespace),
    stdio: 'inherit',
  });
  child.on('error', (error) => fail(3, error.message));
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === 'SIGINT' ? 130 : 143);
  });
}

main(process.argv.slice(2));
