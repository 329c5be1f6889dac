/**
 * The one runner of the built CLI (`node dist/cli/main.js ...`) for every end-to-end suite, as a user
 * would run it: an argument array, no shell, a timeout. Without a build it throws, saying to build
 * (`npm test` builds first), so an end-to-end suite fails rather than skipping. Never rejects
 * otherwise: the exit code, signal, stdout and stderr come back for asserting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_PATH = join(REPO_ROOT, 'dist', 'cli', 'main.js');

export interface CliRun {
  /** The exit code; null when a signal ended the process. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Wall-clock milliseconds from spawn to close. */
  ms: number;
}

export interface CliOptions {
  /** Defaults to the repository root. */
  cwd?: string;
  /** Added to this process's environment; AIFABRIC_DEBUG is empty and AIFABRIC_DB unset unless given. */
  env?: Record<string, string | undefined>;
  /** SIGKILL after this long (default 60 s). */
  timeoutMs?: number;
  /** Options for node itself, before the script (`--max-old-space-size=96`, `--import HOOK`). */
  nodeArgs?: readonly string[];
  /** Run through another command instead of `node dist/cli/main.js` (`ip netns exec NS node CLI`, `salloc ... node CLI`). */
  command?: readonly string[];
  /** Sees stdout as it arrives, to act mid-run. */
  onStdout?: (soFar: string, pid: number) => void;
  onSpawn?: (child: ChildProcess) => void;
}

/** Throws unless dist/ holds a build: an end-to-end test must fail, not skip, without one. */
export function requireBuild(): void {
  if (!existsSync(CLI_PATH))
    throw new Error(`${CLI_PATH} is missing: build first with \`npm run build\` (npm test does)`);
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  requireBuild();
  const started = Date.now();
  const [command, ...prefix] = options.command ?? [process.execPath, ...(options.nodeArgs ?? []), CLI_PATH];
  return new Promise((resolve) => {
    const child = spawn(command!, [...prefix, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, AIFABRIC_DEBUG: '', AIFABRIC_DB: undefined, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    let settled = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(stdout, child.pid ?? -1);
    });
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    };
    // A command that cannot start (a launcher not installed): exit 127, as a shell says it.
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
      if (child.pid === undefined) finish(127, null);
    });
    child.on('close', (code, signal) => finish(code, signal));
  });
}
