/**
 * One command on one emulated host, as a launcher would start it on a real one: `ip netns exec
 * NAME-hK ...` (inside the host's CPU cgroup when it has a `cpu` fault), an argument array and never
 * a shell string, its own process group so a timeout or Ctrl-C kills everything it started, and
 * its output captured. Used by `aifabric accept --testbed` for each run it makes.
 */
import { spawn } from 'node:child_process';
import { joinCgroup } from './cgroup.js';
import { hostFault } from './faults.js';
import type { TestbedState } from './state.js';

export interface HostExecResult {
  /** Null when the command was killed (timeout or signal). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  wallS: number;
}

/** Output kept per stream: enough for any tool's JSON, bounded so a runaway command cannot fill memory. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

/** The argv that runs `command` on host `index` of the testbed (what `reproduce` shows). */
export function hostArgv(state: TestbedState, index: number, command: readonly string[]): string[] {
  const namespace = state.hostNamespaces[index];
  if (namespace === undefined) throw new Error(`internal: testbed ${state.name} has no host ${index}`);
  return ['ip', 'netns', 'exec', namespace, ...command];
}

export function execOnHost(
  state: TestbedState,
  index: number,
  command: readonly string[],
  options: { timeoutS: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<HostExecResult> {
  const argv = hostArgv(state, index, command);
  const namespace = state.hostNamespaces[index]!;
  const cgroup = hostFault(state.faults, index, 'cpu') !== undefined ? state.cgroups?.find((path) => path.endsWith(`/aifabric-${namespace}`)) : undefined;
  const [program, ...args] = cgroup ? joinCgroup(cgroup, argv) : argv;
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(program!, args, { env: { ...process.env, ...options.env, AIFABRIC_TESTBED_HOST: namespace }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_OUTPUT_BYTES) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_BYTES) stderr += chunk;
    });
    let timedOut = false;
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutS * 1000);
    const onAbort = (): void => killGroup();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, extra = ''): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever the command left behind in its group goes with it.
      killGroup();
      resolve({ exitCode, signal, stdout, stderr: stderr + extra, timedOut, wallS: (performance.now() - started) / 1000 });
    };
    child.on('error', (error) => finish(127, null, `${program}: ${error.message}\n`));
    child.on('close', (code, signal) => finish(code, signal));
  });
}
