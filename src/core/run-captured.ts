/**
 * One command as an argument array (never a shell string), in its own process group so that a
 * timeout, an abort or its own exit takes everything it started with it, its output captured up to
 * a bound. The testbed runs each emulated host's commands through it and `accept`'s launchers
 * (ssh, srun, mpirun, local) each of their runs.
 */
import { spawn } from 'node:child_process';

export interface CapturedRun {
  /** Null when the command was killed (timeout or signal). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  wallS: number;
}

/** Process groups of the runs still going, so that an interrupted caller can stop them all. */
const liveGroups = new Set<number>();
/** Set once the caller was interrupted: no new run starts after it. */
let refusing = false;

/** From now on runCaptured starts nothing: each call answers at once as a killed run. */
export function refuseNewCapturedRuns(): void {
  refusing = true;
}

/**
 * Signal every run still going, each as a whole process group: SIGTERM first lets srun cancel its
 * step and mpirun stop its remote daemons; SIGKILL takes whatever is left.
 */
export function signalCapturedRuns(signal: NodeJS.Signals): number {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, signal);
    } catch {
      liveGroups.delete(pid);
    }
  }
  return liveGroups.size;
}

/** Output kept per stream: enough for any tool's JSON, bounded so a runaway command cannot fill memory. */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export function runCaptured(
  argv: readonly string[],
  options: { timeoutS: number; env?: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<CapturedRun> {
  const [program, ...args] = argv;
  if (program === undefined) throw new Error('internal: runCaptured with an empty argv');
  const started = performance.now();
  if (refusing)
    return Promise.resolve({
      exitCode: null,
      signal: 'SIGTERM',
      stdout: '',
      stderr: 'interrupted\n',
      timedOut: false,
      wallS: 0,
    });
  return new Promise((resolve) => {
    const child = spawn(program, args, {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid !== undefined) liveGroups.add(child.pid);
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
      if (child.pid !== undefined) liveGroups.delete(child.pid);
      resolve({
        exitCode,
        signal,
        stdout,
        stderr: stderr + extra,
        timedOut,
        wallS: (performance.now() - started) / 1000,
      });
    };
    child.on('error', (error) => finish(127, null, `${program}: ${error.message}\n`));
    child.on('close', (code, signal) => finish(code, signal));
  });
}
